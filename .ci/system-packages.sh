#!/usr/bin/env bash
# Debian packages the test suite needs, installed when missing (CI runs as root).
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v php >/dev/null 2>&1 || missing+=(php-cli)
php -m 2>/dev/null | grep -qi '^soap$' || missing+=(php-soap)
/usr/bin/python3 -c 'import zeep' >/dev/null 2>&1 || missing+=(python3-zeep)
/usr/bin/python3 -c 'import prometheus_client.parser' >/dev/null 2>&1 || missing+=(python3-prometheus-client)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing from Debian: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
