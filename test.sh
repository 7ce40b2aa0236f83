#!/usr/bin/env bash
# Runs the whole test suite: installs the MCP peers the interoperability
# tests use (when npm is there), then go test with the race detector.
set -euo pipefail
cd "$(dirname "$0")"
. .ci/peers.sh
# go_doc's test documents a dependency of testdata/withdep offline: fetch its
# module metadata into the module cache (from the Go module proxy) first.
(cd cmd/gotools-mcp/testdata/withdep && go list -m all >/dev/null) ||
  echo "test.sh: could not fetch the modules of cmd/gotools-mcp/testdata/withdep; a go_doc test will skip" >&2
go test -race -count=1 ./... "$@"
