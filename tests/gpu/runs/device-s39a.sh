#!/usr/bin/env bash
# Thirty-ninth session, after device-s38a.sh on an H200 (the tail of the
# budget, about 250 s): softmax over 32k and 128k columns with fewer bytes
# of rows ahead (the H200 ran 128k f32 2.5% faster with none than with the
# 2 MiB default), and row-l2-prefetch-first on the f32 norms (it won 2-5%
# on the bf16 norms in s38a).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
for pass in 1 2; do
  for o in "" row-l2-prefetch=0 row-l2-prefetch-bytes=1048576 row-l2-prefetch-bytes=524288; do
    ab_bench "${o:-default}" "$OUT/wide_${pass}_${o:-default}.csv" --ops=softmax --dtypes=bf16,f32 \
      --shapes=4096x131072,1024x131072,4096x32768 --schedule="$o"
  done
  for o in "" row-l2-prefetch-first=true; do
    ab_bench "${o:-default}" "$OUT/f32_${pass}_${o:-default}.csv" \
      --ops=layer_norm,rms_norm,add_rms_norm,softmax --dtypes=f32 --shapes=4096x4096,4096x8192 \
      --schedule="$o"
  done
done
pack_out
