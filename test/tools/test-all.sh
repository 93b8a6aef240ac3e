#!/usr/bin/env bash
# The whole test suite: build, generated-code check, typecheck, lint, then every vitest project against real
# processes, the single-node Cassandra and Kafka first, then the three-node clusters (test-cluster.sh). Prints a
# closing "N passed, N failed" line. Arguments go to the first vitest run (a filter, say); with any, the clusters'
# tests are left out.
set -euo pipefail
cd "$(dirname "$0")/../.."

step() { printf '\n== %s\n' "$*"; }

# Cassandra and Kafka take half a minute to start: they start first, in the background, while the code is built
# and checked. Started here when not already running, and stopped again at the end if this run started them.
step "Cassandra and Kafka for the distributed backend (starting in the background)"
started_infra=0
if ! bash test/infra/infra.sh status >/dev/null 2>&1; then
  started_infra=1
  trap 'bash test/infra/infra.sh down >/dev/null 2>&1 || true' EXIT
fi
infra_log="$(mktemp)"
bash test/infra/infra.sh up >"$infra_log" 2>&1 &
infra_pid=$!

# Checks that only read the tree run side by side, each into a log of its own that is printed once it is done: the
# lock file's resolution starts at once (it works on a scratch copy), type-checking and lint after the generated
# code was checked (which rewrites it). Two cores: tsc and eslint each keep one busy for a quarter of a minute.
bg_names=(); bg_pids=(); bg_logs=()
in_background() {
  local name="$1" log
  shift
  log="$(mktemp)"
  "$@" >"$log" 2>&1 &
  bg_names+=("$name"); bg_pids+=("$!"); bg_logs+=("$log")
}
lint() {
  npx buf lint &&
    npx eslint --max-warnings 0 . &&
    REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx redocly lint --extends recommended-strict openapi/ferry.openapi.json &&
    npx tsx test/tools/check-cycles.ts
}

in_background "the lock file is what npm install writes" bash test/tools/check-lockfile.sh

step "build"
npm run --silent build

step "generated code is up to date"
bash test/tools/check-generated.sh

in_background "typecheck" npm run --silent typecheck
in_background "lint" lint
checks_failed=0
for i in "${!bg_pids[@]}"; do
  check_status=0
  wait "${bg_pids[$i]}" || check_status=$?
  step "${bg_names[$i]}"
  cat "${bg_logs[$i]}"
  if [ "$check_status" -ne 0 ]; then echo "failed (exit $check_status)" >&2; checks_failed=1; fi
done
[ "$checks_failed" -eq 0 ] || exit 1

step "Cassandra and Kafka answer"
infra_status=0
wait "$infra_pid" || infra_status=$?
cat "$infra_log"
[ "$infra_status" -eq 0 ] || { echo "Cassandra and Kafka did not start" >&2; exit "$infra_status"; }

step "a browser for the console tests"
bash test/infra/browser.sh

step "tests"
report_dir="$(mktemp -d)"
export SUITE_DURATIONS_FILE="$report_dir/durations.jsonl"
durations=(--reporter=./test/tools/durations-reporter.ts)
status=0
# The failover, stale-owner and cancel-notice tests (project api-cassandra-alone) stop Cassandra and Kafka, or
# pause and kill whole clusters of processes: they run afterwards, away from the load of the rest; the stale-owner
# and cancel-notice files side by side, then failover with nothing beside it (it restarts Cassandra and Kafka).
# Every other project of vitest.config.ts is named in the first run.
npx vitest run --reporter=default "${durations[@]}" --reporter=json --outputFile.json="$report_dir/main.json" \
  --project unit --project unit-isolated --project contract --project api --project api-cassandra --project browser --project browser-cassandra \
  "$@" || status=$?
npx vitest run --reporter=default "${durations[@]}" --reporter=json --outputFile.json="$report_dir/paused.json" --project api-cassandra-alone --maxWorkers 2 \
  test/api/stale-owner.test.ts test/api/cancel-notice.test.ts || status=$?
npx vitest run --reporter=default "${durations[@]}" --reporter=json --outputFile.json="$report_dir/failover.json" --project api-cassandra-alone --maxWorkers 1 \
  test/api/failover.test.ts || status=$?
reports=("$report_dir/main.json" "$report_dir/paused.json" "$report_dir/failover.json")

# The three-node clusters' tests (project api-cluster, test-cluster.sh without its build: done above). Their six JVMs
# take about 5.3 GiB and much of the two cores, so the single pair goes down first when this run started it; one
# that was running before is left as it was.
if [ "$#" -eq 0 ]; then
  if [ "$started_infra" -eq 1 ]; then
    step "Cassandra and Kafka (single node) down, for the clusters"
    bash test/infra/infra.sh down || true
    trap - EXIT
  fi
  step "the three-node clusters"
  bash test/tools/test-cluster.sh --no-build --reporter=default "${durations[@]}" --reporter=json --outputFile.json="$report_dir/cluster.json" || status=$?
  reports+=("$report_dir/cluster.json")
fi

npx tsx test/tools/durations-summary.ts "$SUITE_DURATIONS_FILE" || true
printf '\nWhole run: %d s\n' "$SECONDS"
# A run whose report is missing (it could not start: the clusters did not come up, say) counts as one failure.
node -e '
  const fs = require("fs");
  let passed = 0, failed = 0, skipped = 0;
  const failures = [];
  for (const f of process.argv.slice(1)) {
    if (!fs.existsSync(f)) { failed += 1; failures.push(`${f}: no report (the run could not start)`); continue; }
    const r = JSON.parse(fs.readFileSync(f, "utf8"));
    passed += r.numPassedTests; failed += r.numFailedTests; skipped += r.numPendingTests + r.numTodoTests;
    for (const file of r.testResults ?? []) {
      for (const t of file.assertionResults ?? []) {
        if (t.status !== "failed") continue;
        const why = String((t.failureMessages ?? [])[0] ?? "").split("\n")[0].slice(0, 200);
        failures.push(`${file.name.replace(process.cwd() + "/", "")} > ${t.fullName}: ${why}`);
      }
    }
  }
  // Last, so that a report showing only the end of the output still names every failure.
  if (failures.length > 0) console.log(`\nFailed:\n${failures.map((l) => `  ${l}`).join("\n")}`);
  console.log(`${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ""));
' "${reports[@]}" || echo "0 passed, 1 failed"
exit "$status"
