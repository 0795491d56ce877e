#!/usr/bin/env bash
# Thirty-fourth session, run b: the attention GPU tests (run a ran out of
# time before them); split GEMM tiles back at 8 stages against 13, A B A B;
# flash attention (its block loops now carry stage and phase as one word)
# beside SDPA, at its default stages and at 4 (a power of two: no
# division before either); why clusters of two lose at 512 x 1024 x 4096
# (Nsight Compute, full set and per-instruction samples, the default's
# kernel beside the pair's).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache
# (What has run so far, packed after each step: the device time left may
# end the run early.)
snap() { ( cd "$OUT" && tar czf /tmp/snap.tgz --exclude=run.tgz . && mv /tmp/snap.tgz run.tgz ); }
step "GPU tests: attention, split k"
TILEC_TESTS_TIMEOUT=170 run_gpu_tests 'Attention.*:GemmSplitK.*'
snap
step "split GEMM tiles, A B A B: default (8 stages) against 13 (us)"
SPLIT=64x4096x4096,64x4096x14336,48x4096x4096,128x1024x4096
for pass in 1 2; do
  for v in new st13; do
    o=""; [ $v = st13 ] && o="gemm-stages=13"
    timeout 60 "$B/bin/tilec-bench" --ops= --gemm=$SPLIT --gemm-ops=matmul --cooldown-ms=50 ${o:+--schedule="$o"} \
      --gemm-csv="$OUT/split_${v}_$pass.csv" 2>&1 | grep -E "^matmul|error" | sed "s/^/$v /"
  done
done
timeout 100 python3 tests/gpu/peers_gemm.py --triton 0 --cooldown-ms 50 --ops=matmul \
  --shapes=$SPLIT --csv "$OUT/peers_split.csv" 2>&1 | tail -n 4
snap
step "decoder layer at decode (1 token after 4096) kernel by kernel (ncu, real clocks, cold caches)"
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
  -k regex:decoder_layer_kernel --launch-count 11 --csv \
  "$B/bin/tilec-bench" --ops= --layers=1x4096x4096 > "$OUT/ncu_layer_decode.csv" 2>&1
python3 - "$OUT/ncu_layer_decode.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; k = h.index("Kernel Name"); m = h.index("Metric Name"); v = h.index("Metric Value")
u = h.index("Metric Unit"); i = h.index("ID")
per = {}
scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "nsecond": 1, "usecond": 1e3, "msecond": 1e6}
for r in rows[1:]:
    d = per.setdefault(r[i], {"name": r[k]})
    d[r[m]] = float(r[v].replace(",", "")) * scale.get(r[u], 1)
tot_ns = tot_b = 0
for key in sorted(per, key=int):
    d = per[key]; ns = d.get("gpu__time_duration.sum", 0)
    b = d.get("dram__bytes_read.sum", 0) + d.get("dram__bytes_write.sum", 0)
    tot_ns += ns; tot_b += b
    print(f"{d['name'][:34]:34s} {ns / 1e3:8.2f} us {b / 1e6:8.2f} MB {b / ns if ns else 0:7.1f} GB/s")
print(f"{'sum':34s} {tot_ns / 1e3:8.2f} us {tot_b / 1e6:8.2f} MB {tot_b / tot_ns if tot_ns else 0:7.1f} GB/s")
PY
snap
if [ $SECONDS -lt 250 ]; then
step "flash attention: stages (us)"
A=32x2048x2048x128,8x4096x4096x128,32x2048x2048x128c,8x4096x4096x128c,32x512x512x128c,32x2048x2048x64
for v in dflt st4; do
  case $v in dflt|dflt2) o="";; st2) o="attention-stages=2";; st4) o="attention-stages=4";; esac
  timeout 60 "$B/bin/tilec-bench" --ops= --attention=$A --cooldown-ms=100 ${o:+--schedule="$o"} \
    --attention-csv="$OUT/att_$v.csv" 2>&1 | grep -E "^attention|error" | sed "s/^/$v /"
done
timeout 120 python3 tests/gpu/peers_attention.py --no-flex --attention=$A --cooldown-ms 100 --csv "$OUT/peers_attention.csv" \
  --tilec-csv "$OUT/att_dflt.csv" 2>&1 | grep -v Warning | tail -9
fi
snap
if [ $SECONDS -lt 300 ]; then
step "Nsight Compute, full set: 512 x 1024 x 4096, default against clusters of two"
ncu_full() { # NAME then the command
  local n=$1; shift
  timeout 80 ncu --clock-control none --set full --import-source no --launch-skip 2 --launch-count 1 \
    -o "$OUT/$n" "$@" > "$OUT/$n.log" 2>&1 || tail -5 "$OUT/$n.log"
  ncu -i "$OUT/$n.ncu-rep" --page details > "$OUT/$n.txt" 2>&1
  grep -E "Duration|Compute \(SM\) Throughput|L2 Cache Throughput|DRAM Throughput|L2 Hit Rate|Executed Ipc A|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Registers Per|Grid Size|Cluster Size|Shared Memory Configuration" "$OUT/$n.txt" | sed "s/^/$n: /"
  ncu -i "$OUT/$n.ncu-rep" --page source --csv --print-source sass > "$OUT/$n.sass.csv" 2>&1
  xz -T2 "$OUT/$n.sass.csv"
}
KV=512x1024x4096
ncu_full kv_dflt -k regex:matmul_kernel "$B/bin/tilec-bench" --ops= --gemm=$KV --gemm-ops=matmul
ncu_full kv_cl2 -k regex:matmul_kernel "$B/bin/tilec-bench" --ops= --gemm=$KV --gemm-ops=matmul --schedule="gemm-cluster-m=2"
step "the pair's knobs (us)"
for v in dflt cl2 cl2st8; do
  case $v in dflt) o="";; cl2) o="gemm-cluster-m=2";; cl2st8) o="gemm-cluster-m=2 gemm-stages=8";;
    cl2st6) o="gemm-cluster-m=2 gemm-stages=6";; cl2n128) o="gemm-cluster-m=2 gemm-block-n=128";; esac
  timeout 60 "$B/bin/tilec-bench" --ops= --gemm=$KV --gemm-ops=matmul --cooldown-ms=50 ${o:+--schedule="$o"} \
    --gemm-csv="$OUT/mm_$v.csv" 2>&1 | grep -E "^matmul|error" | sed "s/^/$v /"
done
fi
pack_out
