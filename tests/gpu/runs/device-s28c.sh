#!/usr/bin/env bash
# Twenty-eighth session's shortest run (~3 min, for a device budget of
# about 6 minutes): the attention GPU tests of the wgmma and causal flash
# kernels (P from registers and the overlap among their modes); the
# default, P from registers, and all three (P from registers, overlap,
# turns) at two prefills beside SDPA; the decoder layer at a 2048-token
# prefill with the default and with all three.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
step "GPU tests"
TILEC_TESTS_TIMEOUT=100 run_gpu_tests 'Attention.WgmmaFlashMatchesReference:Attention.CausalFlashMatchesReference'
step "attention variants and SDPA"
A=32x2048x2048x128,8x4096x4096x128c
for v in dflt pregs povlt; do
  case $v in dflt) o="";; pregs) o="attention-p-regs=1";;
    povlt) o="attention-p-regs=1 attention-overlap=1 attention-pingpong=1";; esac
  timeout 30 "$B/bin/tilec-bench" --ops= --attention=$A --cooldown-ms=100 ${o:+--schedule="$o"} --attention-csv="$OUT/att_$v.csv" 2>&1 | grep -E "^attention_flash|error" | sed "s/^/$v /"
done
timeout 50 python3 tests/gpu/peers_attention.py --no-flex --attention=$A --cooldown-ms 100 --csv "$OUT/peers_attention.csv" 2>&1 | grep "^attention"
step "decoder layer"
for v in dflt povlt; do
  o=""; [ $v = povlt ] && o="attention-p-regs=1 attention-overlap=1 attention-pingpong=1"
  timeout 30 "$B/bin/tilec-bench" --ops= --layers=2048x4096x0 --cooldown-ms=200 ${o:+--schedule="$o"} --layer-csv="$OUT/layer_$v.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/$v /"
done
pack_out
