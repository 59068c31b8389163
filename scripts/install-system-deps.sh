#!/usr/bin/env bash
# Debian packages the test suite needs. Idempotent; does nothing when all are present.
set -euo pipefail
needed=()
command -v pg_ctlcluster >/dev/null 2>&1 || needed+=(postgresql)
command -v sqlite3 >/dev/null 2>&1 || needed+=(sqlite3)
command -v msgfmt >/dev/null 2>&1 || needed+=(gettext)
command -v wrk >/dev/null 2>&1 || needed+=(wrk)  # make load
# Browser tests: Debian's Chromium (Playwright's own browser download does not work here)
# and fonts that cover Hangul, so Korean pages render in screenshots.
[ -x /usr/bin/chromium ] || needed+=(chromium)
dpkg -s fonts-noto-cjk >/dev/null 2>&1 || needed+=(fonts-noto-cjk)
if [ ${#needed[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "Missing Debian packages: ${needed[*]} (run as root or install them)" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${needed[@]}"
fi
