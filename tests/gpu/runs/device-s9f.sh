#!/usr/bin/env bash
# Ninth session, a last short A/B for the next session: staged bf16 rows of
# 32768 under a register cap. softmax takes 64 registers (two CTAs of 512
# threads an SM by registers; shared memory allows three): at 40 it fits
# three, without spills. rms_norm (38 registers) already fits three.
source "$(dirname "$0")/../device-setup.sh"
for pass in a b; do
  for sch in "" "max-registers=40"; do
    timeout 40 "$B/bin/tilec-bench" --ops=softmax,rms_norm --dtypes=bf16 --shapes=4096x32768,16384x32768 --csv=/tmp/x.csv --schedule="$sch" 2>&1 | tail -n +3 | sed "s/^/[${sch:-default}] $pass: /"
  done
done | tee "$OUT/regcap.txt"
pack_out
