#!/usr/bin/env bash
# Thirty-sixth session, run a: decode kernels prefetch their first bytes
# into L2 ahead of griddepcontrol.wait, so their streams start under the
# kernel ahead (a norm or RoPE of one or two CTAs): the mma.sync GEMMs 64 KB
# of weights a CTA (gemm-l2-prefetch), split-key flash attention 256 KB of
# its k and v blocks a CTA (attention-l2-prefetch). The GEMM, attention and
# layer GPU tests; the layer with none / GEMMs only / both (default) /
# more, A B C D twice (predicted: decode 3-10 us faster with both, 16
# tokens alike; prefill unchanged: its wgmma GEMMs take none).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
snap() { ( cd "$OUT" && tar czf /tmp/snap.tgz --exclude=run.tgz . && mv /tmp/snap.tgz run.tgz ); }
step "GPU tests: GEMMs, attention, the decoder layer"
TILEC_TESTS_TIMEOUT=250 run_gpu_tests 'Gemm*:DecoderLayer.*:Attention.*-GemmLarge*'
snap
step "decoder layer: L2 prefetch none / GEMMs / both (default) / more, two passes (us)"
LAYERS=1x4096x4096,16x4096x512,1x4096x16384
variant() {
  case $1 in
    none) echo "gemm-l2-prefetch=0 attention-l2-prefetch=0" ;;
    gemm) echo "attention-l2-prefetch=0" ;;
    both) echo "" ;;
    more) echo "gemm-l2-prefetch=262144 attention-l2-prefetch=1048576" ;;
  esac
}
for pass in 1 2; do
  for v in none gemm both more; do
    timeout 45 "$B/bin/tilec-bench" --ops= --layers=$LAYERS --cooldown-ms=100 \
      --schedule="$(variant $v)" --layer-csv="$OUT/layer_${v}_$pass.csv" 2>&1 |
      grep -E "^decoder_layer|error" | sed "s/^/$v /"
  done
done
snap
step "without dependent launch (no wait to run ahead of): none / default"
for v in none both; do
  timeout 45 "$B/bin/tilec-bench" --ops= --layers=1x4096x4096 --cooldown-ms=100 --no-dependent-launch \
    --schedule="$(variant $v)" --layer-csv="$OUT/layer_nopdl_$v.csv" 2>&1 |
    grep -E "^decoder_layer|error" | sed "s/^/nopdl $v /"
done
pack_out
