#!/usr/bin/env bash
# Thirtieth session's knob run: where the flash kernel still trails SDPA
# (512 tokens: one wave of 128 tiles; head dim 64), the schedule's knobs
# A B A: 64 keys a step (the first block lands sooner), 2 or 4 stages.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
S=32x512x512x128,32x512x512x128c,32x2048x2048x64,32x2048x2048x64c
for v in dflt bn64 st2 st4 dflt2; do
  case $v in dflt|dflt2) o="";; bn64) o="attention-tma=1 attention-block-n=64";;
    st2) o="attention-stages=2";; st4) o="attention-stages=4";; esac
  timeout 60 "$B/bin/tilec-bench" --ops= --attention=$S --cooldown-ms=100 ${o:+--schedule="$o"} --attention-csv="$OUT/att_$v.csv" 2>&1 | grep -E "^attention_flash|error" | sed "s/^/$v /"
done
for v in dflt bn64 dflt2; do
  o=""; [ $v = bn64 ] && o="attention-tma=1 attention-block-n=64"
  timeout 60 "$B/bin/tilec-bench" --ops= --layers=512x4096x0 --cooldown-ms=200 ${o:+--schedule="$o"} --layer-csv="$OUT/layer_$v.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/$v /"
done
pack_out
