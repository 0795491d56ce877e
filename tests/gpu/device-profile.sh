#!/usr/bin/env bash
# Nsight Compute on the GEMMs: tilec's matmul (and matmul + bias + GELU) at
# one shape beside cuBLAS's kernels for the same product (a @ b.t() and
# F.linear with bias), real clocks (--clock-control none). Prints launch
# configs (grid, block, cluster, registers, shared memory), speed of light,
# tensor pipe use and warp stall reasons, one kernel each.
source "$(dirname "$0")/device-setup.sh"
SHAPE=${TILEC_PROFILE_SHAPE:-8192x8192x8192}
IFS=x read -r PM PN PK <<< "$SHAPE"
SECTIONS="--section SpeedOfLight --section LaunchStats --section Occupancy --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats"
NCU="ncu --clock-control none $SECTIONS --launch-count 1"
for op in ${TILEC_PROFILE_OPS:-matmul matmul_bias_gelu}; do
  echo "==== tilec $op $SHAPE ${TILEC_PROFILE_SCHEDULE:-}"
  timeout 240 $NCU --launch-skip 2 -k "regex:${op}_kernel" "$B/bin/tilec-bench" --ops= --gemm="$SHAPE" --gemm-ops=$op \
    ${TILEC_PROFILE_SCHEDULE:+--schedule="$TILEC_PROFILE_SCHEDULE"} 2>&1 | grep -vE "^==PROF==|^\s*$" | tail -n +1 > "$OUT/ncu_$op.txt"
  cat "$OUT/ncu_$op.txt"
done
cat > /tmp/cublas.py <<PY
import torch, torch.nn.functional as F
M, N, K = $PM, $PN, $PK
a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
b = torch.randn(N, K, device="cuda", dtype=torch.bfloat16)
bias = torch.randn(N, device="cuda", dtype=torch.bfloat16)
for _ in range(4): a @ b.t()
torch.cuda.synchronize()
for _ in range(4): F.linear(a, b, bias)
torch.cuda.synchronize()
PY
echo "==== cuBLAS a @ b.t() then F.linear(a, b, bias) $SHAPE"
timeout 240 $NCU --launch-skip 2 -k "regex:gemm|xmma|sm90|cutlass" python3 /tmp/cublas.py 2>&1 | grep -vE "^==PROF==|^\s*$" > "$OUT/ncu_cublas_mm.txt"
cat "$OUT/ncu_cublas_mm.txt"
timeout 240 $NCU --launch-skip 6 -k "regex:gemm|xmma|sm90|cutlass" python3 /tmp/cublas.py 2>&1 | grep -vE "^==PROF==|^\s*$" > "$OUT/ncu_cublas_linear.txt"
cat "$OUT/ncu_cublas_linear.txt"
