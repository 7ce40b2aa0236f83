package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/bridle-dev/bridle/agent"
	"github.com/bridle-dev/bridle/keychain"
	"github.com/bridle-dev/bridle/llm"
	"github.com/bridle-dev/bridle/mcp"
)

const systemPrompt = `You are agent-cli, a coding agent working in the folder %s on the person's computer. The person asks about the code there, or asks for changes.

- Look before you answer: list_files, glob, grep and read_file show what is there. Paths are relative to the working folder.
- bash runs a command line in the working folder; the person may be asked first.
- Change files with edit_file (a small change to an existing file) or write_file (a new file, or a rewrite). The person may decline a call; then do not try it again: say what you would have done.
- When you write Go, check it with the Go tools when you have them (mcp__gotools__go_check, then go_test or go_run) and fix what they report before you answer.
- Your last reply is printed as the answer: make it complete and to the point.`

// session is everything one invocation sets up: the model, the folder, the
// tools and servers, and the display.
type session struct {
	ui      *ui
	work    *workdir
	agent   *agent.Agent
	lines   *lineReader // the person's input, on a terminal; else nil
	editor  *editor     // the conversation's line editor, on a terminal
	client  llm.Client
	cfg     *agent.Options
	model   string // the model the agent talks to
	opts    *options
	choice  modelChoice
	store   *agent.Store   // where the conversation is saved; nil when it is not
	saved   *agent.Session // the conversation as last saved
	conns   []*mcp.Session
	keyFrom keySource
	// browse opens a login page for an MCP server; nil means mcp.OpenBrowser.
	browse func(ctx context.Context, url string) error
}

// start resolves the model and key, opens the working folder, and connects
// the tools. Everything that can be wrong with the configuration is
// reported here, before the first request.
func start(ctx context.Context, o *options, stdin io.Reader, stdout, stderr io.Writer, interactive bool) (*session, error) {
	m, err := resolveModel(o.provider, o.model, os.Getenv)
	if err != nil {
		return nil, err
	}
	key, from, err := m.findKey(os.Getenv, keychain.Get)
	if err != nil {
		return nil, err
	}
	client, err := llm.New(m.config(key))
	if err != nil {
		return nil, err
	}
	if client, err = withFallback(client, os.Getenv, keychain.Get); err != nil {
		return nil, err
	}
	maxTokens, _, err := resolveMaxTokens(o.maxTokens, m.Model.Value, os.Getenv)
	if err != nil {
		return nil, err
	}
	work, err := openWorkdir(o.dir)
	if err != nil {
		return nil, err
	}
	s := &session{ui: newUI(stdout, stderr, os.Getenv), work: work, keyFrom: from, opts: o}
	s.ui.autonomy, s.ui.maxSteps, s.ui.interactive = o.autonomy, o.maxSteps, interactive
	s.ui.quietOut, s.ui.thinking = o.json, o.thinking
	cfg := &agent.Options{
		System:      fmt.Sprintf(systemPrompt, work.abs) + instructionsPrompt(findInstructions(work.abs, os.UserConfigDir)),
		MaxSteps:    o.maxSteps,
		MaxTokens:   maxTokens,
		Autonomy:    o.autonomy,
		NoStream:    o.noStream,
		OnEvent:     s.ui.event,
		RiskOf:      work.riskOf,
		Checkpoints: &agent.Files{Root: work.abs, Paths: writePaths},
	}
	if o.thinking && m.Preset.Dialect == llm.Anthropic {
		// Claude's budget must be at least 1024 tokens and below the cap.
		cfg.ThinkingBudget = max(1024, min(16000, maxTokens/2))
	}
	if interactive {
		s.lines = newLineReader(stdin)
		cfg.Approver = s.ui.approver(s.lines, work)
	}
	if f, ok := stdin.(*os.File); ok && interactive {
		s.editor = newEditor(s.lines, f, stderr)
	}
	s.client, s.cfg, s.model, s.choice = client, cfg, m.Model.Value, m
	s.agent = agent.New(client, cfg)
	s.agent.Add(fileTools(work)...)
	s.agent.Add(findTools(work)...)
	s.agent.Add(bashTool(work))
	if err := s.connectServers(ctx, o); err != nil {
		s.close()
		return nil, err
	}
	if o.pick && interactive {
		if err := s.pickSession(ctx, o); err != nil {
			s.close()
			return nil, err
		}
	} else if o.pick {
		o.cont = true
	}
	if err := s.openSession(o); err != nil {
		s.close()
		return nil, err
	}
	if ctx.Err() != nil {
		s.close()
		return nil, errInterrupted
	}
	return s, nil
}

func (s *session) close() {
	for _, c := range s.conns {
		c.Close()
	}
	s.work.Close()
}

// switchModel goes on with the conversation on another model of the same
// provider: a new agent with the same tools, servers and history.
func (s *session) switchModel(ctx context.Context, model string) error {
	cfg := *s.cfg
	cfg.Model = model
	a := agent.New(s.client, &cfg)
	a.Add(fileTools(s.work)...)
	for _, c := range s.conns {
		if err := a.Connect(ctx, c.Name(), c); err != nil {
			return err
		}
	}
	if err := a.SetHistory(s.agent.History()); err != nil {
		return err
	}
	s.agent, s.cfg, s.model = a, &cfg, model
	return nil
}

// ask answers one question.
func (s *session) ask(ctx context.Context, question string) error {
	s.ui.begin()
	out, err := s.agent.Run(ctx, question)
	s.ui.end(out)
	s.save()
	if s.opts.json {
		printJSON(s.ui.out, out, s.sessionID(), explain(err, s.choice, s.keyFrom, s.opts.verbose))
	} else if s.ui.errTTY && out.Steps > 0 {
		s.ui.notice("%s", usageLine(out.Usage))
	}
	if err != nil {
		return explain(err, s.choice, s.keyFrom, s.opts.verbose)
	}
	if out.Stop == agent.StopCancelled {
		return errInterrupted
	}
	return nil
}
