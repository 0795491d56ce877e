#!/usr/bin/env bash
# Fifteenth session, seventh run (same build as s15f): the remaining GPU
# suites the session's changes could reach (layer_norm's Welford pair rides
# the same reduction code; runtime, slices, dependent launch), then the
# online pair forced (online-softmax=true) against the default (two rounds
# outside clusters) now that the pair's butterfly takes one exp a lane:
# softmax at the grid's large shapes.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
step "GPU tests"
TILEC_TESTS_TIMEOUT=230 run_gpu_tests 'LayerNorm/*:GpuRuntimeTest.*:DependentLaunch.*:GpuSliceTest.*'
SH=4096x4096,8192x4096,4096x8192,16384x4096,4096x32768,16384x32768
step "softmax default"; timeout 60 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16,f32 --shapes=$SH --csv="$OUT/default.csv" 2>&1 | grep -E "^softmax|^device"
step "softmax online-softmax=true"; timeout 60 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16,f32 --shapes=$SH --schedule=online-softmax=true --csv="$OUT/online.csv" 2>&1 | grep -E "^softmax"
step "softmax default again"; timeout 60 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16,f32 --shapes=$SH --csv="$OUT/default2.csv" 2>&1 | grep -E "^softmax"
pack_out
