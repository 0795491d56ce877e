#!/usr/bin/env bash
# Ninth session, GEMM table for issue 4's closing note: every issue shape
# (4096^3, 8192^3, 16384 x 14336 x 4096, 16384 x 4096 x 4096, decode 16 and
# 1 x 14336 x 4096) and bias + GELU, beside cuBLAS, an autotuned Triton
# matmul, eager and torch.compile; do_bench timing after 1 s idle, L2
# flushed by a read (clean lines) on both sides; the SASS instruction mix.
source "$(dirname "$0")/../device-setup.sh"
MM=4096x4096x4096,8192x8192x8192,16384x14336x4096,16384x4096x4096,16x14336x4096,1x14336x4096
EPI=8192x8192x8192,16384x14336x4096
step "SASS"
"$B/bin/tilec" --emit=ptx matmul -o "$B/mm.ptx" && ptxas -arch=sm_90a "$B/mm.ptx" -o "$B/mm.cubin" &&
  echo "matmul: $(cuobjdump --dump-sass "$B/mm.cubin" | grep -c HGMMA) HGMMA, $(cuobjdump --dump-sass "$B/mm.cubin" | grep -c UTMALDG) UTMALDG, $(cuobjdump --dump-sass "$B/mm.cubin" | grep -c UTMASTG) UTMASTG, $(cuobjdump --dump-sass "$B/mm.cubin" | grep -cE 'LDL|STL') local" | tee "$OUT/sass.txt"
step "tilec-bench GEMMs (read flush)"
timeout 120 "$B/bin/tilec-bench" --ops= --gemm="$MM" --gemm-ops=matmul --gemm-csv="$OUT/gemm.csv" --cooldown-ms=$COOL --gemm-flush=read 2>&1 | tail -n +2
timeout 60 "$B/bin/tilec-bench" --ops= --gemm="$EPI" --gemm-ops=matmul_bias_gelu --gemm-csv=/tmp/g2.csv --cooldown-ms=$COOL --gemm-flush=read 2>&1 | tail -n +3
tail -n +2 /tmp/g2.csv >> "$OUT/gemm.csv"
step "peers (read flush)"
timeout 230 python3 tests/gpu/peers_gemm.py --cooldown-ms $COOL --flush read --ops=matmul --shapes="$MM" --csv "$OUT/gemm_peers.csv" > "$OUT/gemm_peers.txt" 2>&1
timeout 90 python3 tests/gpu/peers_gemm.py --cooldown-ms $COOL --flush read --triton 0 --ops=matmul_bias_gelu --shapes="$EPI" --csv /tmp/p2.csv >> "$OUT/gemm_peers.txt" 2>&1
tail -n +2 /tmp/p2.csv >> "$OUT/gemm_peers.csv" 2>/dev/null
tail -3 "$OUT/gemm_peers.txt"
step "table"
python3 tests/gpu/table_gemm.py "$OUT/gemm.csv" "$OUT/gemm_peers.csv" | tee "$OUT/table.txt"
pack_out
