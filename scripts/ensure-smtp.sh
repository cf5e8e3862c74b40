#!/usr/bin/env bash
# Makes sure the email tests can start their SMTP server: a virtualenv with aiosmtpd (from
# PyPI) in target/tools/smtp, made when absent. The tests find it there (or at $PROCFLOW_SMTP_PYTHON).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/tools/smtp
if ! "$venv/bin/python" -c 'import aiosmtpd' >/dev/null 2>&1; then
  echo "installing aiosmtpd into $venv (the email tests' SMTP server)" >&2
  python3 -m venv "$venv" || {
    echo "python3 -m venv failed: install Debian's python3-venv" >&2; exit 1; }
  "$venv/bin/pip" install -q --disable-pip-version-check 'aiosmtpd==1.4.6'
fi
