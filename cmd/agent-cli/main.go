// Command agent-cli is a coding agent in the terminal: it answers a
// question about the code in a folder, reading, writing and checking files
// as it goes, and asks before it changes anything.
//
// Usage:
//
//	agent-cli [flags] "question"     answer one question and exit
//	agent-cli [flags]                on a terminal: a conversation
//	agent-cli doctor [--online]      say what would be used, and whether it is ready
//	agent-cli key set PROVIDER       store a provider's API key in the keychain
//	agent-cli key delete PROVIDER    remove it
//	agent-cli mcp list|login|logout  the MCP servers and their OAuth logins
//	agent-cli sessions               the saved conversations of the folder
//	agent-cli help                   print the help
//
// The answer goes to stdout; what happens on the way goes to stderr. See
// docs/agent-cli.md for the flags, variables, tools and autonomy levels.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/internal/inert"
	"github.com/bridle-dev/bridle/internal/otelsetup"
	"github.com/bridle-dev/bridle/internal/version"
	"github.com/bridle-dev/bridle/mcp"
)

func main() {
	hideEnviron()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	code := exitCode(err)
	if err != nil && code != 130 && err.Error() != "" {
		fmt.Fprintln(os.Stderr, "agent-cli:", inert.String(err.Error()))
	}
	os.Exit(code)
}

// errInterrupted ends a run that Ctrl-C cancelled.
var errInterrupted = errors.New("interrupted")

// errNotReady ends a command that has already said what is wrong.
var errNotReady = quietError{}

type quietError struct{}

func (quietError) Error() string { return "" }

// exitCode is 0 for success, 130 for Ctrl-C, and 1 for everything else:
// bad configuration or a failure to talk to the model.
func exitCode(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errInterrupted), errors.Is(err, context.Canceled):
		return 130
	}
	return 1
}

const usage = `agent-cli answers questions about the code in a folder: it reads, writes
and checks files as it goes, and asks before it changes anything.

Usage:
  agent-cli [flags] "question"     answer one question and exit
  agent-cli [flags]                on a terminal: a conversation (Ctrl-D or /exit leaves)
  agent-cli doctor [--online]      say what would be used, and whether it is ready
  agent-cli key set PROVIDER       store a provider's API key in the system keychain
  agent-cli key delete PROVIDER    remove it
  agent-cli mcp list               the MCP servers, and whether they need a login
  agent-cli mcp login NAME         log in to an MCP server (OAuth, in the browser)
  agent-cli mcp logout NAME        forget its token
  agent-cli sessions               the saved conversations of the folder
  agent-cli help                   print this help

In the conversation: /help, /clear (a new conversation), /compact, /cost,
/model NAME, /rewind [N], /exit.
A line ending in \ goes on on the next; a pasted block is one message.

Examples:
  agent-cli "what does this program do?"
  agent-cli --autonomy edits "add a --verbose flag to main.go and check it builds"
  agent-cli --dir ~/src/app "why does TestParse fail?" > answer.md
  AGENT_PROVIDER=ollama AGENT_MODEL=qwen3 agent-cli "explain go.mod"
  agent-cli key set anthropic

Flags:
`

const environment = `
Environment:
  AGENT_PROVIDER   the provider preset (default anthropic): %s
  AGENT_MODEL      the model (default: the preset's)
  AGENT_BASE_URL   an API root of your own, such as http://localhost:8080/v1
  AGENT_MAX_TOKENS the most tokens one reply may have (default: the model's limit)
  AGENT_FALLBACK   providers to try when the first is down, in order:
                   PROVIDER[:MODEL][@BASE_URL],… (openai:gpt-5-mini,ollama:qwen3)
  ANTHROPIC_API_KEY, OPENAI_API_KEY, …  the preset's key (else the keychain)
  GOTOOLS_BIN      the gotools-mcp program ("off": do without it)
  AGENT_MCP_TOKENS "file": keep MCP OAuth tokens in a file of your
                   configuration folder instead of the keychain
  NO_COLOR         plain activity lines on a terminal

The answer goes to stdout, activity to stderr. Exit status: 0 when the run
ended, 1 on bad configuration or a failure to reach the model, 130 on Ctrl-C.
`

// options are the parsed command line.
type options struct {
	autonomy  agent.Autonomy
	maxSteps  int
	maxTokens int
	dir       string
	mcpConfig string
	noStream  bool
	provider  string
	model     string
	version   bool
	verbose   bool     // errors with their whole chain
	json      bool     // one JSON object on stdout instead of the answer
	thinking  bool     // show the model's reasoning, and ask for it
	cont      bool     // continue the last conversation of the folder
	resume    string   // continue this conversation
	pick      bool     // --resume without an id: choose one
	online    bool     // doctor only
	args      []string // what is left: the question's words
}

