#!/usr/bin/env bash
# Twenty-ninth session's fourth run: TMA by default at head dim 64 too
# (run s29c: 1.07-1.11x the cp.async kernel there with the turns, P from
# registers and the overlap); the GPU tests of attention and the layer
# with it; the flash kernel's SASS (decoder layer at a 2048-token
# prefill, kernel 7) for counting its loop's instructions here; the
# wgmma descriptors of a block's k steps as the first's plus offsets
# (attention-descriptor-offsets, default 1) beside each built from its
# address, at head dim 128.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache
step "GPU tests"
TILEC_TESTS_TIMEOUT=150 run_gpu_tests 'Attention.*:DecoderLayer.*'
step "head dim 64: TMA (now the default) and the cp.async kernel"
A=32x2048x2048x64,32x2048x2048x64c,8x4096x4096x64,32x512x512x64c
for v in dflt cpasync; do
  o=""; [ $v = cpasync ] && o="attention-tma=0"
  timeout 40 "$B/bin/tilec-bench" --ops= --attention=$A --cooldown-ms=100 ${o:+--schedule="$o"} --attention-csv="$OUT/att64_$v.csv" 2>&1 | grep -E "^attention_flash|error" | sed "s/^/$v /"
done
timeout 60 python3 tests/gpu/peers_attention.py --no-flex --attention=$A --cooldown-ms 100 --csv "$OUT/peers_64.csv" 2>&1 | grep "^attention"
step "descriptor offsets (default) and descriptors from addresses, head dim 128"
A=32x2048x2048x128,8x4096x4096x128,32x2048x2048x128c,32x512x512x128c
for v in dflt addr dflt2; do
  o=""; [ $v = addr ] && o="attention-descriptor-offsets=0"
  timeout 40 "$B/bin/tilec-bench" --ops= --attention=$A --cooldown-ms=100 ${o:+--schedule="$o"} --attention-csv="$OUT/att_$v.csv" 2>&1 | grep -E "^attention_flash|error" | sed "s/^/$v /"
done
step "SASS of the flash kernel"
"$B/bin/tilec" --rows=2048 --cols=4096 --k=0 decoder_layer -o /tmp/layer.ptx && ptxas -arch=sm_90a /tmp/layer.ptx -o /tmp/layer.cubin && cuobjdump -sass /tmp/layer.cubin > "$OUT/layer_sass.txt"; wc -l "$OUT/layer_sass.txt"
pack_out
