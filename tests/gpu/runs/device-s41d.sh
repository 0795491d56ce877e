#!/usr/bin/env bash
# Written in the forty-first session for its last device minutes:
# tilec-bench's launch floor (the smallest kernel through tilec's runtime,
# timed as the row ops) beside the 1- and 16-token shapes, with host_us,
# three times in one call, into $OUT/.
set -u
cd "$(dirname "$0")/../../.."
OUT=${OUT:-/tmp/tilec-out}
find "$OUT" -mindepth 1 -delete 2>/dev/null
source tests/gpu/device-setup.sh
for pass in 1 2 3; do
  timeout 60 "$B/bin/tilec-bench" --csv="$OUT/small_$pass.csv" \
    --ops=rms_norm,add_rms_norm,layer_norm,softmax,silu_mul,elementwise_chain,rope \
    --dtypes=bf16 --shapes=1x4096,16x4096 2>&1 | grep -E "^(device|launch|[a-z_]+ +bf16)" |
    sed "s/^/pass$pass /"
done | tee "$OUT/small.txt"
