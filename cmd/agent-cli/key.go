package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/bridle-dev/bridle/keychain"
	"github.com/bridle-dev/bridle/llm"
	"golang.org/x/term"
)

const keyUsage = "usage: agent-cli key set PROVIDER | agent-cli key delete PROVIDER"

// keyCommand stores or removes a provider's key in the keychain. The key is
// read from the terminal without echo, or from stdin when it is piped, and
// is never shown.
func keyCommand(ctx context.Context, args []string, stdin io.Reader, stderr io.Writer) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprintln(stderr, keyUsage)
		return nil
	}
	if len(args) != 2 || (args[0] != "set" && args[0] != "delete") {
		return errors.New(keyUsage)
	}
	p, err := llm.FindPreset(args[1])
	if err != nil {
		return fmt.Errorf("unknown provider '%s': known providers are %s", args[1], presetNames())
	}
	unavailable := func(err error) error {
		if errors.Is(err, keychain.ErrUnavailable) && p.KeyEnv != "" {
			return fmt.Errorf("%v: set %s instead", err, p.KeyEnv)
		}
		return err
	}

	if args[0] == "delete" {
		err := keychain.Delete(keychainService, p.Name)
		if errors.Is(err, keychain.ErrNotFound) {
			return fmt.Errorf("there is no %s key in the keychain", p.Name)
		}
		if err != nil {
			return unavailable(err)
		}
		fmt.Fprintf(stderr, "deleted the %s key from the keychain\n", p.Name)
		return nil
	}

	if p.KeyEnv == "" {
		return fmt.Errorf("the %s provider needs no key", p.Name)
	}
	key, err := readKey(ctx, p.Name, stdin, stderr)
	if err != nil {
		return err
	}
	if err := keychain.Set(keychainService, p.Name, key); err != nil {
		return unavailable(err)
	}
	fmt.Fprintf(stderr, "stored the %s key in the keychain (service %s, account %s)\n", p.Name, keychainService, p.Name)
	return nil
}

// readKey reads a key: from the terminal without echo, or the first line of
// piped stdin.
func readKey(ctx context.Context, provider string, stdin io.Reader, stderr io.Writer) (string, error) {
	var key string
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		k, err := readHidden(ctx, f, stderr, provider+" key (typing is hidden): ")
		if err != nil {
			return "", err
		}
		key = k
	} else {
		line, err := bufio.NewReader(io.LimitReader(stdin, 64<<10)).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("reading the key from stdin: %v", err)
		}
		key = line
	}
	key = strings.TrimSpace(key)
	if key == "" {
		return "", errors.New("no key given: type it at the prompt, or pipe it on stdin")
	}
	return key, nil
}

// readHidden shows prompt and reads a line from the terminal f without
// echo. Echo is off before the prompt appears, so nothing typed after it
// shows. Backspace and Ctrl-U edit; Ctrl-C gives up, and so does ctx.
func readHidden(ctx context.Context, f *os.File, stderr io.Writer, prompt string) (string, error) {
	fd := int(f.Fd())
	state, err := term.MakeRaw(fd)
	if err != nil {
		return "", err
	}
	restore := sync.OnceFunc(func() {
		term.Restore(fd, state)
		fmt.Fprintln(stderr)
	})
	defer restore()
	fmt.Fprint(stderr, prompt)

	type result struct {
		line string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		var line []rune
		r := bufio.NewReader(f)
		for {
			c, _, err := r.ReadRune()
			if err != nil {
				done <- result{string(line), err}
				return
			}
			switch c {
			case '\r', '\n':
				done <- result{string(line), nil}
				return
			case 0x03: // Ctrl-C
				done <- result{"", errInterrupted}
				return
			case 0x04: // Ctrl-D
				done <- result{string(line), nil}
				return
			case 0x7f, 0x08: // Backspace
				if len(line) > 0 {
					line = line[:len(line)-1]
				}
			case 0x15: // Ctrl-U
				line = line[:0]
			default:
				if c >= ' ' {
					line = append(line, c)
				}
			}
		}
	}()
	select {
	case res := <-done:
		if errors.Is(res.err, io.EOF) {
			res.err = nil
		}
		return res.line, res.err
	case <-ctx.Done():
		return "", errInterrupted
	}
}
