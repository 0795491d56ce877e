#!/usr/bin/env bash
# Written in the forty-third session for its second device call, on the
# build whose rows split over a cluster in a grid of one wave prefetch each
# CTA's own slice into L2 ahead of the dependent-launch wait by default:
#  1. the new default against `row-l2-prefetch-first=false` (the old one)
#     at 1, 3 and 16 rows of 131072 columns, softmax and the norms, bf16
#     and f32, two passes, into $OUT/ab/ (since it ran, written with
#     device-setup.sh's ab_variants: the old variant first in each pass);
#  2. the GPU tests of rows over clusters and of softmax (the kernels that
#     changed), into $OUT/gpu_tests.log.
set -u
cd "$(dirname "$0")/../../.."
source tests/gpu/device-setup.sh
begin_run
TILEC_AB_TIMEOUT=90
step "one wave of clusters: each CTA's own slice ahead of the wait (new) against none (old)"
ab_variants cl 2 "--ops=softmax,rms_norm,layer_norm,add_rms_norm --dtypes=bf16,f32 \
  --shapes=1x131072,3x131072,16x131072" old=row-l2-prefetch-first=false new=
step "GPU tests: rows over clusters, softmax"
TILEC_TESTS_TIMEOUT=${TILEC_TESTS_TIMEOUT:-240} \
  run_gpu_tests '*Cluster*:Softmax/*:Examples/GpuOpsTest.*softmax*:GpuScheduleTest.*'
pack_out
