#!/usr/bin/env bash
# Install Debian's chromium for the browser tests (never a browser downloaded by Playwright).
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  echo "chromium: $(chromium --version 2>/dev/null || echo present)"
  exit 0
fi
echo "chromium: installing Debian's package"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
echo "chromium: $(chromium --version)"
