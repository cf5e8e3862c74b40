#!/usr/bin/env bash
# Makes sure `make clients-check` has its tools, all pinned in tests/clients/:
#   - openapi-python-client and mypy (PyPI, tests/clients/requirements.txt, every dependency pinned) in a
#     virtualenv at target/tools/clients, made or remade when the requirements change;
#   - Redocly CLI, openapi-typescript, openapi-fetch and TypeScript (npm,
#     tests/clients/package-lock.json), installed with `npm ci` when absent
#     or when the lockfile changed.
# Prints the virtualenv's bin directory.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/target/tools/clients"
REQUIREMENTS="$ROOT/tests/clients/requirements.txt"
NODE_DIR="$ROOT/tests/clients"

if ! [ -x "$VENV/bin/openapi-python-client" ] || ! cmp -s "$REQUIREMENTS" "$VENV/.requirements"; then
  python3 -c 'import venv, ensurepip' 2>/dev/null || {
    echo "python3's venv module is missing: install Debian's python3-venv" >&2; exit 1; }
  echo "make clients-check: installing openapi-python-client (tests/clients/requirements.txt) into target/tools/clients" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check -r "$REQUIREMENTS" >&2
  cp "$REQUIREMENTS" "$VENV/.requirements"
fi

# A copy of the lockfile kept beside the install says which lockfile it came from: a different
# one means the committed lockfile changed since.
if ! [ -x "$NODE_DIR/node_modules/.bin/redocly" ] ||
  ! cmp -s "$NODE_DIR/package-lock.json" "$NODE_DIR/node_modules/.package-lock.json.installed"; then
  command -v npm >/dev/null || { echo "npm is needed to install Redocly CLI" >&2; exit 1; }
  echo "make clients-check: installing Redocly CLI (npm ci in tests/clients)" >&2
  npm ci --prefix "$NODE_DIR" --no-audit --no-fund --loglevel=error >/dev/null
  cp "$NODE_DIR/package-lock.json" "$NODE_DIR/node_modules/.package-lock.json.installed"
fi
printf '%s\n' "$VENV/bin"
