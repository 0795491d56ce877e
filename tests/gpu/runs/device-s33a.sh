#!/usr/bin/env bash
# Thirty-third session, run a: the layer's small GEMMs. The k and v
# projections at 512 tokens (512 x 1024 x 4096, 64 x 64 tiles) took 17-19
# us against cuBLAS's 11.5-14.6 (run s32b, s32d): the layer A/B with k and
# v as one two-product kernel (tilec-fuse{sibling-gemm-rows=4096}) against
# the default (two kernels past 64 rows); the shape's schedule knobs with
# one-CTA clusters; Nsight Compute (full set, per-instruction samples of
# the SASS) on tilec's and cuBLAS's kernels at 512 x 1024 x 4096 and on
# tilec's at 512 x 4096 x 14336 (one wave of 128 x 128 tiles, 0.96x).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "decoder layer A/B: k and v as one kernel (kv) against two (new), us"
LAYERS=512x4096x0,2048x4096x0,128x4096x0,16x4096x512
for pass in 1 2; do
  for v in new kv; do
    f=""
    [ $v = kv ] && f="sibling-gemm-rows=4096"
    timeout 100 "$B/bin/tilec-bench" --ops= --layers=$LAYERS --cooldown-ms=200 ${f:+--fuse="$f"} \
      --layer-csv="$OUT/layer_${v}_$pass.csv" 2>&1 | grep -E "^decoder_layer|error" | sed "s/^/$v /"
  done
done
step "decoder layer 512x4096x0 kernel by kernel, k and v as one kernel (ncu, real clocks)"
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum -k regex:decoder_layer_kernel --launch-count 12 --csv \
  "$B/bin/tilec-bench" --ops= --layers=512x4096x0 --fuse="sibling-gemm-rows=4096" > "$OUT/ncu_layer512_kv.csv" 2>&1
python3 - "$OUT/ncu_layer512_kv.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; k = h.index("Kernel Name"); m = h.index("Metric Name"); v = h.index("Metric Value")
tot = 0
for r in rows[1:]:
    if r[m] == "gpu__time_duration.sum":
        ns = float(r[v].replace(",", "")); tot += ns
        print(f"{r[k][:40]:40s} {ns / 1e3:9.2f} us")
print(f"{'sum':40s} {tot / 1e3:9.2f} us")
PY
step "GEMM knobs at the layer's small shapes (us)"
KV=512x1024x4096
for v in dflt st4 st6 st10 st12 mp2 mp3 st12mp3 cl2 cl2st12 m64n128 m128n64 m128n128 sk2 sk2n128 sk4n128 dflt2; do
  case $v in dflt|dflt2) o="";; st4) o="gemm-stages=4";; st6) o="gemm-stages=6";; st10) o="gemm-stages=10";; st12) o="gemm-stages=12";; mp2) o="gemm-mma-pending=2";; mp3) o="gemm-mma-pending=3";;
    st12mp3) o="gemm-stages=12 gemm-mma-pending=3";;
    cl2) o="gemm-cluster-m=2";; cl2st12) o="gemm-cluster-m=2 gemm-stages=12";;
    m64n128) o="gemm-block-m=64 gemm-block-n=128";; m128n64) o="gemm-block-m=128 gemm-block-n=64";;
    m128n128) o="gemm-block-m=128 gemm-block-n=128";;
    sk2) o="gemm-block-m=64 gemm-block-n=64 gemm-split-k=2";;
    sk2n128) o="gemm-block-m=64 gemm-block-n=128 gemm-split-k=2";;
    sk4n128) o="gemm-block-m=128 gemm-block-n=128 gemm-split-k=4";; esac
  timeout 60 "$B/bin/tilec-bench" --ops= --gemm=$KV,128x4096x4096 --gemm-ops=matmul --cooldown-ms=50 ${o:+--schedule="$o"} \
    --gemm-csv="$OUT/mm_$v.csv" 2>&1 | grep -E "^matmul|error" | sed "s/^/$v /"
done
step "MMAs left running (gemm-mma-pending) at larger tiles (us)"
for v in mp1 mp2 mp0 mp1b; do
  o="gemm-mma-pending=${v:2:1}"
  timeout 60 "$B/bin/tilec-bench" --ops= --gemm=512x4096x14336,512x4096x4096,4096x4096x4096 --gemm-ops=matmul --cooldown-ms=50 \
    --schedule="$o" --gemm-csv="$OUT/mmbig_$v.csv" 2>&1 | grep -E "^matmul|error" | sed "s/^/$v /"
