#!/usr/bin/env bash
# Written in the forty-third session for the next call that gets an H200
# (it stops at once on an H100), within TILEC_BUDGET_S (default 550):
#  1. the forty-third session's A Bs there, into $OUT/ab/: the 64 and 128
#     MB bf16 norms and softmax in 512 threads of one vector and 256 of
#     two against the default (rms_norm was 3.5% faster at [4096, 4096]
#     on an H100 with 512 x 1); one wave of clusters with and without each
#     CTA's slice ahead of the wait (16 rows of 131072);
#  2. device-s42.sh (the copy-floor probe, the launch floor, issue 3's
#     grids beside the peers) with the rest of the budget, into
#     $OUT/s42.tgz.
set -u
cd "$(dirname "$0")/../../.."
START=$SECONDS
BUDGET=${TILEC_BUDGET_S:-550}
OUT=${OUT:-/tmp/tilec-out}
find "$OUT" -mindepth 1 -delete 2>/dev/null
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100; then
  echo "an H100: stopped (device-s43h.sh is for an H200)"; exit 0
fi
(
  source tests/gpu/device-setup.sh
  TILEC_AB_TIMEOUT=90
  step "64 and 128 MB bf16: 512 threads of one vector, 256 of two"
  ab_variants big 2 "--ops=rms_norm,add_rms_norm,layer_norm,softmax --dtypes=bf16 \
    --shapes=4096x4096,4096x8192" c4= c1=row-chunks=1 c2=row-chunks=2
  step "one wave of clusters: each CTA's own slice ahead of the wait (new) against none (old)"
  ab_variants cl 2 "--ops=softmax,rms_norm,layer_norm,add_rms_norm --dtypes=bf16,f32 \
    --shapes=16x131072" old=row-l2-prefetch-first=false new=
  pack_out
)
mkdir -p "$OUT/s42"
OUT=$OUT/s42 TILEC_BUDGET_S=$((BUDGET - (SECONDS - START))) bash tests/gpu/runs/device-s42.sh
# (Its folders nest too deep to come back: one archive.)
( cd "$OUT/s42" && tar czf ../s42.tgz . ) && rm -rf "$OUT/s42"
