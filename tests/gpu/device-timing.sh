#!/usr/bin/env bash
# How the L2 flush before each timed GEMM call changes the figures, tilec and
# cuBLAS side by side: do_bench's memset ("write": leaves L2 full of dirty
# lines the timed call must write back), a 256 MB sum ("read": clean lines),
# none (the input sets exceed L2), and tilec's batch timer. Then the small
# GPU tests and the cluster-split rows A/B (row-cluster-max 8 against 1).
source "$(dirname "$0")/device-setup.sh"
MM=${TILEC_GEMM_SHAPES:-4096x4096x4096,8192x8192x8192,16x14336x4096,1x14336x4096}
for f in ${TILEC_FLUSHES:-write read none}; do
  step "flush $f"
  timeout 120 "$B/bin/tilec-bench" --ops= --gemm="$MM" --gemm-ops=matmul --gemm-csv="$OUT/gemm_$f.csv" --cooldown-ms=$COOL --gemm-flush=$f 2>&1 | tail -n +3
  timeout 60 "$B/bin/tilec-bench" --ops= --gemm=8192x8192x8192 --gemm-ops=matmul_bias_gelu --gemm-csv=/tmp/e.csv --cooldown-ms=$COOL --gemm-flush=$f 2>&1 | tail -n +3
  tail -n +2 /tmp/e.csv >> "$OUT/gemm_$f.csv"
  timeout 200 python3 tests/gpu/peers_gemm.py --cooldown-ms $COOL --flush $f --triton 0 --ops=matmul --shapes="$MM" --csv "$OUT/peers_$f.csv" > "$OUT/peers_$f.txt" 2>&1
  timeout 100 python3 tests/gpu/peers_gemm.py --cooldown-ms $COOL --flush $f --ops=matmul_bias_gelu --shapes=8192x8192x8192 --csv /tmp/p.csv >> "$OUT/peers_$f.txt" 2>&1
  tail -n +2 /tmp/p.csv >> "$OUT/peers_$f.csv"
  tail -3 "$OUT/peers_$f.txt"
done
step "tilec batch timer"
timeout 60 "$B/bin/tilec-bench" --ops= --gemm="$MM" --gemm-ops=matmul --gemm-timing=batches --cooldown-ms=$COOL 2>&1 | tail -n +3 | tee "$OUT/gemm_batches.txt"
step "decode variants (flush read, then batches)"
for v in "default:" "n112:gemm-block-n=112 gemm-warps-m=2 gemm-warps-n=1" "n128:gemm-block-n=128" "n96:gemm-block-n=96"; do
  name=${v%%:*}; opts=${v#*:}
  for t in "--gemm-flush=read" "--gemm-timing=batches"; do
    timeout 60 "$B/bin/tilec-bench" --ops= --gemm=16x14336x4096,1x14336x4096 --gemm-ops=matmul --cooldown-ms=300 $t ${opts:+--schedule="$opts"} 2>&1 | tail -n +3 | sed "s/^/$name $t: /"
  done
done 2>&1 | tee "$OUT/decode_variants.txt"
if [ "${TILEC_SKIP_ROWS:-0}" != 1 ]; then
  step "small GPU tests"
  ( cd "$B" && TILEC_GPU_SMALL=1 timeout 200 ./bin/gpu_tests --gtest_brief=1 ${TILEC_GTEST_ARGS:-} ) > "$OUT/gpu_tests.log" 2>&1
  grep -E "FAILED|Failure" "$OUT/gpu_tests.log" | head -10; grep -E "PASSED|tests ran" "$OUT/gpu_tests.log"
  step "cluster-split rows, row-cluster-max 8 and 1"
  step "row ops beside a copy of equal bytes"
  timeout 120 "$B/bin/tilec-bench" --ops=rms_norm,add_rms_norm,layer_norm,softmax,rope --dtypes=bf16 --shapes=8192x4096,4096x8192,16384x4096 --csv="$OUT/rows_eq.csv" 2>&1 | tail -n +2 | tee "$OUT/rows_eq.txt"
  step "cluster-split rows, row-cluster-max 8 and 1"
  for v in 8 1; do timeout 60 "$B/bin/tilec-bench" --ops=softmax,rms_norm,layer_norm,add_rms_norm --shapes=${TILEC_ROW_SHAPES:-16x8192,16x32768,16x131072,1x131072} --schedule="row-cluster-max=$v" --csv="$OUT/rows_c$v.csv" 2>&1 | tail -n +3 | sed "s/^/cmax$v: /"; done | tee "$OUT/cluster_ab.txt"
fi
if [ "${TILEC_NCU:-1}" = 1 ]; then
  # Where the GEMM's HBM bytes go (reads against writes), by tile order, and
  # cuBLAS's F.linear kernel beside it; clocks as found.
  step "ncu: HBM bytes of the 8192^3 GEMMs"
  MET=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum
  for v in "" gemm-group-m=8 gemm-group-m=64 gemm-cluster-m=1; do
    echo "-- tilec matmul ${v:-default}"
    timeout 120 ncu --clock-control none --metrics $MET --launch-skip 3 --launch-count 1 -k regex:matmul_kernel "$B/bin/tilec-bench" --ops= --gemm=8192x8192x8192 --gemm-ops=matmul --gemm-timing=batches ${v:+--schedule=$v} 2>&1 | grep -E "^\s+(gpu__|dram__|lts__|sm__|smsp__|l1tex__)"
  done 2>&1 | tee "$OUT/ncu_dram.txt"
  cat > /tmp/lin.py <<PY
import torch, torch.nn.functional as F
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
for _ in range(5): F.linear(a, b)
torch.cuda.synchronize()
PY
  echo "-- cuBLAS F.linear" | tee -a "$OUT/ncu_dram.txt"
  timeout 120 ncu --clock-control none --metrics $MET --launch-skip 3 --launch-count 1 -k "regex:gemm|nvjet|sm90|cutlass" python3 /tmp/lin.py 2>&1 | grep -E "^\s+(gpu__|dram__|lts__|sm__|smsp__|l1tex__)|nvjet|gemm" | tee -a "$OUT/ncu_dram.txt"
fi
for f in ${TILEC_FLUSHES:-write read none}; do
  step "table, flush $f"
  python3 tests/gpu/table_gemm.py "$OUT/gemm_$f.csv" "$OUT/peers_$f.csv"
done
pack_out
