//go:build linux

package sandbox_test

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/bridle-dev/bridle/sandbox"
	"github.com/bridle-dev/bridle/sandbox/sandboxtest"
	"golang.org/x/sys/unix"
)

// The test binary doubles as the confined program: with doEnv set it does
// one thing and exits 0 when it worked, 1 with the error when it did not.
const doEnv = "SANDBOX_TEST_DO"

func TestMain(m *testing.M) {
	if what := os.Getenv(doEnv); what != "" {
		os.Exit(do(what, os.Args[1]))
	}
	os.Exit(m.Run())
}

func do(what, arg string) int {
	var err error
	switch what {
	case "dial":
		var c net.Conn
		if c, err = net.Dial("tcp", arg); err == nil {
			c.Close()
		}
	case "write":
		err = os.WriteFile(arg, []byte("written"), 0o600)
	case "read":
		_, err = os.ReadFile(arg)
	}
	if err != nil {
		os.Stderr.WriteString(err.Error())
		return 1
	}
	return 0
}

// confined runs the test binary doing what with arg, confined to root
// unless unconfined, and returns whether it worked and what it said.
func confined(t *testing.T, root, what, arg string, unconfined bool) (bool, string) {
	t.Helper()
	return confinedBy(t, sandbox.Policy{Root: root}, what, arg, unconfined)
}

// confinedBy is confined with a whole policy.
func confinedBy(t *testing.T, p sandbox.Policy, what, arg string, unconfined bool) (bool, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, arg)
	cmd.Env = append(os.Environ(), doEnv+"="+what)
	cmd.Dir = p.Root
	if !unconfined {
		if err := sandbox.Confine(cmd, p); err != nil {
			t.Fatal(err)
		}
	}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("cannot run %s: %v", what, err)
	}
	return err == nil, string(out)
}

func TestConfine(t *testing.T) {
	sandboxtest.Need(t)
	root := t.TempDir()
	addr, outside, secret := sandboxtest.Escapes(t)
	hostTmp, err := os.CreateTemp("/tmp", "sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	hostTmp.Close()
	defer os.Remove(hostTmp.Name())
	realHome, _ := os.UserHomeDir()

	cases := []struct {
		name, what, arg string
		works           bool
	}{
		{"writing inside the root works", "write", filepath.Join(root, "out.txt"), true},
		{"reading inside the root works", "read", filepath.Join(root, "out.txt"), true},
		{"reading the system's files works", "read", "/etc/hostname", true},
		{"dialling a loopback listener fails", "dial", addr, false},
		{"writing outside the root fails", "write", outside, false},
		{"writing the system's files fails", "write", "/etc/sandbox-test", false},
		{"reading a key in a home folder fails", "read", secret, false},
		{"reading the real ~/.ssh fails", "read", filepath.Join(realHome, ".ssh"), false},
		{"the machine's /tmp is out of sight", "read", hostTmp.Name(), false},
		{"the private /tmp is writable", "write", "/tmp/scratch", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.arg == "/etc/hostname" {
				if _, err := os.Stat(c.arg); err != nil {
					t.Skip("no /etc/hostname here")
				}
			}
			ok, out := confined(t, root, c.what, c.arg, false)
			if ok != c.works {
				t.Errorf("%s %s inside the sandbox: worked = %v, want %v (%s)", c.what, c.arg, ok, c.works, out)
			}
		})
	}
	t.Run("unconfined, the same program reaches the listener and the key", func(t *testing.T) {
		if ok, out := confined(t, root, "dial", addr, true); !ok {
			t.Errorf("dial unconfined failed: %s", out)
		}
		if ok, out := confined(t, root, "read", secret, true); !ok {
			t.Errorf("read unconfined failed: %s", out)
		}
	})
	if _, err := os.Stat(outside); err == nil {
		t.Error("a file was written outside the root")
	}
}

