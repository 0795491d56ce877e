#!/usr/bin/env bash
# Fifteenth session, third run (the s15b bundle, TILEC_NO_EXP_FMA=1: its
# variant A, the pair reduced max-first): softmax bf16 over 128k columns in
# other splits of the row, to see whether more, smaller CTAs an SM overlap
# the exps with the loads better than two CTAs of 512:
#   V1 clusters of 8 CTAs of 256 threads, 64 elements a thread (4 CTAs an SM)
#   V2 clusters of 8 CTAs of 512, 32 elements a thread (44 registers: 2)
#   V3 V2 capped at 40 registers (3 CTAs an SM)
#   V4 clusters of 4 CTAs of 1024, 32 elements a thread (1 CTA an SM)
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
export TILEC_NO_EXP_FMA=1
SH=4096x131072,1024x131072
bench() { timeout 40 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16 --shapes=$SH --csv="$OUT/$1.csv" ${2:+--schedule="$2"} 2>&1 | tail -2; }
R="recompute-exp=true row-scalars=true"
step "A (default)"; bench A
step "V1"; bench V1 "row-cluster=8 max-threads-per-block=256 $R"
step "V2"; bench V2 "row-cluster=8 $R"
step "V3"; bench V3 "row-cluster=8 max-registers=40 $R"
step "V4"; bench V4 "max-threads-per-block=1024 $R"
step "A again"; bench A2
step "V1 again"; bench V1b "row-cluster=8 max-threads-per-block=256 $R"
for v in "row-cluster=8 max-registers=40 $R"; do
  "$B/bin/tilec" --rows=4096 --cols=131072 --dtype=bf16 --schedule="$v" softmax > /tmp/v.ptx
  ptxas -arch=sm_90a -v /tmp/v.ptx -o /tmp/v.cubin 2>&1 | grep -E "registers|spill"
done
pack_out
