#!/usr/bin/env bash
# Fortieth session, after device-s40a.sh on the same H100: the rows-ahead
# prefetch on the elementwise kernels (none by default) at more distances,
# with and without the first blocks' own rows, at issue 3's shapes, A B.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
for pass in 1 2; do
  for o in "" "row-l2-prefetch=64 row-l2-prefetch-first=true" \
           "row-l2-prefetch=128 row-l2-prefetch-first=true" \
           "row-l2-prefetch=256 row-l2-prefetch-first=true" "row-l2-prefetch=256" \
           "row-l2-prefetch=0 row-l2-prefetch-first=true"; do
    t=$(echo "${o:-default}" | tr ' =' '_-')
    ab_bench "${o:-default}" "$OUT/ew_${pass}_$t.csv" --ops=rope,elementwise_chain,silu_mul \
      --dtypes=bf16 --shapes=4096x4096,4096x8192,16384x4096,4096x14336 --schedule="$o"
  done
done
pack_out
