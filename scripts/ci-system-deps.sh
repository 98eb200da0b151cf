#!/usr/bin/env bash
# System packages the tests need beyond npm: Debian's Chromium for the browser tests (browser-client, oauth-browser), Debian's nginx for the
# deploy rehearsal (scripts/rehearse-deploy.sh runs its own nginx process on a temporary configuration; the package's
# own service is not used).
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing ${missing[*]} (apt)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
chromium --version
"$(command -v nginx || echo /usr/sbin/nginx)" -v
