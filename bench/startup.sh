#!/usr/bin/env bash
# startup.sh: start-up of agent-cli, the cross-process part of the benchmarks.
#
#   ./startup.sh [OUTDIR]      (default: results)
#
# 1. `agent-cli --version`: hyperfine when it is installed (apt-get install
#    hyperfine), else (or with STARTUP_NO_HYPERFINE=1) a loop timed with
#    date +%s%N.
# 2. Time from start to the first model request, with gotools-mcp (the Go
#    toolchain server) connected and without it: cmd/firstrequest.
# Both programs are built from this checkout into a temporary folder; when
# cmd/agent-cli or cmd/gotools-mcp is missing the step is skipped.
set -euo pipefail
cd "$(dirname "$0")"
out=${1:-results}
mkdir -p "$out"
runs=${STARTUP_RUNS:-50}

root=$(cd .. && pwd)
if [ ! -d "$root/cmd/agent-cli" ]; then
	echo "startup: ../cmd/agent-cli does not exist yet; skipping" | tee "$out/startup.txt"
	exit 0
fi
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
(cd "$root" && go build -o "$bin/agent-cli" ./cmd/agent-cli)
have_gotools=0
if [ -d "$root/cmd/gotools-mcp" ]; then
	(cd "$root" && go build -o "$bin/gotools-mcp" ./cmd/gotools-mcp)
	have_gotools=1
fi

{
	echo "## agent-cli --version"
	echo
	if command -v hyperfine >/dev/null && [ -z "${STARTUP_NO_HYPERFINE:-}" ]; then
		hyperfine --shell=none --warmup 5 --runs "$runs" --export-markdown "$out/startup-version.md" \
			-n 'agent-cli --version' "$bin/agent-cli --version" >/dev/null
		cat "$out/startup-version.md"
	else
		times=()
		for _ in $(seq 5); do "$bin/agent-cli" --version >/dev/null; done
		for _ in $(seq "$runs"); do
			start=$(date +%s%N)
			"$bin/agent-cli" --version >/dev/null
			end=$(date +%s%N)
			times+=($(((end - start) / 1000)))
		done
		sorted=($(printf '%s\n' "${times[@]}" | sort -n))
		sum=0
		for t in "${times[@]}"; do sum=$((sum + t)); done
		printf 'loop of %d runs (date +%%s%%N): median %d µs, mean %d µs, min %d µs, max %d µs\n' \
			"$runs" "${sorted[$((runs / 2))]}" "$((sum / runs))" "${sorted[0]}" "${sorted[$((runs - 1))]}"
	fi
	echo
	echo "## time to the first model request"
	echo
	if [ $have_gotools = 1 ]; then
		echo '```'
		go run ./cmd/firstrequest -agent "$bin/agent-cli" -gotools "$bin/gotools-mcp" -n "${FIRSTREQUEST_RUNS:-20}"
		echo '```'
	else
		echo "../cmd/gotools-mcp does not exist yet; skipped"
	fi
} | tee "$out/startup.txt"
