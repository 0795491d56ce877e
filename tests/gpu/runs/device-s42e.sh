#!/usr/bin/env bash
# Written in the forty-second session for its last device seconds (about
# 300), on an H200 only (on an H100 it stops at once): the copy_floor
# probe, and the 64 and 128 MB bf16 row ops and the small shapes with this
# session's build (two passes), into $OUT/.
set -u
cd "$(dirname "$0")/../../.."
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100; then
  echo "an H100: stopped"; exit 0
fi
source tests/gpu/device-setup.sh
begin_run
nvcc -arch=sm_90a -O3 -std=c++17 -o /tmp/copy_floor tests/gpu/probes/copy_floor.cu &&
  timeout 60 /tmp/copy_floor 2>&1 | tee "$OUT/copy_floor.txt"
for pass in 1 2; do
  ab_bench "rows$pass" "$OUT/rows_$pass.csv" --ops=rms_norm,layer_norm,softmax,rope \
    --dtypes=bf16 --shapes=4096x4096,4096x8192
done
ab_bench small "$OUT/small.csv" --ops=rms_norm,softmax,rope --dtypes=bf16 --shapes=1x4096,16x4096
pack_out
