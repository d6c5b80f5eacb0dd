#!/usr/bin/env bash
# The benchmark suite in one command: builds the release preset (unless
# --no-build), runs every Google Benchmark binary in build/release/bench/ and
# `minflow bench` on the bundled graphs, and writes one JSON file each to the
# output folder. Compare two such folders with bench/compare.py.
#
# Usage: scripts/run_benchmarks.sh [--quick] [--out DIR] [--no-build]
#                                  [--filter REGEX]
#   --quick       0.05 s per benchmark instead of 0.5 s, and the minflow bench
#                 graphs for 0.2 s instead of 2 s: the whole suite in about
#                 30 s on 2 cores (the full run takes about 2 minutes).
#   --out DIR     where the JSON files go (default bench-results/<date>).
#   --no-build    use what build/release already holds.
#   --filter RE   passed to every binary as --benchmark_filter.
# Example:
#   scripts/run_benchmarks.sh --quick --out /tmp/before
#   ... change something ...
#   scripts/run_benchmarks.sh --quick --out /tmp/after
#   bench/compare.py /tmp/before /tmp/after --threshold 0.15
set -euo pipefail
cd "$(dirname "$0")/.."

min_time=0.5
graph_time=2
out="bench-results/$(date +%Y%m%d-%H%M%S)"
build=1
filter=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) min_time=0.05; graph_time=0.2 ;;
    --out) out="$2"; shift ;;
    --out=*) out="${1#--out=}" ;;
    --no-build) build=0 ;;
    --filter) filter="$2"; shift ;;
    --filter=*) filter="${1#--filter=}" ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_benchmarks: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done

if [ "$build" = 1 ]; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  cmake --preset release >/dev/null
  cmake --build --preset release -j "${MINFLOW_JOBS:-$(nproc)}"
fi
bench_dir=build/release/bench
minflow=build/release/tools/minflow
if ! ls "$bench_dir"/*_bench >/dev/null 2>&1; then
  echo "run_benchmarks: no benchmark binaries in $bench_dir (build first)" >&2
  exit 1
fi
mkdir -p "$out"

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "cores: $(nproc)"
  echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "min_time: $min_time"
} | tee "$out/machine.txt"

for binary in "$bench_dir"/*_bench; do
  name=$(basename "$binary")
  echo "== $name"
  args=(--benchmark_min_time="$min_time" --benchmark_format=console
        --benchmark_out="$out/$name.json" --benchmark_out_format=json)
  [ -n "$filter" ] && args+=(--benchmark_filter="$filter")
  "$binary" "${args[@]}"
done

# End to end through the command line, as a user would measure a graph.
run_graph() {
  local label=$1; shift
  echo "== minflow bench $label"
  "$minflow" bench "$@" --min-time "$graph_time" --threads 0 \
      --json "$out/minflow_bench_$label.json"
}
run_graph digits_mlp examples/graphs/digits_mlp.pbtxt --shape x=64,35
run_graph median_pool_fused examples/graphs/median_pool_fused.pbtxt \
    --shape input=1,128,128,16
run_graph median_pool_composite examples/graphs/median_pool_composite.pbtxt \
    --shape input=1,128,128,16

echo "results in $out"
