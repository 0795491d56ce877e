#!/usr/bin/env bash
# Written in the forty-sixth session. `device-s46.sh`: on an H200,
# device-s44h.sh (issue 3's record: probe, bf16 grid beside the peers,
# cluster A B, f32 grid, within TILEC_BUDGET_S); on an H100 (or on any GPU
# with `device-s46.sh ab`), the GPU tests of the rows of 1024 threads, then
# the A Bs below (TILEC_PASSES, 2):
#  1. full/: full-cta-registers (the default from this session's build:
#     CTAs of 1024 threads get .maxnreg 64, the register file's share of
#     a thread there, which kept bf16 add_rms_norm [4096, 32768] from
#     spilling 16 bytes) against none, at the rows of 32768 that take
#     1024 threads;
#  2. n16/, n32/: one vector a thread (row-chunks=1, up to 512 threads a
#     row; from the build of this session's second commit the default for
#     one-reduction kernels) against four (row-chunks=4), rms_norm and
#     add_rms_norm, bf16 and f32, 1024 to 16384 columns (run s46a, on an
#     H100, made it the default);
#  3. (H200 only) c1/: s45d's 512 threads of one vector with each op's
#     fix against the default.
set -u
cd "$(dirname "$0")/../../.."
if [ "${1:-}" != ab ] && ! nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100; then
  exec bash tests/gpu/runs/device-s44h.sh
fi
source tests/gpu/device-setup.sh
begin_run
P=${TILEC_PASSES:-2}
step "GPU tests of the kernels of 1024 threads (now capped)"
TILEC_TESTS_TIMEOUT=120 run_gpu_tests 'WideRows/*'
TILEC_AB_TIMEOUT=120
step "CTAs of 1024 threads: .maxnreg 64 (cap, the default) or none (free)"
ab_variants full "$P" "--ops=add_rms_norm,rms_norm,layer_norm,softmax --dtypes=bf16,f32 \
  --shapes=4096x32768,8192x32768" cap= free=full-cta-registers=false
TILEC_AB_TIMEOUT=90
step "rms_norm, add_rms_norm, bf16: one vector a thread (c1) against the default (c4)"
ab_variants n16 "$P" "--ops=rms_norm,add_rms_norm --dtypes=bf16 \
  --shapes=4096x1024,16384x1024,4096x2048,16384x2048,4096x4096,16384x4096,4096x8192,16384x8192,8192x16384" \
  c4=row-chunks=4 c1=row-chunks=1
step "rms_norm, add_rms_norm, f32: one vector a thread (c1) against the default (c4)"
ab_variants n32 "$P" "--ops=rms_norm,add_rms_norm --dtypes=f32 \
  --shapes=4096x1024,16384x1024,4096x2048,16384x2048,4096x4096,16384x4096,4096x8192" \
  c4=row-chunks=4 c1=row-chunks=1
if ! nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100; then
  step "512 threads of one vector with each op's fix (c1f) against the default (c4)"
  ab_variants c1 "$P" "--ops=rms_norm,add_rms_norm,layer_norm,softmax --dtypes=bf16 \
    --shapes=4096x4096,8192x4096,16384x4096,4096x8192" c4=row-chunks=4 \
    c1f="row-chunks=1 welford=false online-softmax=true"
fi
pack_out
