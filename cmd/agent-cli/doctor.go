package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bridle-dev/bridle/internal/inert"
	"github.com/bridle-dev/bridle/internal/redact"
	"github.com/bridle-dev/bridle/internal/version"
	"github.com/bridle-dev/bridle/keychain"
	"github.com/bridle-dev/bridle/llm"
)

const doctorUsage = `agent-cli doctor says what agent-cli would use and whether it is ready,
without asking the model anything (unless --online).

Usage:
  agent-cli doctor [--online] [--provider P] [--model M] [--dir DIR] [--mcp-config FILE]

Flags:
`

// doctor prints one screen that says what a question would use: provider,
// model, base URL and where each came from, the key's whereabouts (never
// the key), the keychain, gotools-mcp, the .mcp.json servers, and, with
// --online, the answer to one tiny request. It fails when something needed
// is missing.
func doctor(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseArgs("agent-cli doctor", args, stdout, true)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if len(o.args) > 0 {
		return fmt.Errorf("doctor takes no question (got %q): run agent-cli doctor on its own", strings.Join(o.args, " "))
	}
	u := newUI(stdout, stderr, os.Getenv)
	w := stdout
	// Every value is made inert before it is coloured: names, paths,
	// commands and errors come from the environment, project files and
	// servers.
	row := func(name, format string, args ...any) {
		for i, a := range args {
			switch a := a.(type) {
			case string:
				args[i] = inert.Line(a)
			case error:
				args[i] = inert.Line(a.Error())
			}
		}
		fmt.Fprintf(w, "%-10s %s\n", name, fmt.Sprintf(format, args...))
	}
	good := func(s string) painted { return painted(inert.Line(s)) }
	bad := func(s string) painted { return painted(inert.Line(s)) }
	if u.outTTY && os.Getenv("NO_COLOR") == "" {
		good = func(s string) painted { return painted("\x1b[32m" + inert.Line(s) + "\x1b[0m") }
		bad = func(s string) painted { return painted("\x1b[31m" + inert.Line(s) + "\x1b[0m") }
	}
	var problems []string

	fmt.Fprintln(w, "agent-cli", version.String())
	m, err := resolveModel(o.provider, o.model, os.Getenv)
	var key string
	var keyFrom keySource
	if m.Preset.Name == "" {
		// An unknown provider: nothing else about the model can be said.
		row("provider", "%s (%s): %s", m.Provider.Value, m.Provider.From, bad(err.Error()))
		problems = append(problems, err.Error())
		for _, name := range []string{"model", "base URL", "key"} {
			row(name, "unknown: the provider is unknown")
		}
	} else {
		row("provider", "%s (%s)", m.Provider.Value, m.Provider.From)
		if m.Model.Value == "" {
			row("model", "%s", bad(err.Error()))
			problems = append(problems, err.Error())
		} else {
			row("model", "%s (%s)", m.Model.Value, m.Model.From)
		}
		if m.BaseURL.Value == "" {
			row("base URL", "%s", bad("none: set AGENT_BASE_URL to the API root"))
			if m.Model.Value != "" {
				problems = append(problems, err.Error())
			}
		} else {
			row("base URL", "%s (%s)", redact.URL(m.BaseURL.Value), m.BaseURL.From)
		}
		if m.Model.Value != "" {
			if n, from, err := resolveMaxTokens(o.maxTokens, m.Model.Value, os.Getenv); err != nil {
				row("max tokens", "%s", bad(err.Error()))
				problems = append(problems, err.Error())
			} else {
				row("max tokens", "%d (%s)", n, from)
			}
		}
		var kerr error
		key, keyFrom, kerr = m.findKey(os.Getenv, keychain.Get)
		switch {
		case !m.needsKey():
			row("key", "none needed for %s", m.Provider.Value)
		case kerr != nil:
			row("key", "%s", bad(kerr.Error()))
			problems = append(problems, kerr.Error())
		default:
			row("key", "%s", good("found in "+string(keyFrom)))
		}
	}

	switch rows, err := fallbackRows(os.Getenv); {
	case err != nil:
		row("fallback", "%s", bad(err.Error()))
		problems = append(problems, err.Error())
	default:
		for _, r := range rows {
			row("fallback", "%s", r)
		}
	}

	account := m.Preset.Name
	if account == "" {
		account = "anthropic"
	}
	switch _, err := keychain.Get(keychainService, account); {
	case err == nil, errors.Is(err, keychain.ErrNotFound):
		row("keychain", "%s", good("answers"))
	default:
		row("keychain", "%s", strings.TrimPrefix(err.Error(), "keychain: "))
	}

	work, werr := openWorkdir(o.dir)
	if werr != nil {
		row("folder", "%s", bad(werr.Error()))
		problems = append(problems, werr.Error())
	} else {
		defer work.Close()
		row("folder", "%s", work.abs)
		files := findInstructions(work.abs, os.UserConfigDir)
		if len(files) == 0 {
			row("instructions", "none (AGENTS.md or CLAUDE.md in the folder or its parents up to the repository root, or in %s)", userInstructionsDir())
		}
		for _, f := range files {
			row("instructions", "%s", f.describe())
		}
	}

	var replaced string
	if werr == nil {
		servers, _ := configuredServers(o) // doctor reports a broken file below
		if sv, err := findServer(servers, builtinGotools); err == nil {
			replaced = sv.File
			if !sv.Explicit && !loadApprovals().approved(sv) {
				replaced += " (once approved; until then the built-in one)"
			}
		}
	}
	switch path, from, err := findGotools(os.Getenv); {
	case replaced != "":
		row("gotools", "the server gotools of %s replaces the built-in gotools-mcp", replaced)
	case errors.Is(err, errGotoolsOff):
		row("gotools", "off (GOTOOLS_BIN=off)")
	case err != nil:
		row("gotools", "%s", bad(err.Error()))
	case werr != nil:
		row("gotools", "%s (%s), not started: no working folder", path, from)
	default:
		row("gotools", "%s", gotoolsStatus(ctx, path, from, work.abs, good, bad))
	}

	if o.mcpConfig != "" {
		servers, err := readMCPFile(o.mcpConfig, true)
		if err != nil {
			row("mcp", "%s", bad(err.Error()))
			problems = append(problems, err.Error())
		}
		for _, sv := range servers {
			row("mcp", "%s: %s (from --mcp-config: connected without asking)", sv.Name, painted(sv.Entry.describe()))
			serverEnvRow(row, sv)
			if p := sv.unsetProblem(os.Getenv); p != "" {
				row("mcp", "%s", bad(p))
			}
		}
	}
	if werr == nil {
		project := filepath.Join(work.abs, ".mcp.json")
		if _, err := os.Stat(project); errors.Is(err, fs.ErrNotExist) {
			row("mcp", "no .mcp.json in the folder")
		} else if !sameFile(project, o.mcpConfig) {
			servers, err := readMCPFile(project, false)
			if err != nil {
				row("mcp", "%s", bad(err.Error()))
			}
			approved := loadApprovals()
			for _, sv := range servers {
				status := painted("not approved: agent-cli asks before starting it, on a terminal")
				if approved.approved(sv) {
					status = good("approved")
				}
				row("mcp", "%s: %s (.mcp.json; %s)", sv.Name, painted(sv.Entry.describe()), status)
				serverEnvRow(row, sv)
				if p := sv.unsetProblem(os.Getenv); p != "" {
					row("mcp", "%s", bad(p))
				}
			}
		}
	}

	switch {
	case !o.online:
		row("online", "not tried (agent-cli doctor --online sends one tiny request)")
	case len(problems) > 0:
		row("online", "not tried: fix the above first")
	default:
		if err := ping(ctx, m, key); err != nil {
			err = explain(err, m, keyFrom, o.verbose)
			row("online", "%s", bad(err.Error()))
			problems = append(problems, err.Error())
		} else {
			row("online", "%s", good("the model answered"))
		}
	}

	fmt.Fprintln(w)
	if len(problems) > 0 {
		fmt.Fprintln(w, bad("not ready:"))
		for _, p := range problems {
			fmt.Fprintln(w, "  - "+inert.String(p))
		}
		return errNotReady
	}
	fmt.Fprintln(w, good("ready:")+` ask with agent-cli "your question"`)
	return nil
}

