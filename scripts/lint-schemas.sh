#!/usr/bin/env bash
# Runs the MCP Inspector's --strict schema-portability lint on our tools/list (sandbox upstream),
# without and with a default project, and fails on any warning or error. The Inspector is fetched
# with npx, outside the project's dependencies. Needs `npm run build` first.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
inspector="@modelcontextprotocol/inspector@2.12.0"
status=0
for project in "" "1001"; do
  if [[ -n "$project" ]]; then export POSTHOG_PROJECT_ID="$project"; else unset POSTHOG_PROJECT_ID; fi
  report="$(npx -y "$inspector" --cli node "$root/dist/cli.js" --sandbox --method tools/list --strict 2>&1 >/dev/null || true)"
  findings="$(grep -c '^Warning:\|^Error:' <<<"$report" || true)"
  label="no default project"; [[ -n "$project" ]] && label="POSTHOG_PROJECT_ID=$project"
  echo "lint:schemas ($label): $findings findings"
  if [[ "$findings" != "0" ]]; then echo "$report"; status=1; fi
done
exit "$status"
