#!/usr/bin/env bash
# memstats.sh: what each stdio server allocates per call, from inside the
# server process (MCPSERVER_MEMSTATS), over a fixed number of calls.
#
#   ./memstats.sh [TESTBIN] [CALLS]   (defaults: a fresh build of this folder's tests, 5000)
#
# TESTBIN is a test binary of this module (sdkfix.sh passes one built
# against a patched SDK); it runs from the current folder, which must hold
# cmd/mcpserver. Without TESTBIN the script builds one and runs in bench/. Prints one line
# per server: KiB and allocations per call, and calls per GC cycle. The
# figures include the server's start, which 5,000 calls make negligible.
set -euo pipefail
bin=${1:-}
calls=${2:-5000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$bin" ]; then
	cd "$(dirname "$0")"
	go test -c -o "$tmp/bench.test" .
	bin=$tmp/bench.test
fi
printf '%-18s %12s %12s %12s\n' server KiB/call allocs/call calls/GC
for impl in ${MEMSTATS_IMPLS:-raw bridle bridle-sdkio sdk mcpgo}; do
	MCPSERVER_MEMSTATS=$tmp/$impl.txt BENCH_MCP_EXTRA=bridle-sdkio \
		"$bin" -test.run '^$' -test.bench "ToolCallStdio/^$impl\$" -test.benchtime "${calls}x" >/dev/null
	# The server writes its figures as it exits, after the benchmark
	# closed the session.
	for _ in $(seq 50); do [ -s "$tmp/$impl.txt" ] && break; sleep 0.1; done
	awk -v impl="$impl" -v n="$((calls + 1))" '{v[$1] = $2}
		END {printf "%-18s %12.1f %12.1f %12.1f\n", impl, v["total_alloc"]/n/1024, v["mallocs"]/n, n/(v["num_gc"] > 0 ? v["num_gc"] : 1)}' "$tmp/$impl.txt"
done
