#!/usr/bin/env bash
# Thirty-first session, run c: Nsight Compute on the decode flash kernels
# (split keys, cp.async: 8 kv heads at 1028 and 16388 keys, 64 at 4100;
# TMA, not split: 256 kv heads at 4100) - duration, speed of light, memory,
# warp stalls, launch, one kernel each (real clocks, caches flushed).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
export TILEC_CACHE_DIR=/tmp/tilec-cache
SECTIONS="--section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats"
for s in 8x4x1028x128 8x4x16388x128 64x4x4100x128 256x4x4100x128; do
  echo "==== $s"
  timeout 120 ncu --clock-control none $SECTIONS --launch-count 1 -k "regex:attention_flash" "$B/bin/tilec-bench" --ops= --attention=$s --cooldown-ms=0 2>&1 |
    grep -vE "^==PROF==|^\s*$" > "$OUT/ncu_$s.txt"
  grep -E "Duration|DRAM Throughput|Memory Throughput|Registers|Grid Size|Block Size|Achieved Occupancy|Stall|Warp Cycles Per Issued|Issued Warp|L2 Hit|Mem Busy|Max Bandwidth|Theoretical Occupancy|Dynamic Shared" "$OUT/ncu_$s.txt" | head -40
done
pack_out
