#!/usr/bin/env bash
# One short device run for the session's changes: every GPU test, the
# online softmax against the two-round one and loads sunk to their use
# against loads at the top (same run), the GEMM + bias +
# GELU epilogue beside eager and torch.compile under two flushes, and
# cuBLAS under tilec's batch timer; tables last.
source "$(dirname "$0")/device-setup.sh"
step "GPU tests"
TILEC_TESTS_TIMEOUT=${TILEC_TESTS_TIMEOUT:-240} run_gpu_tests
step "softmax: online against two rounds"
SM=${TILEC_SOFTMAX_SHAPES:-16x4096,8192x4096,4096x8192,16384x4096,4096x32768,16x32768,16x131072,1x131072}
for v in true false; do
  timeout 90 "$B/bin/tilec-bench" --ops=softmax --shapes="$SM" --schedule="online-softmax=$v" --csv="$OUT/softmax_online_$v.csv" 2>&1 | tail -n +3 | sed "s/^/online=$v: /"
done | tee "$OUT/softmax_ab.txt"
step "loads where they are used: sink-loads on and off"
for v in true false; do
  timeout 90 "$B/bin/tilec-bench" --ops=layer_norm,rms_norm,add_rms_norm --dtypes=bf16,f32 --shapes=8192x4096,4096x8192,16384x4096 --schedule="sink-loads=$v" --csv="$OUT/sink_$v.csv" 2>&1 | tail -n +3 | sed "s/^/sink=$v: /"
done | tee "$OUT/sink_ab.txt"
step "GEMM epilogue (tanh.approx GELU)"
for f in write read; do
  timeout 90 "$B/bin/tilec-bench" --ops= --gemm=8192x8192x8192,16384x14336x4096 --gemm-ops=matmul,matmul_bias_gelu --gemm-csv="$OUT/gemm_$f.csv" --cooldown-ms=$COOL --gemm-flush=$f 2>&1 | tail -n +3
  timeout 150 python3 tests/gpu/peers_gemm.py --cooldown-ms $COOL --flush $f --triton 0 --ops=matmul,matmul_bias_gelu --shapes=8192x8192x8192,16384x14336x4096 --csv "$OUT/peers_$f.csv" > "$OUT/peers_$f.txt" 2>&1
  tail -4 "$OUT/peers_$f.txt"
done
step "batch timer, both sides"
timeout 60 "$B/bin/tilec-bench" --ops= --gemm=4096x4096x4096,8192x8192x8192,16x14336x4096 --gemm-ops=matmul --gemm-timing=batches --gemm-csv="$OUT/gemm_batches.csv" --cooldown-ms=$COOL 2>&1 | tail -n +3
timeout 100 python3 tests/gpu/peers_gemm.py --cooldown-ms $COOL --flush batches --triton 0 --ops=matmul --shapes=4096x4096x4096,8192x8192x8192,16x14336x4096 --csv "$OUT/peers_batches.csv" > "$OUT/peers_batches.txt" 2>&1
tail -3 "$OUT/peers_batches.txt"
for f in write read batches; do
  step "table, $f"
  python3 tests/gpu/table_gemm.py "$OUT/gemm_$f.csv" "$OUT/peers_$f.csv"
done
step "summary (GPU tests rc=$tests_rc)"
grep -E "PASSED|FAILED|SKIPPED" "$OUT/gpu_tests.log" | tail -4
pack_out
