#!/usr/bin/env bash
# Twenty-second session's second run (written without a device; ~360 s):
# what the session built beside the GEMM run (device-s22a.sh).
# - GPU tests: transposes stored by their operand's kernel (scatters), a
#   whole decoder layer against the reference (decode, 16 tokens after a
#   cache, a prefill), a program read back from the on-disk cache and
#   loaded with Executable::load, the random graphs (both modes);
# - the decoder layer (Llama-3-8B's shapes: hidden 4096, 32 query heads
#   over 8 kv heads, MLP 14336) beside PyTorch eager and torch.compile:
#   decode of 1 and 16 tokens after 512 cached, a prefill of 512;
# - wgmma tiles of 128 columns for N = 128 against the old 256;
# - a process's start with and without the disk cache;
# - (twenty-third session) the GPU tests include flash attention
#   (Attention.FlashMatchesReference, DecoderLayer with fuse-attention);
#   its timings are device-s23.sh's.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
export TILEC_CACHE_DIR=/tmp/tilec-cache   # (not under $OUT: it would come back)
step "GPU tests"
TILEC_TESTS_TIMEOUT=200 run_gpu_tests 'Scatter.*:DecoderLayer.*:ProgramCache.*:GpuFuzzTest.*:Attention.*'
grep -E "^random graphs" "$OUT/gpu_tests.log"
step "decoder layer beside the peers"
L=1x4096x512,16x4096x512,512x4096x0
timeout 120 "$B/bin/tilec-bench" --ops= --layers=$L --cooldown-ms=200 --layer-csv="$OUT/layer.csv" 2>&1 | grep -E "^device|^decoder_layer|error"
timeout 240 python3 tests/gpu/peers_layer.py --layers=$L --cooldown-ms 200 --csv "$OUT/peers_layer.csv" --tilec-csv "$OUT/layer.csv" 2>&1 | tail -12 | tee "$OUT/table_layer.txt"
step "GEMMs of N = 128 (attention's head_dim): 128-column wgmma tiles (default) against 256"
N=2048x128x512,8192x128x4096,512x128x2048
for pass in 1 2; do
  gemm_pass n128 $N $pass
  gemm_pass n256 $N $pass "gemm-block-n=256"
done
python3 tests/gpu/ab_table.py n128="$OUT/n128_1.csv,$OUT/n128_2.csv" n256="$OUT/n256_1.csv,$OUT/n256_2.csv" | tee "$OUT/ab_n128.txt"
step "a process's start: compiled (no disk cache) against read from the disk cache"
( time TILEC_CACHE_DIR=off "$B/bin/tilec-bench" --ops= --layers=16x4096x512 --gemm-rep-ms=10 ) 2>&1 | grep -E "^decoder_layer|real" | sed "s/^/compiled: /"
( time "$B/bin/tilec-bench" --ops= --layers=16x4096x512 --gemm-rep-ms=10 ) 2>&1 | grep -E "^decoder_layer|real" | sed "s/^/from the cache: /"
pack_out
