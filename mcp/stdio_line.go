package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxLineBytes is the longest message, in bytes, that [Server.Run]
// accepts on one line; a longer line is answered with an error and
// skipped.
const maxLineBytes = 16 << 20

var errLineTooLong = errors.New("line too long")

// readLine returns the next line of br, or nil and errLineTooLong after
// skipping a line longer than max. Blank lines come back as nil. The line
// is valid until the next call.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var long []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if !tooLong {
				if len(long)+len(chunk) > max {
					tooLong, long = true, nil
				} else {
					long = append(long, chunk...)
				}
			}
			continue
		}
		if tooLong {
			return nil, errLineTooLong // an error of the reader shows on the next call
		}
		line := chunk
		if long != nil {
			line = append(long, chunk...)
		}
		if len(line) > max {
			return nil, errLineTooLong
		}
		if line = trimJSONSpace(line); len(line) == 0 {
			return nil, err
		}
		return line, err
	}
}

// trimJSONSpace cuts the whitespace JSON allows (space, tab, CR, LF) from
// both ends of b. Other spaces (NBSP, \v) are not JSON's: a line holding
// them outside a string is not JSON.
func trimJSONSpace(b []byte) []byte {
	return bytes.Trim(b, " \t\r\n")
}

// lineFilter decodes lines for the SDK session and answers those it
// cannot take.
type lineFilter struct {
	// noBatches is set once the session negotiated a protocol revision
	// without JSON-RPC batches.
	noBatches bool
}

// decode returns the messages of line, a JSON-RPC message or a batch of
// them, decoded by the SDK's decoder; or the error line to answer it with.
// running reports whether a call with that id is being served.
func (f *lineFilter) decode(line []byte, running func(jsonrpc.ID) bool) (msgs []jsonrpc.Message, batched bool, reply []byte) {
	// The SDK's decoder reads the first value and ignores what follows it.
	if !json.Valid(line) {
		return nil, false, parseError()
	}
	if line[0] != '[' {
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			return nil, false, invalidRequest(line, err)
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "initialize" {
			f.noBatches = !batchesAllowed(req.Params)
		}
		return []jsonrpc.Message{msg}, false, nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(line, &raws); err != nil {
		return nil, false, invalidRequest(line, err)
	}
	if f.noBatches {
		return nil, false, errorLine(nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not part of the negotiated protocol revision; send one message per line")
	}
	if len(raws) == 0 {
		return nil, false, errorLine(nil, jsonrpc.CodeInvalidRequest, "invalid request: the batch is empty")
	}
	ids := make(map[jsonrpc.ID]bool, len(raws))
	for _, raw := range raws {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return nil, false, errorLine(nil, jsonrpc.CodeInvalidRequest, "invalid request: a message in the batch is not a JSON-RPC message: "+err.Error())
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			if ids[req.ID] {
				return nil, false, errorLine(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: the batch repeats the id %v; give each call its own id", req.ID.Raw()))
			}
			if running(req.ID) {
				return nil, false, errorLine(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: the batch reuses the id %v of a call still running; give each call its own id", req.ID.Raw()))
			}
			ids[req.ID] = true
		}
		msgs = append(msgs, msg)
	}
	return msgs, true, nil
}

// batchesAllowed reports whether the revision an initialize request leads
// to still has JSON-RPC batches (they went away in 2025-06-18). The SDK
// answers a revision it does not know with its newest handshake revision.
func batchesAllowed(params json.RawMessage) bool {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	switch p.ProtocolVersion {
	case "2024-11-05", "2025-03-26":
		return true
	}
	return false
}

func parseError() []byte {
	return errorLine(nil, jsonrpc.CodeParseError, "parse error: the message is not valid JSON")
}

// invalidRequest answers JSON that is not a JSON-RPC message, with the
// message's id when it has a usable one.
func invalidRequest(line []byte, why error) []byte {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	var id json.RawMessage
	if json.Unmarshal(line, &probe) == nil && len(probe.ID) > 0 && (probe.ID[0] == '"' || probe.ID[0] == '-' || probe.ID[0] >= '0' && probe.ID[0] <= '9') {
		id = probe.ID
	}
	return errorLine(id, jsonrpc.CodeInvalidRequest, "invalid request: "+why.Error())
}

// errorLine is a JSON-RPC error response line for a line the session
// never received. The SDK's encoder leaves out a null id, which JSON-RPC
// requires on errors about unreadable requests.
func errorLine(id json.RawMessage, code int64, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, &jsonrpc.Error{Code: code, Message: message}})
	if err != nil { // cannot happen: every field marshals
		panic(err)
	}
	return append(b, '\n')
}
