package durable_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/durable"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/tool"
)

// The test binary is also the worker process the crash tests kill: with
// BRIDLE_DURABLE_WORKER set it runs a worker until it is killed.
func TestMain(m *testing.M) {
	if os.Getenv("BRIDLE_DURABLE_WORKER") != "" {
		if err := workerMain(); err != nil {
			fmt.Fprintln(os.Stderr, "worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// database returns the connection string of the test database and a new
// schema for this test, or skips when there is none.
func database(t testing.TB) (dsn, schema string) {
	dsn = os.Getenv("BRIDLE_POSTGRES_URL")
	if dsn == "" {
		if os.Getenv("BRIDLE_REQUIRE_POSTGRES") != "" {
			t.Fatal("BRIDLE_POSTGRES_URL is not set and BRIDLE_REQUIRE_POSTGRES is: start the database with .ci/postgres.sh")
		}
		t.Skip("no database: set BRIDLE_POSTGRES_URL (see README.md) to run the durable tests")
	}
	var b [4]byte
	rand.Read(b[:])
	return dsn, "t_" + hex.EncodeToString(b[:])
}

// options are the worker options both the test process and worker
// processes use.
func options(dsn, schema string) *durable.Options {
	return &durable.Options{DatabaseURL: dsn, Schema: schema, Version: "test", PollInterval: 50 * time.Millisecond}
}

// recipe is the agent of every test run: a model at modelURL and two
// tools that act through the effects server at effectsURL.
func recipe(modelURL, effectsURL string, autonomy agent.Autonomy) durable.Recipe {
	return func(ctx context.Context, in durable.Input) (durable.Parts, error) {
		client, err := llm.New(llm.Config{Dialect: llm.Anthropic, BaseURL: modelURL, Model: "test-model", APIKey: "test-key", MaxRetries: -1})
		if err != nil {
			return durable.Parts{}, err
		}
		act := func(name string) tool.Func {
			return func(ctx context.Context, args json.RawMessage) (string, error) {
				req, _ := http.NewRequestWithContext(ctx, "POST", effectsURL+"/"+name, strings.NewReader(string(args)))
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					return "", err
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				return string(b), err
			}
		}
		schema := json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}}}`)
		return durable.Parts{
			Client: client,
			Tools: []tool.Tool{
				{Name: "look", Description: "Reads a value.", Schema: schema, Risk: tool.Read, Func: act("look")},
				{Name: "save", Description: "Stores a value.", Schema: schema, Risk: tool.Write, Func: act("save")},
			},
			Options: &agent.Options{Autonomy: autonomy},
		}, nil
	}
}

func workerMain() error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	opts := options(os.Getenv("BRIDLE_POSTGRES_URL"), os.Getenv("TEST_SCHEMA"))
	opts.ExecutorID = os.Getenv("TEST_EXECUTOR")
	n, _ := strconv.Atoi(os.Getenv("TEST_CONCURRENCY"))
	opts.Queues = []durable.Queue{{Name: durable.DefaultQueue, Concurrency: n}}
	autonomy, err := agent.ParseAutonomy(os.Getenv("TEST_AUTONOMY"))
	if err != nil {
		return err
	}
	w, err := durable.NewWorker(ctx, opts)
	if err != nil {
		return err
	}
	w.Register("", recipe(os.Getenv("TEST_MODEL_URL"), os.Getenv("TEST_EFFECTS_URL"), autonomy))
	if err := w.Start(); err != nil {
		return err
	}
	if gone := os.Getenv("TEST_RECOVER"); gone != "" {
		if err := w.Recover(gone); err != nil {
			return err
		}
	}
	fmt.Println("ready")
	<-ctx.Done()
	return w.Close(5 * time.Second)
}

// worker is a worker process.
type worker struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// env is what a test's worker processes share.
type env struct {
	dsn, schema string
	model       string // the model server's URL
	effects     string // the effects server's URL
	autonomy    string
	concurrency int
}

// start starts a worker process with executor id exec and waits until it
// takes runs.
func (e env) start(t *testing.T, executor string, extra ...string) *worker {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BRIDLE_DURABLE_WORKER=1", "BRIDLE_POSTGRES_URL="+e.dsn, "TEST_SCHEMA="+e.schema,
		"TEST_MODEL_URL="+e.model, "TEST_EFFECTS_URL="+e.effects, "TEST_EXECUTOR="+executor,
		"TEST_AUTONOMY="+e.autonomy, "TEST_CONCURRENCY="+strconv.Itoa(e.concurrency))
	cmd.Env = append(cmd.Env, extra...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &worker{cmd: cmd, done: make(chan struct{})}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		ok := false
		for sc.Scan() {
			if sc.Text() == "ready" && !ok {
				ok = true
				ready <- true
			}
		}
		if !ok {
			ready <- false
		}
		cmd.Wait()
		close(w.done)
	}()
	t.Cleanup(func() { w.kill() })
	if !<-ready {
		t.Fatalf("worker %s did not start", executor)
	}
	return w
}

// kill kills the worker as kill -9 does and waits until it is gone.
func (w *worker) kill() {
	w.cmd.Process.Signal(syscall.SIGKILL)
	<-w.done
}

// effects is the world the tools act on: it counts each call by tool and
// key, and can hold a call until released.
type effects struct {
	srv *httptest.Server

	mu      sync.Mutex
	calls   map[string]int // "tool key" → calls
	running int
	most    int   // most calls running at once
	held    holds // by "tool key"
}

func newEffects(t *testing.T) *effects {
	e := &effects{calls: map[string]int{}}
	e.srv = httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *effects) serve(w http.ResponseWriter, r *http.Request) {
	var args struct{ Key string }
	json.NewDecoder(r.Body).Decode(&args)
	tool := strings.TrimPrefix(r.URL.Path, "/")
	k := tool + " " + args.Key
	e.mu.Lock()
	e.calls[k]++
	e.running++
	e.most = max(e.most, e.running)
	held := e.held.take(k)
	e.mu.Unlock()
	if held != nil {
		select {
		case <-held:
		case <-r.Context().Done():
		}
	}
	e.mu.Lock()
	e.running--
	e.mu.Unlock()
	fmt.Fprintf(w, "%s %s: value 7", tool, args.Key)
}

// holdNext holds the next call of tool with key and returns a channel
// closed when it arrives.
func (e *effects) holdNext(t *testing.T, tool, key string) (arrived <-chan struct{}, release func()) {
	return e.held.add(t, tool+" "+key)
}

// holds holds the next arrival of a key until the test releases it.
type holds struct {
	mu      sync.Mutex
	hold    map[string]chan struct{} // closed on release
	arrived map[string]chan struct{} // closed when the held one arrived
}

// add holds the next arrival of key, and returns a channel closed when it
// arrives and the function that lets it go (called at the latest when t
// ends).
func (h *holds) add(t *testing.T, key string) (arrived <-chan struct{}, release func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.hold == nil {
		h.hold, h.arrived = map[string]chan struct{}{}, map[string]chan struct{}{}
	}
	held := make(chan struct{})
	h.hold[key] = held
	h.arrived[key] = make(chan struct{})
	release = sync.OnceFunc(func() { close(held) })
	t.Cleanup(release)
	return h.arrived[key], release
}

// take tells that key arrived: it returns the channel to wait on until
// the release, or nil when key is not held.
func (h *holds) take(key string) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	held := h.hold[key]
	if held != nil {
		delete(h.hold, key)
		close(h.arrived[key])
	}
	return held
}

func (e *effects) count(tool, key string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls[tool+" "+key]
}
