#!/usr/bin/env bash
# Thirtieth session's last run: the default flash kernels (persistent past
# 132 tiles, flushed exps) beside SDPA, eager and torch.compile in one run,
# full and causal prefills, head dims 128 and 64.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
A=32x2048x2048x128,8x4096x4096x128,32x2048x2048x64,32x512x512x128,32x2048x2048x128c,8x4096x4096x128c,32x2048x2048x64c,32x512x512x128c
step "tilec"
timeout 60 "$B/bin/tilec-bench" --ops= --attention=$A --cooldown-ms=100 --attention-csv="$OUT/att.csv" 2>&1 | grep -E "^attention_flash|error"
step "peers"
timeout 200 python3 tests/gpu/peers_attention.py --no-flex --attention=$A --cooldown-ms 100 --csv "$OUT/peers_attention.csv" --tilec-csv "$OUT/att.csv" > "$OUT/peers_attention.txt" 2>&1; tail -10 "$OUT/peers_attention.txt"
pack_out
