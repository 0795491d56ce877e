#!/usr/bin/env bash
# Device run for the GEMM kernels: GPU tests (GEMM cases plus the small row
# cases), SASS checks, tilec-bench GEMMs beside cuBLAS, a Triton matmul,
# eager and torch.compile (peers_gemm.py), one table last.
# TILEC_GEMM_SCHEDULES="name:OPTS;name:OPTS" times schedule variants too.
source "$(dirname "$0")/device-setup.sh"
export PYTHONUNBUFFERED=1
step() { printf '\n==== %s\n' "$*"; }
MM=${TILEC_GEMM_SHAPES:-4096x4096x4096,8192x8192x8192,16384x14336x4096,16384x4096x4096,16x14336x4096,1x14336x4096}
EPI=${TILEC_GEMM_EPI_SHAPES:-8192x8192x8192,16384x14336x4096}
# Both sides timed the same way (do_bench: 25 ms warm-up, 100 ms of single
# calls, median), each after the same idle so they start from the same
# clocks: a sustained GEMM lowers them (power), and which side ran longer
# before would otherwise decide the ratio.
COOL=${TILEC_COOLDOWN_MS:-1000}
TB=(--cooldown-ms=$COOL --gemm-rep-ms=${TILEC_REP_MS:-100})
PEER=(--cooldown-ms $COOL --rep-ms ${TILEC_REP_MS:-100})

step "GPU tests"
[ "${TILEC_SKIP_TESTS:-0}" = 1 ] && echo "skipped (TILEC_SKIP_TESTS=1)" > "$OUT/gpu_tests.log" ||
( cd "$B" && TILEC_GPU_SMALL=${TILEC_GPU_SMALL:-1} timeout ${TILEC_TESTS_TIMEOUT:-200} ./bin/gpu_tests --gtest_brief=1 ${TILEC_GTEST_ARGS:-} ) > "$OUT/gpu_tests.log" 2>&1
tests_rc=$?
grep -E "FAILED|Failure|error" "$OUT/gpu_tests.log" | head -30

step "SASS"
for ex in matmul matmul_bias_gelu; do
  "$B/bin/tilec" --emit=ptx "$ex" -o "$B/$ex.ptx" && ptxas -arch=sm_90a -v "$B/$ex.ptx" -o "$B/$ex.cubin" 2>&1 | grep -E "registers|spill" | tr '\n' ' '
  echo "$ex: $(cuobjdump --dump-sass "$B/$ex.cubin" | grep -c HGMMA) HGMMA, $(cuobjdump --dump-sass "$B/$ex.cubin" | grep -c HMMA) HMMA, $(cuobjdump --dump-sass "$B/$ex.cubin" | grep -c UTMALDG) UTMALDG, $(cuobjdump --dump-sass "$B/$ex.cubin" | grep -c LDGSTS) LDGSTS, $(cuobjdump --dump-sass "$B/$ex.cubin" | grep -c LDSM) LDSM, $(cuobjdump --dump-sass "$B/$ex.cubin" | grep -cE 'LDL|STL') local"
done 2>&1 | tee "$OUT/sass.txt"

step "tilec-bench GEMM"
timeout 150 "$B/bin/tilec-bench" --ops= --gemm="$MM" --gemm-ops=matmul --gemm-csv="$OUT/gemm.csv" "${TB[@]}" 2>&1 | tail -n +2
timeout 60 "$B/bin/tilec-bench" --ops= --gemm="$EPI" --gemm-ops=matmul_bias_gelu --gemm-csv=/tmp/g2.csv "${TB[@]}" 2>&1 | tail -n +3
tail -n +2 /tmp/g2.csv >> "$OUT/gemm.csv"
if [ -n "${TILEC_GEMM_SCHEDULES:-}" ]; then
  step "schedule variants"
  IFS=';' read -ra VARIANTS <<< "$TILEC_GEMM_SCHEDULES"
  for v in "${VARIANTS[@]}"; do
    name=${v%%:*}; opts=${v#*:}
    timeout 90 "$B/bin/tilec-bench" --ops= --gemm="${TILEC_VARIANT_SHAPES:-8192x8192x8192,16x14336x4096}" --gemm-ops=${TILEC_VARIANT_OPS:-matmul} --schedule="$opts" "${TB[@]}" 2>&1 | tail -n +3 | sed "s/^/$name: /" | tee -a "$OUT/variants.txt"
  done
fi

if [ "${TILEC_FASTMATH_AB:-0}" = 1 ]; then
  # Fast math (default) against --precise-math, same run: the GEMM epilogue
  # and the row ops with exp/division.
  step "fast math A/B"
  for flag in "" --precise-math; do
    timeout 60 "$B/bin/tilec-bench" --ops= --gemm=8192x8192x8192,16384x14336x4096 --gemm-ops=matmul_bias_gelu $flag 2>&1 | tail -n +3 | sed "s/^/gemm${flag:- --fast-math}: /"
    timeout 120 "$B/bin/tilec-bench" --ops=elementwise_chain,silu_mul,softmax,layer_norm --shapes=8192x4096,4096x8192,16384x4096 $flag 2>&1 | tail -n +3 | sed "s/^/rows${flag:- --fast-math}: /"
  done 2>&1 | tee "$OUT/fastmath.txt"
fi

step "peers"
timeout ${TILEC_PEERS_TIMEOUT:-240} python3 tests/gpu/peers_gemm.py "${PEER[@]}" --ops=matmul --shapes="$MM" --csv "$OUT/gemm_peers.csv" > "$OUT/gemm_peers.txt" 2>&1
timeout 120 python3 tests/gpu/peers_gemm.py "${PEER[@]}" --ops=matmul_bias_gelu --shapes="$EPI" --csv /tmp/p2.csv >> "$OUT/gemm_peers.txt" 2>&1
tail -n +2 /tmp/p2.csv >> "$OUT/gemm_peers.csv" 2>/dev/null
tail -3 "$OUT/gemm_peers.txt"

step "summary (GPU tests rc=$tests_rc)"
grep -E "PASSED|FAILED|SKIPPED" "$OUT/gpu_tests.log" | tail -6
python3 tests/gpu/table_gemm.py "$OUT/gemm.csv" "$OUT/gemm_peers.csv"
