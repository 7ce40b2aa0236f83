package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/format"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/bridle-dev/bridle/tool"
)

type fmtIn struct {
	Path string `json:"path,omitempty" jsonschema:"a Go file, or a folder whose Go files (and those below it) are checked, relative to the project root; files are never rewritten"`
	Code string `json:"code,omitempty" jsonschema:"the text of a Go file to format"`
}

const fmtDescription = `Format Go source as gofmt does, without writing any file.
With code: answers the formatted source. With path: says which files differ from gofmt and gives the formatted text of each (a folder covers its Go files and those below it, skipping testdata, vendor and hidden folders).`

func (g *gotools) fmtTool() tool.Tool {
	return tool.New("go_fmt", fmtDescription, tool.Read, g.format)
}

// Limits of go_fmt on a folder.
const (
	maxFmtFiles    = 5000
	maxFmtFileSize = 4 << 20
)

func (g *gotools) format(ctx context.Context, in fmtIn) (string, error) {
	switch {
	case (in.Path == "") == (in.Code == ""):
		return "", errPathOrCode("go_fmt")
	case in.Code != "":
		out, err := format.Source([]byte(in.Code))
		if err != nil {
			return "", fmt.Errorf("the code does not parse, so it cannot be formatted: %v", err)
		}
		return string(out), nil
	}

	abs, err := g.ws.locate(in.Path)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("path %q: %v", in.Path, err)
	}
	var files []string
	if info.IsDir() {
		if files, err = goFiles(ctx, abs); err != nil {
			return "", err
		}
	} else {
		if !strings.HasSuffix(abs, ".go") {
			return "", fmt.Errorf("%s is not a Go file: give a .go file or a folder", g.ws.show(abs))
		}
		files = []string{abs}
	}

	var differ, broken []string
	var texts strings.Builder
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		name := g.ws.show(f)
		src, err := readSource(f)
		if err != nil {
			broken = append(broken, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		out, err := format.Source(src)
		if err != nil {
			broken = append(broken, fmt.Sprintf("%s:%v", name, err))
			continue
		}
		if bytes.Equal(src, out) {
			continue
		}
		differ = append(differ, name)
		if texts.Len()+len(out) > maxSummary {
			fmt.Fprintf(&texts, "--- %s (formatted text left out: the answer is long; ask for this file alone)\n\n", name)
			continue
		}
		fmt.Fprintf(&texts, "--- %s (formatted)\n%s\n", name, out)
	}

	var sb strings.Builder
	switch {
	case len(differ) == 0 && len(broken) == 0:
		fmt.Fprintf(&sb, "all %d Go files are formatted as gofmt would\n", len(files))
	case len(differ) > 0:
		fmt.Fprintf(&sb, "%d of %d Go files differ from gofmt (no file was changed):\n", len(differ), len(files))
		for _, d := range differ {
			sb.WriteString("  " + d + "\n")
		}
	}
	if len(broken) > 0 {
		fmt.Fprintf(&sb, "%d files do not parse, so they cannot be formatted:\n", len(broken))
		for _, b := range broken {
			sb.WriteString("  " + b + "\n")
		}
	}
	if texts.Len() > 0 {
		sb.WriteString("\n" + texts.String())
	}
	return sb.String(), nil
}

// goFiles lists the Go files in dir and below it, skipping what the go
// command skips: testdata, vendor, and folders starting with "." or "_".
func goFiles(ctx context.Context, dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != dir && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && d.Type().IsRegular() {
			if len(files) == maxFmtFiles {
				return fmt.Errorf("more than %d Go files under %s: give a smaller folder", maxFmtFiles, dir)
			}
			files = append(files, p)
		}
		return nil
	})
	return files, err
}

var (
	errTooBig     = errors.New("larger than 4 MiB; not formatted")
	errNotRegular = errors.New("not a regular file (a named pipe, socket or device); not read")
)

func readSource(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		// Opening a named pipe would wait for a writer for ever.
		return nil, errNotRegular
	}
	if info.Size() > maxFmtFileSize {
		return nil, errTooBig
	}
	return os.ReadFile(path)
}
