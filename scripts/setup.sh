#!/usr/bin/env bash
# Installs what minflow needs to build and test from Debian 12 packages.
# Idempotent: quiet when everything is present; needs root only when something
# is missing. CUDA is optional and never installed here (see README).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache
  libabsl-dev libeigen3-dev libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev clang-format
  python3
)
# Wanted, not needed: without them minflow builds, runs and passes its tests
# (the tests that use them skip, saying why), so failing to install them is
# a warning.
optional_packages=(
  # oneDNN, loaded at run time for float GEMMs (Note [CPU GEMM library]);
  # minflow runs on Eigen without it.
  libdnnl2
  # The Python package (python/) and its tests.
  python3-numpy python3-cffi python3-pytest
)

missing_of() {
  local p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      echo "$p"
    fi
  done
}
mapfile -t missing < <(missing_of "${packages[@]}")
mapfile -t missing_optional < <(missing_of "${optional_packages[@]}")

[ ${#missing[@]} -eq 0 ] && [ ${#missing_optional[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  if [ ${#missing[@]} -ne 0 ]; then
    echo "setup: missing Debian packages: ${missing[*]}" >&2
    echo "setup: run as root, or: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
  echo "setup: optional Debian packages missing (their tests skip): ${missing_optional[*]}" >&2
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
apt_updated=0
if [ ${#missing[@]} -ne 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  apt-get update -qq >/dev/null
  apt_updated=1
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ${#missing_optional[@]} -ne 0 ]; then
  echo "setup: installing ${missing_optional[*]}" >&2
  if ! { [ $apt_updated -eq 1 ] || apt-get update -qq >/dev/null; } ||
     ! apt-get install -y -qq --no-install-recommends "${missing_optional[@]}" >/dev/null; then
    echo "setup: could not install ${missing_optional[*]}: the tests that need them skip" >&2
  fi
fi
