#!/usr/bin/env bash
# Thirty-first session, run g: flash against three kernels near the
# by-shape rule's bounds (flash from 256 rows a batch, 4096 keys, or 2048
# keys over 64 rows), now that split decode kernels go by TMA and hand off
# less: 4, 16 and 64 query rows a kv head over 516-2064 keys.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache
S=8x4x516x128,8x4x1028x128,8x4x2052x128,8x16x1040x128,8x16x2064x128,8x64x528x128,8x64x1040x128,8x64x2064x128,32x4x1028x128
for p in a b; do
  timeout 80 "$B/bin/tilec-bench" --ops= --attention=$S --cooldown-ms=50 --attention-csv="$OUT/att_$p.csv" 2>&1 | grep -E "^attention|error" | sed "s/^/$p /"
done
pack_out
