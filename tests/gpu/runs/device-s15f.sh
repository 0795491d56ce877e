#!/usr/bin/env bash
# Fifteenth session, last run (the build to commit: no register cap): the
# online-softmax stress suite that s15e ran out of time for, the two
# schedule tests of many rows of 128k, then softmax at issue 3's shapes in
# bf16 beside eager and torch.compile (the only rows of the bf16 grid this
# session changed), as device-grid.sh's table.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
step "GPU tests"
TILEC_TESTS_TIMEOUT=170 run_gpu_tests 'Softmax/*:GpuScheduleTest.ManyWideRowsSplitOverClusters:GpuScheduleTest.SoftmaxExpsMadeAgainPastTheReduction'
step "tilec-bench --grid=issue3 --ops=softmax --dtypes=bf16"
timeout 90 "$B/bin/tilec-bench" --grid=issue3 --ops=softmax --dtypes=bf16 --csv="$OUT/bench_bf16.csv" > "$OUT/bench_bf16.txt" 2>&1 ||
  echo "tilec-bench failed or timed out (rc=$?)"
head -1 "$OUT/bench_bf16.txt"
step "peers (softmax bf16: eager and torch.compile)"
timeout 230 python3 tests/gpu/peers.py --grid=issue3 --ops=softmax --dtypes=bf16 --compile=bf16 --csv "$OUT/peers_bf16.csv" > "$OUT/peers_bf16.txt" 2>&1 ||
  echo "peers stopped (rc=$?)"
step "table"
python3 tests/gpu/table.py "$OUT/bench_bf16.csv" "$OUT/peers_bf16.csv" | tee "$OUT/table_bf16.txt"
grep -E "^GPU tests:" "$OUT/gpu_tests.log"
pack_out
