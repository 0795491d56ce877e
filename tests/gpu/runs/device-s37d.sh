#!/usr/bin/env bash
# Thirty-seventh session, run d (after s37c: about 2 MB of row inputs ahead
# is best: 128 rows of 16 KB, 64 of add_rms_norm's two, 8 rows of the 128k
# softmax): f32 rows, and the ops without reductions, at distances of
# about 1, 2 and 4 MB, one pass.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
bench() {
  local csv=$1; shift
  timeout 60 "$B/bin/tilec-bench" --csv="$csv" "$@" 2>&1 | grep -E "^[a-z_]+ +(bf16|f32)|error" | head -20
}
for d in 0 32 64 128; do
  step "f32, row-l2-prefetch=$d"
  bench "$OUT/f32_d$d.csv" --ops=layer_norm,rms_norm,softmax --dtypes=f32 \
    --shapes=4096x8192,16384x4096 --schedule="row-l2-prefetch=$d" | sed "s/^/d=$d /"
done
for d in 0 64 128 256; do
  step "elementwise bf16, row-l2-prefetch=$d"
  bench "$OUT/ew_d$d.csv" --ops=rope,elementwise_chain --dtypes=bf16 \
    --shapes=4096x4096,16384x4096 --schedule="row-l2-prefetch=$d" | sed "s/^/d=$d /"
done
pack_out
