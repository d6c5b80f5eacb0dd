#!/usr/bin/env bash
# Sets up, builds the release preset and runs minflow's main job: the bundled
# digit-reading MLP (examples/graphs/digits_mlp.pbtxt, trained weights) on ten
# 5x7 glyphs of the digits 0..9 with two pixels flipped in each. It prints
# the predicted digits (expect [0 1 2 3 4 5 6 7 8 9]) and their probabilities.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=${MINFLOW_JOBS:-$(nproc)}
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs" --target minflow_cli
exec build/release/tools/minflow run examples/graphs/digits_mlp.pbtxt \
  --feed x=@examples/graphs/digits_sample.npy --fetch digit --fetch probs "$@"
