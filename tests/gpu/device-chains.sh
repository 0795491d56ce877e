#!/usr/bin/env bash
# One device run for the seventh session's changes: every GPU test, then
# GEMMs with one 64-row MMA chain a warpgroup (128x256 tiles) against two
# (256x128, gemm-m-chains=2) in alternating passes beside cuBLAS (read
# flush and batch timer), and layer_norm with its mean and variance in one
# round (welford=true), in two (false) and the default (auto); tables last.
source "$(dirname "$0")/device-setup.sh"
step "GPU tests"
run_gpu_tests

step "layer_norm: welford true / false / auto"
LN=${TILEC_LN_SHAPES:-8192x4096,4096x8192,16384x4096,16x4096,16x131072,16x65536,4096x32768}
for v in true false auto; do
  timeout 90 "$B/bin/tilec-bench" --ops=layer_norm --dtypes=bf16,f32 --shapes="$LN" --schedule="welford=$v" --csv="$OUT/ln_welford_$v.csv" 2>&1 | tail -n +3 | sed "s/^/welford=$v: /"
done | tee "$OUT/ln_ab.txt"

GS=${TILEC_GEMM_SHAPES:-4096x4096x4096,8192x8192x8192,16384x14336x4096,16384x4096x4096}
step "GEMM chains, read flush: 1, 2, 1, 2"
for pass in a b; do
  for c in 1 2; do
    timeout 120 "$B/bin/tilec-bench" --ops= --gemm="$GS" --gemm-ops=matmul,matmul_bias_gelu --gemm-csv="$OUT/gemm_c${c}_$pass.csv" --cooldown-ms=$COOL --gemm-flush=read --schedule="gemm-m-chains=$c" 2>&1 | tail -n +3 | sed "s/^/chains=$c $pass: /"
  done
done | tee "$OUT/gemm_chains.txt"
timeout 200 python3 tests/gpu/peers_gemm.py --cooldown-ms $COOL --flush read --triton 0 --ops=matmul,matmul_bias_gelu --shapes="$GS" --csv "$OUT/peers_read.csv" > "$OUT/peers_read.txt" 2>&1
tail -4 "$OUT/peers_read.txt"
step "GEMM chains, batch timer"
for c in 1 2; do
  timeout 60 "$B/bin/tilec-bench" --ops= --gemm=4096x4096x4096,8192x8192x8192 --gemm-ops=matmul --gemm-timing=batches --gemm-csv="$OUT/gemm_c${c}_batches.csv" --cooldown-ms=$COOL --schedule="gemm-m-chains=$c" 2>&1 | tail -n +3 | sed "s/^/chains=$c batches: /"
done
timeout 100 python3 tests/gpu/peers_gemm.py --cooldown-ms $COOL --flush batches --triton 0 --ops=matmul --shapes=4096x4096x4096,8192x8192x8192 --csv "$OUT/peers_batches.csv" > "$OUT/peers_batches.txt" 2>&1
tail -3 "$OUT/peers_batches.txt"
for c in 1 2; do
  for f in a b batches; do
    [ -f "$OUT/gemm_c${c}_$f.csv" ] || continue
    step "table, chains=$c, $f"
    peers="$OUT/peers_read.csv"; [ "$f" = batches ] && peers="$OUT/peers_batches.csv"
    python3 tests/gpu/table_gemm.py "$OUT/gemm_c${c}_$f.csv" "$peers"
  done
done
step "summary (GPU tests rc=$tests_rc)"
grep -E "PASSED|FAILED|SKIPPED" "$OUT/gpu_tests.log" | tail -6
pack_out
