// Does the row's L1 allocation cost layer_norm its weights' L1 hits?
//
// A probe, not a tilec kernel: the hand-written norm of norm_probe.cuh as
// layer_norm (the Welford pair and a bias, weights loaded past the
// reduction) and rms_norm, timed like tilec-bench, with the row's loads
// issued as
//   plain    ld.global.v4          (what LLVM's NVPTX backend emits; nvcc
//                                   makes it LDG.CONSTANT here)
//   noalloc  ld.global.L1::no_allocate.v4
//   cs       ld.global.cs.v4       (evict-first)
//   nc       ld.global.nc.v4       (also the weights)
// Only if the others beat `plain` would tilec need a way to load rows past
// L1 (cp.async.cg into shared memory, or cache hints LLVM does not emit).
#include "norm_probe.cuh"

template <int P, int COLS, bool LN>
float timeIt(int rows, Rows &r) {
  return medianUs([&](int call) {
    norm<P, LN ? WELFORD | BIAS : 0, COLS><<<rows, COLS / 32>>>(r.xs[call % 4], r.w, r.b, r.ys[call % 4]);
  });
}

template <int COLS, bool LN>
void shape(int rows) {
  Rows r(rows, COLS);
  // A device copy of the same bytes (read + written), timed the same way.
  float copy = medianUs([&](int call) {
    CHECK(cudaMemcpyAsync(r.ys[call % 4], r.xs[(call + 1) % 4], r.bytes, cudaMemcpyDeviceToDevice));
  });
  float plain = timeIt<Plain, COLS, LN>(rows, r);
  float noalloc = timeIt<NoAlloc, COLS, LN>(rows, r);
  float cs = timeIt<Cs, COLS, LN>(rows, r);
  float nc = timeIt<Nc, COLS, LN>(rows, r);
  float plain2 = timeIt<Plain, COLS, LN>(rows, r);
  printf("%-10s bf16 %5dx%-5d copy %6.1f us | plain %6.1f / %6.1f  noalloc %6.1f  cs %6.1f  nc %6.1f\n",
         LN ? "layer_norm" : "rms_norm", rows, COLS, copy, plain, plain2, noalloc, cs, nc);
}

int main() {
  shape<8192, true>(4096);
  shape<8192, false>(4096);
  shape<4096, true>(8192);
  shape<4096, false>(8192);
  shape<4096, true>(16384);
  return 0;
}
