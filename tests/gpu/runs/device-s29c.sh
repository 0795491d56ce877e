#!/usr/bin/env bash
# Twenty-ninth session's third run: where the default flash kernel's time
# goes. Nsight Compute's sections for it (the flash graph now named
# attention_flash, apart from the three-kernel graph's GEMM that s29b's
# profile caught by mistake); a fit of time against keys at 2048 query
# rows (1024 to 8192 keys: the intercept is the per-CTA fixed cost, the
# prologue and epilogue, times the waves), tilec and SDPA; TMA at head
# dim 64 with the new defaults (the cp.async kernel is its default).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache
step "Nsight Compute: tilec's default flash kernel, 32 x 2048 x 2048 x 128"
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section InstructionStats --section MemoryWorkloadAnalysis"
timeout 100 ncu --clock-control none $S --launch-skip 3 --launch-count 1 -k regex:attention_flash \
  "$B/bin/tilec-bench" --ops= --attention=32x2048x2048x128 > "$OUT/ncu_flash.txt" 2>&1
grep -E "^  [a-zA-Z_].*\(|Duration|Elapsed Cycles|Compute \(SM\) Throughput|Issue Slots Busy|Executed Ipc Active|Executed Instructions  |Eligible Warps|Warp Cycles Per Issued|Grid Size|Memory Throughput|stalled" "$OUT/ncu_flash.txt" | head -30
step "time against keys (2048 query rows, 32 heads)"
A=32x2048x1024x128,32x2048x2048x128,32x2048x4096x128,32x2048x8192x128
timeout 60 "$B/bin/tilec-bench" --ops= --attention=$A --cooldown-ms=100 --attention-csv="$OUT/att_keys.csv" 2>&1 | grep -E "^attention_flash|error"
timeout 90 python3 tests/gpu/peers_attention.py --no-flex --attention=$A --cooldown-ms 100 --csv "$OUT/peers_keys.csv" --tilec-csv "$OUT/att_keys.csv" 2>&1 | tail -5
step "head dim 64: cp.async (default) and TMA with the turns, P from registers, the overlap"
A=32x2048x2048x64,32x2048x2048x64c,8x4096x4096x64
for v in dflt tma; do
  o=""; [ $v = tma ] && o="attention-tma=1"
  timeout 40 "$B/bin/tilec-bench" --ops= --attention=$A --cooldown-ms=100 ${o:+--schedule="$o"} --attention-csv="$OUT/att64_$v.csv" 2>&1 | grep -E "^attention_flash|error" | sed "s/^/$v /"
done
timeout 60 python3 tests/gpu/peers_attention.py --no-flex --attention=$A --cooldown-ms 100 --csv "$OUT/peers_64.csv" 2>&1 | grep "^attention"
pack_out
