//go:build unix

package mcp

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/tool"
)

// quick is a close timeout for servers that are meant to be stopped hard.
var quick = &ClientOptions{CloseTimeout: 20 * time.Millisecond}

func TestCommandRoundTrip(t *testing.T) {
	ctx := t.Context()
	s, err := ConnectCommand(ctx, "faulty", helperCommand(t, "sdk"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if got := s.Name(); got != "faulty" {
		t.Errorf("Name() = %q, want faulty", got)
	}
	if got := s.Instructions(); got != "Tools that fail on purpose." {
		t.Errorf("Instructions() = %q", got)
	}
	tools, err := s.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	risks := map[string]tool.Risk{}
	for _, tl := range tools {
		risks[tl.Name] = tl.Risk
	}
	want := map[string]tool.Risk{"ok": tool.Read, "env": tool.Exec, "crash": tool.Exec, "hang": tool.Exec, "garble": tool.Exec}
	for name, r := range want {
		if got, ok := risks[name]; !ok || got != r {
			t.Errorf("tool %s: risk %v (listed %v), want %v", name, got, ok, r)
		}
	}
	out, err := findTool(t, tools, "ok").Call(ctx, nil)
	if err != nil || out != "fine" {
		t.Errorf("ok() = %q, %v; want fine", out, err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	assertReaped(t, s)
}

func TestCommandPassesEnvironmentAndDirectory(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	c := helperCommand(t, "sdk", "BRIDLE_TEST_VALUE=hello")
	c.Dir = dir
	s, err := ConnectCommand(ctx, "env", c, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out, err := callTool(t, s, "env", "")
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if want := "hello\n" + real; out != want && out != "hello\n"+dir {
		t.Errorf("env() = %q, want %q", out, want)
	}
}

func TestCommandFaultsNameTheServer(t *testing.T) {
	tests := []struct {
		name   string
		server string
		call   string        // tool to call; "" means the fault shows at connect
		ctx    time.Duration // deadline for the call, if any
		want   []string      // pieces of the error
		is     error
	}{
		{
			name:   "a server that dies mid-call says how it died",
			server: "sdk", call: "crash",
			want: []string{`mcp server "faulty"`, `calling tool "crash"`, "exit status 3", "out of cheese"},
		},
		{
			name:   "a server that hangs past the deadline gives the deadline error",
			server: "sdk", call: "hang", ctx: 50 * time.Millisecond,
			want: []string{`mcp server "faulty"`, `calling tool "hang"`, "deadline exceeded"},
			is:   context.DeadlineExceeded,
		},
		{
			name:   "a server that writes garbage on stdout mid-call is called out",
			server: "sdk", call: "garble",
			want: []string{`mcp server "faulty"`, `calling tool "garble"`, "not JSON-RPC on stdout"},
		},
		{
			name:   "a server that writes garbage before the handshake is called out",
			server: "garbage",
			want:   []string{`mcp server "faulty"`, "connecting", "not JSON-RPC on stdout"},
		},
		{
			name:   "a server that exits before the handshake says why",
			server: "broken",
			want:   []string{`mcp server "faulty"`, "connecting", "exit status 4", "/etc/example.toml not found"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			s, err := ConnectCommand(ctx, "faulty", helperCommand(t, tt.server), quick)
			if tt.call != "" {
				if err != nil {
					t.Fatal(err)
				}
				callCtx := ctx
				if tt.ctx > 0 {
					var cancel context.CancelFunc
					callCtx, cancel = context.WithTimeout(ctx, tt.ctx)
					defer cancel()
				}
				tools, lerr := s.Tools(ctx)
				if lerr != nil {
					t.Fatal(lerr)
				}
				_, err = findTool(t, tools, tt.call).Call(callCtx, nil)
			}
			if err == nil {
				t.Fatal("no error")
			}
			t.Logf("error: %v", err)
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
			if s != nil {
				s.Close()
				assertReaped(t, s)
			}
			// The client goes on: a fresh session works.
			s2, err := ConnectCommand(ctx, "healthy", helperCommand(t, "sdk"), quick)
			if err != nil {
				t.Fatal(err)
			}
			if out, err := callTool(t, s2, "ok", ""); err != nil || out != "fine" {
				t.Errorf("ok() after the fault = %q, %v", out, err)
			}
			s2.Close()
		})
	}
}

func TestCommandConnectErrors(t *testing.T) {
	tests := []struct {
		name string
		cmd  Command
		want string
	}{
		{"a missing program is named", Command{Path: "/nonexistent/mcp-server"}, `mcp server "x": starting /nonexistent/mcp-server`},
		{"an empty path says what to set", Command{}, "set Command.Path"},
		{"a bad environment entry is named", Command{Path: "true", Env: []string{"NOVALUE"}}, `"NOVALUE" is not KEY=value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ConnectCommand(t.Context(), "x", tt.cmd, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ConnectCommand() = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestCommandCloseStopsServersThatLinger(t *testing.T) {
	for _, server := range []string{"lingering", "stubborn"} {
		t.Run("a "+server+" server is stopped and reaped", func(t *testing.T) {
			s, err := ConnectCommand(t.Context(), server, helperCommand(t, server), quick)
			if err != nil {
				t.Fatal(err)
			}
			if out, err := callTool(t, s, "ok", ""); err != nil || out != "fine" {
				t.Fatalf("ok() = %q, %v", out, err)
			}
			if err := s.Close(); err != nil {
				t.Errorf("Close() = %v", err)
			}
			assertReaped(t, s)
			if err := s.Close(); err != nil {
				t.Errorf("second Close() = %v", err)
			}
		})
	}
}

func TestCommandStderrIsNeverLost(t *testing.T) {
	t.Run("a writer gets every byte, even past the pipe buffer", func(t *testing.T) {
		var buf bytes.Buffer
		c := helperCommand(t, "chatty")
		c.Stderr = &buf
		s, err := ConnectCommand(t.Context(), "chatty", c, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if got, want := buf.Len(), 1024*1024+len("chatty done\n"); got != want {
			t.Errorf("stderr has %d bytes, want %d", got, want)
		}
		if !strings.HasSuffix(buf.String(), "chatty done\n") {
			t.Errorf("stderr ends with %q", buf.String()[max(0, buf.Len()-40):])
		}
	})
	t.Run("without a writer the lines go to the logger", func(t *testing.T) {
		h := &countHandler{}
		s, err := ConnectCommand(t.Context(), "chatty", helperCommand(t, "chatty"), &ClientOptions{Logger: slog.New(h)})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if got := h.count("mcp server stderr"); got != 1025 {
			t.Errorf("logged %d stderr lines, want 1025", got)
		}
	})
}

// assertReaped checks that the server process was waited for and is gone.
func assertReaped(t *testing.T, s *Session) {
	t.Helper()
	if s.proc == nil {
		return
	}
	select {
	case <-s.proc.exited:
	default:
		t.Fatal("server process was not reaped")
	}
	if err := syscall.Kill(s.proc.cmd.Process.Pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("server process %d still exists after Close (kill 0: %v)", s.proc.cmd.Process.Pid, err)
	}
}

// countHandler counts log records by message.
type countHandler struct {
	mu   sync.Mutex
	msgs map[string]int
}

func (h *countHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *countHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.msgs == nil {
		h.msgs = map[string]int{}
	}
	h.msgs[r.Message]++
	return nil
}
func (h *countHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *countHandler) WithGroup(string) slog.Handler      { return h }
func (h *countHandler) count(msg string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.msgs[msg]
}
