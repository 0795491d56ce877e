#!/usr/bin/env bash
# Sixteenth session, third run: the wide-softmax probe
# (tests/gpu/probes/wide_softmax.cu): where softmax bf16 [rows, 131072]
# in clusters of 8 loses against a copy of the same shape, and whether
# persistent clusters (looping over rows) gain. (The probe as it ran had
# no prefetching variant; run s16d added it.)
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvcc -arch=sm_90a -O3 -use_fast_math -Xptxas -v -o /tmp/wide_softmax tests/gpu/probes/wide_softmax.cu 2>&1 |
  grep -E "error|spill" | sort | uniq -c
step "probe (1)"; /tmp/wide_softmax | tee "$OUT/probe1.txt"
step "probe (2)"; /tmp/wide_softmax | tee "$OUT/probe2.txt"
step "tilec, same run"
timeout 60 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16 --shapes=4096x131072,1024x131072 --csv="$OUT/tilec.csv" 2>&1 | grep -E "^softmax|^device"
pack_out
