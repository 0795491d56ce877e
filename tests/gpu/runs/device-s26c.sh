#!/usr/bin/env bash
# Twenty-sixth session's third run (~350 s): the wgmma flash kernel as the
# default on sm_90a, and TMA copies from a producer warpgroup into stages
# two consumer warpgroups share through mbarriers (attention-tma=1), with
# 2-4 stages and 128 keys a step, against the default and mma.sync, beside
# SDPA; the GPU tests of attention and the decoder layer (flash by shape:
# now wgmma); the layer at a 512-token prefill, wgmma against mma.sync.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
step "GPU tests"
TILEC_TESTS_TIMEOUT=200 run_gpu_tests 'Attention.*:DecoderLayer.*'
step "attention: the default (wgmma, cp.async) against TMA variants and mma.sync"
A=32x128x128x128,32x512x512x128,32x2048x2048x128,8x2048x2048x128,32x1024x1024x64,8x4096x4096x128,8x64x4112x128
for v in dflt sync tma tma3 tma4 tmab128; do
  case $v in
    dflt) o="";; sync) o="attention-wgmma=0";; tma) o="attention-tma=1";;
    tma3) o="attention-tma=1 attention-stages=3";; tma4) o="attention-tma=1 attention-stages=4";;
    tmab128) o="attention-tma=1 attention-block-n=128";;
  esac
  timeout 80 "$B/bin/tilec-bench" --ops= --attention=$A --cooldown-ms=100 ${o:+--schedule="$o"} --attention-csv="$OUT/att_$v.csv" 2>&1 | grep -E "^attention_flash|error" | sed "s/^/$v /"
done
timeout 150 python3 tests/gpu/peers_attention.py --attention=$A --cooldown-ms 100 --csv "$OUT/peers_attention.csv" --tilec-csv "$OUT/att_tma.csv" 2>&1 | tail -9 | tee "$OUT/table_attention.txt"
step "decoder layer, 512-token prefill (flash by shape): wgmma (default) against mma.sync"
for v in dflt sync; do
  o=""; [ $v = sync ] && o="attention-wgmma=0"
  timeout 100 "$B/bin/tilec-bench" --ops= --layers=512x4096x0,64x4096x4096 --cooldown-ms=200 ${o:+--schedule="$o"} --layer-csv="$OUT/layer_$v.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/$v /"
done
pack_out
