#!/usr/bin/env bash
# Makes sure the MCP tests can drive `procflow mcp` with an independent client: a virtualenv
# with the official Python MCP SDK (PyPI `mcp`) in target/tools/mcp, made when absent. The
# tests find it there (or at $PROCFLOW_MCP_PYTHON).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/tools/mcp
if ! "$venv/bin/python" -c 'import mcp' >/dev/null 2>&1; then
  echo "installing the Python MCP SDK into $venv (the MCP tests' client)" >&2
  python3 -m venv "$venv" || {
    echo "python3 -m venv failed: install Debian's python3-venv" >&2; exit 1; }
  "$venv/bin/pip" install -q --disable-pip-version-check 'mcp==2.3.0'
fi
