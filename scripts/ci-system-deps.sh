#!/usr/bin/env bash
# System packages the tests need beyond npm: Debian's Chromium for the browser-client test.
set -euo pipefail
if ! command -v chromium >/dev/null 2>&1; then
  echo "installing chromium (apt)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
chromium --version
