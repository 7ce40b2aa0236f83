// Package llmtest is a scripted model server for tests that must not touch
// the network or spend tokens. One [Server] speaks both wire dialects of
// package llm — Anthropic Messages at POST /v1/messages and OpenAI Chat
// Completions at POST /v1/chat/completions — whole or streamed, as each
// request asks.
//
// A [Script] decides each reply: [Replies] gives a fixed list in order, and
// any function of the [Request] can answer by what the client sent ("if the
// last message is a tool result, answer with text"). A [Reply] holds text,
// thinking, redacted thinking and tool calls, and may carry a [Fault]: an
// error status with headers such as retry-after, a connection dropped
// mid-stream, a stalled answer. Streams have the event sequences the
// providers send, with text and tool arguments split into pieces.
//
// The server records every request in neutral form ([Server.Requests]) so a
// test can check what its client sent: the system prompt, the messages with
// their tool calls, results and thinking signatures, the tools offered. API
// keys never appear in a record.
//
//	srv := llmtest.NewServer(llmtest.Replies(
//		llmtest.Reply{Calls: []llmtest.Call{{Name: "read", Args: `{"path":"go.mod"}`}}},
//		llmtest.Reply{Text: "It is a Go module."},
//	))
//	defer srv.Close()
//	cfg := srv.Config(llm.Anthropic) // or llm.OpenAI
//	// ... run the agent with a client made from cfg, then:
//	results := srv.Requests()[1].LastToolResults()
package llmtest
