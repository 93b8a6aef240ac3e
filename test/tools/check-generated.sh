#!/usr/bin/env bash
# Fails when regenerating the proto code, the OpenAPI document or the SDK schema would change the tree, so what
# is committed is always what the generators make of the proto sources.
set -euo pipefail
cd "$(dirname "$0")/../.."

paths=(src/gen sdk/src/gen openapi sdk/src/schema.d.ts)
snapshot() { find "${paths[@]}" -type f -print0 | sort -z | xargs -0 sha256sum; }

before=$(snapshot)
npx buf generate
npx tsx src/edge/http/openapi/generate.ts
npx openapi-typescript openapi/ferry.openapi.json -o sdk/src/schema.d.ts >/dev/null 2>&1
after=$(snapshot)

if [[ "$before" != "$after" ]]; then
  echo "Regeneration changed these files; run 'npm run generate' and commit the result:" >&2
  diff <(echo "$before") <(echo "$after") >&2 || true
  exit 1
fi
echo "generated code is current"
