#!/usr/bin/env bash
# Fifteenth session, second run (an A/B of the build with its experiment
# switches, read by tilec-approx-math in this bundle only): softmax bf16
# over 128k columns with
#   A  TILEC_NO_EXP_FMA=1: the pair reduced max-first (one exp a lane)
#   B  TILEC_X2=1: A + exp(x - m) as ex2(fma) before the reduction
#   C  both passes' exps as ex2(fma) (102 registers: one CTA an SM)
#   D  C capped at 64 registers (8 bytes of spills)
# then the SASS of B and C, and the GPU tests of softmax.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
SH=4096x131072,1024x131072,264x131072
bench() { timeout 40 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16 --shapes=$SH --csv="$OUT/$1.csv" "${@:2}" 2>&1 | tail -3; }
step "A"; TILEC_NO_EXP_FMA=1 bench A
step "B"; TILEC_X2=1 bench B
step "C"; bench C
step "D"; bench D --schedule="max-registers=64"
step "A again"; TILEC_NO_EXP_FMA=1 bench A2
step "other softmax shapes (the default, C)"
timeout 60 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16,f32 --shapes=16x131072,4096x4096,4096x32768,16384x8192 --csv="$OUT/other.csv" 2>&1 | tail -9
for v in TILEC_X2 NONE; do
  env $v=1 "$B/bin/tilec" --emit=ptx --rows=4096 --cols=131072 --dtype=bf16 softmax > "$OUT/$v.ptx"
  ptxas -arch=sm_90a -v "$OUT/$v.ptx" -o /tmp/$v.cubin 2>&1 | grep -E "registers|spill"
  cuobjdump -sass /tmp/$v.cubin > "$OUT/$v.sass"
  grep -oE '^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T] )?[A-Z0-9]+' "$OUT/$v.sass" | awk '{print $NF}' | sort | uniq -c | sort -rn | head -16 | paste -sd' '
done
TILEC_TESTS_TIMEOUT=120 run_gpu_tests '*Softmax*:*softmax*'
pack_out
