#!/usr/bin/env bash
# Device run for the TMA-store epilogue: every GPU test (TILEC_TESTS=0 skips
# them), then GEMMs with the epilogue through shared memory and TMA stores
# (gemm-tma-store=1, the default) against direct stores (0) in alternating
# passes beside cuBLAS, eager and torch.compile (read flush), and under the
# batch timer; tables last.
source "$(dirname "$0")/device-setup.sh"
tests_rc=skipped
if [ "${TILEC_TESTS:-1}" = 1 ]; then
  step "GPU tests"
  run_gpu_tests
fi
GS=${TILEC_GEMM_SHAPES:-4096x4096x4096,8192x8192x8192,16384x14336x4096}
PASSES=${TILEC_PASSES:-a b}
step "GEMM epilogue, read flush: TMA stores 1, 0 in passes $PASSES"
for pass in $PASSES; do
  for t in 1 0; do
    timeout 120 "$B/bin/tilec-bench" --ops= --gemm="$GS" --gemm-ops=matmul,matmul_bias_gelu --gemm-csv="$OUT/gemm_s${t}_$pass.csv" --cooldown-ms=$COOL --gemm-flush=read --schedule="gemm-tma-store=$t" 2>&1 | tail -n +3 | sed "s/^/tma-store=$t $pass: /"
  done
done | tee "$OUT/gemm_store.txt"
timeout 200 python3 tests/gpu/peers_gemm.py --cooldown-ms $COOL --flush read --triton 0 --ops=matmul,matmul_bias_gelu --shapes="$GS" --csv "$OUT/peers_read.csv" > "$OUT/peers_read.txt" 2>&1
tail -6 "$OUT/peers_read.txt"
if [ "${TILEC_BATCHES:-1}" = 1 ]; then
  step "batch timer"
  for t in 1 0; do
    timeout 60 "$B/bin/tilec-bench" --ops= --gemm=4096x4096x4096,8192x8192x8192 --gemm-ops=matmul --gemm-timing=batches --gemm-csv="$OUT/gemm_s${t}_batches.csv" --cooldown-ms=$COOL --schedule="gemm-tma-store=$t" 2>&1 | tail -n +3 | sed "s/^/tma-store=$t batches: /"
  done
  timeout 100 python3 tests/gpu/peers_gemm.py --cooldown-ms $COOL --flush batches --triton 0 --ops=matmul --shapes=4096x4096x4096,8192x8192x8192 --csv "$OUT/peers_batches.csv" > "$OUT/peers_batches.txt" 2>&1
  tail -3 "$OUT/peers_batches.txt"
fi
for t in 1 0; do
  for f in $PASSES batches; do
    [ -f "$OUT/gemm_s${t}_$f.csv" ] || continue
    step "table, tma-store=$t, $f"
    peers="$OUT/peers_read.csv"; [ "$f" = batches ] && peers="$OUT/peers_batches.csv"
    python3 tests/gpu/table_gemm.py "$OUT/gemm_s${t}_$f.csv" "$peers"
  done
done
step "summary (GPU tests rc=$tests_rc)"
[ -f "$OUT/gpu_tests.log" ] && grep -E "PASSED|FAILED|SKIPPED" "$OUT/gpu_tests.log" | tail -6
pack_out
