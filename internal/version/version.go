// Package version tells which version of the module a program of this
// repository was built from, the same way for every program.
package version

import "runtime/debug"

// Devel is the version of a build from a checkout without version
// control information.
const Devel = "devel"

// String returns the module version the running binary was built from:
// the tag for `go install …@v1.2.3`, a pseudo-version for a build of a
// commit, or [Devel].
func String() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return fromBuildInfo(bi)
	}
	return Devel
}

func fromBuildInfo(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	return Devel
}
