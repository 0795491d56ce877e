#!/usr/bin/env bash
# Thirtieth session's closing run: the final bundle's GPU tests of the
# GEMMs (whose launch reads `persistent` as attention's now does), flash
# attention, the decoder layer, dependent launch and the program cache.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
TILEC_TESTS_TIMEOUT=330 run_gpu_tests 'Gemm*:Shapes/GemmTest.*:Attention.*:DecoderLayer.*:DependentLaunch.*:ProgramCache.*'
pack_out
