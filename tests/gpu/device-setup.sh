# Sourced by the device scripts: $OUT, and the static bundle unpacked in $B
# (libdevice included, so TILEC_CUDA_ROOT points there).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
OUT=${OUT:-/tmp/tilec-out}
mkdir -p "$OUT"
B=$(mktemp -d)
tar -C "$B" -xJf .bundle/tilec-bundle.tar.xz || { echo "no bundle: run ./run.sh bundle first"; exit 1; }
export TILEC_CUDA_ROOT="$B"
export PYTHONUNBUFFERED=1
COOL=${TILEC_COOLDOWN_MS:-1000}

# A run's start: $OUT emptied, and the GPU (name, driver, clocks) printed
# and kept in $OUT/gpu.txt.
begin_run() {
  find "$OUT" -mindepth 1 -delete 2>/dev/null
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader |
    tee "$OUT/gpu.txt"
}

# A section header in the run's log.
step() { printf '\n==== %s\n' "$*"; }

# The GPU tests (gtest filter $1, default all) into $OUT/gpu_tests.log,
# within TILEC_TESTS_TIMEOUT seconds in all; failures and the tally
# printed, the exit status in $tests_rc. Each test suite runs in its own
# process: a kernel that faults loses its CUDA context for good, and in
# one process every later test would fail with it.
run_gpu_tests() {
  local filter=${1:-*} deadline=$((SECONDS + ${TILEC_TESTS_TIMEOUT:-300}))
  local list suite names left rc pass=0 fail=0 skip=0
  : > "$OUT/gpu_tests.log"
  tests_rc=0
  list=$(cd "$B" && ./bin/gpu_tests --gtest_list_tests --gtest_filter="$filter" |
    awk '/^[^ ]/ { s = $1 } /^  / { print s $1 }')
  for suite in $(printf '%s\n' "$list" | sed 's/\.[^.]*$//' | uniq); do
    names=$(printf '%s\n' "$list" | awk -v s="$suite." 'index($0, s) == 1' | paste -sd:)
    left=$((deadline - SECONDS))
    if [ "$left" -le 0 ]; then
      echo "GPU tests: out of time before suite $suite" | tee -a "$OUT/gpu_tests.log"
      tests_rc=124; break
    fi
    ( cd "$B" && timeout "$left" ./bin/gpu_tests --gtest_brief=1 --gtest_filter="$names" ${TILEC_GTEST_ARGS:-} ) >> "$OUT/gpu_tests.log" 2>&1
    rc=$?
    [ "$rc" = 0 ] || tests_rc=$rc
    # (A suite the time limit stops prints no tally: say so.)
    if [ "$rc" = 124 ]; then
      echo "GPU tests: suite $suite stopped at the time limit (${left} s)" | tee -a "$OUT/gpu_tests.log"
      break
    fi
  done
  tally() { grep -E "^\\[ +$1 +\\] [0-9]+ test" "$OUT/gpu_tests.log" | awk '{ n += $4 } END { print n + 0 }'; }
  # (--gtest_brief prints no "N tests failed" summary: count the failed
  # tests' own lines.)
  pass=$(tally PASSED); skip=$(tally SKIPPED)
  fail=$(grep -cE "^\[  FAILED  \] [A-Za-z]" "$OUT/gpu_tests.log")
  grep -E "FAILED|Failure|rror" "$OUT/gpu_tests.log" | head -20
  echo "GPU tests: $pass passed, $fail failed, $skip skipped (one process a suite; rc=$tests_rc)" | tee -a "$OUT/gpu_tests.log"
}

# One tilec-bench run for an A B: its CSV into $2, its table lines (and
# the device line) printed prefixed with the tag $1, within
# TILEC_AB_TIMEOUT seconds (default 60):
# ab_bench TAG CSV [tilec-bench options...]
ab_bench() {
  local tag=$1 csv=$2; shift 2
  timeout "${TILEC_AB_TIMEOUT:-60}" "$B/bin/tilec-bench" --csv="$csv" "$@" 2>&1 |
    grep -E "^(device|[a-z_]+ +(bf16|f32))|error" | sed "s/^/$tag /"
}

# An A B of schedules over passes, each pass running every variant in
# turn: ab_variants NAME PASSES "TILEC-BENCH ARGS" VARIANT=OPTIONS...
# (VARIANT= for the default) writes $OUT/ab/NAME_VARIANT_PASS.csv and
# prints ab_table.py's table (the first variant the baseline) into
# $OUT/ab/NAME.txt.
ab_variants() {
  local name=$1 passes=$2 args=$3 pass v tables=()
  shift 3
  mkdir -p "$OUT/ab"
  for pass in $(seq "$passes"); do
    for v in "$@"; do
      # (args split into tilec-bench's options on purpose.)
      # shellcheck disable=SC2086
      ab_bench "${v%%=*}" "$OUT/ab/${name}_${v%%=*}_$pass.csv" $args --schedule="${v#*=}" > /dev/null
    done
  done
  for v in "$@"; do
    tables+=("${v%%=*}=$(seq -f "$OUT/ab/${name}_${v%%=*}_%g.csv" -s, "$passes")")
  done
  python3 tests/gpu/ab_table.py "${tables[@]}" | tee "$OUT/ab/$name.txt"
}

# At most 8 files come back from $OUT: everything in one archive.
pack_out() {
  ( cd "$OUT" && tar czf /tmp/run.tgz --exclude=run.tgz . && find . -mindepth 1 -delete && mv /tmp/run.tgz . )
}

# SASS of the kernel in $OUT/NAME.ptx: ptxas's registers and spills, then
# the 16 most frequent opcodes (cuobjdump), as "NAME: " lines; keeps
# $OUT/NAME.sass and removes the PTX and cubin.
sass_summary() {
  local n=$1
  /usr/local/cuda/bin/ptxas -arch=sm_90a -v "$OUT/$n.ptx" -o "$OUT/$n.cubin" 2>&1 | grep -E "registers|spill" | sed "s/^/$n: /"
  /usr/local/cuda/bin/cuobjdump -sass "$OUT/$n.cubin" > "$OUT/$n.sass"
  grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+[A-Z][A-Z0-9_.]*' "$OUT/$n.sass" | awk '{ print $2 }' |
    sort | uniq -c | sort -rn | head -16 | paste -sd' ' | sed "s/^/$n: /"
  rm -f "$OUT/$n.cubin" "$OUT/$n.ptx"
}

# One pass of tilec-bench's matmul GEMMs (do_bench timing, 200 ms idle
# before each) into $OUT/NAME_PASS.csv, its lines prefixed with NAME:
# gemm_pass NAME SHAPES PASS [SCHEDULE-OPTIONS]
gemm_pass() {
  timeout 90 "$B/bin/tilec-bench" --ops= --gemm="$2" --gemm-ops=matmul --cooldown-ms=200 \
    --gemm-csv="$OUT/$1_$3.csv" ${4:+--schedule="$4"} 2>&1 | grep -E "^matmul" | sed "s/^/$1 /"
}
