#!/usr/bin/env bash
# Thirty-first session, run d: decode attention with the keys split over
# TMA kernels (default now) against the cp.async kernel with the old
# hand-off (attention-tma=0 attention-all-partials=1: the kernel before
# this session) and with the new one (attention-tma=0), 64 keys a step in
# 4 stages; the decoder layer at decode. GPU tests of attention and the
# layer first.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
step "GPU tests: attention, the layer"
TILEC_TESTS_TIMEOUT=200 run_gpu_tests 'Attention.*:DecoderLayer.*'
S=8x4x1028x128,8x4x4100x128,8x4x16388x128,8x64x4112x128,8x1x4100x128,32x4x8196x128,64x4x4100x128
for v in dflt old cpnew bn64 dflt2; do
  case $v in dflt|dflt2) o="";; old) o="attention-tma=0 attention-all-partials=1";;
    cpnew) o="attention-tma=0";; bn64) o="attention-tma=1 attention-block-n=64 attention-stages=4";; esac
  timeout 70 "$B/bin/tilec-bench" --ops= --attention=$S --cooldown-ms=50 ${o:+--schedule="$o"} --attention-csv="$OUT/att_$v.csv" 2>&1 | grep -E "^attention_flash|error" | sed "s/^/$v /"
done
for v in dflt old; do
  o=""; [ $v = old ] && o="attention-tma=0 attention-all-partials=1"
  timeout 60 "$B/bin/tilec-bench" --ops= --layers=1x4096x4096,16x4096x4096 --cooldown-ms=100 ${o:+--schedule="$o"} --layer-csv="$OUT/layer_$v.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/$v /"
done
pack_out
