// Command firstrequest measures how long agent-cli takes from its start
// to its first request to the model, with the Go toolchain server
// (gotools-mcp) connected and without it. A scripted model server
// (llmtest) on loopback notes when each request arrives and answers at
// once, so every run is one question, one request, one answer.
//
//	firstrequest -agent PATH -gotools PATH [-n 20]
//
// It prints one line per configuration: the median, mean, minimum and
// maximum time to the first request, and the median time of the whole run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/llm/llmtest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "firstrequest:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("firstrequest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	agentPath := fs.String("agent", "", "the agent-cli `program`")
	gotools := fs.String("gotools", "", "the gotools-mcp `program`")
	n := fs.Int("n", 20, "runs per configuration")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *agentPath == "" || *gotools == "" {
		return errors.New("give -agent and -gotools: the programs to measure (startup.sh builds them)")
	}
	if *n < 1 {
		return fmt.Errorf("-n is %d: give at least 1", *n)
	}

	var mu sync.Mutex
	var arrivals []time.Time
	var tools [][]string
	srv := llmtest.NewServer(func(r *llmtest.Request) llmtest.Reply {
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		tools = append(tools, r.Tools)
		mu.Unlock()
		return llmtest.Reply{Text: "hi"}
	})
	defer srv.Close()

	work, err := os.MkdirTemp("", "firstrequest")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	home := filepath.Join(work, "home")
	project := filepath.Join(work, "project")
	for _, d := range []string{home, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	files := map[string]string{
		"go.mod":  "module example.com/hello\n\ngo 1.25\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(project, name), []byte(content), 0o644); err != nil {
			return err
		}
	}

	configs := []struct {
		name    string
		gotools string
	}{
		{"with gotools-mcp", *gotools},
		{"without (GOTOOLS_BIN=off)", "off"},
	}
	first := make([][]time.Duration, len(configs))
	whole := make([][]time.Duration, len(configs))
	for i := range *n {
		for c, cfg := range configs { // interleaved, so that load hits both alike
			cmd := exec.CommandContext(ctx, *agentPath, "--autonomy", "read-only", "say hi")
			cmd.Dir = project
			cmd.Env = environment(home, srv.Config(llm.Anthropic).BaseURL, cfg.gotools)
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			mu.Lock()
			before := len(arrivals)
			mu.Unlock()
			start := time.Now()
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("run %d %s: %v\n%s", i+1, cfg.name, err, out.String())
			}
			end := time.Now()
			mu.Lock()
			got := arrivals[before:]
			offered := tools[before:]
			mu.Unlock()
			if len(got) != 1 {
				return fmt.Errorf("run %d %s: %d model requests, want 1\n%s", i+1, cfg.name, len(got), out.String())
			}
			if hasGotools := slices.ContainsFunc(offered[0], func(t string) bool { return strings.HasPrefix(t, "mcp__gotools__") }); hasGotools != (cfg.gotools != "off") {
				return fmt.Errorf("run %d %s: the request offered %v\n%s", i+1, cfg.name, offered[0], out.String())
			}
			first[c] = append(first[c], got[0].Sub(start))
			whole[c] = append(whole[c], end.Sub(start))
		}
	}
	fmt.Fprintf(stdout, "time from start to the first model request, %d runs each (median, mean, min, max; whole run median)\n", *n)
	for c, cfg := range configs {
		med, mean, lo, hi := stats(first[c])
		wmed, _, _, _ := stats(whole[c])
		fmt.Fprintf(stdout, "%-28s %8s %8s %8s %8s   run %8s\n", cfg.name, ms(med), ms(mean), ms(lo), ms(hi), ms(wmed))
	}
	return nil
}

// environment is a clean environment for one agent-cli run: its own home
// (no keychain, no settings), the model server, and GOTOOLS_BIN.
func environment(home, baseURL, gotools string) []string {
	env := []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"PATH=" + os.Getenv("PATH"),
		"AGENT_PROVIDER=anthropic",
		"AGENT_BASE_URL=" + baseURL,
		"ANTHROPIC_API_KEY=test-key",
		"GOTOOLS_BIN=" + gotools,
		"NO_COLOR=1",
	}
	for _, kv := range os.Environ() { // the Go toolchain's cache and settings
		if strings.HasPrefix(kv, "GO") && !strings.HasPrefix(kv, "GOTOOLS_BIN=") {
			env = append(env, kv)
		}
	}
	return env
}

func stats(ds []time.Duration) (median, mean, lo, hi time.Duration) {
	s := slices.Clone(ds)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return s[len(s)/2], sum / time.Duration(len(s)), s[0], s[len(s)-1]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000) }
