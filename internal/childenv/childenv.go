// Package childenv chooses the environment a child process gets: an
// allow-list of the variables programs need to run, never the person's keys.
// It follows the official MCP SDKs, which start stdio servers with only a
// handful of variables.
package childenv

import (
	"runtime"
	"strings"
)

// unixNames are the variables every child gets on Unix, when set.
var unixNames = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_*", "TMPDIR", "TZ"}

// windowsNames are their equivalents on Windows.
var windowsNames = []string{"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE",
	"SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP", "USERNAME", "USERPROFILE", "PROGRAMFILES", "COMSPEC", "PATHEXT", "WINDIR"}

// Go lists what the Go toolchain needs besides the base names: its own
// variables (by name: "GO*" would also match GOOGLE_API_KEY), cgo's, the
// C compilers, and proxies to reach the module proxy.
var Go = []string{"GOROOT", "GOPATH", "GOBIN", "GOCACHE", "GOMODCACHE", "GOENV", "GOFLAGS", "GOPROXY",
	"GONOPROXY", "GOPRIVATE", "GONOSUMDB", "GOSUMDB", "GOINSECURE", "GOVCS", "GOTOOLCHAIN", "GOWORK",
	"GOTMPDIR", "GOOS", "GOARCH", "GOAMD64", "GOARM", "GOARM64", "GO386", "GOEXPERIMENT", "GODEBUG",
	"GOMAXPROCS", "GOGC", "GOMEMLIMIT", "GOTRACEBACK", "GOCOVERDIR", "GOTELEMETRY", "CGO_*", "CC", "CXX", "AR", "PKG_CONFIG", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
	"http_proxy", "https_proxy", "no_proxy", "SSL_CERT_FILE", "SSL_CERT_DIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"}

// Names returns the base allow-list of this operating system: HOME,
// LOGNAME, PATH, SHELL, TERM, USER, LANG, LC_*, TMPDIR and TZ on Unix, and
// their equivalents on Windows. A name ending in '*' matches every name
// with that prefix.
func Names() []string {
	if runtime.GOOS == "windows" {
		return windowsNames
	}
	return unixNames
}

// Filter returns the entries of env ("NAME=value", as from os.Environ)
// whose names are in the base allow-list or match one of extra (exact
// names, or prefixes ending in '*'), in the order env has them.
func Filter(env []string, extra ...string) []string {
	allow := append(append([]string(nil), Names()...), extra...)
	var out []string
	for _, kv := range env {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if Allowed(name, allow) {
			out = append(out, kv)
		}
	}
	return out
}

// Allowed reports whether name is one of patterns: an exact name, or a
// prefix followed by '*'. Names compare without case on Windows.
func Allowed(name string, patterns []string) bool {
	if runtime.GOOS == "windows" {
		name = strings.ToUpper(name)
	}
	for _, p := range patterns {
		if runtime.GOOS == "windows" {
			p = strings.ToUpper(p)
		}
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			if strings.HasPrefix(name, prefix) {
				return true
			}
		} else if name == p {
			return true
		}
	}
	return false
}
