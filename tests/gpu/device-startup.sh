#!/usr/bin/env bash
# Where tilec's per-call cost at 4096^3 goes: Nsight Compute's kernel
# duration (caches flushed before each kernel, clocks as found) of tilec's
# GEMM and cuBLAS's, three launches each, beside the event-timed figures.
source "$(dirname "$0")/device-setup.sh"
MET=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active
SHAPE=${TILEC_STARTUP_SHAPE:-4096x4096x4096}
IFS=x read -r PM PN PK <<< "$SHAPE"
echo "-- tilec matmul $SHAPE"
timeout 120 ncu --clock-control none --cache-control all --metrics $MET --launch-skip 3 --launch-count 3 -k regex:matmul_kernel "$B/bin/tilec-bench" --ops= --gemm=$SHAPE --gemm-ops=matmul --gemm-timing=batches 2>&1 | grep -E "^\s+(gpu__|sm__|dram__)|matmul_kernel" | tee "$OUT/startup.txt"
cat > /tmp/mm.py <<PY
import torch
a = torch.randn($PM, $PK, device="cuda", dtype=torch.bfloat16)
b = torch.randn($PN, $PK, device="cuda", dtype=torch.bfloat16)
for _ in range(6): a @ b.t()
torch.cuda.synchronize()
PY
echo "-- cuBLAS a @ b.t() $SHAPE" | tee -a "$OUT/startup.txt"
timeout 120 ncu --clock-control none --cache-control all --metrics $MET --launch-skip 3 --launch-count 3 -k "regex:gemm|nvjet|sm90|cutlass" python3 /tmp/mm.py 2>&1 | grep -E "^\s+(gpu__|sm__|dram__)|nvjet|gemm" | tee -a "$OUT/startup.txt"
