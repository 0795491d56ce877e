#!/usr/bin/env bash
# Thirty-sixth session, run a: decode GEMMs prefetch their first weights
# into L2 ahead of griddepcontrol.wait (gemm-l2-prefetch, default 65536
# bytes a CTA for mma.sync GEMMs under dependent launch), so the weight
# stream starts under the kernel ahead (a norm or RoPE of one or two
# CTAs). The GEMM and layer GPU tests; the layer with 0 / 64 KB / 256 KB /
# 1 MB a CTA, A B C D twice (predicted: decode 3-10 us faster at 64 KB,
# 16 tokens alike; prefill unchanged: its wgmma GEMMs take none).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
snap() { ( cd "$OUT" && tar czf /tmp/snap.tgz --exclude=run.tgz . && mv /tmp/snap.tgz run.tgz ); }
step "GPU tests: decode GEMMs, the decoder layer"
TILEC_TESTS_TIMEOUT=200 run_gpu_tests 'Gemm*:DecoderLayer.*-GemmLarge*'
snap
step "decoder layer: L2 prefetch bytes a CTA 0 / 65536 (default) / 262144 / 1048576, two passes (us)"
LAYERS=1x4096x4096,16x4096x512,1x4096x16384
for pass in 1 2; do
  for v in 0 65536 262144 1048576; do
    timeout 45 "$B/bin/tilec-bench" --ops= --layers=$LAYERS --cooldown-ms=100 \
      --schedule="gemm-l2-prefetch=$v" --layer-csv="$OUT/layer_${v}_$pass.csv" 2>&1 |
      grep -E "^decoder_layer|error" | sed "s/^/$v /"
  done
done
snap
step "without dependent launch (no wait to run ahead of): 0 / default"
for v in 0 65536; do
  timeout 45 "$B/bin/tilec-bench" --ops= --layers=1x4096x4096 --cooldown-ms=100 --no-dependent-launch \
    --schedule="gemm-l2-prefetch=$v" --layer-csv="$OUT/layer_nopdl_$v.csv" 2>&1 |
    grep -E "^decoder_layer|error" | sed "s/^/nopdl $v /"
done
pack_out
