#!/usr/bin/env bash
# Fifteenth session, first run: the fourteenth's last default
# (recompute-exp=auto with the division folded): its GPU test, the timing of
# softmax bf16 [4096, 131072] (and f32 beside it), the PTX the bundle emits,
# and Nsight Compute on both kernels: which pipe (MUFU/XU, FMA, LSU) and
# which stall bounds the bf16 kernel that sits at 77% of copy.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
TILEC_TESTS_TIMEOUT=40 run_gpu_tests 'GpuScheduleTest.SoftmaxExpsMadeAgainPastTheReduction'
step "timing"
timeout 30 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16,f32 --shapes=4096x131072,1024x131072 --csv="$OUT/bench.csv" 2>&1 | tail -5
"$B/bin/tilec" --emit=ptx --rows=4096 --cols=131072 --dtype=bf16 softmax > "$OUT/softmax_bf16.ptx" 2>&1
SECTIONS="--section SpeedOfLight --section LaunchStats --section Occupancy --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section InstructionStats"
for dt in bf16 f32; do
  step "ncu softmax $dt 4096x131072"
  timeout 120 ncu --clock-control none $SECTIONS --launch-skip 3 --launch-count 1 -k "regex:softmax" \
    "$B/bin/tilec-bench" --ops=softmax --dtypes=$dt --shapes=4096x131072 2>&1 | grep -vE "^==PROF==|^\s*$" > "$OUT/ncu_$dt.txt"
  grep -E "Duration|Throughput|Registers|Pipe|Issued|Stall|Warp Cycles|Eligible|Active Warps|Achieved Occ|Theoretical Occ|Executed Ipc|Block Limit" "$OUT/ncu_$dt.txt" | head -60
done
M=sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fp16.avg.pct_of_peak_sustained_active,sm__inst_executed.sum,sm__inst_executed_pipe_xu.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum
for dt in bf16 f32; do
  step "ncu pipes $dt"
  timeout 120 ncu --clock-control none --metrics $M --launch-skip 3 --launch-count 1 -k "regex:softmax" \
    "$B/bin/tilec-bench" --ops=softmax --dtypes=$dt --shapes=4096x131072 2>&1 | grep -vE "^==PROF==|^\s*$" | tee "$OUT/ncu_pipes_$dt.txt" | tail -12
done
pack_out
