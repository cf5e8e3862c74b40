#!/usr/bin/env bash
# Makes sure the S3 adapter's tests can start an S3-compatible server on loopback: a virtualenv
# with moto's server (PyPI `moto[server]`, Apache-2.0, an in-memory S3 with multipart uploads)
# in target/tools/s3, made when absent. The tests find `moto_server` there (or the python at
# $PROCFLOW_S3_PYTHON). Prints the virtualenv's directory.
set -euo pipefail
cd "$(dirname "$0")/.."
# target/tools may be a symbolic link (worktrees share one): make the virtualenv at its real
# path, which its scripts' first lines and pyvenv.cfg then name.
mkdir -p target/tools
venv="$(cd target/tools && pwd -P)/s3"
if ! "$venv/bin/python" -c 'import moto.server' >/dev/null 2>&1; then
  echo "installing moto's S3 server into $venv (the S3 adapter tests' server)" >&2
  python3 -m venv "$venv" || {
    echo "python3 -m venv failed: install Debian's python3-venv" >&2; exit 1; }
  "$venv/bin/pip" install -q --disable-pip-version-check 'moto[server]==5.2.5'
fi
echo "$venv"
