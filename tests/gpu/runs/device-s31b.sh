#!/usr/bin/env bash
# Thirty-first session, run b: the decode shapes' peers (SDPA, eager,
# torch.compile, FlexAttention's decoding kernel) in one run with tilec's
# default kernels (run a's shapes).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache
S=${TILEC_S31B_SHAPES:-8x4x1028x128,8x4x4100x128,8x4x16388x128,8x64x4112x128,8x1x4100x128,32x4x8196x128,64x4x4100x128,256x4x4100x128,128x1x4100x128,256x16x2064x128}
timeout 120 "$B/bin/tilec-bench" --ops= --attention=$S --cooldown-ms=50 --attention-csv="$OUT/tilec.csv" 2>&1 | grep -E "^attention|error|copy"
timeout 470 python3 tests/gpu/peers_attention.py --attention=$S --cooldown-ms=50 --rep-ms=50 --csv="$OUT/peers.csv" --tilec-csv="$OUT/tilec.csv" 2>&1 | grep -v Warning
pack_out
