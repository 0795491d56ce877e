#!/usr/bin/env bash
# Thirty-second session, run a: why the decoder layer at a 512-token
# prefill trails torch.compile (0.93-0.94x): its kernels one by one
# (Nsight Compute durations, tilec; torch.profiler, the peers), and the
# GEMMs whose tiles fill waves unevenly (512 x 14336 x 4096 gate/up: 448
# tiles of 128 x 128 on 132 SMs, 3.4 waves) under other tile widths,
# beside cuBLAS, eager and torch.compile.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
SW=512x14336x4096,1024x14336x4096,256x14336x4096,2048x14336x4096
MM=512x14336x4096,512x28672x4096,512x6144x4096,768x4096x4096,4096x4096x4096
step "GEMM tile widths (us)"
for v in dflt n112 n192 n224 n128 n96 n64 pp dflt2; do
  case $v in dflt|dflt2) o="";; n112) o="gemm-block-n=112";; n192) o="gemm-block-n=192";;
    n224) o="gemm-block-n=224";; n96) o="gemm-block-n=96";;
    n128) o="gemm-block-n=128";; n64) o="gemm-block-n=64";; pp) o="gemm-pingpong=true";; esac
  timeout 60 "$B/bin/tilec-bench" --ops= --gemm=$SW --gemm-ops=matmul_swiglu --cooldown-ms=50 ${o:+--schedule="$o"} --gemm-csv="$OUT/sw_$v.csv" 2>&1 | grep -E "^matmul|error" | sed "s/^/$v /"
  timeout 60 "$B/bin/tilec-bench" --ops= --gemm=$MM --gemm-ops=matmul --cooldown-ms=50 ${o:+--schedule="$o"} --gemm-csv="$OUT/mm_$v.csv" 2>&1 | grep -E "^matmul|error" | sed "s/^/$v /"
done
step "peers (cuBLAS, eager, torch.compile)"
timeout 150 python3 tests/gpu/peers_gemm.py --triton 0 --cooldown-ms 50 --ops=matmul_swiglu --shapes=$SW --csv "$OUT/peers_sw.csv" 2>&1 | tail -n 4
timeout 100 python3 tests/gpu/peers_gemm.py --triton 0 --cooldown-ms 50 --ops=matmul --shapes=$MM --csv "$OUT/peers_mm.csv" 2>&1 | tail -n 5
python3 tests/gpu/table_gemm.py "$OUT/sw_dflt.csv" "$OUT/peers_sw.csv"
python3 tests/gpu/table_gemm.py "$OUT/mm_dflt.csv" "$OUT/peers_mm.csv"
step "decoder layer 512x4096x0 kernel by kernel (ncu, real clocks)"
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,launch__grid_size -k regex:decoder_layer_kernel --launch-count 12 --csv \
  "$B/bin/tilec-bench" --ops= --layers=512x4096x0 > "$OUT/ncu_layer512.csv" 2>&1
python3 - "$OUT/ncu_layer512.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; k = h.index("Kernel Name"); m = h.index("Metric Name"); v = h.index("Metric Value")
tot = 0
for r in rows[1:]:
    if r[m] == "gpu__time_duration.sum":
        unit = r[h.index("Metric Unit")]
        us = float(r[v].replace(",", "")) * {"nsecond": 1e-3, "msecond": 1e3}.get(unit, 1.0)
        tot += us; print(f"{r[k][:40]:40s} {us:9.1f} us")
print(f"{'sum':40s} {tot:9.1f} us")
PY
step "peers' layer 512x4096x0 kernel by kernel (torch.profiler)"
timeout 150 python3 tests/gpu/probes/layer_kernels.py 512x4096x0 2>&1 | head -30
pack_out
