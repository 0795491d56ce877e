#!/usr/bin/env bash
# The seventh session's closing device run: every GPU test on the final
# defaults; GEMMs under the batch timer beside cuBLAS (decode included);
# schedule knobs re-measured now that the epilogue stores through TMA (two
# chains, ping-pong, 3 stages) at 4096^3 and 8192^3 (read flush); f32 rows
# of 32768 whose loads now sink past the reductions; tables last.
source "$(dirname "$0")/device-setup.sh"
step "GPU tests"
run_gpu_tests

step "batch timer, both sides"
GB=4096x4096x4096,8192x8192x8192,16x14336x4096
timeout 60 "$B/bin/tilec-bench" --ops= --gemm=$GB --gemm-ops=matmul --gemm-timing=batches --gemm-csv="$OUT/gemm_batches.csv" --cooldown-ms=$COOL 2>&1 | tail -n +3
timeout 100 python3 tests/gpu/peers_gemm.py --cooldown-ms $COOL --flush batches --triton 0 --ops=matmul --shapes=$GB --csv "$OUT/peers_batches.csv" > "$OUT/peers_batches.txt" 2>&1
tail -3 "$OUT/peers_batches.txt"

step "schedule knobs with TMA stores (read flush)"
for knob in default gemm-m-chains=2 gemm-pingpong=1 gemm-stages=3; do
  sch=$knob; [ "$knob" = default ] && sch=
  timeout 60 "$B/bin/tilec-bench" --ops= --gemm=4096x4096x4096,8192x8192x8192 --gemm-ops=matmul --gemm-csv="$OUT/knob_$knob.csv" --cooldown-ms=$COOL --gemm-flush=read --schedule="$sch" 2>&1 | tail -n +3 | sed "s/^/$knob: /"
done | tee "$OUT/knobs.txt"

step "f32 rows of 32768 (loads sunk) and bf16 layer_norm"
timeout 90 "$B/bin/tilec-bench" --ops=layer_norm,rms_norm,add_rms_norm,softmax --dtypes=f32 --shapes=4096x32768 --csv="$OUT/rows_f32.csv" 2>&1 | tail -n +3
timeout 90 "$B/bin/tilec-bench" --ops=layer_norm --dtypes=bf16 --shapes=8192x4096,4096x8192,16384x4096 --csv="$OUT/ln_bf16.csv" 2>&1 | tail -n +3

step "table, batches"
python3 tests/gpu/table_gemm.py "$OUT/gemm_batches.csv" "$OUT/peers_batches.csv"
step "summary (GPU tests rc=$tests_rc)"
grep -E "PASSED|FAILED|SKIPPED" "$OUT/gpu_tests.log" | tail -6
pack_out
