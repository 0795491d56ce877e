#!/usr/bin/env bash
# Twenty-eighth session's run: the twenty-seventh's (written without a
# device), with FlexAttention among the causal peers, and among the
# variants P v from registers (attention-p-regs=1, tile.wgmma_rs) and each
# block's P v under the next one's softmax (attention-overlap=1), alone
# and with the turns. Causal attention. GPU tests of attention
# (Attention.CausalFlashMatchesReference among them) and the decoder
# layer (its mask now computed in the kernels);
# nn::causal_attention (shapes ending in c) beside SDPA with is_causal (or
# causal_lower_right for Sq < Sk), eager and torch.compile of the written
# out masked attention, and the same shapes without the mask for the
# ratio causal / full (the skipping's gain: at most ~2x for Sq == Sk);
# the consumers' turns (attention-pingpong=1, FlashAttention-3's
# ping-pong) beside the default; the
# decoder layer at 512- and 2048-token prefills and 64 tokens after 4096
# beside its peers (SDPA with the explicit grouped mask).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
step "GPU tests"
TILEC_TESTS_TIMEOUT=150 run_gpu_tests 'Attention.*:DecoderLayer.*'
step "causal attention against full, cp.async wgmma, and the peers"
A=32x2048x2048x128c,32x2048x2048x128,8x4096x4096x128,8x4096x4096x128c,8x4096x4096x128c1024,32x512x512x128c
for v in dflt turns pregs pturns povl povlt; do
  case $v in dflt) o="";; turns) o="attention-pingpong=1";; pregs) o="attention-p-regs=1";;
    pturns) o="attention-p-regs=1 attention-pingpong=1";;
    povl) o="attention-p-regs=1 attention-overlap=1";;  # (3 stages: they fit without P's tiles)
    povlt) o="attention-p-regs=1 attention-overlap=1 attention-pingpong=1";; esac
  timeout 60 "$B/bin/tilec-bench" --ops= --attention=$A --cooldown-ms=100 ${o:+--schedule="$o"} --attention-csv="$OUT/att_$v.csv" 2>&1 | grep -E "^attention_flash|error" | sed "s/^/$v /"
done
timeout 150 python3 tests/gpu/peers_attention.py --attention=$A --cooldown-ms 100 --csv "$OUT/peers_attention.csv" --tilec-csv "$OUT/att_dflt.csv" 2>&1 | tee "$OUT/peers_attention.txt" | tail -10
step "decoder layer beside its peers"
L=512x4096x0,2048x4096x0,64x4096x4096
timeout 120 "$B/bin/tilec-bench" --ops= --layers=$L --cooldown-ms=200 --layer-csv="$OUT/layer.csv" 2>&1 | grep -E "^decoder_layer|error"
timeout 120 "$B/bin/tilec-bench" --ops= --layers=$L --cooldown-ms=200 --schedule="attention-p-regs=1 attention-overlap=1 attention-pingpong=1" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/povlt /"
timeout 110 python3 tests/gpu/peers_layer.py --layers=$L --cooldown-ms 200 --csv "$OUT/peers_layer.csv" --tilec-csv "$OUT/layer.csv" > "$OUT/table_layer.txt" 2>&1; tail -5 "$OUT/table_layer.txt"
pack_out
