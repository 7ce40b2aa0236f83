package main

import (
	"context"
	"errors"
	"fmt"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// workspace is the folder the server may touch. Every path a model passes
// is checked against it like form input: relative to it or absolute inside
// it, and symlinks cannot lead out.
type workspace struct {
	root  string // absolute, symlinks resolved
	given string // absolute, as given: absolute paths may be written under it
}

func newWorkspace(root string) (workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return workspace{}, fmt.Errorf("root %q: %v", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return workspace{}, fmt.Errorf("root %s does not exist: pass an existing folder with --root", abs)
		}
		return workspace{}, fmt.Errorf("root %s: %v", abs, err)
	}
	info, err := os.Stat(real)
	if err != nil {
		return workspace{}, fmt.Errorf("root %s: %v", abs, err)
	}
	if !info.IsDir() {
		return workspace{}, fmt.Errorf("root %s is not a folder: pass a folder with --root", abs)
	}
	return workspace{root: real, given: abs}, nil
}

// target is a path resolved inside the workspace and placed in its module.
type target struct {
	abs    string // the file or folder asked for: absolute, symlinks resolved
	isFile bool
	dir    string // abs when a folder, its parent when a file
	modDir string // the folder holding the go.mod found upward from dir
}

// resolve checks p and finds its module. p is relative to the root or
// absolute inside it.
func (w workspace) resolve(p string) (target, error) {
	abs, err := w.locate(p)
	if err != nil {
		return target{}, err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return target{}, fmt.Errorf("path %q: %v", p, err)
	}
	t := target{abs: abs, isFile: !info.IsDir(), dir: abs}
	if t.isFile {
		t.dir = filepath.Dir(abs)
	}
	mod, ok := findModule(t.dir)
	if !ok {
		return target{}, fmt.Errorf("no go.mod in %s or any folder above it: run `go mod init NAME` in the project folder, or pass the file's text as code", w.show(t.dir))
	}
	t.modDir = mod
	return t, nil
}

// locate turns p into an absolute path inside the root whose symlinks are
// resolved, or explains why it cannot.
func (w workspace) locate(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", errors.New("path is empty: give a file or folder of the project, relative to the project root")
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("path %q contains a NUL byte", p)
	}
	joined := filepath.Clean(p)
	if !filepath.IsAbs(joined) {
		joined = filepath.Join(w.root, joined)
	}
	if !within(w.root, joined) && !within(w.given, joined) {
		return "", w.outside(p)
	}
	real, err := filepath.EvalSymlinks(joined)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("path %q does not exist in %s: give a file or folder of the project, relative to the project root", p, w.root)
		}
		return "", fmt.Errorf("path %q: %v", p, err)
	}
	if !within(w.root, real) {
		return "", w.outside(p)
	}
	return real, nil
}

func (w workspace) outside(p string) error {
	return fmt.Errorf("path %q is outside the project root %s: give a path inside it, relative to the root", p, w.root)
}

