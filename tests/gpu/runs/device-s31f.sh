#!/usr/bin/env bash
# Thirty-first session, run f: what the timing's L2 flush costs the decode
# kernels. do_bench's flush (a 128 MB copy before each call) leaves L2 full
# of dirty lines, which the timed kernel's reads must write back; the same
# kernels after a read flush (clean lines) and with no flush.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache
S=8x4x1028x128,8x4x4100x128,8x4x16388x128,64x4x4100x128,256x4x4100x128
for f in write read none write2; do
  timeout 60 "$B/bin/tilec-bench" --ops= --attention=$S --cooldown-ms=50 --gemm-flush=${f%2} --attention-csv="$OUT/att_$f.csv" 2>&1 | grep -E "^attention_flash|error" | sed "s/^/$f /"
done
pack_out
