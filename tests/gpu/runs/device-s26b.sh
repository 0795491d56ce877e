#!/usr/bin/env bash
# Twenty-sixth session's second run (~300 s): the Hopper flash kernel with
# the next block's S issued before this one's softmax (attention-wgmma=2,
# k copied a block ahead of v) against run s26a's best (wgmma=1, 64 rows a
# CTA) and the mma.sync kernel, beside SDPA, in one run.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
step "GPU tests"
TILEC_TESTS_TIMEOUT=150 run_gpu_tests 'Attention.*'
step "attention: mma.sync flash (default) against the wgmma variants"
A=32x128x128x128,32x512x512x128,32x2048x2048x128,8x2048x2048x128,32x1024x1024x64,8x64x4112x128,8x4x4100x128,8x64x1040x128,8x4x1028x128
for v in dflt w1 w2 w2m128; do
  case $v in
    dflt) o="";; w1) o="attention-wgmma=1 attention-block-m=64";; w2) o="attention-wgmma=2 attention-block-m=64";;
    w2m128) o="attention-wgmma=2";;
  esac
  timeout 80 "$B/bin/tilec-bench" --ops= --attention=$A --cooldown-ms=100 ${o:+--schedule="$o"} --attention-csv="$OUT/att_$v.csv" 2>&1 | grep -E "^attention_flash|error" | sed "s/^/$v /"
done
timeout 150 python3 tests/gpu/peers_attention.py --attention=$A --cooldown-ms 100 --csv "$OUT/peers_attention.csv" --tilec-csv "$OUT/att_w2.csv" 2>&1 | tail -11 | tee "$OUT/table_attention.txt"
pack_out
