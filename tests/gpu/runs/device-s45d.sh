#!/usr/bin/env bash
# Written in the forty-fifth session for its last device call, within
# TILEC_BUDGET_S (default 450): on an H200, device-s44h.sh (issue 3's
# record: probe, bf16 grid beside the peers, cluster A B, f32 grid with
# what is left); on an H100, two A Bs (TILEC_PASSES, 3) that follow runs
# s45a-c there:
#  1. wf3/: layer_norm's Welford pair (the default, welford=true) against
#     two rounds at rows of one CTA (s45c: two rounds 1.8% faster at bf16
#     [4096, 4096], level elsewhere; the seventh session's H200 run had
#     the pair 0.5-1.5% faster there);
#  2. c1/: 512 threads of one vector (row-chunks=1) with each op's own
#     fix (layer_norm two rounds: s45b, the pair over 16 warps of one
#     vector was the 20% loss; softmax's online pair: 4.5% -> 0.9%)
#     against the default, the norms and softmax at 4096 and 8192
#     columns.
set -u
cd "$(dirname "$0")/../../.."
if ! nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100; then
  exec bash tests/gpu/runs/device-s44h.sh
fi
source tests/gpu/device-setup.sh
begin_run
TILEC_AB_TIMEOUT=60
step "layer_norm at rows of one CTA: the Welford pair (wt, default) or two rounds (wf)"
ab_variants wf3 "${TILEC_PASSES:-3}" "--ops=layer_norm --dtypes=bf16,f32 \
  --shapes=4096x1024,4096x2048,4096x4096,8192x4096,16384x4096,4096x8192" wt= wf=welford=false
step "512 threads of one vector with each op's fix (c1f) against the default (c4)"
ab_variants c1 "${TILEC_PASSES:-3}" "--ops=rms_norm,add_rms_norm,layer_norm,softmax --dtypes=bf16 \
  --shapes=4096x4096,8192x4096,16384x4096,4096x8192" c4= \
  c1f="row-chunks=1 welford=false online-softmax=true"
pack_out
