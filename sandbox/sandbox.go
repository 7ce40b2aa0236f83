package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// ErrUnavailable is wrapped by the errors of [Check], [Confine] and
// [Wrapper] when commands cannot be confined on this machine.
var ErrUnavailable = errors.New("no sandbox")

// Policy says what a confined command may reach. Everything not named is
// out of sight, but for the system's programs and libraries (/usr, /bin,
// /lib…, /etc), which it may read, a private empty /tmp, /proc and a
// minimal /dev.
type Policy struct {
	// Root is the folder the command may read and write. It is required,
	// and is the command's working folder when cmd.Dir is empty.
	Root string
	// ReadOnly lists further files and folders the command may read: the
	// program itself when it is not on the system, toolchains, caches.
	// Paths that do not exist are left out.
	ReadOnly []string
	// Writable lists further folders the command may write.
	Writable []string
	// Network, when true, leaves the command the machine's network; the
	// zero value gives it none, not even the machine's loopback.
	Network bool
}

// systemReadOnly are the folders a program needs to run at all (the
// dynamic loader, libc, certificates, time zones, /etc/passwd). Home
// folders, /root, /var, /run, /opt, /srv, /mnt and /media stay hidden.
var systemReadOnly = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"}

// Mode is how a program uses the sandbox.
type Mode int

const (
	// Auto confines commands when the sandbox works here, and runs them
	// unconfined (saying so) when it does not.
	Auto Mode = iota
	// On refuses to run a command that cannot be confined.
	On
	// Off never confines.
	Off
)

// ParseMode reads a mode as a flag spells it: "auto", "on" or "off".
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(s) {
	case "auto", "":
		return Auto, nil
	case "on":
		return On, nil
	case "off":
		return Off, nil
	}
	return Auto, fmt.Errorf("sandbox mode %q is not one of auto, on, off", s)
}

// String spells m as [ParseMode] reads it.
func (m Mode) String() string {
	switch m {
	case On:
		return "on"
	case Off:
		return "off"
	}
	return "auto"
}

// Confine changes cmd, which must not have been started, so that it runs
// inside the sandbox p describes: cmd.Path becomes bwrap and the program
// and its arguments follow. cmd.Env, Stdin, Stdout and Stderr are kept;
// TMPDIR is set to the private /tmp. The error wraps [ErrUnavailable] when
// the sandbox does not work here, and leaves cmd as it was.
func Confine(cmd *exec.Cmd, p Policy) error {
	if cmd.Process != nil {
		return errors.New("sandbox: the command has already started")
	}
	prog := cmd.Path
	if cmd.Err != nil {
		return cmd.Err
	}
	if !filepath.IsAbs(prog) {
		lp, err := exec.LookPath(prog)
		if err != nil {
			return err
		}
		if prog, err = filepath.Abs(lp); err != nil {
			return err
		}
	}
	dir := cmd.Dir
	if dir == "" {
		dir = p.Root
	}
	p.ReadOnly = append(slices.Clip(p.ReadOnly), prog)
	wrap, err := wrapper(p, dir)
	if err != nil {
		return err
	}
	args := append(wrap[1:], prog)
	if len(cmd.Args) > 1 {
		args = append(args, cmd.Args[1:]...)
	}
	cmd.Path = wrap[0]
	cmd.Args = append([]string{wrap[0]}, args...)
	return nil
}

// Wrapper returns the command line that runs a program inside the sandbox
// p describes, to be followed by the program's path and its arguments:
// bwrap, its options, and "--". The program runs in the folder it was
// started in; its file must be readable inside (under Root, ReadOnly or the
// system's folders). The error wraps [ErrUnavailable] when the sandbox does
// not work here.
func Wrapper(p Policy) ([]string, error) {
	return wrapper(p, "")
}

// clean resolves the paths of p, so that binds name real folders.
func (p Policy) clean() (Policy, error) {
	if p.Root == "" {
		return p, errors.New("sandbox: Policy.Root is empty: give the folder the command may write")
	}
	root, err := realPath(p.Root)
	if err != nil {
		return p, fmt.Errorf("sandbox: root %s: %w", p.Root, err)
	}
	p.Root = root
	var ro, rw []string
	for _, s := range p.ReadOnly {
		if r, err := realPath(s); err == nil {
			ro = append(ro, r)
		}
	}
	for _, s := range p.Writable {
		r, err := realPath(s)
		if err != nil {
			return p, fmt.Errorf("sandbox: writable folder %s: %w", s, err)
		}
		rw = append(rw, r)
	}
	p.ReadOnly, p.Writable = ro, rw
	return p, nil
}

func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}
