#!/usr/bin/env bash
# Few wide rows (cluster-split reductions on sm_90a): the small GPU tests,
# tilec-bench with row-cluster-max 8 (default), 1 (off) and 4, the PyTorch
# peers, one table.
source tests/gpu/device-setup.sh
export PYTHONUNBUFFERED=1
( cd "$B" && TILEC_GPU_SMALL=1 timeout 200 ./bin/gpu_tests --gtest_brief=1 ) > "$OUT/gpu_tests.log" 2>&1
grep -E "FAILED|Failure" "$OUT/gpu_tests.log" | head -10; grep -E "PASSED|tests ran" "$OUT/gpu_tests.log"
W=1x131072,16x131072,16x32768,16x8192
for v in 8 1 4; do timeout 60 "$B/bin/tilec-bench" --ops=softmax,rms_norm,layer_norm,add_rms_norm --shapes=$W --schedule="row-cluster-max=$v" --csv="$OUT/bench_c$v.csv" 2>&1 | tail -n +3 | sed "s/^/cmax$v: /"; done | tee "$OUT/cluster_ab.txt"
timeout ${PEERS_T:-200} python3 tests/gpu/peers.py --ops=softmax,rms_norm,layer_norm,add_rms_norm --shapes=$W --compile=bf16 --csv "$OUT/peers.csv" > "$OUT/peers.txt" 2>&1
python3 tests/gpu/table.py "$OUT/bench_c8.csv" "$OUT/peers.csv" 2>&1 | tee "$OUT/table.txt"
