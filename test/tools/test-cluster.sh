#!/usr/bin/env bash
# `npm run test:cluster`: the tests of the three-node clusters (project api-cluster, test/cluster/). Starts the
# clusters (`infra.sh cluster up`: whatever is down, then waits until every node is ready) while it builds Ferry, runs the
# project with FERRY_TEST_TOPOLOGY=cluster, and brings the clusters down again (data kept) whatever the outcome:
# six JVMs hold about 5.3 GiB, which the machine should get back when the run ends.
#
#   test-cluster.sh [--no-build] [vitest arguments...]
#
# --no-build: Ferry is built already (`npm test` runs this after its own build and tests).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
start=$(date +%s)
skip_build=""
if [[ ${1:-} == --no-build ]]; then
  skip_build=1
  shift
fi
build=""
trap '[[ -n $build ]] && kill "$build" 2>/dev/null; bash test/infra/infra.sh cluster down; echo "test:cluster: $(( $(date +%s) - start )) s in all"' EXIT
# The build runs while the clusters start: much of `cluster up` is waiting (for a node's peers, for gossip, between
# probes), time the build can use.
if [[ -z $skip_build ]]; then
  build_log=$(mktemp)
  npm run build >"$build_log" 2>&1 &
  build=$!
fi
bash test/infra/infra.sh cluster up
if [[ -n $build ]]; then
  if ! wait "$build"; then
    build=""
    cat "$build_log"
    exit 1
  fi
  build=""
  rm -f "$build_log"
fi
echo "test:cluster: clusters ready after $(( $(date +%s) - start )) s"
FERRY_TEST_TOPOLOGY=cluster npx vitest run --project api-cluster "$@"
