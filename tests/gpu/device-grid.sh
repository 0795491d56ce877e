#!/usr/bin/env bash
# Issue 3's whole shape grid in one dtype (bash tests/gpu/device-grid.sh
# bf16|f32): tilec-bench --grid=issue3 and peers.py --grid=issue3 (eager and
# torch.compile) in the same run, then the side-by-side table with each
# shape's targets (tests/gpu/table.py). bf16 also runs the runtime's GPU
# tests. Within one device call (TILEC_BUDGET_S, default 560 s);
# TILEC_SCHEDULE: schedule options for tilec's side (default: none).
DT=${1:-bf16}
source "$(dirname "$0")/device-setup.sh"
find "$OUT" -mindepth 1 -delete
END=$((SECONDS + ${TILEC_BUDGET_S:-560}))
left() { echo $((END - SECONDS)); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
if [ "$DT" = bf16 ]; then
  step "GPU tests: runtime"
  TILEC_TESTS_TIMEOUT=60 run_gpu_tests 'GpuRuntimeTest.*'
fi
step "tilec-bench --grid=issue3 --dtypes=$DT"
timeout 220 "$B/bin/tilec-bench" --grid=issue3 --dtypes="$DT" --csv="$OUT/bench_$DT.csv" ${TILEC_SCHEDULE:+--schedule="$TILEC_SCHEDULE"} > "$OUT/bench_$DT.txt" 2>&1 ||
  echo "tilec-bench failed or timed out (rc=$?)"
head -1 "$OUT/bench_$DT.txt"; tail -2 "$OUT/bench_$DT.txt"
step "peers --grid=issue3 ($DT: eager and torch.compile)"
T=$(( $(left) - 20 ))
timeout $T python3 tests/gpu/peers.py --grid=issue3 --dtypes="$DT" --compile="$DT" --csv "$OUT/peers_$DT.csv" > "$OUT/peers_$DT.txt" 2>&1 ||
  echo "peers stopped (rc=$?) after $(($(wc -l < "$OUT/peers_$DT.csv") - 1)) cases"
step "table"
python3 tests/gpu/table.py "$OUT/bench_$DT.csv" "$OUT/peers_$DT.csv" | tee "$OUT/table_$DT.txt"
[ "$DT" = bf16 ] && grep -E "^GPU tests:" "$OUT/gpu_tests.log"
pack_out
