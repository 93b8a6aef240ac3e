# Sourced before the README's examples (see readme-examples.ts).
set -euo pipefail
curl() {
  local out status body id cursor
  out=$(command curl -sS -w '\n%{http_code}' "$@")
  status=${out##*$'\n'}
  body=${out%$'\n'*}
  printf '%s\n' "$status" >> "$EXAMPLE_CALLS"
  if [ "$status" -ge 400 ]; then
    printf 'HTTP %s from curl %s\n%s\n' "$status" "$*" "$body" >&2
    exit 1
  fi
  id=$(printf '%s' "$body" | jq -r 'if (.data | type) == "object" then .data.id // empty else empty end' 2>/dev/null || true)
  case "$id" in req_*) REQ_ID=$id ;; sch_*) SCH_ID=$id ;; bulk_*) BULK_ID=$id ;; esac
  cursor=$(printf '%s' "$body" | jq -r '(.meta.next_cursor? // .data.next_cursor?) // empty' 2>/dev/null || true)
  if [ -n "$cursor" ]; then NEXT_CURSOR=$cursor; fi
  printf '%s\n' "$body"
}
npm() {
  command npm "$@" | tee "$EXAMPLE_CLI_OUT"
}
