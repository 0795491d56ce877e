#!/usr/bin/env bash
# Thirtieth session's third run: causal kernels persistent in waves of
# alternating order (a CTA's heavy tile of one wave paired with a light
# one of the next; run s30b's plain round robin lost 1.3x at 8 x 4096)
# beside one CTA a tile (the default), A B A B; the decoder layer both
# ways; the causal GPU test.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
step "GPU tests"
TILEC_TESTS_TIMEOUT=120 run_gpu_tests 'Attention.CausalFlashMatchesReference'
step "causal: one CTA a tile (default) against persistent waves"
C=32x2048x2048x128c,8x4096x4096x128c,32x512x512x128c,8x4096x4096x128c1024,16x1024x1024x128c,32x2048x2048x64c
for v in one pers one2 pers2; do
  o="attention-persistent=0"; case $v in pers|pers2) o="attention-persistent=1";; esac
  timeout 60 "$B/bin/tilec-bench" --ops= --attention=$C --cooldown-ms=100 --schedule="$o" --attention-csv="$OUT/causal_$v.csv" 2>&1 | grep -E "^attention_flash|error" | sed "s/^/$v /"
done
step "decoder layer"
L=512x4096x0,2048x4096x0
for v in one pers one2 pers2; do
  o="attention-persistent=0"; case $v in pers|pers2) o="attention-persistent=1";; esac
  timeout 100 "$B/bin/tilec-bench" --ops= --layers=$L --cooldown-ms=200 --schedule="$o" --layer-csv="$OUT/layer_$v.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/$v /"
done
pack_out
