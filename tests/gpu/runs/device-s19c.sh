#!/usr/bin/env bash
# Nineteenth session's third run (written in the nineteenth, which had no
# device; the eighteenth's lost device-s18b.sh less its GPU tests, which
# device-s19a.sh runs), ~350 s: swaps of the last dim through
# shared-memory tiles (tilec-distribute-transpose-tiles,
# transpose-tiles=true, off by default until this has run; the default is
# strided rows: coalesced reads, a row a thread). The SASS of the tile
# kernels, their shared memory bank conflicts and DRAM bytes (Nsight
# Compute), tiles against strided rows, and transpose beside eager
# (x.transpose(0, 1).contiguous()) and torch.compile.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
step "SASS of the transpose kernels"
for dt in bf16 f32; do
  n=transpose_$dt
  "$B/bin/tilec" --rows=4096 --cols=4096 --dtype=$dt --schedule=transpose-tiles=true transpose -o "$OUT/$n.ptx"
  sass_summary $n
done
step "Nsight Compute: bank conflicts, DRAM bytes"
M=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
for dt in bf16 f32; do
  echo "-- $dt 4096x4096"
  timeout 90 ncu --metrics $M --launch-skip 3 --launch-count 1 -k "regex:transpose_kernel" \
    "$B/bin/tilec-bench" --ops=transpose --dtypes=$dt --shapes=4096x4096 --schedule=transpose-tiles=true 2>&1 | grep -E "^\s+(l1tex|dram|gpu__)" | tee "$OUT/ncu_$dt.txt"
done
SH=16x4096,4096x128,4096x4096,8192x8192,16384x4096,4096x14336
step "tiles (transpose-tiles=true) and strided rows (the default)"
for pass in 1 2; do
  for v in tiles strided; do
    opt=""; [ $v = tiles ] && opt="transpose-tiles=true"
    timeout 60 "$B/bin/tilec-bench" --ops=transpose --dtypes=bf16,f32 --shapes=4096x4096,16384x4096 \
      --csv="$OUT/${v}_$pass.csv" ${opt:+--schedule="$opt"} 2>&1 | grep -E "^transpose"
  done
done
python3 tests/gpu/ab_table.py tiles="$OUT/tiles_1.csv,$OUT/tiles_2.csv" strided="$OUT/strided_1.csv,$OUT/strided_2.csv" | tee "$OUT/ab.txt"
step "transpose beside the peers"
timeout 90 "$B/bin/tilec-bench" --ops=transpose --dtypes=bf16,f32 --shapes=$SH --schedule=transpose-tiles=true --csv="$OUT/bench.csv" 2>&1 | grep -E "^transpose|copy"
timeout 150 python3 tests/gpu/peers.py --ops=transpose --dtypes=bf16,f32 --compile=bf16,f32 --shapes=$SH --csv "$OUT/peers.csv" > "$OUT/peers.txt" 2>&1
tail -12 "$OUT/peers.txt"
python3 tests/gpu/table.py "$OUT/bench.csv" "$OUT/peers.csv" | tee "$OUT/table.txt"
pack_out
