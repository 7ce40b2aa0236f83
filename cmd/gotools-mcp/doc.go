package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bridle-dev/bridle/tool"
)

type docIn struct {
	Symbol string `json:"symbol" jsonschema:"what to document, as go doc takes it: a package (net/http, encoding/json, or . for the package at path), a symbol (json.Decoder, http.Client.Do), or a symbol of the package at path (Parse)"`
	Path   string `json:"path,omitempty" jsonschema:"a file or folder of the project, relative to the project root, whose module and package resolve the symbol; default: the project root"`
}

const docDescription = `Show the documentation of a Go package or symbol, as go doc does: from the standard library, the project, or the project's dependencies (go.mod).
Examples of symbol: "net/http", "json.Decoder", "http.Client.Do", "github.com/google/uuid.New", or with path set to a project folder, "." or "MyType.Method".`

func (g *gotools) docTool() tool.Tool {
	return tool.New("go_doc", docDescription, tool.Read, g.doc)
}

func (g *gotools) doc(ctx context.Context, in docIn) (string, error) {
	args := strings.Fields(in.Symbol)
	switch {
	case len(args) == 0:
		return "", errors.New("symbol is empty: name a package or symbol, like net/http or json.Decoder")
	case len(args) > 2:
		return "", fmt.Errorf("symbol %q has too many words: give a package, a symbol, or a package and a symbol", in.Symbol)
	}
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			return "", fmt.Errorf("symbol %q starts with '-': give a package or symbol name, like net/http or json.Decoder", a)
		}
	}
	dir := g.ws.root
	if in.Path != "" {
		abs, err := g.ws.locate(in.Path)
		if err != nil {
			return "", err
		}
		dir = abs
		if info, err := os.Stat(abs); err == nil && !info.IsDir() {
			dir = filepath.Dir(abs)
		}
	}
	p := place{dir: dir, base: g.ws.root}
	r, err := runGo(ctx, dir, goEnv(), nil, append([]string{"doc"}, args...)...)
	if err != nil {
		return "", err
	}
	if r.failed() {
		msg := strings.TrimSpace(p.show(r.stderr + r.stdout))
		if strings.Contains(msg, "no buildable Go source files") || strings.Contains(msg, "found packages") {
			// go doc fell back to the package in dir, which is not one.
			where := "the project root"
			if in.Path != "" {
				where = g.ws.show(dir)
			}
			msg = fmt.Sprintf("no package or symbol by that name in the standard library, or in the module at %s and its dependencies: check the spelling, give a package's import path, or set path to the package's folder", where)
		}
		msg = strings.ReplaceAll(msg, g.ws.root+string(filepath.Separator), "")
		return "", fmt.Errorf("go doc %s: %s", strings.Join(args, " "), msg)
	}
	return r.stdout, nil
}
