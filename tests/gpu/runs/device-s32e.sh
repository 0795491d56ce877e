#!/usr/bin/env bash
# Thirty-second session, run e: the decoder layer's peers have ranged
# 397-536 us at 512 tokens across runs (s30d, s32c, s32d): tilec's layer
# and its peers again, tilec first and last, nothing else in the run.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
LAYERS=512x4096x0,2048x4096x0
timeout 60 "$B/bin/tilec-bench" --ops= --layers=$LAYERS --cooldown-ms=200 --layer-csv="$OUT/layer_1.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/first /"
timeout 200 python3 tests/gpu/peers_layer.py --layers=$LAYERS --cooldown-ms 200 --csv "$OUT/peers_layer.csv" --tilec-csv "$OUT/layer_1.csv" 2>&1 | tail -n 4
timeout 60 "$B/bin/tilec-bench" --ops= --layers=$LAYERS --cooldown-ms=200 --layer-csv="$OUT/layer_2.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/last /"
pack_out
