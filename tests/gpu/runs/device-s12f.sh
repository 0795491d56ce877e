#!/usr/bin/env bash
# Twelfth session, sixth run: Nsight Compute on the default layer_norm and
# rms_norm bf16 [4096, 8192] kernels (86% and 91% of copy): where
# layer_norm's extra time goes, for the next attempt.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats --section LaunchStats"
for op in layer_norm rms_norm; do
  step "ncu: $op bf16 4096x8192"
  timeout 60 ncu --clock-control none $S -k regex:kernel0 -s 3 -c 1 "$B/bin/tilec-bench" --ops=$op --dtypes=bf16 --shapes=4096x8192 > "$OUT/ncu_$op.txt" 2>&1
  grep -E "Duration|DRAM Throughput|Memory Throughput|Registers Per|Achieved Occ|Theoretical Occ|Warp Cycles Per Issued|Issued Warp|No Eligible|Active Warps Per|Eligible Warps|L1/TEX Hit|L2 Hit|Stall|stall" "$OUT/ncu_$op.txt" | head -30
done
pack_out
