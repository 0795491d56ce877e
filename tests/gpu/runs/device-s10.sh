#!/usr/bin/env bash
# Tenth session, first run: programmatic dependent launch (every kernel
# waits for the previous grid at its first instruction; the runtime
# launches with programmatic stream serialization). All GPU tests with it
# on (the default), then tilec-bench with it on and off in alternating
# passes: the row ops in bf16 (small and large shapes), the wide rows and
# the 128k-vocab softmax, and GEMMs under do_bench timing.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete # a reused machine keeps earlier runs' files
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "GPU tests (all)"
TILEC_TESTS_TIMEOUT=300 run_gpu_tests
ROWS=1x4096,16x4096,8192x4096,4096x8192,16384x4096
bench() { # csv, extra args...
  local csv=$1; shift
  timeout 100 "$B/bin/tilec-bench" --csv="$csv" "$@" > /dev/null 2>&1 || echo "bench $csv failed"
}
step "row ops, dependent launch on / off, two passes each"
for pass in a b; do
  bench "$OUT/rows_on_$pass.csv" --dtypes=bf16 --shapes=$ROWS
  bench "$OUT/rows_off_$pass.csv" --dtypes=bf16 --shapes=$ROWS --no-dependent-launch
  bench "$OUT/wide_on_$pass.csv" --ops=softmax,rms_norm,layer_norm --dtypes=bf16 --shapes=4096x32768,16x131072
  bench "$OUT/wide_off_$pass.csv" --ops=softmax,rms_norm,layer_norm --dtypes=bf16 --shapes=4096x32768,16x131072 --no-dependent-launch
done
bench "$OUT/f32_on.csv" --dtypes=f32 --shapes=8192x4096,16x131072
bench "$OUT/f32_off.csv" --dtypes=f32 --shapes=8192x4096,16x131072 --no-dependent-launch
step "GEMMs (do_bench, read flush), on / off"
MM=4096x4096x4096,8192x8192x8192,16x14336x4096
for pass in a b; do
  timeout 60 "$B/bin/tilec-bench" --ops= --gemm=$MM --gemm-ops=matmul --gemm-csv="$OUT/gemm_on_$pass.csv" --cooldown-ms=500 --gemm-flush=read > /dev/null 2>&1
  timeout 60 "$B/bin/tilec-bench" --ops= --gemm=$MM --gemm-ops=matmul --gemm-csv="$OUT/gemm_off_$pass.csv" --cooldown-ms=500 --gemm-flush=read --no-dependent-launch > /dev/null 2>&1
done
step "ncu: kernel durations (cold L2, serialized) beside the batch timer's per-call time"
if command -v ncu >/dev/null; then
  for c in "softmax bf16 16x131072" "softmax f32 16x131072" "rms_norm bf16 8192x4096" "softmax bf16 8192x4096"; do
    set -- $c
    timeout 60 ncu --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second -k regex:kernel0 -c 3 \
      "$B/bin/tilec-bench" --ops=$1 --dtypes=$2 --shapes=$3 2>&1 | grep -E "gpu__time_duration|cycles_elapsed" | sed "s/^/$c: /" | tee -a "$OUT/ncu.txt"
  done
fi
step "tables"
python3 tests/gpu/ab_table.py on="$OUT/rows_on_a.csv,$OUT/rows_on_b.csv" off="$OUT/rows_off_a.csv,$OUT/rows_off_b.csv" | tee "$OUT/ab.txt"
python3 tests/gpu/ab_table.py on="$OUT/wide_on_a.csv,$OUT/wide_on_b.csv" off="$OUT/wide_off_a.csv,$OUT/wide_off_b.csv" | tail -n +2 | tee -a "$OUT/ab.txt"
python3 tests/gpu/ab_table.py on="$OUT/f32_on.csv" off="$OUT/f32_off.csv" | tail -n +2 | tee -a "$OUT/ab.txt"
python3 tests/gpu/ab_table.py on="$OUT/gemm_on_a.csv,$OUT/gemm_on_b.csv" off="$OUT/gemm_off_a.csv,$OUT/gemm_off_b.csv" | tee -a "$OUT/ab.txt"
step "summary"
grep -E "^GPU tests:" "$OUT/gpu_tests.log"
pack_out
