package llm

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bridle-dev/bridle/internal/redact"
)

// dialect is what differs between wire protocols.
type dialect interface {
	// endpoint returns the URL requests go to under base.
	endpoint(base string) string
	// authorize sets the headers that carry the key and the version.
	authorize(h http.Header, key string)
	// build encodes req.
	build(req *Request, o buildOptions) (body, error)
	// decode reads a whole reply.
	decode(data []byte) (*Response, error)
	// decoder returns a new stream decoder.
	decoder() streamDecoder
	// rules returns the parameter repairs that apply to the dialect.
	rules() []*repairRule
	// origin names the dialect and host (see [Part.Origin]).
	origin() string
}

// buildOptions carries what the client decides for every request.
type buildOptions struct {
	model     string
	maxTokens int
	stream    bool
	noCache   bool
	// drop is told of provider data left out because it came from
	// another origin.
	drop func(what, origin string)
}

// transport is what both dialects share: HTTP, retries, repairs, Extra,
// headers and logging. Only fixes changes after New, under mu.
type transport struct {
	d          dialect
	url        string
	key        string
	model      string
	maxTokens  int
	noCache    bool
	extra      map[string]json.RawMessage
	headers    http.Header
	http       *http.Client
	maxRetries int
	maxWait    time.Duration
	log        *slog.Logger

	// The clock, replaced in tests so that nothing really waits.
	sleep  func(ctx context.Context, d time.Duration) error
	now    func() time.Time
	jitter func() float64 // in [0, 1)

	mu    sync.Mutex
	fixes map[string][]string // model → names of the repairs it needs
}

const (
	defaultMaxTokens  = 4096
	defaultMaxRetries = 2
	defaultMaxWait    = 60 * time.Second
	userAgent         = "bridle-llm/1"
)

// New returns a client for cfg. It fails when cfg has no dialect or no
// model, when BaseURL is not an http(s) URL, when the key holds spaces or
// control characters, or when Extra cannot be encoded as JSON.
func New(cfg Config) (Client, error) {
	switch cfg.Dialect {
	case Anthropic, OpenAI:
	case "":
		return nil, errors.New("llm: config has no dialect: set Dialect to llm.Anthropic or llm.OpenAI, or start from a preset (llm.FindPreset)")
	default:
		return nil, fmt.Errorf("llm: unknown dialect %q: use llm.Anthropic or llm.OpenAI", cfg.Dialect)
	}
	t, err := newTransport(cfg)
	if err != nil {
		return nil, err
	}
	return &client{t}, nil
}

// client is the [Client] New returns, whatever the dialect: what differs
// lives in the transport's wire encoding.
type client struct{ t *transport }

// Send asks for a whole reply.
func (c *client) Send(ctx context.Context, req *Request) (*Response, error) {
	return c.t.send(ctx, req)
}

// String names the model and where it is served, for logs and for
// [Fallback]'s reports: "gpt-5-mini (openai:api.openai.com)".
func (c *client) String() string { return c.t.model + " (" + c.t.d.origin() + ")" }

// Stream asks for a reply piece by piece.
func (c *client) Stream(ctx context.Context, req *Request) iter.Seq2[Event, error] {
	return c.t.stream(ctx, req)
}

