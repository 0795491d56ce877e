#!/usr/bin/env bash
# Twenty-ninth session's last run (about 3 minutes of device time left):
# the softmax's exps flushed (ex2.approx.ftz, attention-flush-exps=1, the
# new default: the IEEE form wraps each MUFU.EX2 in three more
# instructions, 192 of ~720 a consumer thread's 128-key block in run
# s29d's SASS) beside the IEEE form, and the causal GPU test.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache
A=32x2048x2048x128,8x4096x4096x128c,32x2048x2048x64
for v in dflt ieee dflt2; do
  o=""; [ $v = ieee ] && o="attention-flush-exps=0"
  timeout 25 "$B/bin/tilec-bench" --ops= --attention=$A --cooldown-ms=50 ${o:+--schedule="$o"} --attention-csv="$OUT/att_$v.csv" 2>&1 | grep -E "^attention_flash|error" | sed "s/^/$v /"
done
TILEC_TESTS_TIMEOUT=60 run_gpu_tests 'Attention.CausalFlashMatchesReference'
pack_out