done
step "two products of one lhs at 512 x 1024 x 4096 (the k and v kernel's shape, with SwiGLU's epilogue), us"
for v in dflt m128n64 m64n128; do
  case $v in dflt) o="";; m128n64) o="gemm-block-m=128 gemm-block-n=64";; m64n128) o="gemm-block-m=64 gemm-block-n=128";; esac
  timeout 60 "$B/bin/tilec-bench" --ops= --gemm=$KV --gemm-ops=matmul_swiglu --cooldown-ms=50 ${o:+--schedule="$o"} \
    --gemm-csv="$OUT/sw_$v.csv" 2>&1 | grep -E "^matmul|error" | sed "s/^/$v /"
done
step "cuBLAS"
timeout 100 python3 tests/gpu/peers_gemm.py --triton 0 --cooldown-ms 50 --ops=matmul \
  --shapes=$KV,128x4096x4096,512x4096x14336 --csv "$OUT/peers_mm.csv" 2>&1 | tail -n 4
step "Nsight Compute, full set"
ncu_full() { # NAME then the command
  local n=$1; shift
  timeout 200 ncu --clock-control none --set full --import-source no --launch-skip 2 --launch-count 1 \
    -o "$OUT/$n" "$@" > "$OUT/$n.log" 2>&1 || tail -5 "$OUT/$n.log"
  ncu -i "$OUT/$n.ncu-rep" --page details > "$OUT/$n.txt" 2>&1
  grep -E "Duration|Compute \(SM\) Throughput|L2 Cache Throughput|DRAM Throughput|Executed Ipc A|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Avg. Active Threads|Registers Per|Grid Size|Cluster Size|Shared Memory Configuration" "$OUT/$n.txt" | sed "s/^/$n: /"
  ncu -i "$OUT/$n.ncu-rep" --page source --csv --print-source sass > "$OUT/$n.sass.csv" 2>&1
  head -c 300 "$OUT/$n.sass.csv"; echo
}
ncu_full tilec_kv -k regex:matmul_kernel "$B/bin/tilec-bench" --ops= --gemm=$KV --gemm-ops=matmul
ncu_full tilec_down -k regex:matmul_kernel "$B/bin/tilec-bench" --ops= --gemm=512x4096x14336 --gemm-ops=matmul
cat > /tmp/cublas.py <<'PY'
import sys, torch
M, N, K = map(int, sys.argv[1].split("x"))
a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
b = torch.randn(N, K, device="cuda", dtype=torch.bfloat16)
for _ in range(4): a @ b.t()
torch.cuda.synchronize()
PY
ncu_full cublas_kv -k "regex:gemm|xmma|sm90|cutlass|nvjet" python3 /tmp/cublas.py $KV
python3 - "$OUT" <<'PY'
# The hottest SASS lines of each kernel by warp-stall samples.
import csv, sys, os
out = sys.argv[1]
for n in ("tilec_kv", "tilec_down", "cublas_kv"):
    p = os.path.join(out, n + ".sass.csv")
    try:
        rows = list(csv.reader(open(p)))
    except OSError:
        continue
    hi = next((i for i, r in enumerate(rows) if "Source" in r), None)
    if hi is None:
        print(n, "no source table"); continue
    h = rows[hi]
    src = h.index("Source")
    cols = [c for c in h if "Sampling" in c and "All" in c] or [c for c in h if "Samples" in c]
    ex = [c for c in h if c.startswith("Instructions Executed")]
    if not cols:
        print(n, "columns:", h[:30]); continue
    sc = h.index(cols[0])
    def num(s):
        try: return float(s.replace(",", ""))
        except ValueError: return 0.0
    body = [r for r in rows[hi + 1:] if len(r) == len(h)]
    tot = sum(num(r[sc]) for r in body) or 1
    print(f"== {n}: {len(body)} instructions, {tot:.0f} samples ({cols[0]})")
    if ex:
        ei = h.index(ex[0]); print(f"   executed (warp-level): {sum(num(r[ei]) for r in body):.0f}")
    for r in sorted(body, key=lambda r: -num(r[sc]))[:25]:
        print(f"   {100 * num(r[sc]) / tot:5.1f}%  {r[src][:90]}")
PY
rm -f "$OUT"/*.ncu-rep
xz -9 "$OUT"/*.sass.csv 2>/dev/null
pack_out
