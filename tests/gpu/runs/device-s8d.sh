#!/usr/bin/env bash
# Eighth session: streamed bf16 rows of 32768 (one row input) at 512, 256
# and 128 threads a row (2, 4 and 8 streamed blocks), alternating passes;
# torch.compile's rms_norm took 133 us at [4096, 32768] in run zb.
source "$(dirname "$0")/../device-setup.sh"
step "streamed bf16 rows of 32768 by threads a row"
for pass in a b; do
  for t in 512 256 128; do
    timeout 60 "$B/bin/tilec-bench" --ops=rms_norm,layer_norm,softmax --dtypes=bf16 --shapes=4096x32768,16384x32768 --csv="$OUT/stream_${t}_$pass.csv" --schedule="max-threads-per-block=$t" 2>&1 | tail -n +3 | sed "s/^/$t $pass: /"
  done
done | tee "$OUT/stream.txt"
pack_out
