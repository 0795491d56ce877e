#!/usr/bin/env bash
# Thirty-seventh session, run a: rows ahead prefetched into L2
# (row-l2-prefetch=D: each CTA prefetches its slice of the row block D
# blocks ahead) on issue 3's H200 misses and their neighbours, bf16,
# A B A B against none (us per call, batches of 20, median of 15).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
bench() { # csv, then tilec-bench options
  local csv=$1; shift
  timeout 60 "$B/bin/tilec-bench" --csv="$csv" "$@" 2>&1 | grep -E "^(device|[a-z_]+ +bf16)|error" | head -20
}
for pass in 1 2; do
  for d in 0 128 512 2048; do
    step "pass $pass: norms and softmax of 4096-8192 columns, row-l2-prefetch=$d"
    bench "$OUT/rows_d${d}_$pass.csv" --ops=layer_norm,rms_norm,softmax --dtypes=bf16 \
      --shapes=4096x8192,4096x4096,16384x8192 --schedule="row-l2-prefetch=$d" | sed "s/^/d=$d /"
  done
  for d in 0 16 48 128; do
    step "pass $pass: softmax over 131072 columns (clusters of 8), row-l2-prefetch=$d"
    bench "$OUT/wide_d${d}_$pass.csv" --ops=softmax --dtypes=bf16 --shapes=4096x131072,1024x131072 \
      --schedule="row-l2-prefetch=$d" | sed "s/^/d=$d /"
  done
done
pack_out
