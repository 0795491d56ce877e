#!/usr/bin/env bash
# Thirty-seventh session, run c (after s37a: 128 row blocks ahead 2-4% faster
# for the norms and softmax of 4096-8192 columns, 16 rows ahead 6% for
# softmax over 131072; 512+ and 48+ slower): nearer distances, one pass,
# and the GPU test of the option.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "GPU test: rows ahead prefetched into L2"
TILEC_TESTS_TIMEOUT=90 run_gpu_tests 'GpuScheduleTest.RowsAheadPrefetchedIntoL2'
bench() {
  local csv=$1; shift
  timeout 60 "$B/bin/tilec-bench" --csv="$csv" "$@" 2>&1 | grep -E "^[a-z_]+ +bf16|error" | head -20
}
for d in 0 32 64 128 256; do
  step "row-l2-prefetch=$d"
  bench "$OUT/rows_d$d.csv" --ops=layer_norm,rms_norm,softmax,add_rms_norm --dtypes=bf16 \
    --shapes=4096x8192,4096x4096,16384x8192 --schedule="row-l2-prefetch=$d" | sed "s/^/d=$d /"
done
for d in 0 4 8 16 32; do
  step "softmax 131072, row-l2-prefetch=$d"
  bench "$OUT/wide_d$d.csv" --ops=softmax --dtypes=bf16 --shapes=4096x131072,1024x131072,264x131072 \
    --schedule="row-l2-prefetch=$d" | sed "s/^/d=$d /"
done
pack_out
