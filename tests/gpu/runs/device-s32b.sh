#!/usr/bin/env bash
# Thirty-second session, run b: the layer's GEMMs at 512 tokens trail
# cuBLAS (run s32a: the down projection 512 x 4096 x 14336 99 us against
# ~74, k and v 512 x 1024 x 4096 20 us against 11.5): the schedule's knobs
# on them, and Nsight Compute on tilec's and cuBLAS's kernels at the down
# projection's shape.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
MM=512x4096x14336,512x4096x4096,512x1024x4096,4096x4096x4096
step "GEMM knobs (us)"
for v in dflt st4 cl1 mp0 ch2 n256 sk2 pp nts kv1 kv2 kv3 kv4 dflt2; do
  case $v in dflt|dflt2) o="";; st4) o="gemm-stages=4";; cl1) o="gemm-cluster-m=1";;
    mp0) o="gemm-mma-pending=0";; ch2) o="gemm-m-chains=2 gemm-block-m=256";;
    n256) o="gemm-block-n=256";; sk2) o="gemm-split-k=2";; pp) o="gemm-pingpong=true";;
    nts) o="gemm-tma-store=false";;
    kv1) o="gemm-block-m=128 gemm-block-n=128 gemm-split-k=4";;
    kv2) o="gemm-block-m=128 gemm-block-n=64 gemm-split-k=2";;
    kv3) o="gemm-block-m=64 gemm-block-n=128 gemm-split-k=2";;
    kv4) o="gemm-block-m=128 gemm-block-n=128";; esac
  shapes=$MM
  case $v in kv*) shapes=512x1024x4096;; esac
  timeout 60 "$B/bin/tilec-bench" --ops= --gemm=$shapes --gemm-ops=matmul --cooldown-ms=50 ${o:+--schedule="$o"} --gemm-csv="$OUT/mm_$v.csv" 2>&1 | grep -E "^matmul|error" | sed "s/^/$v /"
done
step "peers (cuBLAS)"
timeout 100 python3 tests/gpu/peers_gemm.py --triton 0 --cooldown-ms 50 --ops=matmul --shapes=$MM --csv "$OUT/peers_mm.csv" 2>&1 | tail -n 4
python3 tests/gpu/table_gemm.py "$OUT/mm_dflt.csv" "$OUT/peers_mm.csv"
step "Nsight Compute at 512x4096x14336"
TILEC_PROFILE_SHAPE=512x4096x14336 TILEC_PROFILE_OPS=matmul timeout 300 bash tests/gpu/device-profile.sh > "$OUT/profile.txt" 2>&1
grep -E "====|Duration|Compute \(SM\) Throughput|Memory Throughput|Registers Per|Grid Size|Block Size|Cluster Size|Issue Slots Busy|Executed Ipc A|No Eligible|Stall|Smem|Bank|L2 Hit|DRAM Throughput|Tensor|One or More" "$OUT/profile.txt" | head -90
pack_out
