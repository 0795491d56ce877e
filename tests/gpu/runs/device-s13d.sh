#!/usr/bin/env bash
# Thirteenth session, fourth run: the probe (run s13c) found layer_norm's
# extra cost in its bias loaded past the reduction, and none when the
# weights load with the row at 128 threads. tilec's layer_norm bf16 with
# the weights at the top (sink-loads=false), at 512 threads (row-chunks=2),
# staged in shared memory, or under a register cap, beside the default,
# two passes.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
SL=4096x8192,8192x4096,16384x4096
args=()
for pass in a b; do
  i=0
  for sched in "" "sink-loads=false" "row-chunks=2" "row-chunks=2 sink-loads=false" \
               "stage-weights=true" "sink-loads=false max-registers=64" \
               "row-chunks=2 stage-weights=true"; do
    timeout 60 "$B/bin/tilec-bench" --ops=layer_norm --dtypes=bf16 --shapes=$SL \
      --csv="$OUT/v${i}_$pass.csv" --schedule="$sched" > /dev/null 2>&1 || echo "variant $i failed"
    i=$((i + 1))
  done
done
python3 tests/gpu/ab_table.py default="$OUT/v0_a.csv,$OUT/v0_b.csv" top="$OUT/v1_a.csv,$OUT/v1_b.csv" \
  t512="$OUT/v2_a.csv,$OUT/v2_b.csv" t512_top="$OUT/v3_a.csv,$OUT/v3_b.csv" \
  staged="$OUT/v4_a.csv,$OUT/v4_b.csv" top_r64="$OUT/v5_a.csv,$OUT/v5_b.csv" \
  t512_staged="$OUT/v6_a.csv,$OUT/v6_b.csv" | tee "$OUT/ab.txt"
for sched in "" "sink-loads=false" "row-chunks=2" "row-chunks=2 sink-loads=false" "sink-loads=false max-registers=64"; do
  for shape in "--rows=4096 --cols=8192" "--rows=8192 --cols=4096"; do
    "$B/bin/tilec" --emit=ptx $shape --dtype=bf16 --schedule="$sched" layer_norm -o /tmp/k.ptx &&
      echo "[$sched] $shape: $(ptxas -arch=sm_90a -v /tmp/k.ptx -o /tmp/k.cubin 2>&1 | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' | paste -sd' ')"
  done
done | tee "$OUT/regs.txt"
pack_out
