#!/usr/bin/env bash
# The browser the console tests drive: Debian's chromium, installed from the distribution's packages when it is
# missing (nothing downloads a browser of its own here). Prints the path the tests use.
#
#   browser.sh            install if needed, then print the path
#   browser.sh status     print the path and version; exit 1 if there is none
#
# FERRY_TEST_CHROMIUM points the tests at another chromium binary; it is then only checked, never installed.
set -euo pipefail

binary="${FERRY_TEST_CHROMIUM:-/usr/bin/chromium}"

have() { [ -x "$binary" ] && "$binary" --headless --no-sandbox --version >/dev/null 2>&1; }

if [ "${1:-}" = "status" ]; then
  if have; then echo "$binary $("$binary" --headless --no-sandbox --version 2>/dev/null)"; exit 0; fi
  echo "no chromium at $binary (bash test/infra/browser.sh installs it)"; exit 1
fi

if ! have; then
  if [ -n "${FERRY_TEST_CHROMIUM:-}" ]; then
    echo "FERRY_TEST_CHROMIUM=$FERRY_TEST_CHROMIUM does not run" >&2; exit 1
  fi
  sudo=""
  if [ "$(id -u)" != "0" ]; then sudo="sudo"; fi
  echo "installing chromium from Debian's packages" >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >/dev/null \
    || { $sudo apt-get update >/dev/null && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >/dev/null; }
  have || { echo "chromium was installed but does not run" >&2; exit 1; }
fi
echo "$binary"
