#!/usr/bin/env bash
# Ninth session, last A/B (for the next session): rows of 4096 and 8192
# kept in shared memory instead of registers. row-chunks=8 makes them a
# one-block streamed schedule that stream-shared stages (512 threads, 35
# registers for layer_norm 4096 x 8192 instead of 80); with
# max-threads-per-block=256, 256 threads and 50 registers. Default first,
# two passes; bf16 norms and softmax at the 128 MB shapes.
source "$(dirname "$0")/../device-setup.sh"
for pass in a b; do
  for sch in "" "row-chunks=8" "max-threads-per-block=256 row-chunks=8"; do
    timeout 60 "$B/bin/tilec-bench" --ops=layer_norm,rms_norm,softmax --dtypes=bf16 --shapes=8192x4096,4096x8192,16384x4096 --csv=/tmp/x.csv --schedule="$sch" 2>&1 | tail -n +3 | sed "s/^/[${sch:-default}] $pass: /"
  done
done | tee "$OUT/smem_rows.txt"
pack_out