// parseArgs reads flags anywhere among the arguments (until "--"). With
// doctor set it also knows --online.
func parseArgs(name string, args []string, stdout io.Writer, doctor bool) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	autonomy := fs.String("autonomy", "ask", "which tool calls run without asking, by `level`: read-only (reads only), ask (reads; asks before the rest), edits (reads and writes; asks before commands), auto (everything)")
	fs.IntVar(&o.maxSteps, "max-steps", agent.DefaultMaxSteps, "the most model replies one question may take")
	fs.IntVar(&o.maxTokens, "max-tokens", 0, "the most tokens one reply may have, over AGENT_MAX_TOKENS (default: the model's limit, else 16384)")
	fs.StringVar(&o.dir, "dir", ".", "the working `folder` the file tools are confined to")
	fs.StringVar(&o.mcpConfig, "mcp-config", "", "a `file` of extra MCP servers in the .mcp.json format, connected without asking")
	fs.BoolVar(&o.noStream, "no-stream", false, "ask for whole replies instead of streamed ones")
	fs.StringVar(&o.provider, "provider", "", "the provider `preset`, over AGENT_PROVIDER")
	fs.StringVar(&o.model, "model", "", "the `model`, over AGENT_MODEL")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	fs.BoolVar(&o.verbose, "verbose", false, "show errors with all their details")
	fs.BoolVar(&o.json, "json", false, "print one JSON object on stdout (answer, stop reason, steps, usage, cost, session) instead of the answer")
	fs.BoolVar(&o.thinking, "thinking", false, "show the model's reasoning, dimmed, and give Claude models a thinking budget")
	fs.BoolVar(&o.cont, "continue", false, "continue the last conversation of the working folder")
	fs.BoolVar(&o.cont, "c", false, "the same as --continue")
	fs.StringVar(&o.resume, "resume", "", "continue the conversation with this `id` (agent-cli sessions lists them); with no id, choose one")
	if doctor {
		fs.BoolVar(&o.online, "online", false, "also send one tiny request to the provider")
	}

	// --resume takes an id when one follows, and stands alone otherwise.
	for i := 0; i < len(args); i++ {
		if a := args[i]; a == "--" {
			break
		} else if a == "--resume" || a == "-resume" {
			if i+1 < len(args) && sessionIDPattern.MatchString(args[i+1]) {
				continue
			}
			o.pick = true
			args = append(args[:i:i], args[i+1:]...)
			i--
		}
	}
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printUsage(fs, stdout, doctor)
				return nil, flag.ErrHelp
			}
			return nil, fmt.Errorf("%v (see %s --help)", err, name)
		}
		rest := fs.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			o.args = append(o.args, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		o.args = append(o.args, rest[0])
		args = rest[1:]
	}
	a, err := agent.ParseAutonomy(*autonomy)
	if err != nil {
		return nil, err
	}
	o.autonomy = a
	if o.maxSteps < 1 {
		return nil, fmt.Errorf("--max-steps is %d: give at least 1", o.maxSteps)
	}
	return o, nil
}

func printUsage(fs *flag.FlagSet, w io.Writer, doctor bool) {
	if doctor {
		fmt.Fprint(w, doctorUsage)
	} else {
		fmt.Fprint(w, usage)
	}
	fs.VisitAll(func(f *flag.Flag) {
		name, help := flag.UnquoteUsage(f)
		if name != "" {
			name = " " + name
		}
		if f.DefValue != "" && f.DefValue != "false" {
			help += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "  --%s%s\n      %s\n", f.Name, name, help)
	})
	fmt.Fprintf(w, environment, presetNames())
}

// run is the whole program, apart from the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "doctor":
			return doctor(ctx, args[1:], stdout, stderr)
		case "sessions":
			return sessionsCommand(args[1:], stdout)
		case "help":
			_, err := parseArgs("agent-cli", []string{"--help"}, stdout, false)
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return err
		case "key":
			return keyCommand(ctx, args[1:], stdin, stderr)
		case "mcp":
			return mcpCommand(ctx, args[1:], stdout, stderr, mcpDeps{getenv: os.Getenv, browse: mcp.OpenBrowser})
		}
	}
	o, err := parseArgs("agent-cli", args, stdout, false)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if o.version {
		fmt.Fprintln(stdout, "agent-cli", version.String())
		return nil
	}
	defer otelsetup.Start(ctx, "agent-cli", stderr)()

	interactive := isTerminal(stdin) && isTerminal(stderr)
	question := strings.TrimSpace(strings.Join(o.args, " "))
	if question == "" && !interactive {
		if isTerminal(stdin) {
			return errors.New("no question: give one as an argument, such as agent-cli \"what does main.go do?\"")
		}
		data, err := io.ReadAll(io.LimitReader(stdin, 1<<20))
		if err != nil {
			return fmt.Errorf("reading the question from stdin: %v", err)
		}
		if question = strings.TrimSpace(string(data)); question == "" {
			return errors.New("no question: give one as an argument, such as agent-cli \"what does main.go do?\", or on stdin")
		}
	}

	if o.json && question == "" {
		return errors.New("--json needs a question: give one as an argument or on stdin")
	}
	s, err := start(ctx, o, stdin, stdout, stderr, interactive)
	if err != nil {
		return err
	}
	defer s.close()
	if question == "" {
		return s.repl(ctx)
	}
	return s.ask(ctx, question)
}
