#!/usr/bin/env bash
# Sixteenth session, fourth run: the wide-softmax probe again, with a
# persistent variant that copies the next row's slice into shared memory
# (cp.async, a ring of two) while the CTA works on the current one. (The
# probe as it ran had no kept-exps variant; run s16e added it.)
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvcc -arch=sm_90a -O3 -use_fast_math -Xptxas -v -o /tmp/wide_softmax tests/gpu/probes/wide_softmax.cu 2>&1 |
  grep -E "error|spill" | sort | uniq -c
step "probe"; /tmp/wide_softmax | tee "$OUT/probe.txt"
pack_out
