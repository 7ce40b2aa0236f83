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
# the module from the module cache, builds the benchmarks against it in a
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
f="$tmp/go-sdk/internal/json/json.go"
grep -q 'return NewDecoder(bytes.NewReader(data)).Decode(v)' "$f" || {
	echo "sdkfix: $f is not the v1.8.0 code this patch is for" >&2
	exit 1
}
sed -i 's|return NewDecoder(bytes.NewReader(data)).Decode(v)|_, err := json.Parse(data, v, json.DontMatchCaseInsensitiveStructFields)\n\treturn err|; s|^\t"bytes"$|\t_ "bytes"|' "$f"

mkdir "$tmp/bench"
cp -r go.mod go.sum ./*.go cmd internal ts "$tmp/bench/"
sed -i "s|^replace github.com/bridle-dev/bridle => ../\$|replace github.com/bridle-dev/bridle => $root\n\nreplace github.com/modelcontextprotocol/go-sdk => $tmp/go-sdk|" "$tmp/bench/go.mod"
(cd "$tmp/bench" && go test -c -o "$tmp/patched.test" .)
go test -c -o "$tmp/stock.test" .

{
	echo "stock go-sdk:"
	MEMSTATS_IMPLS="raw bridle bridle-sdk sdk mcpgo" ./memstats.sh "$tmp/stock.test"
	echo "patched go-sdk:"
	(cd "$tmp/bench" && MEMSTATS_IMPLS="raw bridle bridle-sdk sdk mcpgo" "$bench/memstats.sh" "$tmp/patched.test")
} | tee "$out/sdkfix-memstats.txt"
[ "$count" -gt 0 ] || exit 0

# ToolCallHTTP matches ToolCallHTTP64 too.
patterns=('ToolCallStdio/(raw|bridle|bridle-sdk|sdk|mcpgo)$' 'ToolCallHTTP/(bridle|sdk|mcpgo)$')
rm -f "$out/sdkfix-stock.txt" "$out/sdkfix-patched.txt"
for _ in $(seq "$count"); do
	for pattern in "${patterns[@]}"; do
		(cd "$bench" && BENCH_MCP_EXTRA=bridle-sdk "$tmp/stock.test" -test.run '^$' -test.bench "$pattern" -test.benchtime "${BENCHTIME:-2s}" -test.benchmem) >> "$out/sdkfix-stock.txt"
		(cd "$tmp/bench" && BENCH_MCP_EXTRA=bridle-sdk "$tmp/patched.test" -test.run '^$' -test.bench "$pattern" -test.benchtime "${BENCHTIME:-2s}" -test.benchmem) >> "$out/sdkfix-patched.txt"
	done
done
(
	cd "$out"
	for unit in srv-µs/call sec/op B/op; do
		go run golang.org/x/perf/cmd/benchstat@latest -col .file -filter ".unit:$unit" sdkfix-stock.txt sdkfix-patched.txt
		echo
	done
) | tee "$out/sdkfix.stat.txt"
