#!/usr/bin/env bash
# Written in the twentieth session for the next one (its device time was
# spent), ~150 s: decode GEMMs of few columns, the one class of decode
# shapes still behind cuBLAS after gemm-fill-sms (16 x 1024 x 4096: 32
# CTAs of 32 columns at 8 stages, 12.5 us against 11.0). Their weights
# stream at the bytes in flight (run s20a): the default against 16-column
# CTAs (64 of them) at 8 and 12 stages, 32 columns at 12 stages, and
# 256-deep k steps at 6 stages, two alternating passes, beside cuBLAS.
# Every variant assembles without spills (checked on the CPU).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "decode GEMMs of few columns"
GS=1x1024x4096,16x1024x4096,16x512x4096,16x2048x4096,16x1024x14336
for pass in 1 2; do
  gemm_pass default $GS $pass ""
  gemm_pass n16s8 $GS $pass "gemm-block-n=16 gemm-warps-n=1 gemm-stages=8"
  gemm_pass n16s12 $GS $pass "gemm-block-n=16 gemm-warps-n=1 gemm-stages=12"
  gemm_pass n32s12 $GS $pass "gemm-block-n=32 gemm-stages=12"
  gemm_pass k256s6 $GS $pass "gemm-block-k=256 gemm-stages=6"
done
a=(); for v in default n16s8 n16s12 n32s12 k256s6; do a+=("$v=$OUT/${v}_1.csv,$OUT/${v}_2.csv"); done
python3 tests/gpu/ab_table.py "${a[@]}" | tee "$OUT/ab.txt"
timeout 60 python3 tests/gpu/peers_gemm.py --cooldown-ms 200 --triton 0 --ops=matmul --shapes=$GS --csv "$OUT/peers_gemm.csv" > "$OUT/peers_gemm.txt" 2>&1
python3 tests/gpu/table_gemm.py "$OUT/default_2.csv" "$OUT/peers_gemm.csv" | tee "$OUT/table_gemm.txt"
pack_out
