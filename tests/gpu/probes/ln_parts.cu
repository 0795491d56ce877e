// Which part of layer_norm costs it the 5% that rms_norm does not pay?
//
// A probe, not a tilec kernel: the hand-written norm of norm_probe.cuh
// with layer_norm's parts (WELFORD, ONEPASS, BIAS, TOP) switched on one at
// a time, timed like tilec-bench.
#include "norm_probe.cuh"

template <int F, int COLS>
float timeIt(int rows, Rows &r) {
  return medianUs([&](int call) {
    norm<Plain, F, COLS><<<rows, COLS / 32>>>(r.xs[call % 4], r.w, r.b, r.ys[call % 4]);
  });
}

template <int COLS>
void shape(int rows) {
  Rows r(rows, COLS);
  printf("%5dx%-5d rms %6.1f | rms+bias %6.1f | welford %6.1f (bias %6.1f, top %6.1f, bias+top %6.1f) | onepass+bias %6.1f | rms again %6.1f\n",
         rows, COLS, timeIt<0, COLS>(rows, r), timeIt<BIAS, COLS>(rows, r),
         timeIt<WELFORD, COLS>(rows, r), timeIt<WELFORD | BIAS, COLS>(rows, r),
         timeIt<WELFORD | TOP, COLS>(rows, r), timeIt<WELFORD | BIAS | TOP, COLS>(rows, r),
         timeIt<ONEPASS | BIAS, COLS>(rows, r), timeIt<0, COLS>(rows, r));
}

int main() {
  for (int rep = 0; rep < 2; ++rep) {
    shape<8192>(4096);
    shape<4096>(8192);
  }
  return 0;
}
