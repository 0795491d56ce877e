#!/usr/bin/env bash
# tilec's entry point on a fresh machine:
#   ./run.sh demo   install what is missing, build, run the main demo
#   ./run.sh test   install what is missing, build, run every test
# Other commands (for developers): build, bundle (static GPU-machine bundle).
set -euo pipefail
cd "$(dirname "$0")"

LLVM_ROOT=/usr/lib/llvm-22
CUDA_ROOT=${TILEC_CUDA_ROOT:-/usr/local/cuda}
BUILD=${TILEC_BUILD_DIR:-build}
JOBS=${TILEC_JOBS:-$(nproc)}

log() { printf '==> %s\n' "$*"; }
# ccache keys relative to the checkout, so that the static bundle's build
# (build-static) reuses the objects of build: only the link differs.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1

install_deps() {
  local missing=()
  [ -f "$LLVM_ROOT/lib/cmake/mlir/MLIRConfig.cmake" ] || missing+=(llvm-22-dev libmlir-22-dev mlir-22-tools)
  [ -x "$LLVM_ROOT/bin/FileCheck" ] || missing+=(llvm-22-tools)
  command -v cmake >/dev/null || missing+=(cmake)
  command -v ninja >/dev/null || missing+=(ninja-build)
  [ -f /usr/lib/x86_64-linux-gnu/libgtest.a ] || [ -f /usr/lib/libgtest.a ] || missing+=(libgtest-dev)
  dpkg -s zlib1g-dev >/dev/null 2>&1 || missing+=(zlib1g-dev)
  dpkg -s libzstd-dev >/dev/null 2>&1 || missing+=(libzstd-dev)
  command -v ccache >/dev/null || missing+=(ccache)
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  if [ ! -x "$CUDA_ROOT/bin/ptxas" ]; then
    log "note: no ptxas at $CUDA_ROOT/bin (set TILEC_CUDA_ROOT); PTX checks will be skipped"
  fi
}

configure() {
  install_deps
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  if [ ! -f "$BUILD/build.ninja" ]; then
    log "configuring $BUILD"
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DTILEC_CUDA_ROOT="$CUDA_ROOT" "${launcher[@]}" "$@" >/dev/null
  fi
}

build() {
  configure
  log "building ($JOBS jobs)"
  ninja -C "$BUILD" -j"$JOBS"
}

demo() {
  build
  mkdir -p "$BUILD/demo"
  cd "$BUILD/demo"
  log "fusion plan of the built-in rms_norm graph"
  ../bin/tilec --explain-fusion rms_norm
  log "PTX for sm_90a -> $BUILD/demo/rms_norm.ptx"
  ../bin/tilec --emit=ptx --target=sm_90a rms_norm -o rms_norm.ptx
  if [ -x "$CUDA_ROOT/bin/ptxas" ]; then
    log "ptxas -arch=sm_90a -v rms_norm.ptx"
    "$CUDA_ROOT/bin/ptxas" -arch=sm_90a -v rms_norm.ptx -o rms_norm.cubin
  fi
  log "GEMM with a fused epilogue: gelu(x @ w^T + bias), bf16 4096^3"
  ../bin/tilec --explain-fusion matmul_bias_gelu
  ../bin/tilec --emit=ptx --target=sm_90a matmul_bias_gelu -o matmul_bias_gelu.ptx
  echo "sm_90a: $(grep -c 'wgmma.mma_async' matmul_bias_gelu.ptx) wgmma.mma_async in the main loop -> $BUILD/demo/matmul_bias_gelu.ptx"
  ../bin/tilec --emit=ptx --target=sm_80 matmul_bias_gelu -o matmul_bias_gelu.sm_80.ptx
  echo "sm_80: $(grep -c 'mma.sync.aligned' matmul_bias_gelu.sm_80.ptx) mma.sync in the main loop"
  if [ -x "$CUDA_ROOT/bin/ptxas" ]; then
    "$CUDA_ROOT/bin/ptxas" -arch=sm_90a -v matmul_bias_gelu.ptx -o matmul_bias_gelu.cubin 2>&1 | grep -E "spill|registers"
  fi
  log "example: RMSNorm [4096, 4096] bf16 (runs on the GPU when there is one)"
  ../bin/example_rmsnorm
  log "example: softmax [1024, 32000] f32"
  ../bin/example_softmax
}

run_tests() {
  build
  log "running tests"
  ctest --test-dir "$BUILD" --output-on-failure -j"$JOBS"
  # GPU tests skip themselves where there is no GPU; say so, and why.
  "$BUILD/bin/gpu_tests" --gtest_filter='GpuRuntimeTest.ReportsWrongBufferSizes' 2>&1 |
    grep -m1 -o 'GPU test skipped: .*' || true
}

bundle() {
  # Static binaries for the GPU machine (no MLIR/LLVM there).
  BUILD=build-static configure -DTILEC_STATIC_LINK=ON
  ninja -C build-static -j"$JOBS" gpu_tests tilec-bench example_rmsnorm tilec
  # (Staged and packed outside .bundle, then moved in: only the finished
  # archive is ever there to travel to the GPU machine.)
  local stage
  stage=$(mktemp -d)
  mkdir -p "$stage/files/bin" "$stage/files/nvvm/libdevice" .bundle
  cp build-static/bin/{gpu_tests,tilec-bench,example_rmsnorm,tilec} "$stage/files/bin/"
  cp "$CUDA_ROOT"/nvvm/libdevice/libdevice.10.bc "$stage/files/nvvm/libdevice/"
  tar -C "$stage/files" -cJf "$stage/tilec-bundle.tar.xz" .
  mv "$stage/tilec-bundle.tar.xz" .bundle/tilec-bundle.tar.xz.new
  mv .bundle/tilec-bundle.tar.xz.new .bundle/tilec-bundle.tar.xz
  rm -rf "$stage"
  ls -la .bundle/tilec-bundle.tar.xz
}

case "${1:-}" in
  demo) demo ;;
  test) run_tests ;;
  build) build ;;
  bundle) bundle ;;
  *) echo "usage: ./run.sh demo|test   (developers: build|bundle)"; exit 2 ;;
esac
