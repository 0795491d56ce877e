#!/usr/bin/env bash
# Every GPU test, in two parts that each fit one device call (600 s):
#   bash tests/gpu/device-tests.sh gemm   # GEMMs, attention, the layer, runtime, schedules, fuzz
#   bash tests/gpu/device-tests.sh rows   # the row kernels' parameterized suites
#   bash tests/gpu/device-tests.sh only 'Attention.*:Shapes/*'  # a gtest filter
# (The whole set, 429 tests, outgrew one call: Attention alone takes ~100
# s, GemmSchedules ~90 s.) Each part prints its tally; a test in neither
# part is reported, so that a new suite is not silently left out.
source "$(dirname "$0")/device-setup.sh"
find "$OUT" -mindepth 1 -delete
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
GEMM='GpuScheduleTest.*:GpuNumericsTest.*:GpuSliceTest.*:GpuRuntimeTest.*:GpuFuzzTest.*:Gemm*:ProgramCache.*:Scatter.*:DecoderLayer.*:Attention.*:DependentLaunch.*:Shapes/GemmTest.*'
ROWS='Examples/*:WideRows/*:RowLoop/*:RowPrefetch/*:Rows/*:Softmax/*:LayerNorm/*'
left=$(cd "$B" && ./bin/gpu_tests --gtest_list_tests --gtest_filter="-$GEMM:$ROWS" | grep -c '^  ')
[ "$left" = 0 ] || echo "WARNING: $left GPU tests are in neither part (device-tests.sh)"
case ${1:-} in
  gemm) filter=$GEMM ;;
  rows) filter=$ROWS ;;
  only) filter=${2:?a gtest filter} ;;
  *) echo "usage: device-tests.sh gemm|rows|only FILTER"; exit 2 ;;
esac
step "GPU tests: $1${2:+ $2}"
TILEC_TESTS_TIMEOUT=${TILEC_TESTS_TIMEOUT:-540} run_gpu_tests "$filter"
pack_out
