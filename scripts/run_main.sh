#!/usr/bin/env bash
# Sets up, builds the release preset and runs minflow's main job. Until the
# executor lands (#6) that is the core benchmark: tensors, allocator, Shard.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=${MINFLOW_JOBS:-$(nproc)}
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs" --target core_bench
exec build/release/bench/core_bench --benchmark_min_time=0.2 "$@"
