#!/usr/bin/env bash
# Written in the twenty-first session (as device-s21c.sh; no device could
# be started for it), extended in the twenty-second (no device lent
# either): ~480 s, on the build with split k chosen by default (4+ splits
# of a K of 2048 or more) and 16-bit GEMMs of 33-64 rows narrowed to fill
# the SMs (64 x 32 CTAs at 8 stages; gemm-fill-sms=0 gives the old 64 x
# 128 CTAs at 4 stages).
# - GPU tests: every GEMM shape and epilogue under the new default, the
#   split tests, attention and the random graphs (both modes);
# - tiles under a split for the wgmma shapes still behind cuBLAS (128 x
#   4096 x 4096, 128 x 1024 x 4096) and for the ones 2 splits would take
#   (128 x 2048 x 4096, 192 x 1024 x 4096); 64 rows (mma.sync) with and
#   without the split; 64 x 520 x 1000, 17.7 us in run s21b (cuBLAS 8.3):
#   the new 64-row CTAs against the old ones, in 4 splits, without the L2
#   flush;
#   2 splits of 512^3 and 260 x 512 x 500 again, now that the hand-off
#   fences are release/acquire (fence.acq_rel.gpu) instead of membar.gl
#   (s21b: 9.35 and 11.4 us against 7.85 unsplit); beside cuBLAS.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "GPU tests"
TILEC_TESTS_TIMEOUT=230 run_gpu_tests 'Shapes/GemmTest.*:GemmSplitK.*:GemmEpilogue.*:GemmBatched.*:GemmLarge.*:Attention.*:GpuFuzzTest.*'
grep -E "^random graphs" "$OUT/gpu_tests.log"
step "tiles under a split"
A=128x4096x4096
C=128x1024x4096
D=128x2048x4096,192x1024x4096
E=64x4096x4096,64x1024x4096
for pass in 1 2; do
  gemm_pass dflt $A,$C,$D,$E $pass
  gemm_pass a64x128s2 $A $pass "gemm-block-n=128 gemm-split-k=2"
  gemm_pass a64x256s4 $A $pass "gemm-block-m=64 gemm-block-n=256 gemm-split-k=4"
  gemm_pass a128x256s8 $A $pass "gemm-block-m=128 gemm-block-n=256 gemm-split-k=8"
  gemm_pass c64x128s8 $C $pass "gemm-block-n=128 gemm-split-k=8"
  gemm_pass c128x128s16 $C $pass "gemm-block-m=128 gemm-block-n=128 gemm-split-k=16"
  gemm_pass c64x256s16 $C $pass "gemm-block-m=64 gemm-block-n=256 gemm-split-k=16"
  gemm_pass d2 $D $pass "gemm-split-k=2"
  gemm_pass e1 $E $pass "gemm-split-k=1"
  gemm_pass e_old $E $pass "gemm-fill-sms=0"
done
v=(dflt a64x128s2 a64x256s4 a128x256s8 c64x128s8 c128x128s16 c64x256s16 d2 e1 e_old)
a=(); for x in "${v[@]}"; do a+=("$x=$OUT/${x}_1.csv,$OUT/${x}_2.csv"); done
python3 tests/gpu/ab_table.py "${a[@]}" | tee "$OUT/ab.txt"
step "the hand-off's fences: acq_rel (this build) against membar.gl (run s21b's, cross-run)"
H=512x512x512,260x512x500
for pass in 1 2; do
  gemm_pass h_none $H $pass
  gemm_pass h_split2 $H $pass "gemm-split-k=2"
done
python3 tests/gpu/ab_table.py h_none="$OUT/h_none_1.csv,$OUT/h_none_2.csv" h_split2="$OUT/h_split2_1.csv,$OUT/h_split2_2.csv" | tee "$OUT/ab_handoff.txt"
step "64 x 520 x 1000 and other 33-64-row shapes: new CTAs (dflt) against the old (fill-sms=0)"
S=64x520x1000,64x520x4096,33x520x1000,48x14336x4096
for pass in 1 2; do
  gemm_pass s_dflt $S $pass
  gemm_pass s_old $S $pass "gemm-fill-sms=0"
  gemm_pass s_split4 $S $pass "gemm-split-k=4"
  gemm_pass s_bn64 $S $pass "gemm-block-n=64"
done
timeout 60 "$B/bin/tilec-bench" --ops= --gemm=$S --gemm-ops=matmul --cooldown-ms=200 --gemm-flush=none --gemm-csv="$OUT/s_noflush.csv" 2>&1 | grep -E "^matmul" | sed "s/^/noflush /"
python3 tests/gpu/ab_table.py s_dflt="$OUT/s_dflt_1.csv,$OUT/s_dflt_2.csv" s_old="$OUT/s_old_1.csv,$OUT/s_old_2.csv" s_split4="$OUT/s_split4_1.csv,$OUT/s_split4_2.csv" s_bn64="$OUT/s_bn64_1.csv,$OUT/s_bn64_2.csv" s_noflush="$OUT/s_noflush.csv" | tee "$OUT/ab_small.txt"
step "beside cuBLAS"
timeout 80 python3 tests/gpu/peers_gemm.py --cooldown-ms 200 --triton 0 --ops=matmul --shapes=$A,$C,$D,$E,$S --csv "$OUT/peers_gemm.csv" > "$OUT/peers_gemm.txt" 2>&1
python3 tests/gpu/table_gemm.py "$OUT/dflt_2.csv" "$OUT/peers_gemm.csv" | tee "$OUT/table_gemm.txt"
cat "$OUT/peers_gemm.txt" | grep 64x520
pack_out
