package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/bridle-dev/bridle/tool"
)

type checkIn struct {
	Path string `json:"path,omitempty" jsonschema:"a Go file or folder of the project, relative to the project root; a folder means every package in it and below it. Prefer this inside a project."`
	Code string `json:"code,omitempty" jsonschema:"the text of a whole Go file, checked alone in a temporary module that has only the standard library; use when there is no project"`
}

const checkDescription = `Compile Go code and run go vet on it, as go build and go vet would.
Give path (a file or folder of the project; its go.mod is found upward, so imports across files and go.mod dependencies resolve) or code (a whole Go file).
Answers "clean" or the diagnostics as file:line:col: message, with file names relative to the project root. Vet runs once the code builds.`

func (g *gotools) checkTool() tool.Tool {
	return tool.New("go_check", checkDescription, tool.Exec, g.check)
}

func (g *gotools) check(ctx context.Context, in checkIn) (string, error) {
	p, err := g.locatePlace("go_check", in.Path, in.Code)
	if err != nil {
		return "", err
	}
	defer p.cleanup()

	build, err := runGo(ctx, p.dir, p.env, nil, "build", "-buildvcs=false", "-o", os.DevNull, p.packages)
	if err != nil {
		return "", err
	}
	if strings.Contains(build.stderr, "matched no packages") {
		return "", fmt.Errorf("no Go packages in %s: give a folder or file with Go code (the go command skips folders named testdata or vendor, and those starting with . or _)", p.all)
	}
	if build.failed() {
		return "go build found problems in " + p.all + ":\n" + diagnostics(p, build), nil
	}
	vet, err := runGo(ctx, p.dir, p.env, nil, "vet", p.packages)
	if err != nil {
		return "", err
	}
	if vet.failed() {
		return "go build is clean; go vet found problems in " + p.all + ":\n" + diagnostics(p, vet), nil
	}
	return fmt.Sprintf("clean: go build and go vet found no problems in %s", p.all), nil
}

// diagnostics is what a failed go command said, shown for the project.
func diagnostics(p place, r goResult) string {
	out := strings.TrimSpace(p.show(r.stderr + r.stdout))
	if out == "" {
		out = fmt.Sprintf("go exited with status %d and said nothing", r.exitCode)
	}
	return out
}
