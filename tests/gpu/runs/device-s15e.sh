#!/usr/bin/env bash
# Fifteenth session, fifth run (the build to commit): the GPU tests the
# session's two changes reach (the online pair reduced max-first, one exp a
# lane; many bf16 rows of 65537-131072 in clusters of 8 CTAs of 256), then
# softmax over 128k columns timed by row count.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
step "GPU tests (softmax, pairs, schedules)"
TILEC_TESTS_TIMEOUT=${TILEC_TESTS_TIMEOUT:-400} run_gpu_tests 'GpuScheduleTest.*:Examples/*:Rows/*:Softmax/*:WideRows/*:Attention.*:RowLoop/*:RowPrefetch/*:GpuNumericsTest.*'
step "softmax over 128k columns"
timeout 60 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16,f32 --shapes=16x131072,64x131072,128x131072,264x131072,1024x131072,4096x131072 --csv="$OUT/bench.csv" 2>&1 | grep -E "^softmax|^device"
pack_out
