#!/usr/bin/env bash
# Thirty-sixth session, run c: the chosen prefetch sizes (GEMMs 32 KB a
# CTA, split-key attention 64 KB) against none, A B A B, decode, 16 and 64
# tokens. (Run as one command line; the raw files' names here.)
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
for p in 1 2; do
  for v in none g32a64; do
    case $v in
      none) o="gemm-l2-prefetch=0 attention-l2-prefetch=0" ;;
      g32a64) o="gemm-l2-prefetch=32768 attention-l2-prefetch=65536" ;;
    esac
    timeout 40 "$B/bin/tilec-bench" --ops= --layers=1x4096x4096,16x4096x512,1x4096x16384,64x4096x512 \
      --cooldown-ms=100 --schedule="$o" --layer-csv="$OUT/layer_${v}_$p.csv" 2>&1 |
      grep -E "^decoder_layer|error" | sed "s/^/[$o] /"
  done
done
pack_out
