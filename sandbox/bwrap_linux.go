package sandbox

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Check reports whether commands can be confined here: nil, or an error
// wrapping [ErrUnavailable] that says why not and what to install. It
// runs bwrap once, the first time it is asked.
func Check() error { return check() }

var check = sync.OnceValue(func() error {
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return fmt.Errorf("%w: bubblewrap (bwrap) is not installed: install it (apt install bubblewrap, dnf install bubblewrap)", ErrUnavailable)
	}
	// The smallest sandbox that needs what every confined command needs:
	// user, pid and network namespaces.
	cmd := exec.Command(path, "--unshare-all", "--unshare-user", "--die-with-parent", "--disable-userns", "--ro-bind", "/", "/", "--", "true")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("%w: bwrap is installed but cannot make a sandbox here (%s): the kernel or a container may forbid unprivileged user namespaces", ErrUnavailable, msg)
	}
	return nil
})

// bwrapPath is bwrap's path once Check has found it.
func bwrapPath() (string, error) {
	if err := Check(); err != nil {
		return "", err
	}
	return exec.LookPath("bwrap")
}

// wrapper is bwrap's command line for p, up to and including "--". dir is
// the working folder inside, or "" to stay where bwrap starts.
func wrapper(p Policy, dir string) ([]string, error) {
	bwrap, err := bwrapPath()
	if err != nil {
		return nil, err
	}
	p, err = p.clean()
	if err != nil {
		return nil, err
	}
	args := []string{bwrap,
		"--unshare-all",  // ipc, pid, net, uts, cgroup, and user when not root
		"--unshare-user", // for root too, so that --disable-userns holds
		"--die-with-parent",
		"--new-session", // no writing into the terminal's input
		"--disable-userns",
	}
	if p.Network {
		args = append(args, "--share-net")
	}
	for _, d := range systemReadOnly {
		args = append(args, "--ro-bind-try", d, d)
	}
	args = append(args, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp")

	// Binds are made parents first, so that a folder inside another
	// keeps its own access.
	type bind struct {
		flag, path string
	}
	binds := []bind{{"--bind", p.Root}}
	for _, w := range p.Writable {
		binds = append(binds, bind{"--bind", w})
	}
	for _, r := range p.ReadOnly {
		binds = append(binds, bind{"--ro-bind-try", r})
	}
	slices.SortStableFunc(binds, func(a, b bind) int {
		return strings.Count(filepath.Clean(a.path), "/") - strings.Count(filepath.Clean(b.path), "/")
	})
	for _, b := range binds {
		args = append(args, b.flag, b.path, b.path)
	}
	args = append(args, "--setenv", "TMPDIR", "/tmp")
	if dir != "" {
		d, err := realPath(dir)
		if err != nil {
			return nil, fmt.Errorf("sandbox: working folder %s: %w", dir, err)
		}
		args = append(args, "--chdir", d)
	}
	return append(args, "--"), nil
}
