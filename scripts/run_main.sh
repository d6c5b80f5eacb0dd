#!/usr/bin/env bash
# Sets up, builds the release preset and runs minflow's main job: the bundled
# example graph through `minflow run`, printing its result.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=${MINFLOW_JOBS:-$(nproc)}
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs" --target minflow_cli
exec build/release/tools/minflow "$@" ops list
