#!/bin/sh
# Makes a fresh clone runnable: installs npm dependencies (which bring Node 24 from the
# npm registry as the `node` package) when they are missing or older than the lockfile.
# npm scripts put node_modules/.bin first on PATH, so every later `node` is Node 24.
set -e
cd "$(dirname "$0")/.."
stamp=node_modules/.package-lock.json
if [ ! -x node_modules/.bin/node ] || [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  echo "[bootstrap] installing npm dependencies (npm ci)" >&2
  npm ci --no-audit --no-fund --loglevel=error
fi
major=$(node_modules/.bin/node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 24 ]; then
  echo "[bootstrap] node_modules/.bin/node is Node $major; Node 24 is required" >&2
  exit 1
fi
