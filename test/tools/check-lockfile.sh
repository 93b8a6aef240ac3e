#!/usr/bin/env bash
# Fails when `npm install` on a fresh clone would rewrite package-lock.json: the lock is resolved again from
# package.json alone, in a scratch copy (no node_modules, no install scripts), and must come out byte for byte
# the same. npm 10 and npm 11 write the lock differently (npm 11 records each package's libc), hence the
# `engines.npm` requirement in package.json.
set -euo pipefail
cd "$(dirname "$0")/../.."

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cp package.json package-lock.json "$scratch/"
(cd "$scratch" && npm install --package-lock-only --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
if ! cmp -s package-lock.json "$scratch/package-lock.json"; then
  echo "npm install would rewrite package-lock.json (npm $(npm --version)); run 'npm install' with npm 11 and commit the lock:" >&2
  diff -u package-lock.json "$scratch/package-lock.json" | head -40 >&2 || true
  exit 1
fi
echo "package-lock.json is what npm install writes"
