#!/usr/bin/env bash
# Thirty-first session, run h: the closing bundle's GPU tests of attention
# and the decoder layer (by shape at decode now flash: one token after 700).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache
step "GPU tests: attention, the layer"
TILEC_TESTS_TIMEOUT=170 run_gpu_tests 'Attention.*:DecoderLayer.*'
pack_out
