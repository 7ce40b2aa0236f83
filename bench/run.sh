#!/usr/bin/env bash
# run.sh: every benchmark in bench/, each figure from `go test -bench` with
# -count, summarised by benchstat; raw outputs and summaries go to OUT.
#
#   ./run.sh                    everything (about 35 minutes on 2 cores)
#   ./run.sh mcp agent          some parts: mcp levers memstats sdkfix tool agent stream startup
#   COUNT=10 BENCHTIME=3s OUT=results/mine ./run.sh mcp
#
# COUNT (default 6) is -count; BENCHTIME (default 2s) the -benchtime of the
# MCP rows. The TypeScript rows need the npm peers (../test.sh installs
# them in ../.cache/peers; BRIDLE_PEERS_DIR points elsewhere). Timings are
# only comparable within one run: read ratios, not absolute figures, and
# prefer srv-µs/call (the server process's CPU time per call), which a busy
# machine disturbs least.
set -euo pipefail
cd "$(dirname "$0")"
count=${COUNT:-6}
benchtime=${BENCHTIME:-2s}
out=${OUT:-results/latest}
parts=${*:-mcp levers memstats sdkfix tool agent stream startup}
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -z "${BRIDLE_PEERS_DIR:-}" ] && [ -d ../.cache/peers/node_modules ]; then
	export BRIDLE_PEERS_DIR=$(cd ../.cache/peers && pwd)
fi

benchstat() { go run golang.org/x/perf/cmd/benchstat@latest "$@"; }
log() { printf '\n== %s (%s)\n' "$*" "$(date +%H:%M:%S)" >&2; }

# Before writing to OUT, which may be tracked (results/latest).
commit="$(git -C .. rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C .. diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
{
	echo "date:    $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "commit:  $commit"
	echo "cpu:     $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) cores)"
	echo "memory:  $(free -h | awk '/^Mem:/ {print $2}')"
	echo "go:      $(go version)"
	echo "node:    $(node --version 2>/dev/null || echo none)"
	echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) at start"
	echo "count:   $count, benchtime $benchtime"
} > "$out/machine.txt"
cat "$out/machine.txt" >&2

# The benchmarks of this module run from a test binary built once, run
# from bench/ (it builds cmd/mcpserver there).
go test -c -o "$out/bench.test" .
mcptest() { "$out/bench.test" -test.run '^$' -test.benchmem "$@"; }

# interleaved ARGS... makes COUNT runs of -count 1, so that a busy spell of
# the machine falls on every row alike rather than on one.
interleaved() {
	for _ in $(seq "$count"); do mcptest -test.count 1 "$@"; done
}

for part in $parts; do
	case $part in
	mcp)
		log "MCP tool calls: in-memory, stdio, Streamable HTTP, 64 clients"
		BENCH_MCP_EXTRA=bridle-sdkio interleaved -test.benchtime "$benchtime" \
			-test.bench 'ToolCallInMemory|ToolCallStdio|ToolCallStdioMeta|FloorEcho|ToolCallHTTP' | tee "$out/mcp.txt"
		(cd "$out" && benchstat mcp.txt) > "$out/mcp.stat.txt"
		;;
	levers)
		log "MCP levers over stdio: GC, GOMAXPROCS, the experiments, the protocol revision"
		impls='raw|bridle|bridle-sdkio|sdk|mcpgo'
		extra=bridle-sdkio
		settings=(default "MCPSERVER_GOGC=400" "MCPSERVER_GOGC=-1 MCPSERVER_MEMLIMIT_MB=64" "MCPSERVER_PROCS=1")
		files=()
		for s in "${settings[@]}"; do files+=("$out/levers-$(echo "$s" | tr ' =' '_-').txt"); done
		rm -f "${files[@]}" "$out/levers-protocol-"*.txt
		for _ in $(seq "$count"); do # interleaved: one run of each setting in turn
			for i in "${!settings[@]}"; do
				s=${settings[$i]}
				(
					[ "$s" = default ] || export $s
					BENCH_MCP_EXTRA=$extra mcptest -test.count 1 \
						-test.benchtime "$benchtime" -test.bench "ToolCallStdio/($impls)\$"
				) >> "${files[$i]}"
			done
			for v in 2026-07-28 2025-11-25; do
				BENCH_MCP_PROTOCOL=$v BENCH_MCP_EXTRA=bridle-sdkio mcptest -test.count 1 \
					-test.benchtime "$benchtime" -test.bench 'ToolCallStdio' >> "$out/levers-protocol-$v.txt"
			done
		done
		(
			cd "$out"
			for unit in srv-µs/call sec/op; do
				benchstat -col .file -filter ".unit:$unit" "${files[@]##*/}"
				echo
			done
			for unit in srv-µs/call sec/op; do
				benchstat -col .file -filter ".unit:$unit" levers-protocol-2026-07-28.txt levers-protocol-2025-11-25.txt
				echo
			done
		) > "$out/levers.stat.txt"
		cat "$out/levers.stat.txt"
		;;
	tool)
		log "package tool per call"
		interleaved -test.bench 'BenchmarkToolCall$' | tee "$out/tool.txt"
		(cd "$out" && benchstat tool.txt) > "$out/tool.stat.txt"
		;;
	agent)
		log "agent loop: Bridle vs fantasy"
		(cd agent && go test -c -o "$out/agent.test" . && for _ in $(seq "$count"); do
			"$out/agent.test" -test.run '^$' -test.bench . -test.benchmem -test.count 1
		done) | tee "$out/agent.txt"
		(cd "$out" && benchstat agent.txt) > "$out/agent.stat.txt"
		;;
	stream)
		log "stream decoding: Bridle vs the official SDKs"
		interleaved -test.bench 'StreamDecode' | tee "$out/stream.txt"
		(cd "$out" && benchstat stream.txt) > "$out/stream.stat.txt"
		;;
	memstats)
		log "what each stdio server allocates per call"
		./memstats.sh "$out/bench.test" | tee "$out/memstats.txt"
		;;
	sdkfix)
		log "the one-line fix in the Go SDK's JSON decoding"
		./sdkfix.sh "$out" "$count"
		;;
	startup)
		log "start-up"
		./startup.sh "$out"
		;;
	*)
		echo "run.sh: unknown part $part: use mcp, levers, memstats, sdkfix, tool, agent, stream or startup" >&2
		exit 2
		;;
	esac
done
rm -f "$out/bench.test" "$out/agent.test"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) at the end" >> "$out/machine.txt"
log "done: $out"
