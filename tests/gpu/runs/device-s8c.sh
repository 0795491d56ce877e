#!/usr/bin/env bash
# Eighth session, last run: bf16 add_rms_norm rows of 32768 now take 1024
# threads in registers (two row inputs; ScheduleRowKernels). The GPU tests
# of wide rows and every add_rms_norm case, then the op beside eager and
# torch.compile at [4096, 32768] and [16384, 32768]; tables last.
source "$(dirname "$0")/../device-setup.sh"
step "GPU tests: wide rows, add_rms_norm, schedules"
TILEC_TESTS_TIMEOUT=200 run_gpu_tests 'WideRows/*:*add_rms_norm*:GpuScheduleTest.*:Rows/GpuClusterTest.*'
step "add_rms_norm bf16, rows of 32768"
timeout 60 "$B/bin/tilec-bench" --ops=add_rms_norm,rms_norm --dtypes=bf16 --shapes=4096x32768,16384x32768 --csv="$OUT/wide_add.csv" 2>&1 | tail -n +2
timeout 200 python3 tests/gpu/peers.py --ops=add_rms_norm,rms_norm --shapes=4096x32768,16384x32768 --dtypes=bf16 --compile=bf16 --csv "$OUT/peers_wide_add.csv" > "$OUT/peers_wide_add.txt" 2>&1
tail -5 "$OUT/peers_wide_add.txt"
python3 tests/gpu/table.py "$OUT/wide_add.csv" "$OUT/peers_wide_add.csv"
step "summary (GPU tests rc=$tests_rc)"
grep -E "PASSED|FAILED|SKIPPED" "$OUT/gpu_tests.log" | tail -6
pack_out
