#!/usr/bin/env bash
# Twelfth session, fourth run: Nsight Compute on rms_norm bf16 [8192, 4096]
# as compiled by default and with stage-weights=true sink-loads=true (2.5x
# slower in runs s12b and s12c), the driver's carveout (TILEC_SHARED_CARVEOUT
# was the run's switch; the change behind it was reverted afterwards).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
export TILEC_SHARED_CARVEOUT=0
S="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis"
for v in default staged; do
  sched=""; [ $v = staged ] && sched="stage-weights=true sink-loads=true"
  step "ncu: rms_norm bf16 8192x4096 $v"
  timeout 90 ncu --clock-control none $S -k regex:kernel0 -s 3 -c 1 "$B/bin/tilec-bench" --ops=rms_norm --dtypes=bf16 --shapes=8192x4096 --schedule="$sched" > "$OUT/ncu_$v.txt" 2>&1
  grep -E "Duration|DRAM Throughput|Registers|Shared Memory|Block Limit|Achieved Occ|Theoretical Occ|Waves|Stall|Warp Cycles Per Issued|L1/TEX Hit|L2 Hit|Driver Shared|Dynamic Shared|Static Shared" "$OUT/ncu_$v.txt" | head -40
done
pack_out