func newTransport(cfg Config) (*transport, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("llm: config has no model: set Config.Model (local servers' presets have no default model)")
	}
	base, query, err := baseURL(cfg)
	if err != nil {
		return nil, err
	}
	var d dialect = openaiWire{from: originOf(cfg.Dialect, base)}
	if cfg.Dialect == Anthropic {
		d = anthropicWire{from: originOf(cfg.Dialect, base)}
	}
	if strings.ContainsFunc(cfg.APIKey, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return nil, errors.New("llm: the API key holds a space or a control character; check how it was set (a trailing newline?)")
	}
	extra, err := encodeExtra(cfg.Extra)
	if err != nil {
		return nil, err
	}
	t := &transport{
		d:          d,
		url:        d.endpoint(base) + query,
		key:        cfg.APIKey,
		model:      cfg.Model,
		maxTokens:  cmp.Or(cfg.MaxTokens, defaultMaxTokens),
		noCache:    cfg.NoCache,
		extra:      extra,
		headers:    cfg.Headers.Clone(),
		http:       cfg.HTTPClient,
		maxRetries: cmp.Or(cfg.MaxRetries, defaultMaxRetries),
		maxWait:    cmp.Or(cfg.MaxRetryWait, defaultMaxWait),
		log:        cfg.Logger,
		sleep:      sleepCtx,
		now:        time.Now,
		jitter:     rand.Float64,
		fixes:      map[string][]string{},
	}
	if t.http == nil {
		t.http = &http.Client{Transport: sharedTransport()}
	}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	if t.maxRetries < 0 {
		t.maxRetries = 0
	}
	return t, nil
}

// baseURL returns cfg.BaseURL, or the dialect's default, checked, without
// its query, and the query ("?key=K", or "") that every request keeps.
func baseURL(cfg Config) (base, query string, err error) {
	base = cfg.BaseURL
	if base == "" {
		base = map[Dialect]string{Anthropic: anthropicBase, OpenAI: openaiBase}[cfg.Dialect]
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", fmt.Errorf("llm: BaseURL %q is not an http or https URL", redact.URL(cfg.BaseURL))
	}
	base, query, _ = strings.Cut(base, "?")
	base, _, _ = strings.Cut(base, "#")
	if query != "" {
		query = "?" + query
	}
	return strings.TrimRight(base, "/"), query, nil
}

// originOf names where provider data comes from (see [Part.Origin]).
func originOf(d Dialect, base string) string {
	u, _ := url.Parse(base) // checked by baseURL
	return string(d) + ":" + u.Host
}

// sharedTransport is the HTTP transport of clients made without an
// HTTPClient, shared so that they share connections.
var sharedTransport = sync.OnceValue(func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	// A whole reply can take minutes; a stream answers at once.
	t.ResponseHeaderTimeout = 10 * time.Minute
	return t
})

// call is one request made ready to send, and sent again on a retry.
type call struct {
	model  string
	body   body
	data   []byte
	stream bool
}

// prepare encodes req: the dialect's fields, then Extra over them, then the
// repairs the model is known to need, over both.
func (t *transport) prepare(req *Request, stream bool) (*call, error) {
	if req == nil {
		return nil, errors.New("llm: nil request")
	}
	if len(req.Messages) == 0 {
		return nil, errors.New("llm: the request has no messages; add at least one user message")
	}
	if err := checkOutput(req.Output); err != nil {
		return nil, err
	}
	model := cmp.Or(req.Model, t.model)
	b, err := t.d.build(req, buildOptions{
		model:     model,
		maxTokens: cmp.Or(req.MaxTokens, t.maxTokens),
		stream:    stream,
		noCache:   t.noCache,
		drop: func(what, origin string) {
			t.log.Debug("llm: provider data left out of the request: it came from another provider",
				"what", what, "from", origin, "to", t.d.origin())
		},
	})
	if err != nil {
		return nil, err
	}
	b.merge(t.extra)
	t.applyKnownFixes(model, b)
	return &call{model: model, body: b, data: b.encode(), stream: stream}, nil
}

// newRequest makes the HTTP request for c.
func (t *transport) newRequest(ctx context.Context, c *call) (*http.Request, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(c.data))
	if err != nil {
		return nil, fmt.Errorf("llm: %w", err)
	}
	h := r.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", userAgent)
	if c.stream {
		h.Set("Accept", "text/event-stream")
	} else {
		h.Set("Accept", "application/json")
	}
	t.d.authorize(h, t.key)
	for k, vs := range t.headers {
		h[http.CanonicalHeaderKey(k)] = slices.Clone(vs)
	}
	t.log.DebugContext(ctx, "llm request", "url", redact.URL(t.url), "model", c.model,
		"stream", c.stream, "bytes", len(c.data))
	return r, nil
}