func TestReadOnlyAndWritableFolders(t *testing.T) {
	sandboxtest.Need(t)
	root, ro, rw := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ro, "tool"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := sandbox.Policy{Root: root, ReadOnly: []string{ro, filepath.Join(ro, "missing")}, Writable: []string{rw}}
	for _, c := range []struct {
		name, what, arg string
		works           bool
	}{
		{"a read-only folder can be read", "read", filepath.Join(ro, "tool"), true},
		{"a read-only folder cannot be written", "write", filepath.Join(ro, "new"), false},
		{"a writable folder can be written", "write", filepath.Join(rw, "new"), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if ok, out := confinedBy(t, p, c.what, c.arg, false); ok != c.works {
				t.Errorf("%s %s: worked = %v, want %v (%s)", c.what, c.arg, ok, c.works, out)
			}
		})
	}
}

func TestWrapperEndsWithTheSeparator(t *testing.T) {
	sandboxtest.Need(t)
	w, err := sandbox.Wrapper(sandbox.Policy{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(w[0]) != "bwrap" || w[len(w)-1] != "--" {
		t.Errorf("Wrapper = %q, want bwrap ... --", w)
	}
	if !strings.Contains(strings.Join(w, " "), "--unshare-all") {
		t.Errorf("Wrapper = %q, want the namespaces unshared", w)
	}
}

func TestPolicyNeedsARoot(t *testing.T) {
	sandboxtest.Need(t)
	if err := sandbox.Confine(exec.Command("true"), sandbox.Policy{}); err == nil || !strings.Contains(err.Error(), "Root is empty") {
		t.Errorf("Confine with no root = %v", err)
	}
}

// leaveBehind starts cmd, a shell that starts a process in the
// background and prints its pid, in run; waits for the shell to exit and
// returns the pid of the process it left behind.
func leaveBehind(t *testing.T, run *sandbox.Run, cmd *exec.Cmd) int {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Start(cmd); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return pid
}

func TestReaperKillsWhatLeftTheSession(t *testing.T) {
	r, err := sandbox.Subreaper()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid here")
	}
	run := r.NewRun()
	pid := leaveBehind(t, run, exec.Command("sh", "-c", "setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $!"))
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the detached sleep %d is not running before the run ends: %v", pid, err)
	}
	run.End()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the detached sleep %d outlived its run (kill 0: %v)", pid, err)
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

func TestReaperReapsAChildOfTheGroupThatExitedByItself(t *testing.T) {
	r, err := sandbox.Subreaper()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	run := r.NewRun()
	// sh leaves cat behind, reading a pipe the test holds.
	cmd := exec.Command("sh", "-c", "cat >/dev/null & echo $!")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	pid := leaveBehind(t, run, cmd)
	// cat is now this process's child; end it and wait until it is a
	// zombie, with no environment left to show its run.
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Skip("no pidfd here:", err)
	}
	defer unix.Close(fd)
	in.Close()
	if _, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, -1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
		t.Fatalf("cat %d is not a zombie before the run ends: %v", pid, err)
	}
	run.End()
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cat %d is still a zombie after its run ended", pid)
	}
}

func TestReaperReapsTheSandboxOfAKilledCommand(t *testing.T) {
	sandboxtest.Need(t)
	r, err := sandbox.Subreaper()
	if err != nil {
		t.Fatal(err)
	}
	run := r.NewRun()
	// Once it says so, the command runs inside.
	cmd := exec.Command("sh", "-c", "echo started; exec sleep 1000")
	cmd.Dir = t.TempDir()
	if err := sandbox.Confine(cmd, sandbox.Policy{Root: cmd.Dir}); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Start(cmd); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	// bwrap's own child, in a session of its own, is the one to watch.
	inner := childrenOf(t, cmd.Process.Pid)
	if len(inner) != 1 {
		t.Fatalf("bwrap %d has children %v, want one", cmd.Process.Pid, inner)
	}
	// A timeout kills bwrap; the child it leaves dies with it, and is
	// handed to this process.
	fd, err := unix.PidfdOpen(inner[0], 0)
	if err != nil {
		t.Skip("no pidfd here:", err)
	}
	defer unix.Close(fd)
	cmd.Process.Kill()
	cmd.Wait()
	if _, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, -1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", inner[0])); err != nil {
		t.Fatalf("bwrap's child %d is not a zombie before the run ends: %v", inner[0], err)
	}
	run.End()
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", inner[0])); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("bwrap's child %d is still a zombie after its run ended", inner[0])
	}
}

// childrenOf lists the children of pid.
func childrenOf(t *testing.T, pid int) []int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		t.Skip("no /proc children list here:", err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, n)
	}
	return pids
}