// painted is a value of a doctor row already made inert (and perhaps
// coloured).
type painted string

// serverEnvRow says which variables a stdio server gets, by name.
func serverEnvRow(row func(string, string, ...any), sv mcpServer) {
	if sv.Entry.transport() != "stdio" {
		return
	}
	c, _ := sv.command("", func(string) string { return "" })
	row("", "%s gets %s", sv.Name, envNames(c.Environ(os.Environ())))
}

// envNames lists the names of env's entries, never their values.
func envNames(env []string) string {
	var names []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		names = append(names, name)
	}
	if len(names) == 0 {
		return "no variables"
	}
	return strings.Join(names, ", ")
}

func gotoolsStatus(ctx context.Context, path, from, dir string, good, bad func(string) painted) painted {
	conn, err := connectGotools(ctx, path, dir)
	if err != nil {
		return bad(fmt.Sprintf("%s (%s) did not start: %v", path, from, err))
	}
	defer conn.Close()
	tools, err := conn.Tools(ctx)
	if err != nil {
		return bad(fmt.Sprintf("%s (%s) started but did not list its tools: %v", path, from, err))
	}
	return good(fmt.Sprintf("%s (%s) starts and offers %s; it gets %s", path, from, plural(len(tools), "tool"), envNames(gotoolsCommand(path, dir).Environ(os.Environ()))))
}

// ping sends one tiny request.
func ping(ctx context.Context, m modelChoice, key string) error {
	client, err := llm.New(m.config(key))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	_, err = client.Send(ctx, &llm.Request{Messages: []llm.Message{llm.UserText("Reply with the single word: ok")}, MaxTokens: 16})
	return err
}
