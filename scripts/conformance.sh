#!/usr/bin/env bash
# Runs the MCP conformance suite's server scenarios that apply to Cruxe against a real
# `cruxe serve-mcp --transport http` on a temporary home and a copy of a fixture repository.
#
# Applies: server-initialize, ping, tools-list, dns-rebinding-protection (must pass).
# Does not apply (they need the suite's own test tools/resources/prompts or capabilities Cruxe
# does not offer): json-schema-2020-12 (needs a tool named json_schema_2020_12_tool; our own
# tests check that every tool schema keeps $schema 2020-12 and additionalProperties), logging-*,
# completion-*, tools-call-* (fixed test tools), elicitation-*, sampling, resources-*, prompts-*,
# server-sse-polling (needs resumable SSE streams; Cruxe's HTTP transport is stateless).
# Needs: deno, network access to fetch the pinned conformance package on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION="0.1.16"
PORT="${CONFORMANCE_PORT:-9390}"
HOME_DIR="$(mktemp -d)"
REPO_DIR="$(mktemp -d)"
cp -r fixtures/repos/go_basic/. "$REPO_DIR/"
FLAGS=(--allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1,localhost --allow-sys)
CRUXE_HOME="$HOME_DIR" deno run "${FLAGS[@]}" main.ts index --path "$REPO_DIR" >/dev/null
CRUXE_HOME="$HOME_DIR" deno run "${FLAGS[@]}" main.ts serve-mcp --transport http --port "$PORT" \
  --workspace "$REPO_DIR" --no-prewarm 2>"$HOME_DIR/server.log" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$HOME_DIR" "$REPO_DIR"' EXIT
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && break
  sleep 0.1
done
status=0
for scenario in server-initialize ping tools-list dns-rebinding-protection; do
  if deno run -A "npm:@modelcontextprotocol/conformance@$VERSION" server \
    --url "http://127.0.0.1:$PORT/" --scenario "$scenario"; then
    echo "conformance: $scenario passed"
  else
    echo "conformance: $scenario FAILED" >&2
    status=1
  fi
done
exit $status
