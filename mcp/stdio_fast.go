package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
)

// Over stdio, [Server.Run] answers tools/call requests for the tools of
// AddTools itself, without the SDK, once the SDK has shown how it answers
// such a call. The SDK decodes each message several times, with a fresh
// 32 KiB buffer each time, and starts a goroutine per call; answered here,
// a call costs the server a fraction of the time and memory (bench/README.md
// has the figures). Everything else — initialize, listings, resources, a
// call of a form the SDK has not answered yet, any message at all once
// SDK() was called — goes to the SDK.
//
// The answer is byte for byte the SDK's (TestFastAnswersAsTheSDK and
// FuzzFastCalls compare the two), so a client cannot tell which path
// answered. Whether the SDK accepts a call, and the shape of its result,
// depend on the session (a legacy session must be initialized; the
// revision it negotiated) and on the call's _meta (a 2026-07-28 call
// carries its revision, client capabilities and client info there, which
// the SDK validates, and gets the server's info and a resultType back).
// Both are learnt from the SDK itself: the first call of each _meta form
// goes to the SDK, and when it answers with a result, later calls whose
// _meta is byte for byte the same (progressToken aside, which the SDK
// leaves to the tool) are answered here in the shape it used. A handshake
// (initialize, notifications/initialized) forgets what was learnt.

// maxForms bounds the _meta forms a session remembers as proven, and the
// calls it has handed to the SDK to prove one: a client that varies its
// _meta call after call gets the SDK for every call, as before.
const maxForms = 64

// fastCalls is the part of Run that answers calls itself.
type fastCalls struct {
	s   *Server
	ctx context.Context // Run's, cancelled when Run returns
	out *lineWriter

	meta json.RawMessage // the _meta of a 2026-07-28 result: serverInfo
	work chan func()     // to idle workers

	// key is scratch space for the _meta form of the call being read;
	// only the reading goroutine uses it.
	key []byte

	mu      sync.Mutex
	running map[string]context.CancelFunc // by id, as the call wrote it
	proven  map[string]shape              // _meta forms the SDK answered with a result
	probes  map[string]probe              // by id: calls handed to the SDK to prove a form
	epoch   int                           // counts the handshakes, which may change the answers
}

// shape is how the SDK wrote the result of a proven form.
type shape struct {
	serverInfo bool // with _meta holding the server's info
	resultType bool // with resultType "complete"
}

// probe is a call handed to the SDK to prove its form.
type probe struct {
	form  string
	epoch int
}

func newFastCalls(ctx context.Context, s *Server, out *lineWriter) *fastCalls {
	f := &fastCalls{
		s:       s,
		ctx:     ctx,
		out:     out,
		work:    make(chan func()),
		running: make(map[string]context.CancelFunc),
		proven:  make(map[string]shape),
		probes:  make(map[string]probe),
	}
	f.meta, _ = json.Marshal(map[string]any{"io.modelcontextprotocol/serverInfo": s.impl})
	out.onResponse = f.answered
	return f
}

// serve answers the call sp holds and reports true, or reports false when
// the line must go to the SDK. It runs in the goroutine reading the input.
func (f *fastCalls) serve(sp requestSpans) bool {
	switch string(sp.method) {
	case `"notifications/cancelled"`:
		f.cancel(sp.params)
		return false
	case `"initialize"`, `"notifications/initialized"`:
		// The session's state changes: what was proven may no longer
		// hold.
		f.mu.Lock()
		clear(f.proven)
		clear(f.probes)
		f.epoch++
		f.mu.Unlock()
		return false
	case `"tools/call"`:
	default:
		return false
	}
	if f.s.sdkTaken.Load() || !canonicalID(sp.id) {
		return false
	}
	call, ok := scanCall(sp.params, f.key[:0])
	f.key = call.form
	if !ok {
		return false
	}
	t, ok := f.s.addedTool(string(call.name))
	if !ok {
		return false // the SDK answers an unknown tool
	}
	id := string(sp.id)
	f.mu.Lock()
	shape, proven := f.proven[string(call.form)]
	if !proven {
		if len(f.probes) < maxForms && len(f.proven) < maxForms {
			f.probes[id] = probe{string(call.form), f.epoch}
		}
		f.mu.Unlock()
		return false
	}
	if f.running[id] != nil {
		f.mu.Unlock()
		return false // a repeated id: the SDK decides
	}
	ctx, cancel := context.WithCancel(f.ctx)
	f.running[id] = cancel
	f.mu.Unlock()

	args := json.RawMessage(bytes.Clone(call.args)) // the line is reused after serve
	run := func() {
		defer cancel()
		out, err := t.Call(ctx, args)
		if err != nil {
			f.s.logger.Debug("tool call failed", "tool", t.Name, "error", err)
			out = err.Error()
		}
		f.mu.Lock()
		delete(f.running, id)
		f.mu.Unlock()
		f.out.fast(f.answer(id, out, err != nil, shape))
	}
	f.s.fastAnswered.Add(1)
	select {
	case f.work <- run:
	default:
		go f.worker(run)
	}
	return true
}

