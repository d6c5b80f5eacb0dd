#!/usr/bin/env bash
# Proves the GPU path on a GPU machine, from the binaries scripts/gpu_bundle.sh
# packed into .gpu/: every GPU test, compute-sanitizer memcheck on the GPU
# kernel tests, and the GPU benchmarks. Prints one summary line per suite
# and exits non-zero if any suite failed. Run from the repository root:
#   scripts/gpu_check.sh [LOG_DIR]
# Time limits per suite (seconds; GPU time is scarce): GPU_CHECK_TEST_TIMEOUT
# (default 300), GPU_CHECK_MEMCHECK_TIMEOUT (400), GPU_CHECK_BENCH_TIMEOUT
# (300); GPU_CHECK_MEMCHECK_FILTER replaces the gtest filter memcheck runs
# gpu_kernels_test with (the other binaries run whole).
set -u
cd "$(dirname "$0")/.."
bundle=$PWD/.gpu
logs=${1:-$bundle/logs}
mkdir -p "$logs"
export LD_LIBRARY_PATH=$bundle/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export MINFLOW_SOURCE_DIR=$PWD
summary=()
failed=0

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader \
  || echo "gpu_check: nvidia-smi failed"

# One gtest binary: "PASS name: N passed, M skipped" or FAIL with the names.
run_test() {
  local bin=$1 name
  name=$(basename "$bin")
  timeout "${GPU_CHECK_TEST_TIMEOUT:-300}" "$bin" > "$logs/$name.log" 2>&1
  local rc=$?
  local passed skipped
  passed=$(grep -oP '\[  PASSED  \] \K[0-9]+' "$logs/$name.log" | tail -1)
  skipped=$(grep -oP '\[  SKIPPED \] \K[0-9]+(?= test)' "$logs/$name.log" | tail -1)
  if [ $rc -eq 0 ]; then
    summary+=("PASS $name: ${passed:-0} passed, ${skipped:-0} skipped")
  else
    failed=1
    local which
    which=$(grep -oP '^\[  FAILED  \] \K\S+' "$logs/$name.log" | sort -u | head -8 | tr '\n' ' ')
    summary+=("FAIL $name (rc $rc): ${which:-see $logs/$name.log}")
    tail -40 "$logs/$name.log"
  fi
}

for bin in "$bundle"/bin/*_test; do
  run_test "$bin"
done

# memcheck on the GPU kernel tests. Under it every launch is slow, so by
# default it skips the concurrency test and runs one binary and one unary op
# of the parameterised suites (the other ops share their code paths).
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for bin in "$bundle"/bin/gpu_kernels_test "$bundle"/bin/custom_op_gpu_test; do
  [ -x "$bin" ] || continue
  name=memcheck_$(basename "$bin")
  filter='*'
  if [ "$(basename "$bin")" = gpu_kernels_test ]; then
    filter=${GPU_CHECK_MEMCHECK_FILTER:-'GpuCudaGraphTest.*:GpuMatMulTest.*:GpuBiasAddTest.*:GpuSoftmaxTest.*:GpuReshapeTest.*:GpuGraphTest.*:GpuTransposeTest.*:GpuAddNTest.*:Ops/GpuReductionTest.*:Ops/GpuBinaryOpTest.EqualsCpu/1:Ops/GpuUnaryOpTest.EqualsCpu/6'}
  fi
  timeout "${GPU_CHECK_MEMCHECK_TIMEOUT:-400}" "$sanitizer" --tool memcheck \
    --error-exitcode 99 --leak-check full "$bin" \
    --gtest_filter="$filter" \
    > "$logs/$name.log" 2>&1
  rc=$?
  errors=$(grep -oP 'ERROR SUMMARY: \K[0-9]+' "$logs/$name.log" | tail -1)
  if [ $rc -eq 0 ]; then
    summary+=("PASS $name: ${errors:-?} errors")
  else
    failed=1
    summary+=("FAIL $name (rc $rc): ${errors:-?} errors, see $logs/$name.log")
    grep -m 20 -A6 '========= ' "$logs/$name.log" | head -60
  fi
done

# The command line on a bundled graph: --device gpu must place the MLP's
# MatMuls on the GPU and give the digits --device cpu gives.
if [ -x "$bundle/bin/minflow" ]; then
  mlp=(run examples/graphs/digits_mlp.pbtxt
       --feed x=@examples/graphs/digits_sample.npy --fetch digit --fetch probs)
  "$bundle/bin/minflow" "${mlp[@]}" --device gpu --log-device-placement \
    --out-dir "$logs/cli_gpu" > "$logs/cli_gpu.log" 2>&1
  rc_gpu=$?
  "$bundle/bin/minflow" "${mlp[@]}" --device cpu --out-dir "$logs/cli_cpu" \
    > "$logs/cli_cpu.log" 2>&1
  rc_cpu=$?
  if [ $rc_gpu -eq 0 ] && [ $rc_cpu -eq 0 ] &&
     grep -q 'dense1/MatMul (MatMul): .*GPU:0' "$logs/cli_gpu.log" &&
     cmp -s "$logs/cli_gpu/digit.npy" "$logs/cli_cpu/digit.npy"; then
    summary+=("PASS minflow run --device gpu: MatMul on GPU:0, same digits as --device cpu")
  else
    failed=1
    summary+=("FAIL minflow run --device gpu (rc $rc_gpu/$rc_cpu), see $logs/cli_gpu.log")
    tail -20 "$logs/cli_gpu.log"
  fi
fi

# Whole graphs through `minflow bench`, GPU against CPU on this machine
# (figures for the record; the GPU run includes its copies in and out).
if [ -x "$bundle/bin/minflow" ]; then
  for spec in "examples/graphs/median_pool_fused.pbtxt input=8,224,224,3" \
              "examples/graphs/digits_mlp.pbtxt x=64,35 --fetch probs"; do
    set -- $spec
    for mode in gpu gpu_graphs cpu; do
      device=${mode%_graphs}
      extra=()
      [ "$mode" = gpu_graphs ] && extra=(--cuda-graphs --log-device-placement)
      log="$logs/bench_$(basename "$1" .pbtxt)_$mode.log"
      timeout 120 "$bundle/bin/minflow" bench "$1" --shape "$2" "${@:3}" \
        --device "$device" "${extra[@]}" > "$log" 2>&1
      line=$(grep -m1 '^latency' "$log")
      note=$(grep -m1 -o 'ot captured.*' "$log")
      summary+=("BENCH minflow bench $(basename "$1") [$2] ${*:3} --device $device ${extra[*]}: ${line:-failed, see $log}${note:+ (N$note)}")
    done
  done
fi

if [ -x "$bundle/bin/gpu_bench" ]; then
  timeout "${GPU_CHECK_BENCH_TIMEOUT:-300}" "$bundle/bin/gpu_bench" --benchmark_out="$logs/gpu_bench.json" \
    --benchmark_out_format=json > "$logs/gpu_bench.log" 2>&1
  rc=$?
  cat "$logs/gpu_bench.log"
  if [ $rc -eq 0 ]; then
    while read -r line; do summary+=("BENCH $line"); done \
      < <(sed -n '/^# GPU figures/,$p' "$logs/gpu_bench.log" | tail -n +2)
  else
    failed=1
    summary+=("FAIL gpu_bench (rc $rc)")
  fi
fi

echo
echo "# gpu_check summary"
printf '%s\n' "${summary[@]}"
exit $failed
