package main

import (
	"context"
	"errors"
	"fmt"
	"go/build"
	"os"
	"path/filepath"
	"strings"

	"github.com/bridle-dev/bridle/tool"
)

type runIn struct {
	Path           string   `json:"path,omitempty" jsonschema:"a main package of the project: its folder or one of its files, relative to the project root. It runs in the module's root folder. Prefer this inside a project."`
	Code           string   `json:"code,omitempty" jsonschema:"the text of a whole Go file with package main and func main, run in a temporary module that has only the standard library"`
	Args           []string `json:"args,omitempty" jsonschema:"command-line arguments for the program"`
	Stdin          string   `json:"stdin,omitempty" jsonschema:"text the program reads on standard input; without it, standard input is empty"`
	TimeoutSeconds int      `json:"timeout_seconds,omitempty" jsonschema:"how long the program may run before it is stopped, in seconds: default 30, at most 120"`
}

const runDescription = `Build and run a Go main package, like go run.
Give path (the package's folder or a file in it) or code (a whole Go file with package main).
Answers whether the program ran in the sandbox, its exit code, stdout and stderr. In the sandbox it has no network and may write only inside the project root (or the code's temporary module) and a private /tmp. The program is stopped, with everything it started, at the time limit (timeout_seconds, default 30, at most 120) or when it writes more than 16 MiB; each stream shows at most its first 24 KiB and last 8 KiB. If the build fails, the answer is the compiler's diagnostics.`

func (g *gotools) runTool() tool.Tool {
	return tool.New("go_run", runDescription, tool.Exec, g.run)
}

func (g *gotools) run(ctx context.Context, in runIn) (string, error) {
	timeout, err := callTimeout(in.TimeoutSeconds)
	if err != nil {
		return "", err
	}
	p, err := g.locatePlace("go_run", in.Path, in.Code)
	if err != nil {
		return "", err
	}
	defer p.cleanup()
	if p.code {
		if name := packageName(in.Code); name != "main" {
			return "", fmt.Errorf("the code is package %s: go_run needs package main with a func main (use go_check to check other packages, go_test for tests)", name)
		}
	}

	bin, err := os.MkdirTemp("", "gotools-mcp-bin-")
	if err != nil {
		return "", fmt.Errorf("cannot make a folder for the binary: %v", err)
	}
	defer os.RemoveAll(bin)
	exe := filepath.Join(bin, "prog")
	b, err := runGo(ctx, p.dir, p.env, nil, "build", "-buildvcs=false", "-o", exe, p.pkg)
	if err != nil {
		return "", err
	}
	if b.failed() {
		return "", errors.New("the build failed:\n" + diagnostics(p, b))
	}
	if info, err := os.Stat(exe); err != nil || info.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s is not a main package%s: go_run runs package main (with func main); use go_test for tests", p.what, packageOf(filepath.Join(p.dir, p.pkg)))
	}

	root, where := g.ws.root, "the project root"
	if p.code {
		root, where = p.dir, "the code's temporary module"
	}
	var readOnly []string
	if !within(root, p.dir) {
		readOnly = append(readOnly, p.dir) // a module whose go.mod is above the root
	}
	policy, err := g.box.policy("go_run", root, readOnly...)
	if err != nil {
		return "", err
	}
	var stdout, stderr capture
	c := command{
		dir:       p.dir,
		path:      exe,
		args:      in.Args,
		env:       p.env,
		timeout:   timeout,
		stdout:    &stdout,
		stderr:    &stderr,
		maxOutput: maxOutput,
		confine:   policy,
		reaper:    g.box.reaper,
	}
	if in.Stdin != "" {
		c.stdin = &in.Stdin
	}
	o, err := execute(ctx, c)
	if err != nil {
		return "", fmt.Errorf("cannot start the program: %v", err)
	}
	if o.cancelled {
		return "", ctx.Err()
	}

	var sb strings.Builder
	if how := o.describe(c); how != "" {
		fmt.Fprintf(&sb, "the program %s\n", how)
	}
	if o.exitCode < 0 {
		sb.WriteString("exit code: none (killed)\n")
	} else {
		fmt.Fprintf(&sb, "exit code: %d\n", o.exitCode)
	}
	section(&sb, "stdout", &stdout)
	section(&sb, "stderr", &stderr)
	return p.scrub(sb.String()) + "\n" + g.box.status(policy, where) + "\n", nil
}

// section writes one output stream under a heading.
func section(sb *strings.Builder, name string, c *capture) {
	text := c.String()
	if text == "" {
		fmt.Fprintf(sb, "\n%s: (empty)\n", name)
		return
	}
	fmt.Fprintf(sb, "\n%s:\n%s", name, text)
	if !strings.HasSuffix(text, "\n") {
		sb.WriteString("\n")
	}
}

// packageOf names the package in dir for a message, as " (package NAME)".
func packageOf(dir string) string {
	if pkg, err := build.ImportDir(dir, 0); err == nil {
		return " (package " + pkg.Name + ")"
	}
	return ""
}