// worker runs call, then the calls handed to it while it waits, until Run
// returns. Workers keep their grown stacks from call to call, which a
// goroutine per call would grow again each time.
func (f *fastCalls) worker(call func()) {
	for {
		call()
		select {
		case call = <-f.work:
		case <-f.ctx.Done():
			return
		}
	}
}

// answered learns from the SDK's response to a call handed over to prove
// a _meta form: rest is what follows the id in the response. It runs in
// lineWriter.write, before the response is written.
func (f *fastCalls) answered(id, rest []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.probes[string(id)]
	if !ok {
		return
	}
	delete(f.probes, string(id))
	result, isResult := bytes.CutPrefix(rest, []byte(`,"result":`))
	if !isResult || p.epoch != f.epoch || len(f.proven) >= maxForms {
		return
	}
	result = result[:endOfValue(result, 0)]
	var sh shape
	ok = members(result, func(key, val []byte) bool {
		switch string(key) {
		case `"_meta"`:
			sh.serverInfo = bytes.Equal(val, f.meta)
			return sh.serverInfo
		case `"resultType"`:
			sh.resultType = string(val) == `"complete"`
			return sh.resultType
		case `"content"`, `"isError"`:
			return true
		}
		return false // a result this package would not write
	})
	if ok {
		f.proven[p.form] = sh
	}
}

// cancel cancels the call a notifications/cancelled names, if it is one
// of ours. The notification goes on to the SDK for the calls it runs.
func (f *fastCalls) cancel(params []byte) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	f.mu.Lock()
	cancel := f.running[string(p.RequestID)]
	f.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// fastResult is a tool result as the SDK writes the one of
// Server.toolHandler: one text content, and in a 2026-07-28 call the
// server's info and the result type.
type fastResult struct {
	Meta       json.RawMessage `json:"_meta,omitempty"`
	Content    [1]fastText     `json:"content"`
	IsError    bool            `json:"isError,omitempty"`
	ResultType string          `json:"resultType,omitempty"`
}

type fastText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// answer is the response line to call id, in the shape the SDK gave.
func (f *fastCalls) answer(id, text string, isError bool, sh shape) []byte {
	res := fastResult{IsError: isError}
	res.Content[0] = fastText{"text", text}
	if sh.serverInfo {
		res.Meta = f.meta
	}
	if sh.resultType {
		res.ResultType = "complete"
	}
	b, err := json.Marshal(&res)
	if err != nil { // cannot happen: every field marshals
		panic(err)
	}
	line := make([]byte, 0, len(b)+len(id)+40)
	line = append(line, `{"jsonrpc":"2.0","id":`...)
	line = append(line, id...)
	line = append(line, `,"result":`...)
	line = append(line, b...)
	return append(line, "}\n"...)
}

// callSpans are the members of a tools/call's params.
type callSpans struct {
	name, args []byte
	// form is the call's _meta without progressToken: what the SDK
	// validates.
	form []byte
}

// scanCall finds the members of a tools/call's params, appending its
// _meta form to form. It reports false for anything but the plain case:
// params with only name (a string without escapes), arguments (an object)
// and _meta (an object), each once, keys spelled without escapes.
func scanCall(params, form []byte) (callSpans, bool) {
	c := callSpans{form: form}
	var meta []byte
	ok := members(params, func(key, val []byte) bool {
		switch string(key) {
		case `"name"`:
			if c.name != nil || val[0] != '"' || bytes.IndexByte(val, '\\') >= 0 {
				return false
			}
			c.name = val[1 : len(val)-1]
		case `"arguments"`:
			if c.args != nil || val[0] != '{' {
				return false
			}
			c.args = val
		case `"_meta"`:
			if meta != nil || val[0] != '{' {
				return false
			}
			meta = val
		default:
			return false
		}
		return true
	})
	if !ok || c.name == nil {
		return c, false
	}
	if meta != nil {
		ok = members(meta, func(key, val []byte) bool {
			if bytes.IndexByte(key, '\\') >= 0 {
				return false
			}
			if string(key) == `"progressToken"` {
				return true
			}
			c.form = append(c.form, key...)
			c.form = append(c.form, ':')
			c.form = append(c.form, val...)
			c.form = append(c.form, ',')
			return true
		})
	}
	return c, ok
}

// canonicalID reports whether id is written as the SDK writes it back: a
// string without escapes and without U+2028 or U+2029 (which the SDK's
// encoder escapes), or an integer of at most 15 digits without a sign,
// fraction or exponent (the SDK reads numbers as float64 and writes them
// as integers).
func canonicalID(id []byte) bool {
	switch {
	case len(id) == 0:
		return false
	case id[0] == '"':
		return bytes.IndexByte(id, '\\') < 0 && !bytes.Contains(id, []byte("\u2028")) && !bytes.Contains(id, []byte("\u2029"))
	case id[0] == '0':
		return len(id) == 1
	case len(id) > 15:
		return false
	}
	for _, b := range id {
		if b < '0' || b > '9' {
			return false
		}
	}
	return true
}
