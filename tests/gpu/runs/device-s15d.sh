#!/usr/bin/env bash
# Fifteenth session, fourth run (the s15b bundle with TILEC_NO_EXP_FMA=1,
# i.e. the pair reduced max-first): many rows of 128k in clusters of 8 CTAs
# of 256 threads (four CTAs an SM) against the default clusters of 4 CTAs
# of 512 (two), by row count, with the exps made again past the reduction
# (N1) or kept (N0).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
export TILEC_NO_EXP_FMA=1
bench() { timeout 60 "$B/bin/tilec-bench" --ops=softmax --dtypes=$1 --shapes=$2 --csv="$OUT/$3.csv" ${4:+--schedule="$4"} 2>&1 | grep -E "^softmax"; }
BF=64x131072,128x131072,264x131072,1024x131072,4096x131072
F=64x131072,264x131072,4096x131072
C8="row-cluster=8 max-threads-per-block=256"
step "bf16 default (clusters of 4 x 512)"; bench bf16 $BF bf_old
step "bf16 N1: $C8, exps made again"; bench bf16 $BF bf_n1 "$C8 recompute-exp=true row-scalars=true"
step "bf16 N0: $C8, exp tile"; bench bf16 $BF bf_n0 "$C8 recompute-exp=false"
step "f32 default"; bench f32 $F f_old
step "f32 N0: $C8"; bench f32 $F f_n0 "$C8"
step "bf16 default again"; bench bf16 $BF bf_old2
step "bf16 N1 again"; bench bf16 $BF bf_n1b "$C8 recompute-exp=true row-scalars=true"
step "f32 N0 again"; bench f32 $F f_n0b "$C8"
pack_out
