#!/usr/bin/env bash
# Thirtieth session's second run: persistent TMA flash kernels
# (attention-persistent, default -1: persistent with two consumers and no
# causal mask) beside one CTA a tile (attention-persistent=0), A B A B in
# one run; causal shapes with persistence asked for beside their default
# (one CTA a tile, heaviest first); SDPA beside them; the GPU tests of
# attention and the decoder layer (persistent cases: more tiles than SMs).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
step "GPU tests"
TILEC_TESTS_TIMEOUT=200 run_gpu_tests 'Attention.*:DecoderLayer.*'
step "attention: persistent (default) against one CTA a tile"
A=32x2048x2048x128,8x4096x4096x128,32x2048x2048x64,8x4096x4096x64,32x512x512x128,16x1024x1024x128
for v in pers one pers2 one2; do
  o=""; case $v in one|one2) o="attention-persistent=0";; esac
  timeout 60 "$B/bin/tilec-bench" --ops= --attention=$A --cooldown-ms=100 ${o:+--schedule="$o"} --attention-csv="$OUT/att_$v.csv" 2>&1 | grep -E "^attention_flash|error" | sed "s/^/$v /"
done
step "causal: default (a CTA a tile) against persistent"
C=32x2048x2048x128c,8x4096x4096x128c,32x512x512x128c,8x4096x4096x128c1024
for v in dflt pers dflt2 pers2; do
  o=""; case $v in pers|pers2) o="attention-persistent=1";; esac
  timeout 60 "$B/bin/tilec-bench" --ops= --attention=$C --cooldown-ms=100 ${o:+--schedule="$o"} --attention-csv="$OUT/causal_$v.csv" 2>&1 | grep -E "^attention_flash|error" | sed "s/^/$v /"
done
step "SDPA beside them"
timeout 120 python3 tests/gpu/peers_attention.py --no-flex --attention=$A,$C --cooldown-ms 100 --csv "$OUT/peers_attention.csv" --tilec-csv "$OUT/att_pers.csv" 2>&1 | tee "$OUT/peers_attention.txt" | tail -14
pack_out
