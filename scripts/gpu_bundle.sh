#!/usr/bin/env bash
# Packs what the GPU machine needs to prove minflow's GPU path into .gpu/
# (ignored by git): the GPU test and benchmark binaries, libminflow, and the
# Abseil and Google Benchmark libraries the GPU machine lacks. Build first
# with the portable preset (cmake --preset gpu && cmake --build --preset gpu
# --target gpu_targets); then send .gpu along and run scripts/gpu_check.sh
# there. See README "GPU".
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/gpu}
out=.gpu
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> "$(git rev-parse --git-common-dir)/info/exclude"
bins=()
for f in "$build"/tests/cuda/*_test "$build"/bench/gpu_bench "$build"/tools/minflow; do
  [ -x "$f" ] && bins+=("$f")
done
if [ ${#bins[@]} -eq 0 ]; then
  echo "gpu_bundle: no GPU binaries under $build (is CUDA enabled?)" >&2
  exit 1
fi
cp "${bins[@]}" "$out/bin/"
# The shared libraries they load that the GPU machine does not have:
# minflow itself, Abseil, Google Benchmark (protobuf, cudart and cuBLAS
# are there in matching versions).
for f in "${bins[@]}"; do
  ldd "$f" | awk '/libminflow|absl|libbenchmark/ {print $3}'
done | sort -u | while read -r lib; do
  cp -L "$lib" "$out/lib/"
done
du -sh "$out" | awk '{print "gpu_bundle: " $1 " in .gpu"}'
ls "$out/bin"
