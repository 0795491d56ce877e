#!/usr/bin/env bash
# The eighth session's GEMM run: every GPU test (TILEC_TESTS=0 skips them:
# transposed lhs on wgmma, TMA stores for batched and f32 outputs, the
# producer loop not unrolled), then GEMMs beside cuBLAS, eager and
# torch.compile (read flush, two passes): the plain TN matmul, a transposed
# lhs (wgmma now; gemm-tma=0 gives the previous mma.sync kernel), a [K, N]
# rhs and bias + GELU; tables last.
source "$(dirname "$0")/../device-setup.sh"
tests_rc=skipped
if [ "${TILEC_TESTS:-1}" = 1 ]; then
  step "GPU tests"
  run_gpu_tests
fi
GS=${TILEC_GEMM_SHAPES:-4096x4096x4096,8192x8192x8192}
OPS=${TILEC_GEMM_OPS:-matmul,matmul_lhs_t,matmul_nn,matmul_bias_gelu}
step "GEMMs, read flush, passes a b"
for pass in a b; do
  timeout 150 "$B/bin/tilec-bench" --ops= --gemm="$GS" --gemm-ops="$OPS" --gemm-csv="$OUT/gemm_$pass.csv" --cooldown-ms=$COOL --gemm-flush=read 2>&1 | tail -n +3 | sed "s/^/$pass: /"
done | tee "$OUT/gemm.txt"
step "transposed lhs on mma.sync (gemm-tma=0, the previous kernel)"
timeout 60 "$B/bin/tilec-bench" --ops= --gemm="$GS" --gemm-ops=matmul_lhs_t --gemm-csv="$OUT/gemm_lhs_t_mma_sync.csv" --cooldown-ms=$COOL --gemm-flush=read --schedule="gemm-tma=0" 2>&1 | tail -n +3 | tee -a "$OUT/gemm.txt"
step "peers, read flush"
timeout 240 python3 tests/gpu/peers_gemm.py --cooldown-ms $COOL --flush read --triton 0 --ops="$OPS" --shapes="$GS" --csv "$OUT/peers_read.csv" > "$OUT/peers_read.txt" 2>&1
tail -8 "$OUT/peers_read.txt"
for f in a b lhs_t_mma_sync; do
  step "table, $f"
  python3 tests/gpu/table_gemm.py "$OUT/gemm_$f.csv" "$OUT/peers_read.csv"
done
step "summary (GPU tests rc=$tests_rc)"
[ -f "$OUT/gpu_tests.log" ] && grep -E "PASSED|FAILED|SKIPPED" "$OUT/gpu_tests.log" | tail -6
pack_out
