#!/usr/bin/env bash
# `npm run test:cluster`: the tests of the three-node clusters (project api-cluster, test/cluster/). Starts the
# clusters (`infra.sh cluster up`: whatever is down, then waits until every node is ready), builds Ferry, runs the
# project with FERRY_TEST_TOPOLOGY=cluster, and brings the clusters down again (data kept) whatever the outcome:
# six JVMs hold about 5.3 GiB, which the machine should get back when the run ends.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
start=$(date +%s)
trap 'bash test/infra/infra.sh cluster down; echo "test:cluster: $(( $(date +%s) - start )) s in all"' EXIT
bash test/infra/infra.sh cluster up
npm run build
FERRY_TEST_TOPOLOGY=cluster npx vitest run --project api-cluster "$@"
