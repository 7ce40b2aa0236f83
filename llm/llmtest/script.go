package llmtest

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/bridle-dev/bridle/llm"
)

// Script decides the reply to each request. The server calls it for one
// request at a time, in the order the requests arrive, so a script may keep
// state without locking. A script that panics gets the request answered with
// status 500 and the panic in the message.
//
// A script is often a function of the request:
//
//	func(r *llmtest.Request) llmtest.Reply {
//		if len(r.LastToolResults()) > 0 {
//			return llmtest.Reply{Text: "done"}
//		}
//		return llmtest.Reply{Calls: []llmtest.Call{{Name: "read", Args: `{"path":"a.txt"}`}}}
//	}
type Script func(req *Request) Reply

// Replies returns a script that gives the replies in order, one per request.
// A request past the last reply is answered with status 500 and a message
// saying the script ran out.
func Replies(replies ...Reply) Script {
	var mu sync.Mutex
	next := 0
	return func(*Request) Reply {
		mu.Lock()
		defer mu.Unlock()
		next++
		if next > len(replies) {
			return Reply{Fault: &Fault{
				Status:  http.StatusInternalServerError,
				Message: fmt.Sprintf("llmtest: the script ran out: it has %d replies and this is request %d; add a reply to the script", len(replies), next),
			}}
		}
		return replies[next-1]
	}
}

// Reply is one scripted answer. The zero value is an empty reply that ends
// the turn. The content fields become parts in this order: Thinking (with
// Signature), RedactedThinking, Text, Calls.
type Reply struct {
	// Text is the reply's text; empty means none.
	Text string
	// Thinking is visible reasoning; Signature is sent with it byte for byte
	// (Anthropic). The OpenAI dialect sends Thinking as reasoning_content.
	Thinking, Signature string
	// RedactedThinking is the opaque data of a redacted thinking block
	// (Anthropic only; the OpenAI dialect leaves it out).
	RedactedThinking string
	// Calls are the tool calls the model makes.
	Calls []Call
	// Parts, when not nil, is the whole content and the fields above are
	// ignored. Tool calls without an ID get one. A text part's Citations
	// are sent as Anthropic citations or OpenAI annotations (their Raw when
	// set), a tool call's Raw is merged into the call, and a provider part
	// is written as its Raw block (Anthropic only).
	Parts []llm.Part
	// Stop is why the reply ends; empty means llm.StopToolUse when the
	// reply has tool calls, else llm.StopEnd. It is sent as the dialect's
	// own value (end_turn, tool_use, max_tokens, stop_sequence, refusal,
	// pause_turn; stop, tool_calls, length, content_filter); a reason with no
	// equivalent in the dialect is sent as it is.
	Stop llm.StopReason
	// RawStop, when not empty, is sent as the stop reason instead, for
	// provider values without a neutral name.
	RawStop string
	// Usage is the token count reported; the zero value means a small
	// non-zero count (10 input, 5 output). Input counts every input token,
	// cached or not, as in [llm.Usage].
	Usage llm.Usage
	// StreamError, when not empty, ends a streamed reply after its content
	// with an error event carrying this message: Anthropic "event: error"
	// with overloaded_error, OpenAI a data line holding {"error": ...}. A
	// whole reply is answered instead with the error and status 529
	// (Anthropic) or 503 (OpenAI).
	StreamError string
	// Fault, when not nil, injects a failure: an error status, extra
	// headers, a cut or stalled connection.
	Fault *Fault
}

// Call is a tool call in a [Reply].
type Call struct {
	// ID is the call's id; empty means one is made up ("toolu_…" for
	// Anthropic, "call_…" for OpenAI), unique within the server.
	ID string
	// Name is the tool called.
	Name string
	// Args is the JSON text of the arguments; empty means "{}". Text that
	// is not JSON is sent as it is where the wire carries JSON text (OpenAI
	// arguments, streamed fragments) and as a JSON string in a whole
	// Anthropic reply.
	Args string
}

// Fault is a failure injected into one answer. It takes the place of one
// scripted reply, so Replies(Reply{Fault: &Fault{Status: 429}}, Reply{Text: "ok"})
// tests a retry.
type Fault struct {
	// Status, when not 0, is the HTTP status of the answer, sent with Body
	// instead of the reply's content.
	Status int
	// Header is added to the answer, with or without a Status: for
	// example Retry-After, retry-after-ms or x-should-retry.
	Header http.Header
	// Body is the answer's body when Status is set; empty means the
	// dialect's error JSON built from Type, Message, Param and Code.
	Body string
	// Type is the provider's error type; empty means the one the provider
	// uses for Status (Anthropic rate_limit_error for 429, overloaded_error
	// for 529, ...; OpenAI invalid_request_error, server_error, ...).
	Type string
	// Message is the error message; empty means one fitting Status.
	Message string
	// Param and Code fill OpenAI's error fields of those names, as in a
	// refusal naming an unsupported parameter; Anthropic has none.
	Param, Code string
	// DropAfter, when above 0, cuts the answer off: a streamed reply after
	// that many SSE events (or all of them, when it has fewer), a whole
	// answer halfway through its body. The connection is closed without
	// ending the response, so the client sees a dropped connection.
	DropAfter int
	// Stall makes the server stop where DropAfter says (before answering
	// at all when DropAfter is 0) and hold the connection open, without
	// closing it, until the client gives up or the server closes. It tests
	// cancellation and time-outs.
	Stall bool
}
