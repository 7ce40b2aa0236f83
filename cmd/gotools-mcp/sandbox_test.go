package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/sandbox"
	"github.com/bridle-dev/bridle/sandbox/sandboxtest"
)

// escapes tries three ways out of a sandbox and prints how each went.
const escapes = `package main

import (
	"fmt"
	"net"
	"os"
)

func main() {
	if c, err := net.Dial("tcp", %q); err != nil {
		fmt.Println("dial: refused")
	} else {
		c.Close()
		fmt.Println("dial: connected")
	}
	if err := os.WriteFile(%q, []byte("x"), 0o600); err != nil {
		fmt.Println("write outside: refused")
	} else {
		fmt.Println("write outside: written")
	}
	if _, err := os.ReadFile(%q); err != nil {
		fmt.Println("read key: refused")
	} else {
		fmt.Println("read key: read")
	}
	if err := os.WriteFile("inside.txt", []byte("x"), 0o600); err != nil {
		fmt.Println("write inside: refused", err)
	} else {
		fmt.Println("write inside: written")
	}
}
`

// escapesTest is the same as a test.
const escapesTest = `package boxed

import (
	"net"
	"os"
	"testing"
)

func TestDial(t *testing.T) {
	c, err := net.Dial("tcp", %q)
	if err != nil {
		t.Fatal("dial: refused")
	}
	c.Close()
}

func TestWriteOutside(t *testing.T) {
	if err := os.WriteFile(%q, []byte("x"), 0o600); err != nil {
		t.Fatal("write outside: refused")
	}
}

func TestReadKey(t *testing.T) {
	if _, err := os.ReadFile(%q); err != nil {
		t.Fatal("read key: refused")
	}
}

func TestWriteInside(t *testing.T) {
	if err := os.WriteFile("inside.txt", []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
}
`

func TestRunInTheSandbox(t *testing.T) {
	t.Parallel()
	sandboxtest.Need(t)
	addr, outside, key := sandboxtest.Escapes(t)
	code := fmt.Sprintf(escapes, addr, outside, key)
	for _, c := range []struct {
		mode sandbox.Mode
		want []string
	}{
		{sandbox.On, []string{"dial: refused", "write outside: refused", "read key: refused", "write inside: written",
			"sandbox: on (no network; writes only inside the code's temporary module and a private /tmp; home folders hidden)"}},
		{sandbox.Off, []string{"dial: connected", "write outside: written", "read key: read", "write inside: written",
			"sandbox: off (the server was started with --sandbox off)"}},
	} {
		t.Run("with --sandbox "+c.mode.String(), func(t *testing.T) {
			s, err := newServer(testdataRoot(t), newConfinement(c.mode), nil)
			if err != nil {
				t.Fatal(err)
			}
			text, failed := call(t, s, "go_run", map[string]any{"code": code})
			expect{has: c.want}.check(t, text, failed)
		})
	}
	if err := os.Remove(outside); err != nil {
		t.Errorf("the unconfined run did not write %s: %v", outside, err)
	}
}

func TestTestInTheSandbox(t *testing.T) {
	t.Parallel()
	sandboxtest.Need(t)
	addr, outside, key := sandboxtest.Escapes(t)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/boxed\n\ngo 1.25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "boxed_test.go"), []byte(fmt.Sprintf(escapesTest, addr, outside, key)), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := newServer(root, newConfinement(sandbox.On), nil)
	if err != nil {
		t.Fatal(err)
	}
	text, failed := call(t, s, "go_test", map[string]any{"path": "."})
	expect{
		prefix: "FAIL: 1 passed, 3 failed",
		has: []string{"dial: refused", "write outside: refused", "read key: refused",
			"sandbox: on (no network; writes only inside the project root"},
	}.check(t, text, failed)
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("a confined test wrote %s", outside)
	}
	if _, err := os.Stat(filepath.Join(root, "inside.txt")); err != nil {
		t.Errorf("a confined test could not write inside the root: %v", err)
	}
}

func TestWithoutASandbox(t *testing.T) {
	t.Parallel()
	missing := fmt.Errorf("%w: bubblewrap (bwrap) is not installed: install it", sandbox.ErrUnavailable)
	code := "package main\n\nfunc main() { println(\"ran\") }\n"
	t.Run("--sandbox on refuses to run code", func(t *testing.T) {
		conf := &confinement{mode: sandbox.On, err: missing, toolchain: func() []string { return nil }}
		s, err := newServer(testdataRoot(t), conf, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range []struct {
			name string
			args map[string]any
		}{{"go_run", map[string]any{"code": code}}, {"go_test", map[string]any{"path": "clean"}}} {
			text, failed := call(t, s, tool.name, tool.args)
			expect{fails: true, has: []string{tool.name + " refuses to run code without a sandbox (the server was started with --sandbox on): no sandbox: bubblewrap (bwrap) is not installed"}}.check(t, text, failed)
		}
		if w := conf.warning(); !strings.Contains(w, "will refuse to run code") {
			t.Errorf("warning = %q", w)
		}
	})
	t.Run("--sandbox auto runs it unconfined and says why", func(t *testing.T) {
		conf := &confinement{mode: sandbox.Auto, err: missing, toolchain: func() []string { return nil }}
		s, err := newServer(testdataRoot(t), conf, nil)
		if err != nil {
			t.Fatal(err)
		}
		text, failed := call(t, s, "go_run", map[string]any{"code": code})
		expect{has: []string{"ran", "sandbox: off (bubblewrap (bwrap) is not installed: install it)"}}.check(t, text, failed)
		if w := conf.warning(); !strings.Contains(w, "without a sandbox") {
			t.Errorf("warning = %q", w)
		}
	})
	t.Run("--sandbox with another word is refused", func(t *testing.T) {
		err := run(t.Context(), []string{"--sandbox", "maybe"}, strings.NewReader(""), new(strings.Builder), new(strings.Builder))
		if err == nil || !strings.Contains(err.Error(), `--sandbox: sandbox mode "maybe" is not one of auto, on, off`) {
			t.Errorf("run = %v", err)
		}
	})
	if !errors.Is(missing, sandbox.ErrUnavailable) {
		t.Fatal("the error does not wrap ErrUnavailable")
	}
}
