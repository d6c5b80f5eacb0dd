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
  # oneDNN, loaded at run time for float GEMMs (Note [CPU GEMM library]);
  # minflow builds and runs on Eigen without it.
  libdnnl2
  # The Python package (python/) and its tests.
  python3-numpy python3-cffi python3-pytest
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "setup: missing Debian packages: ${missing[*]}" >&2
  echo "setup: run as root, or: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi

echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
