#!/usr/bin/env bash
# Sets up, builds (release preset: optimised for this CPU, CUDA code compiled
# when nvcc is present) and runs the whole test suite through ctest.
# Usage: scripts/run_tests.sh [extra ctest args]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
preset=${MINFLOW_PRESET:-release}
jobs=${MINFLOW_JOBS:-$(nproc)}
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs"
ctest --preset "$preset" -j "$jobs" "$@"
