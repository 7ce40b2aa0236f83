package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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
	// go doc takes folders as well as import paths, so each word is
	// checked like a path from a model: go_doc runs without asking.
	if err := g.checkDocArg(args[0], dir); err != nil {
		return "", err
	}
	if len(args) == 2 && !symbolPath.MatchString(args[1]) {
		return "", fmt.Errorf("symbol %q: %q is not a Go identifier or Type.Method: give the package first and then a name in it, like encoding/json Decoder.Decode", in.Symbol, args[1])
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

var (
	// symbolPath is a Go identifier, or Type.Method, Type.Field.
	symbolPath = regexp.MustCompile(`^\pL[\pL\pN_]*(?:\.\pL[\pL\pN_]*)?$|^_[\pL\pN_]+(?:\.\pL[\pL\pN_]*)?$`)
	// importPathSymbol is an import path ("net/http",
	// "github.com/google/uuid") or a name, with at most two ".Name"s
	// after it; the go command checks the rest.
	importPathSymbol = regexp.MustCompile(`^[\pL\pN_~-][\pL\pN_~.-]*(?:/[\pL\pN_~-][\pL\pN_~.-]*)*$`)
)

// checkDocArg refuses a word of go_doc's symbol that go doc would take as
// a folder outside the root: an absolute path, or one that climbs out
// with "..". A folder inside (".", "./sub") is checked like any path.
func (g *gotools) checkDocArg(arg, dir string) error {
	outside := fmt.Errorf("symbol %q names a folder outside the project root: give a package's import path (net/http, or one of the module's), a symbol (json.Decoder, http.Client.Do), or set path to a folder of the project and give \".\" or a name in it", arg)
	switch {
	case filepath.IsAbs(arg) || strings.HasPrefix(arg, "/") || strings.HasPrefix(arg, `\`) || strings.HasPrefix(arg, "~") || strings.Contains(arg, ":"):
		return outside
	case arg == "..":
		return outside
	case arg == ".":
		return nil
	}
	for _, part := range strings.FieldsFunc(arg, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." || strings.HasPrefix(part, "..") {
			return outside
		}
	}
	if rel, ok := strings.CutPrefix(arg, "./"); ok {
		// A folder below dir, perhaps followed by .Name: it must stay
		// inside the root, symlinks included.
		folder, _, _ := strings.Cut(rel, ".")
		if _, err := g.ws.locate(filepath.Join(dir, folder)); err != nil {
			return outside
		}
		return nil
	}
	if !importPathSymbol.MatchString(arg) || strings.Contains(arg, "//") {
		return fmt.Errorf("symbol %q is not a package or a Go name: give an import path (net/http), a symbol (json.Decoder, http.Client.Do), or both as two words (encoding/json Decoder.Decode)", arg)
	}
	return nil
}
