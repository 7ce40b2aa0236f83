package llm

import (
	"context"
	"iter"
	"log/slog"
	"net/http"
	"time"
)

// Client talks to one model provider. Both methods are safe for concurrent use.
type Client interface {
	// Send asks for a whole reply.
	Send(ctx context.Context, req *Request) (*Response, error)
	// Stream asks for a reply delivered piece by piece. The sequence ends
	// with one [EventDone] carrying the whole [Response], or stops at the
	// first error. Breaking out of the loop releases the connection.
	Stream(ctx context.Context, req *Request) iter.Seq2[Event, error]
}

// EventType says what an [Event] carries.
type EventType int

// The kinds of stream event.
const (
	// EventText carries a piece of reply text in Text.
	EventText EventType = iota + 1
	// EventThinking carries a piece of reasoning in Text.
	EventThinking
	// EventToolStart says a tool call began: Part has its ID and Name, no Args yet.
	EventToolStart
	// EventToolCall carries a complete tool call in Part, arguments assembled.
	EventToolCall
	// EventDone ends the stream: Response is the whole reply.
	EventDone
)

// Event is one piece of a streamed reply.
type Event struct {
	Type     EventType
	Text     string
	Part     Part
	Response *Response
}

// Collect drains a stream and returns its final response.
func Collect(seq iter.Seq2[Event, error]) (*Response, error) {
	for ev, err := range seq {
		if err != nil {
			return nil, err
		}
		if ev.Type == EventDone {
			return ev.Response, nil
		}
	}
	return nil, ErrStreamEnded
}

// Dialect is a wire protocol.
type Dialect string

// The dialects Bridle speaks.
const (
	Anthropic Dialect = "anthropic" // Anthropic Messages
	OpenAI    Dialect = "openai"    // OpenAI Chat Completions and compatible servers
)

// Config says how to reach a model. The zero value of each field means its
// default; Dialect and Model are required.
type Config struct {
	// Dialect is the wire protocol. Required.
	Dialect Dialect
	// BaseURL is the API root: "https://api.anthropic.com" for Anthropic,
	// "https://api.openai.com/v1" for OpenAI (the default for each dialect).
	// A query ("?key=K") is kept on every request; its values and a
	// password in the URL are masked in errors and logs.
	BaseURL string
	// Model is the model id sent with every request that does not name one.
	Model string
	// APIKey authenticates; empty sends no key (local servers).
	APIKey string
	// MaxTokens caps replies when a request does not; 0 means 4096.
	MaxTokens int
	// Extra fields are merged into every JSON request body as they are, and
	// win over what the client set; a nil value removes the field. A
	// parameter repair (see the package documentation) still wins over
	// Extra, since it follows the provider's own refusal.
	Extra map[string]any
	// Headers are added to every request, replacing the client's own
	// headers of the same name (anthropic-beta, for instance).
	Headers http.Header
	// HTTPClient sends the requests; nil means a client sharing one pool of
	// connections with a 10-minute wait for response headers and no
	// overall time-out (streams last as long as the reply; use the context).
	HTTPClient *http.Client
	// MaxRetries bounds retries of one request; 0 means 2, negative means none.
	MaxRetries int
	// MaxRetryWait caps one wait between attempts; 0 means 60 s. When a
	// provider's retry-after asks for longer, the client does not wait but
	// fails at once with a [*WaitError] saying when to try again.
	MaxRetryWait time.Duration
	// NoCache turns off Anthropic prompt-cache breakpoints.
	NoCache bool
	// Logger receives retries and repairs at Info and requests at Debug; nil
	// means none.
	Logger *slog.Logger
}
