#!/usr/bin/env bash
# Records the fixture recordings in fixtures/recordings/ (on demand; nothing here runs at test time).
# Installs this script's own dependencies into scripts/record-fixtures/node_modules, never the repo's.
#   bash scripts/record-fixtures/record.sh                      # all scenarios
#   bash scripts/record-fixtures/record.sh checkout-failure     # one scenario (others kept from index.json)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  echo "Chromium not found at $chromium: apt-get install -y chromium (or set CHROMIUM_PATH)" >&2
  exit 1
fi
npm install --prefix "$here" --no-audit --no-fund --ignore-scripts --loglevel=error
node "$here/record.mjs" "$@"
node "$here/validate.mjs"
