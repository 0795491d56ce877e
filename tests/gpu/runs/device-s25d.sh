#!/usr/bin/env bash
# Twenty-fifth session's last run (~150 s): the decoder layer at 64 tokens
# (wgmma GEMMs since run s25c: 1.57x the mma.sync layer) and at a
# 4096-token cache (flash by shape) beside PyTorch eager and torch.compile.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
step "decoder layer beside the peers"
L=64x4096x512,64x4096x0,1x4096x4096
timeout 100 "$B/bin/tilec-bench" --ops= --layers=$L --cooldown-ms=200 --layer-csv="$OUT/layer.csv" 2>&1 | grep -E "^device|^decoder_layer|error"
timeout 200 python3 tests/gpu/peers_layer.py --layers=$L --cooldown-ms 200 --csv "$OUT/peers_layer.csv" --tilec-csv "$OUT/layer.csv" 2>&1 | tail -12 | tee "$OUT/table_layer.txt"
pack_out
