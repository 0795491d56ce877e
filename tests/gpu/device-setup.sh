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

# A section header in the run's log.
step() { printf '\n==== %s\n' "$*"; }

# The GPU tests (gtest filter $1, default all) into $OUT/gpu_tests.log,
# within TILEC_TESTS_TIMEOUT seconds; failures and the tally printed, the
# exit status in $tests_rc.
run_gpu_tests() {
  local filter=${1:-*}
  ( cd "$B" && timeout ${TILEC_TESTS_TIMEOUT:-300} ./bin/gpu_tests --gtest_brief=1 --gtest_filter="$filter" ${TILEC_GTEST_ARGS:-} ) > "$OUT/gpu_tests.log" 2>&1
  tests_rc=$?
  grep -E "FAILED|Failure|rror" "$OUT/gpu_tests.log" | head -20
  grep -E "PASSED|tests ran" "$OUT/gpu_tests.log"
}

# At most 8 files come back from $OUT: everything in one archive.
pack_out() {
  ( cd "$OUT" && tar czf /tmp/run.tgz --exclude=run.tgz . && find . -mindepth 1 -delete && mv /tmp/run.tgz . )
}
