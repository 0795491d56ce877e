#!/usr/bin/env bash
# Sixteenth session, first run (written in the fifteenth; ran as s16a): the
# GPU test of row-cluster up to 16 (the non-portable cluster size), then
# softmax bf16 over 128k in clusters of 16 CTAs of 128 threads (72
# registers: seven CTAs an SM; capped at 64: eight) beside the default
# (clusters of 8 CTAs of 256, four an SM), two passes each.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
TILEC_TESTS_TIMEOUT=120 run_gpu_tests 'GpuScheduleTest.NonPortableClustersOfSixteen'
SH=4096x131072,1024x131072,264x131072,128x131072
C16="row-cluster=16 max-threads-per-block=128 recompute-exp=true row-scalars=true"
bench() { timeout 60 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16 --shapes=$SH --csv="$OUT/$1.csv" ${2:+--schedule="$2"} 2>&1 | grep -E "^softmax|^device"; }
for pass in 1 2; do
  step "default ($pass)"; bench default$pass
  step "clusters of 16 ($pass)"; bench c16_$pass "$C16"
  step "clusters of 16, 64 registers ($pass)"; bench c16r64_$pass "$C16 max-registers=64"
done
pack_out
