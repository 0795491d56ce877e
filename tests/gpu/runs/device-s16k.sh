#!/usr/bin/env bash
# Sixteenth session, eleventh run: bf16 rows of 32768 (not issue shapes,
# but torch.compile led rms_norm there by 2-3% in the ninth session) held
# in registers instead of streamed through shared memory: rows of 64
# 16-byte vectors a thread kept (max-chunks-per-thread=32), packed across
# the reduction (rewiden=true), at 32 registers (two CTAs of 1024 an SM),
# beside the default and torch.compile, two passes. (As it ran, it hit its
# 420 s limit in the second pass's last variant: the spilling variants ran
# up to 6x slower, and every variant timed all four ops. The peers never
# ran; their figures are the ninth session's.)
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
SH=4096x32768,16384x32768
OPS=rms_norm,layer_norm,add_rms_norm,softmax
n=0
bench() { n=$((n + 1)); timeout 90 "$B/bin/tilec-bench" --ops=$OPS --dtypes=bf16 --shapes=$SH --csv="$OUT/v$n.csv" ${1:+--schedule="$1"} 2>&1 | grep -E "^(rms|layer|add|soft)"; }
for pass in 1 2; do
  for s in "" "max-chunks-per-thread=32 rewiden=true" "max-chunks-per-thread=32 rewiden=true max-registers=32" \
           "max-chunks-per-thread=32"; do
    step "${s:-default} ($pass)"; bench "$s"
  done
done
step "peers"
timeout 240 python3 tests/gpu/peers.py --ops=rms_norm,layer_norm --dtypes=bf16 --compile=bf16 --shapes=$SH --csv "$OUT/peers.csv" 2>&1 | tail -6
pack_out
