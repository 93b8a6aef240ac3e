#!/usr/bin/env bash
# The whole test suite: build, generated-code check, typecheck, lint, then every vitest project against real
# processes. Prints a closing "N passed, N failed" line.
set -euo pipefail
cd "$(dirname "$0")/../.."

step() { printf '\n== %s\n' "$*"; }

step "build"
npm run --silent build

step "generated code is up to date"
bash test/tools/check-generated.sh

step "typecheck"
npx tsc -p tsconfig.json --noEmit

step "lint"
npx buf lint
npx eslint --max-warnings 0 .

step "Cassandra and Kafka for the distributed backend"
# Started here when not already running, and stopped again at the end if this run started them.
if ! bash test/infra/infra.sh status >/dev/null 2>&1; then
  trap 'bash test/infra/infra.sh down >/dev/null 2>&1 || true' EXIT
fi
bash test/infra/infra.sh up

step "tests"
report="$(mktemp -d)/vitest.json"
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));
' "$report" || echo "0 passed, 1 failed"
exit "$status"
