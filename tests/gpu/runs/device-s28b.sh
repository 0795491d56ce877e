#!/usr/bin/env bash
# Twenty-eighth session's short run (~5 min, for a device budget too small
# for device-s28.sh): the attention GPU tests (P from registers and the
# overlap among their modes), the flash kernel's variants (default, P from
# registers, overlap, overlap with the turns) on causal and full prefills
# beside SDPA (no FlexAttention: its compiles are slow), and the decoder
# layer with the default and with all three.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
step "GPU tests"
TILEC_TESTS_TIMEOUT=120 run_gpu_tests 'Attention.*'
step "attention variants and SDPA"
A=32x2048x2048x128,32x2048x2048x128c,8x4096x4096x128,8x4096x4096x128c
for v in dflt turns pregs povl povlt; do
  case $v in dflt) o="";; turns) o="attention-pingpong=1";; pregs) o="attention-p-regs=1";;
    povl) o="attention-p-regs=1 attention-overlap=1";;
    povlt) o="attention-p-regs=1 attention-overlap=1 attention-pingpong=1";; esac
  timeout 45 "$B/bin/tilec-bench" --ops= --attention=$A --cooldown-ms=100 ${o:+--schedule="$o"} --attention-csv="$OUT/att_$v.csv" 2>&1 | grep -E "^attention_flash|error" | sed "s/^/$v /"
done
timeout 90 python3 tests/gpu/peers_attention.py --no-flex --attention=$A --cooldown-ms 100 --csv "$OUT/peers_attention.csv" --tilec-csv "$OUT/att_dflt.csv" 2>&1 | tail -6
step "decoder layer"
L=512x4096x0,2048x4096x0,64x4096x4096
timeout 60 "$B/bin/tilec-bench" --ops= --layers=$L --cooldown-ms=200 --layer-csv="$OUT/layer.csv" 2>&1 | grep -E "^decoder_layer|error"
timeout 60 "$B/bin/tilec-bench" --ops= --layers=$L --cooldown-ms=200 --schedule="attention-p-regs=1 attention-overlap=1 attention-pingpong=1" --layer-csv="$OUT/layer_povlt.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/povlt /"
pack_out
