# Sourced by the device scripts: $OUT, and the static bundle unpacked in $B
# (libdevice included, so TILEC_CUDA_ROOT points there).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
OUT=${OUT:-/tmp/tilec-out}
mkdir -p "$OUT"
B=$(mktemp -d)
tar -C "$B" -xJf .bundle/tilec-bundle.tar.xz || { echo "no bundle: run ./run.sh bundle first"; exit 1; }
export TILEC_CUDA_ROOT="$B"
