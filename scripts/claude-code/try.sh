#!/usr/bin/env bash
# Claude Code from npm against this server (stdio, --sandbox), with a stand-in model on loopback
# instead of Anthropic's API: the model calls session-recording-replay once, shows what Claude Code
# handed it, and holds its last answer while open-watch.mjs opens the result's watch_url in Debian's
# Chromium. Usage: npm run build && bash scripts/claude-code/try.sh [claude-code version]
# Needs the npm registry once (to install Claude Code into a scratch folder) and nothing else.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
work=$(mktemp -d); trap 'pkill -f "$work/stand-in-model" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
version=${1:-latest}
(cd "$work" && npm init -y >/dev/null && npm install --no-audit --no-fund --ignore-scripts --loglevel=error "@anthropic-ai/claude-code@$version" >/dev/null)
claude=$(ls "$work"/node_modules/@anthropic-ai/claude-code-linux-*/claude | head -1)
cp "$here/stand-in-model.mjs" "$work/stand-in-model.mjs"
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
printf '{"mcpServers":{"replay":{"command":"%s","args":["%s/dist/cli.js","--sandbox"]}}}' "$(command -v node)" "$repo" > "$work/mcp.json"
(cd "$work" && PORT=$port HOLD="$work" LOG="$work/requests.jsonl" ARGS='{"id":"0193a1f0-5c2e-7d41-9b8a-4e6f2a1c3d01","start_at":"1:05"}' node "$work/stand-in-model.mjs" >"$work/model.log" 2>&1 &)
sleep 1
(HOME="$work/home" ENABLE_TOOL_SEARCH=false ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY=stand-in DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
  timeout 300 "$claude" -p "show me the recording" --mcp-config "$work/mcp.json" --allowedTools "mcp__replay__session-recording-replay" --output-format text >"$work/claude.txt" 2>&1 &)
for _ in $(seq 1 120); do [ -f "$work/result.txt" ] && break; sleep 1; done
[ -f "$work/result.txt" ] || { echo "Claude Code never returned the tool's result"; cat "$work/claude.txt"; exit 1; }
echo "Claude Code $("$claude" --version) handed the model:"; head -c 400 "$work/result.txt"; echo " …"
url=$(grep -o '"watch_url":"[^"]*"' "$work/result.txt" | cut -d'"' -f4 || true)
[ -n "$url" ] || url=$(grep -o 'http://127.0.0.1:[0-9]*/watch/[^ ]*' "$work/result.txt" | head -1)
echo "watch_url: $url"
node "$here/open-watch.mjs" "$url" "$work/watch.png"
touch "$work/release"; sleep 3
if curl -s -m 3 -o /dev/null "$url"; then echo "the link still answers after Claude Code exited"; exit 1; fi
echo "after Claude Code exited the link is gone (connection refused)"
