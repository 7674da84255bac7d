#!/usr/bin/env bash
# What the suites need from the system besides Node.js and pnpm:
# - the Python client's wheel test builds its wheel offline (pip wheel --no-build-isolation) with Debian's setuptools
#   and wheel, and installs it into a fresh virtual environment (python3-setuptools, python3-wheel, python3-venv);
# - the browser tests (apps/api/test/browser) drive Debian's Chromium headless through puppeteer-core, which downloads
#   no browser (chromium), with a font so the pages' text renders (fonts-dejavu-core).
# Installed only when missing (needs root and apt-get); elsewhere it says what to install.
set -euo pipefail
PACKAGES=(python3-setuptools python3-wheel python3-venv chromium fonts-dejavu-core)

installed() {
  [[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" == installed ]]
}

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for package in "${PACKAGES[@]}"; do
    installed "$package" || missing+=("$package")
  done
  [[ ${#missing[@]} -eq 0 ]] && exit 0
fi

if [[ ${#missing[@]} -gt 0 && "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing ${missing[*]} for the Python client's wheel test and the browser tests"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  exit 0
fi

# Not Debian, or not root: say what the suites will miss (CI fails on a missing browser; elsewhere it is skipped).
if ! python3 -c 'import setuptools, wheel, venv' >/dev/null 2>&1; then
  echo "The Python client's wheel test needs setuptools, wheel and venv for python3 (Debian: apt-get install python3-setuptools python3-wheel python3-venv)" >&2
fi
if [[ -z "${SVC_CHROMIUM:-}" ]] && ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  echo "The browser tests need Chromium (Debian: apt-get install chromium fonts-dejavu-core), or SVC_CHROMIUM set to a Chromium or Chrome executable" >&2
fi
