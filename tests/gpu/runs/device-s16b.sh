#!/usr/bin/env bash
# Sixteenth session, second run: softmax bf16 over 128k with the row staged
# in shared memory (a streamed schedule with stream-shared=true, options
# only) in clusters: fewer registers, so more CTAs an SM hold bytes in
# flight. Beside the default (clusters of 8 x 256 in registers, 64
# registers, four CTAs an SM), two passes each; then Nsight Compute's
# occupancy and launch sections on the default and the best guess.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
TILEC_TESTS_TIMEOUT=60 run_gpu_tests "GpuScheduleTest.StreamedRowsReReadFromSharedMemory"
SH=4096x131072,1024x131072,264x131072,128x131072
SS="stream-shared=true max-threads-per-block=256"
A="max-chunks-per-thread=8 $SS"                  # 8 x 256, 2 blocks of 4, 47 regs: 5 CTAs an SM
B2="max-chunks-per-thread=4 row-chunks=8 $SS"    # 8 x 256, 4 blocks of 2, 32 regs: 6 (shared memory)
D="$A max-registers=40"                          # 6 CTAs an SM, 8 bytes spilled
C="max-chunks-per-thread=8 stream-shared=true max-threads-per-block=128 row-cluster=16" # 16 x 128
bench() { timeout 60 "$B/bin/tilec-bench" --ops=softmax --dtypes=${3:-bf16} --shapes=$SH --csv="$OUT/$1.csv" ${2:+--schedule="$2"} 2>&1 | grep -E "^softmax|^device"; }
for pass in 1 2; do
  step "default ($pass)"; bench default$pass
  step "staged, 2 blocks of 4 ($pass)"; bench a$pass "$A"
  step "staged, 4 blocks of 2 ($pass)"; bench b$pass "$B2"
  step "staged, 2 blocks of 4, 40 registers ($pass)"; bench d$pass "$D"
  step "staged, clusters of 16 x 128 ($pass)"; bench c$pass "$C"
done
step "f32: default, staged 2 blocks of 4 (4 x 512)"
bench f32default "" f32
bench f32staged "max-chunks-per-thread=8 stream-shared=true" f32
SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats --section WarpStateStats"
for v in default b; do
  sched=""; [ $v = b ] && sched="$B2"
  step "ncu $v"
  timeout 120 ncu --clock-control none $SECTIONS --launch-skip 3 --launch-count 1 -k "regex:softmax" \
    "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16 --shapes=4096x131072 ${sched:+--schedule="$sched"} 2>&1 |
    grep -vE "^==PROF==|^\s*$" > "$OUT/ncu_$v.txt"
  grep -E "Duration|DRAM Throughput|Registers|Max Active Clusters|Block Limit|Achieved Occ|Theoretical Occ|Issued Ipc|Eligible Warps|Warp Cycles Per Issued" "$OUT/ncu_$v.txt" | head -30
done
pack_out
