package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"

	"github.com/bridle-dev/bridle/bench/internal/addtool"
)

// serveRaw answers server/discover, initialize and tools/call by hand, with
// encoding/json and one goroutine: the floor under every real server. Other
// requests get "method not found"; notifications are ignored. It serves
// stdio only.
func serveRaw(ctx context.Context, addr string) error {
	if addr != "" {
		return errors.New("the raw server serves stdio only")
	}
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	out := bufio.NewWriter(os.Stdout)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name            string          `json:"name"`
			ProtocolVersion string          `json:"protocolVersion"`
			Arguments       json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	enc := json.NewEncoder(out)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			req.ID, req.Method, req.Params.Name, req.Params.ProtocolVersion, req.Params.Arguments = nil, "", "", "", nil
			if err := json.Unmarshal(line, &req); err != nil {
				return err
			}
			if req.ID == nil {
				continue
			}
			var result any
			switch req.Method {
			case "server/discover":
				result = map[string]any{
					"resultType":        "complete",
					"_meta":             map[string]any{"io.modelcontextprotocol/serverInfo": serverInfo},
					"supportedVersions": []string{"2026-07-28", "2025-11-25"},
					"capabilities":      map[string]any{"tools": map[string]any{}},
				}
			case "initialize":
				result = map[string]any{
					"protocolVersion": req.Params.ProtocolVersion,
					"serverInfo":      serverInfo,
					"capabilities":    map[string]any{"tools": map[string]any{}},
				}
			case "tools/call":
				var args addtool.Args
				if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
					return err
				}
				result = map[string]any{
					"resultType": "complete",
					"content":    []map[string]any{{"type": "text", "text": addtool.Sum(args.A, args.B)}},
				}
			}
			reply := map[string]any{"jsonrpc": "2.0", "id": req.ID}
			if result != nil {
				reply["result"] = result
			} else {
				reply["error"] = map[string]any{"code": -32601, "message": "method not found: " + req.Method}
			}
			if err := enc.Encode(reply); err != nil {
				return err
			}
			if err := out.Flush(); err != nil {
				return err
			}
		}
		if err != nil {
			return nil // stdin closed
		}
	}
}

var serverInfo = map[string]string{"name": "bench-raw", "version": "1"}
