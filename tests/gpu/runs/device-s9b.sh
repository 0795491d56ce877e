#!/usr/bin/env bash
# Ninth session, last run: stream-shared on by default (auto). The GPU tests
# of the row schedules it touches (wide rows, streamed and cluster rows,
# the runtime), then bf16 rows of 32768 and the 128k-vocab softmax beside
# eager and torch.compile, and the Triton kernel torch.compile generates for
# rms_norm bf16 [16384, 32768] (TORCH_LOGS=output_code: the peer that still
# leads there).
source "$(dirname "$0")/../device-setup.sh"
step "GPU tests: wide, streamed and cluster rows, runtime"
TILEC_TESTS_TIMEOUT=200 run_gpu_tests 'WideRows/*:GpuScheduleTest.*:Rows/*:GpuRuntimeTest.*:GemmBatched.*'
step "bf16 rows of 32768 (staged by default), softmax [16, 131072]"
timeout 60 "$B/bin/tilec-bench" --ops=softmax,rms_norm,layer_norm,add_rms_norm --dtypes=bf16 --shapes=4096x32768,16384x32768 --csv="$OUT/wide.csv" 2>&1 | tail -n +2
timeout 60 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16,f32 --shapes=16x131072 --csv=/tmp/vocab.csv 2>&1 | tail -n +3
tail -n +2 /tmp/vocab.csv >> "$OUT/wide.csv"
step "peers"
timeout 200 python3 tests/gpu/peers.py --ops=softmax,rms_norm,layer_norm,add_rms_norm --shapes=4096x32768,16384x32768 --dtypes=bf16 --compile=bf16 --csv "$OUT/peers.csv" > "$OUT/peers.txt" 2>&1
timeout 100 python3 tests/gpu/peers.py --ops=softmax --shapes=16x131072 --dtypes=bf16,f32 --compile=bf16,f32 --csv /tmp/peers-vocab.csv >> "$OUT/peers.txt" 2>&1
tail -n +2 /tmp/peers-vocab.csv >> "$OUT/peers.csv"
step "torch.compile's rms_norm bf16 [16384, 32768]: the generated kernel"
TORCH_LOGS=output_code timeout 100 python3 tests/gpu/peers.py --ops=rms_norm --shapes=16384x32768 --dtypes=bf16 --compile=bf16 > "$OUT/inductor_rms_norm.txt" 2>&1
grep -nE "num_warps|XBLOCK|R0_BLOCK|RBLOCK|eviction_policy|for r0_offset|triton_heuristics|def triton" "$OUT/inductor_rms_norm.txt" | head -30
step "table"
python3 tests/gpu/table.py "$OUT/wide.csv" "$OUT/peers.csv"
step "summary"
grep -E "^GPU tests:" "$OUT/gpu_tests.log"
pack_out
