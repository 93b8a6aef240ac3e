#!/usr/bin/env bash
# Refreshes the console's screenshots shown in the README (src/console/screenshots/) from a run of the browser
# tests, which take them at the moments worth showing: `npm run console:screenshots`.
set -euo pipefail
cd "$(dirname "$0")/../.."

shown=(requests-list request-attempts-retry send-form schedules-list schedule-preview-dst schedule-edit-timing requests-narrow sign-in-wrong-key flow-keys-list flow-key-slowed request-held failures-replay-confirm failures-bulk-done)

dir="$(mktemp -d)"
npm run --silent build
bash test/infra/browser.sh >/dev/null
FERRY_TEST_SCREENSHOTS="$dir" npx vitest run --project browser test/browser
mkdir -p src/console/screenshots
for name in "${shown[@]}"; do
  if [ ! -f "$dir/$name.png" ]; then echo "no screenshot named $name was taken" >&2; exit 1; fi
  cp "$dir/$name.png" "src/console/screenshots/$name.png"
done
echo "refreshed ${#shown[@]} screenshots in src/console/screenshots/ (all taken: $dir)"
