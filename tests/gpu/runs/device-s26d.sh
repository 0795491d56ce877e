#!/usr/bin/env bash
# Twenty-sixth session's last run (~300 s), on the final build: the GPU
# tests of attention and the decoder layer under the new defaults (wgmma
# flash on sm_90a; TMA copies and 128 keys a step at head dim 128 where the
# keys are not split); attention timed against the cp.async wgmma kernel
# (attention-tma=0) and mma.sync (attention-wgmma=0) beside SDPA; the
# decoder layer at 512- and 2048-token prefills and at 64 tokens after
# 4096, default against mma.sync flash.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
step "GPU tests"
TILEC_TESTS_TIMEOUT=200 run_gpu_tests 'Attention.*:DecoderLayer.*'
step "attention: defaults against cp.async wgmma and mma.sync"
A=32x128x128x128,32x512x512x128,32x2048x2048x128,8x2048x2048x128,8x4096x4096x128,32x1024x1024x64,8x64x4112x128
for v in dflt notma sync; do
  case $v in dflt) o="";; notma) o="attention-tma=0";; sync) o="attention-wgmma=0";; esac
  timeout 80 "$B/bin/tilec-bench" --ops= --attention=$A --cooldown-ms=100 ${o:+--schedule="$o"} --attention-csv="$OUT/att_$v.csv" 2>&1 | grep -E "^attention_flash|error" | sed "s/^/$v /"
done
timeout 150 python3 tests/gpu/peers_attention.py --attention=$A --cooldown-ms 100 --csv "$OUT/peers_attention.csv" --tilec-csv "$OUT/att_dflt.csv" 2>&1 | tail -9 | tee "$OUT/table_attention.txt"
step "decoder layer: defaults against mma.sync flash"
for v in dflt sync; do
  o=""; [ $v = sync ] && o="attention-wgmma=0"
  timeout 120 "$B/bin/tilec-bench" --ops= --layers=512x4096x0,2048x4096x0,64x4096x4096 --cooldown-ms=200 ${o:+--schedule="$o"} --layer-csv="$OUT/layer_$v.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/$v /"
done
pack_out
