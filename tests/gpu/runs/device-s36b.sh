#!/usr/bin/env bash
# Thirty-sixth session, run b (after s36a: GEMM prefetch 64 KB a CTA 2%
# faster at decode, attention's 256 KB 1% slower, 256 KB / 1 MB slower):
# the GEMMs' bytes a CTA 16 / 32 / 64 / 128 KB (attention none), and
# attention's 32 / 64 KB with the GEMMs' 64 KB, two passes (us).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
LAYERS=1x4096x4096,16x4096x512,1x4096x16384
for pass in 1 2; do
  for v in g0 g16 g32 g64 g128 a32 a64; do
    case $v in
      g*) o="gemm-l2-prefetch=$(( ${v#g} * 1024 )) attention-l2-prefetch=0" ;;
      a*) o="gemm-l2-prefetch=65536 attention-l2-prefetch=$(( ${v#a} * 1024 ))" ;;
    esac
    timeout 40 "$B/bin/tilec-bench" --ops= --layers=$LAYERS --cooldown-ms=100 \
      --schedule="$o" --layer-csv="$OUT/layer_${v}_$pass.csv" 2>&1 |
      grep -E "^decoder_layer|error" | sed "s/^/$v /"
  done
done
pack_out
