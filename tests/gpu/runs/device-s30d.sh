#!/usr/bin/env bash
# Thirtieth session's fourth run: the new defaults (persistent TMA flash
# kernels past 132 tiles; causal ones in waves of alternating order, their
# tiles heaviest first by their place in their run of rows: the decoder
# layer's grouped queries) beside one CTA a tile, A B A B: causal shapes
# and the decoder layer, with the layer's peers; the GPU tests.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
step "GPU tests"
TILEC_TESTS_TIMEOUT=200 run_gpu_tests 'Attention.*:DecoderLayer.*'
step "decoder layer: default (persistent attention) against one CTA a tile"
L=512x4096x0,2048x4096x0,4096x4096x0
for v in dflt one dflt2 one2; do
  o=""; case $v in one|one2) o="attention-persistent=0";; esac
  timeout 100 "$B/bin/tilec-bench" --ops= --layers=$L --cooldown-ms=200 ${o:+--schedule="$o"} --layer-csv="$OUT/layer_$v.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/$v /"
done
step "causal attention: default against one CTA a tile"
C=32x2048x2048x128c,8x4096x4096x128c,32x2048x2048x64c,8x4096x4096x128c1024
for v in dflt one dflt2 one2; do
  o=""; case $v in one|one2) o="attention-persistent=0";; esac
  timeout 60 "$B/bin/tilec-bench" --ops= --attention=$C --cooldown-ms=100 ${o:+--schedule="$o"} --attention-csv="$OUT/causal_$v.csv" 2>&1 | grep -E "^attention_flash|error" | sed "s/^/$v /"
done
step "the layer's peers"
timeout 150 python3 tests/gpu/peers_layer.py --layers=$L --cooldown-ms 200 --csv "$OUT/peers_layer.csv" --tilec-csv "$OUT/layer_dflt.csv" > "$OUT/table_layer.txt" 2>&1; tail -5 "$OUT/table_layer.txt"
pack_out
