#!/usr/bin/env bash
# Twenty-first session's run, ~420 s: split k (gemm-split-k, new this
# session: few tiles of deep K split their k steps over CTAs; the last of a
# tile's CTAs adds the partial sums and runs the epilogue).
# - GPU tests: the split schedules on every multi-tile graph and kernel
#   kind, the chosen splits over three runs of one Executable (counters),
#   and the GEMM epilogues and schedules as a control;
# - the chosen splits (gemm-split-k=0) against none (the default), two
#   alternating passes, beside cuBLAS; 128 x 4096 x 4096 and decode with
#   other tiles under a split; matmul_bias_gelu decode beside the peers.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "GPU tests"
TILEC_TESTS_TIMEOUT=170 run_gpu_tests 'GemmSplitK.*:GemmSchedules.*:GemmEpilogue.*'
step "split k: chosen against none"
GS=1x1024x4096,16x1024x4096,16x512x4096,16x2048x4096,16x1024x14336,1x4096x4096,16x4096x4096,64x520x1000,128x1024x4096,128x4096x4096,256x4096x4096,260x512x500,512x512x512,1024x1024x1024
for pass in 1 2; do
  gemm_pass none $GS $pass
  gemm_pass split $GS $pass "gemm-split-k=0"
done
python3 tests/gpu/ab_table.py none="$OUT/none_1.csv,$OUT/none_2.csv" split="$OUT/split_1.csv,$OUT/split_2.csv" | tee "$OUT/ab.txt"
step "other tiles under a split"
WS=128x4096x4096,256x4096x4096,128x1024x4096
DS=16x1024x4096,16x512x4096,16x4096x4096
for pass in 1 2; do
  gemm_pass w128s4 $WS $pass "gemm-split-k=4 gemm-block-m=128 gemm-block-n=128"
  gemm_pass w128s2 $WS $pass "gemm-split-k=2 gemm-block-m=128 gemm-block-n=128"
  gemm_pass n128s2 $WS $pass "gemm-split-k=2 gemm-block-n=128"
  gemm_pass d64s4 $DS $pass "gemm-split-k=4 gemm-block-n=64"
  gemm_pass d32s2 $DS $pass "gemm-split-k=2"
done
python3 tests/gpu/ab_table.py none="$OUT/none_1.csv,$OUT/none_2.csv" split="$OUT/split_1.csv,$OUT/split_2.csv" w128s4="$OUT/w128s4_1.csv,$OUT/w128s4_2.csv" w128s2="$OUT/w128s2_1.csv,$OUT/w128s2_2.csv" n128s2="$OUT/n128s2_1.csv,$OUT/n128s2_2.csv" | tee "$OUT/ab_wide.txt"
python3 tests/gpu/ab_table.py none="$OUT/none_1.csv,$OUT/none_2.csv" split="$OUT/split_1.csv,$OUT/split_2.csv" d64s4="$OUT/d64s4_1.csv,$OUT/d64s4_2.csv" d32s2="$OUT/d32s2_1.csv,$OUT/d32s2_2.csv" | tee "$OUT/ab_decode.txt"
step "beside cuBLAS"
timeout 100 python3 tests/gpu/peers_gemm.py --cooldown-ms 200 --triton 0 --ops=matmul --shapes=$GS --csv "$OUT/peers_gemm.csv" > "$OUT/peers_gemm.txt" 2>&1
python3 tests/gpu/table_gemm.py "$OUT/split_2.csv" "$OUT/peers_gemm.csv" | tee "$OUT/table_gemm.txt"
step "matmul_bias_gelu decode, split, beside the peers"
GD=1x4096x4096,16x1024x4096,16x4096x4096
timeout 40 "$B/bin/tilec-bench" --ops= --gemm=$GD --gemm-ops=matmul_bias_gelu --cooldown-ms=200 --schedule="gemm-split-k=0" --gemm-csv="$OUT/gelu.csv" 2>&1 | grep -E "^matmul"
timeout 120 python3 tests/gpu/peers_gemm.py --cooldown-ms 200 --triton 0 --ops=matmul_bias_gelu --shapes=$GD --csv "$OUT/peers_gelu.csv" > "$OUT/peers_gelu.txt" 2>&1
python3 tests/gpu/table_gemm.py "$OUT/gelu.csv" "$OUT/peers_gelu.csv" | tee "$OUT/table_gelu.txt"
pack_out
