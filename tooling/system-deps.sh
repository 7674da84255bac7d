#!/usr/bin/env bash
# What the suites need from the system besides Node.js and pnpm: the Python client's wheel test builds its wheel
# offline (pip wheel --no-build-isolation) with Debian's setuptools and wheel, and installs it into a fresh virtual
# environment. Installed only when missing (needs root and apt-get); elsewhere it says what to install.
set -euo pipefail
if command -v dpkg >/dev/null 2>&1 && dpkg -s python3-setuptools python3-wheel python3-venv >/dev/null 2>&1; then
  exit 0
fi
if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing python3-setuptools, python3-wheel and python3-venv for the Python client's wheel test"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-setuptools python3-wheel python3-venv
elif ! python3 -c 'import setuptools, wheel, venv' >/dev/null 2>&1; then
  echo "The Python client's wheel test needs setuptools, wheel and venv for python3 (Debian: apt-get install python3-setuptools python3-wheel python3-venv)" >&2
fi
