#!/usr/bin/env bash
# sdkfix.sh: what a one-line fix in the official Go SDK would change.
#
#   ./sdkfix.sh [OUTDIR] [COUNT]      (defaults: results/latest, 6)
#
# go-sdk v1.8.0's internal/json.Unmarshal decodes through a new
# segmentio/encoding Decoder over a bytes.Reader, which allocates a 32 KiB
# read buffer on every call; a tools/call takes about seven such calls on
# the server and four on the client. The fix decodes from the bytes
# directly (json.Parse with the same flag). This script patches a copy of
# the module from the module cache with sdkfix.patch, builds the benchmarks against it in a
# temporary copy of bench/, and runs the stdio rows and the sequential HTTP
# rows with and without the patch, interleaved. Nothing in the checkout or the module cache changes.
set -euo pipefail
cd "$(dirname "$0")"
out=${1:-results/latest}
count=${2:-6}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bench=$(pwd)
root=$(cd .. && pwd)
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT

sdk=$(go list -m -f '{{.Dir}}' github.com/modelcontextprotocol/go-sdk)
cp -r "$sdk" "$tmp/go-sdk"
chmod -R u+w "$tmp/go-sdk"
# sdkfix.patch is the change, ready to send upstream.
(cd "$tmp/go-sdk" && patch -s -p1 --dry-run < "$bench/sdkfix.patch" >/dev/null) || {
	echo "sdkfix: sdkfix.patch does not apply to $sdk; it is for v1.8.0" >&2
	exit 1
}
(cd "$tmp/go-sdk" && patch -s -p1 < "$bench/sdkfix.patch")

mkdir "$tmp/bench"
cp -r go.mod go.sum ./*.go cmd internal ts "$tmp/bench/"
sed -i "s|^replace github.com/bridle-dev/bridle => ../\$|replace github.com/bridle-dev/bridle => $root\n\nreplace github.com/modelcontextprotocol/go-sdk => $tmp/go-sdk|" "$tmp/bench/go.mod"
(cd "$tmp/bench" && go test -c -o "$tmp/patched.test" .)
go test -c -o "$tmp/stock.test" .

{
	echo "stock go-sdk:"
	MEMSTATS_IMPLS="raw bridle bridle-sdkio sdk mcpgo" ./memstats.sh "$tmp/stock.test"
	echo "patched go-sdk:"
	(cd "$tmp/bench" && MEMSTATS_IMPLS="raw bridle bridle-sdkio sdk mcpgo" "$bench/memstats.sh" "$tmp/patched.test")
} | tee "$out/sdkfix-memstats.txt"
[ "$count" -gt 0 ] || exit 0

# ToolCallHTTP matches ToolCallHTTP64 too.
patterns=('ToolCallStdio/(raw|bridle|bridle-sdkio|sdk|mcpgo)$' 'ToolCallHTTP/(bridle|sdk|mcpgo)$')
rm -f "$out/sdkfix-stock.txt" "$out/sdkfix-patched.txt"
for _ in $(seq "$count"); do
	for pattern in "${patterns[@]}"; do
		(cd "$bench" && BENCH_MCP_EXTRA=bridle-sdkio "$tmp/stock.test" -test.run '^$' -test.bench "$pattern" -test.benchtime "${BENCHTIME:-2s}" -test.benchmem) >> "$out/sdkfix-stock.txt"
		(cd "$tmp/bench" && BENCH_MCP_EXTRA=bridle-sdkio "$tmp/patched.test" -test.run '^$' -test.bench "$pattern" -test.benchtime "${BENCHTIME:-2s}" -test.benchmem) >> "$out/sdkfix-patched.txt"
	done
done
(
	cd "$out"
	for unit in srv-µs/call sec/op B/op; do
		go run golang.org/x/perf/cmd/benchstat@latest -col .file -filter ".unit:$unit" sdkfix-stock.txt sdkfix-patched.txt
		echo
	done
) | tee "$out/sdkfix.stat.txt"