// within reports whether abs is base or lies below it.
func within(base, abs string) bool {
	rel, err := filepath.Rel(base, abs)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// show writes abs relative to the root when it is inside it.
func (w workspace) show(abs string) string {
	return relTo(w.root, abs)
}

// relTo writes abs relative to base when it lies inside base, else as is.
func relTo(base, abs string) string {
	if !within(base, abs) {
		return abs
	}
	rel, _ := filepath.Rel(base, abs)
	return filepath.ToSlash(rel)
}

func findModule(dir string) (string, bool) {
	for {
		if info, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !info.IsDir() {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// packages is the go command's argument for t, relative to the module
// folder: a folder means it and every package below it ("./x/..."), a
// file means its package, and a file that build constraints leave out of
// its package (a //go:build ignore script) means that file alone.
func (t target) packages() string {
	if t.isFile {
		if strings.HasSuffix(t.abs, ".go") && !inPackage(t.abs) {
			return dotSlash(t.modDir, t.abs)
		}
		return dotSlash(t.modDir, t.dir)
	}
	p := dotSlash(t.modDir, t.dir)
	if p == "." {
		return "./..."
	}
	return p + "/..."
}

// pkg is the go command's argument for the one package at t.
func (t target) pkg() string {
	if t.isFile && strings.HasSuffix(t.abs, ".go") && !inPackage(t.abs) {
		return dotSlash(t.modDir, t.abs)
	}
	return dotSlash(t.modDir, t.dir)
}

func inPackage(file string) bool {
	ok, err := build.Default.MatchFile(filepath.Dir(file), filepath.Base(file))
	return err != nil || ok
}

func dotSlash(base, abs string) string {
	rel, err := filepath.Rel(base, abs)
	if err != nil || rel == "." {
		return "."
	}
	return "./" + filepath.ToSlash(rel)
}

// goPos matches a position that starts a line of go command output:
// "file.go:12:3: message", "file.go:12: message", optionally after "vet: ".
var goPos = regexp.MustCompile(`^(?:vet: )?([^\s:][^:\n]*\.(?:go|s|c|h|mod|sum|work)):(\d+)(?::(\d+))?: ?`)

// relocate rewrites the file names that start lines of go command output,
// which the go command writes relative to cwd, so that they read relative
// to base (or stay absolute when outside it). Package headers ("# pkg")
// are dropped; other lines are kept.
func relocate(out, cwd, base string) string {
	var b strings.Builder
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, "# ") {
			continue
		}
		if m := goPos.FindStringSubmatchIndex(line); m != nil {
			file := line[m[2]:m[3]]
			abs := file
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(cwd, file)
			}
			b.WriteString(relTo(base, abs))
			b.WriteString(line[m[3]:])
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// place is where a call's go commands run and how their output is shown.
type place struct {
	dir      string   // the go command's working folder: the module's root
	base     string   // file names in output are shown relative to it
	packages string   // the packages a folder means: it and all below
	pkg      string   // the one package (or file) at the path
	env      []string // environment of the go commands
	what     string   // the path or "the code", for messages
	all      string   // what, saying a folder includes the folders below it
	code     bool     // a temporary module made for code
	cleanup  func()   // removes a temporary module; never nil
}

// show rewrites go command output so that file names read relative to the
// project and a temporary module's folder does not appear.
func (p place) show(out string) string {
	out = p.scrub(offline(relocate(out, p.dir, p.base)))
	if p.code {
		if strings.Contains(out, "no required module provides package") {
			out = strings.TrimRight(out, "\n") + "\n\ncode is built in a module of its own that has only the standard library; to use other modules, put the file in a project and pass its path.\n"
		}
	}
	return out
}

// scrub removes a temporary module's folder from text: its files read as
// "main.go", not as a path under the system's temporary folder.
func (p place) scrub(out string) string {
	if !p.code {
		return out
	}
	out = strings.ReplaceAll(out, p.dir+string(filepath.Separator), "")
	return strings.ReplaceAll(out, p.dir, ".")
}

// errPathOrCode is the error for a call that gives neither or both.
func errPathOrCode(name string) error {
	return fmt.Errorf("%s needs either path (a file or folder of the project, relative to its root) or code (the text of a whole Go file), not both and not neither", name)
}

// locatePlace resolves a call's path or code. A call gives exactly one.
func (g *gotools) locatePlace(name, path, code string) (place, error) {
	switch {
	case (path == "") == (code == ""):
		return place{}, errPathOrCode(name)
	case code != "":
		return g.scratch(code)
	}
	t, err := g.ws.resolve(path)
	if err != nil {
		return place{}, err
	}
	what := g.ws.show(t.abs)
	all := what
	if !t.isFile {
		all += " (and the folders below it)"
	}
	return place{
		dir:      t.modDir,
		base:     g.ws.root,
		packages: t.packages(),
		pkg:      t.pkg(),
		env:      goEnv(),
		what:     what,
		all:      all,
		cleanup:  func() {},
	}, nil
}

// scratch makes a temporary module holding code as one file, named for its
// package: main.go, or NAME.go.
func (g *gotools) scratch(code string) (place, error) {
	dir, err := os.MkdirTemp("", "gotools-mcp-")
	if err != nil {
		return place{}, fmt.Errorf("cannot make a temporary module: %v", err)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	cleanup := func() { os.RemoveAll(dir) }
	gomod := "module play\n"
	if v, err := g.goVersion(); err == nil {
		gomod += "\ngo " + v + "\n"
	}
	file := packageName(code) + ".go"
	if err := errors.Join(
		os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644),
		os.WriteFile(filepath.Join(dir, file), []byte(code), 0o644),
	); err != nil {
		cleanup()
		return place{}, fmt.Errorf("cannot write the temporary module: %v", err)
	}
	return place{
		dir:      dir,
		base:     dir,
		packages: ".",
		pkg:      ".",
		env:      goEnv("GOWORK=off"),
		what:     "the code",
		all:      "the code",
		code:     true,
		cleanup:  cleanup,
	}, nil
}

// packageName is the name in code's package clause, or "main" when it has
// none that parses.
func packageName(code string) string {
	f, err := parser.ParseFile(token.NewFileSet(), "", code, parser.PackageClauseOnly)
	if err != nil || f.Name == nil || f.Name.Name == "_" {
		return "main"
	}
	return f.Name.Name
}

var goVersionLine = regexp.MustCompile(`^go(\d+\.\d+(?:\.\d+)?)$`)

// installedGoVersion is the version of the installed go command, as a
// go.mod go line wants it ("1.26.1").
func installedGoVersion() (string, error) {
	r, err := runGo(context.Background(), "", goEnv(), nil, "env", "GOVERSION")
	if err != nil {
		return "", err
	}
	m := goVersionLine.FindStringSubmatch(strings.TrimSpace(r.stdout))
	if r.failed() || m == nil {
		return "", fmt.Errorf("cannot read the go version from %q", strings.TrimSpace(r.stdout+r.stderr))
	}
	return m[1], nil
}
