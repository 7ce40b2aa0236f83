// Package sandbox runs a command confined, for code that a model wrote:
// no network, only one folder writable, the person's files out of sight, a
// private /tmp, and nothing the command starts outliving it.
//
// On Linux the confinement is bubblewrap (bwrap), when it is installed and
// the kernel lets an unprivileged user make namespaces. Elsewhere, and on
// a Linux without bwrap, [Check] says why not, and a program decides by
// its [Mode] whether to run the command unconfined (saying so) or refuse.
// A port to macOS's sandbox-exec is planned and not written yet.
//
// A [Policy] describes the confinement; [Confine] rewrites an exec.Cmd to
// run inside it, and [Wrapper] gives the same as a command prefix for
// tools that take one (go test -exec). [Reaper] makes sure the processes a
// command started are gone when it ends, confined or not.
//
//	p := sandbox.Policy{Root: project, ReadOnly: []string{goroot}}
//	cmd := exec.CommandContext(ctx, prog)
//	cmd.Dir = project
//	if err := sandbox.Confine(cmd, p); err != nil {
//		// errors.Is(err, sandbox.ErrUnavailable): run it unconfined, or refuse
//	}
package sandbox
