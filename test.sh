#!/usr/bin/env bash
# Runs the whole test suite: installs the MCP peers the interoperability
# tests use (when npm is there), then go test with the race detector.
set -euo pipefail
cd "$(dirname "$0")"
. .ci/peers.sh
go test -race -count=1 ./... "$@"
