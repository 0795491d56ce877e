#!/usr/bin/env bash
# Thirteenth session, third run: the probe tests/gpu/probes/ln_parts.cu
# (a hand-written norm with layer_norm's parts switched on one at a time:
# the bias, the Welford statistics or one-pass sums, the weights at the
# top) to find the part that costs layer_norm what rms_norm does not pay.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
step "probe: layer_norm's parts"
nvcc -arch=sm_90a -O3 -Xptxas -v -o /tmp/ln_parts tests/gpu/probes/ln_parts.cu 2>&1 |
  grep -E "Compiling entry|registers" | paste - - | sed -E 's/.*normILi([0-9]+)ELi([0-9]+)E.*Used ([0-9]+) registers.*/F=\1 COLS=\2 regs=\3/' | tee "$OUT/regs.txt"
/tmp/ln_parts | tee "$OUT/probe.txt"
pack_out
