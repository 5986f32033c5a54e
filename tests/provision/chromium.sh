#!/usr/bin/env bash
# Install Debian's headless chromium for the browser tests (never a browser downloaded by
# Playwright): package chromium-headless-shell, the same engine as package chromium without the
# desktop browser around it (tests/browser/conftest.py falls back to /usr/bin/chromium).
set -euo pipefail
if command -v chromium-headless-shell >/dev/null 2>&1; then
  echo "chromium: $(chromium-headless-shell --version 2>/dev/null || echo present)"
  exit 0
fi
echo "chromium: installing Debian's package chromium-headless-shell"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null
echo "chromium: $(chromium-headless-shell --version)"
