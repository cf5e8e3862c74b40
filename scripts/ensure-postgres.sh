#!/usr/bin/env bash
# Makes sure PostgreSQL's server binaries (initdb, pg_ctl, postgres) are on this machine,
# installing Debian's package when they are not. DATABASE_URL set: nothing to do.
set -euo pipefail
[ -n "${DATABASE_URL:-}" ] && exit 0
if compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || command -v initdb >/dev/null; then
  exit 0
fi
echo "PostgreSQL server binaries not found: installing Debian's postgresql package" >&2
if [ "$(id -u)" -ne 0 ]; then
  echo "not root: run 'sudo apt-get install -y postgresql' and try again" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq postgresql >/dev/null
