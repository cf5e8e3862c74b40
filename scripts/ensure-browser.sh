#!/usr/bin/env bash
# Makes sure the guest page's browser tests can run: Debian's Chromium and ChromeDriver
# (installed with apt-get when absent) and axe-core (installed with npm from the pinned
# tests/browser/package-lock.json when absent).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  echo "Chromium or ChromeDriver not found: installing Debian's chromium and chromium-driver" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "not root: run 'sudo apt-get install -y chromium chromium-driver'" >&2; exit 1; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y -qq chromium chromium-driver >/dev/null 2>&1 ||
    { $sudo apt-get update -qq && $sudo apt-get install -y -qq chromium chromium-driver >/dev/null; }
fi
if [ ! -f tests/browser/node_modules/axe-core/axe.min.js ]; then
  command -v npm >/dev/null || { echo "npm is needed to install axe-core" >&2; exit 1; }
  echo "installing axe-core (npm ci in tests/browser)" >&2
  npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error >/dev/null
fi
