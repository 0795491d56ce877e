#!/usr/bin/env bash
# Thirty-sixth session, run e: the closing bundle (L2 prefetch defaults:
# GEMMs of <= 64 rows 32 KB a CTA, split-key attention 64 KB). GPU tests of
# the runtime, GEMMs, attention and the layer; the layer by default against
# no prefetch, A B A B (decode, 16 and 64 tokens, a 512-token prefill).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
snap() { ( cd "$OUT" && tar czf /tmp/snap.tgz --exclude=run.tgz . && mv /tmp/snap.tgz run.tgz ); }
step "GPU tests: runtime, GEMMs, attention, the decoder layer"
TILEC_TESTS_TIMEOUT=240 run_gpu_tests 'GpuRuntimeTest.*:Gemm*:DecoderLayer.*:Attention.*-GemmLarge*'
snap
step "decoder layer: default prefetch against none, A B A B (us)"
for p in 1 2; do
  for v in default none; do
    o=""; [ $v = none ] && o="gemm-l2-prefetch=0 attention-l2-prefetch=0"
    timeout 45 "$B/bin/tilec-bench" --ops= --layers=1x4096x4096,16x4096x512,64x4096x512,512x4096x0 \
      --cooldown-ms=100 --schedule="$o" --layer-csv="$OUT/layer_${v}_$p.csv" 2>&1 |
      grep -E "^decoder_layer|error" | sed "s/^/$v /"
  done
done
pack_out
