#!/usr/bin/env bash
# A short device run: all GPU tests, then the ops whose schedules changed,
# timed beside their peers (used when device time is short; device-run.sh
# is the full run).
source "$(dirname "$0")/device-setup.sh"
SHAPES=8192x4096,4096x8192,16384x4096
OPS=${TILEC_OPS:-elementwise_chain,silu_mul,rope}
( cd "$B" && timeout ${TILEC_TESTS_TIMEOUT:-150} ./bin/gpu_tests --gtest_brief=1 ) > "$OUT/gpu_tests.log" 2>&1
echo "GPU tests rc=$?"; grep -E "PASSED|FAILED" "$OUT/gpu_tests.log" | tail -5
timeout 90 "$B/bin/tilec-bench" --ops="$OPS" --shapes="$SHAPES" --csv="$OUT/bench.csv" | tail -n +2
timeout 30 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16 --shapes=4096x32768 --csv=/tmp/w.csv | tail -1
tail -n +2 /tmp/w.csv >> "$OUT/bench.csv"
timeout ${TILEC_PEERS_TIMEOUT:-150} python3 tests/gpu/peers.py --ops="$OPS" --shapes="$SHAPES" --compile=bf16,f32 --csv "$OUT/peers.csv" > "$OUT/peers.txt" 2>&1
python3 tests/gpu/table.py "$OUT/bench.csv" "$OUT/peers.csv"
