#!/usr/bin/env bash
# Makes sure a PostgreSQL server answers on 127.0.0.1:5432 (trust auth), or fails.
set -euo pipefail
ready() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }
if ready; then exit 0; fi
if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ -z "$(ls /etc/postgresql 2>/dev/null)" ]; then
  echo "PostgreSQL is not installed: installing it from Debian's packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq postgresql >/dev/null
  ver=$(ls /etc/postgresql | head -n1)
  # Trust auth on loopback, as the tests expect.
  sed -i -E 's/^(host\s+all\s+all\s+127\.0\.0\.1\/32\s+)\S+/\1trust/; s/^(local\s+all\s+postgres\s+)\S+/\1trust/' "/etc/postgresql/$ver/main/pg_hba.conf"
fi
pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
for _ in $(seq 1 30); do
  if ready; then exit 0; fi
  sleep 1
done
echo "PostgreSQL could not be started; the PostgreSQL half of the suite cannot run" >&2
exit 1
