#!/usr/bin/env bash
# Makes sure target/fuzz/venv holds the pinned schemathesis of `make fuzz` (tests/fuzz/
# requirements.txt), creating the virtualenv (and installing Debian's python3-venv) when needed.
# Prints the venv's bin directory.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/target/fuzz/venv"
REQUIREMENTS="$ROOT/tests/fuzz/requirements.txt"
STAMP="$VENV/.requirements"

if [ -x "$VENV/bin/st" ] && cmp -s "$REQUIREMENTS" "$STAMP"; then
  printf '%s\n' "$VENV/bin"
  exit 0
fi
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  echo "python3's venv module is missing: installing Debian's python3-venv" >&2
  if [ "$(id -u)" -ne 0 ]; then
    echo "not root: run 'sudo apt-get install -y python3-venv' and try again" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq python3-venv >/dev/null
fi
echo "make fuzz: installing $(grep -v '^#' "$REQUIREMENTS" | xargs) into target/fuzz/venv" >&2
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check -r "$REQUIREMENTS" >&2
cp "$REQUIREMENTS" "$STAMP"
printf '%s\n' "$VENV/bin"
