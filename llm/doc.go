// Package llm is a client for language models: one set of neutral types
// (messages with parts, tool specs, requests, replies, usage) over the two
// wire protocols every provider speaks, Anthropic Messages and OpenAI Chat
// Completions, whole or streamed.
//
// A [Client] comes from [New] with a [Config]; [FindPreset] and
// [ConfigFromEnv] fill one in for the known providers (anthropic, openai,
// ollama, openrouter, groq, deepseek, mistral, gemini, xai, together,
// lmstudio, llamacpp, vllm). [Client.Stream] returns a Go iterator that
// ends with an [EventDone] carrying the whole [Response]; [Collect] drains
// one.
//
// Every request is retried on 408, 409, 429, 5xx (Anthropic's 529 too) and
// dropped connections, as long as nothing of a streamed reply reached the
// caller, honouring retry-after-ms and retry-after; [WithRetryObserver]
// reports each retry. When a provider refuses a parameter with a 400 that
// names it, the client applies a known fix (max_tokens →
// max_completion_tokens, dropping temperature, and so on), sends again, and
// remembers the fix for that model. Errors the client does not retry come
// back as [*APIError].
//
// Claude's thinking and redacted-thinking blocks go back to the API exactly
// as received, and prompt-cache breakpoints are set on the tools, the
// system prompt and the latest user turns unless [Config.NoCache] is set.
// What else only a provider understands — Claude's server-tool and
// compaction blocks ([PartProvider]), Gemini's thought signatures on tool
// calls ([Part.Raw]) — goes back unchanged to the same [Part.Origin] and is
// left out for any other. Citations are kept on text parts ([Citation]).
//
// [Fallback] makes one client of several, moving on when a provider is
// down. [Request.Output] asks for a reply that matches a JSON Schema;
// [Decode] and [Structured] read it into a Go value.
//
// Stream decoders tolerate what they do not know: event types, delta types
// and fields added later are skipped. A stream that ends before the reply
// is complete is an error wrapping [ErrStreamEnded] that names what never
// arrived.
//
// The package llm/llmtest is a scripted server that speaks both dialects,
// for tests with no network and no key.
package llm
