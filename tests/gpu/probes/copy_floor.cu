// What the best copy kernel reaches at issue 3's sizes, timed as tilec-bench
// times the row ops (3 warm-up calls, batches of 20 back to back, median of
// 15, four input/output sets rotated): the ceiling of any kernel that reads
// N bytes and writes N, launched in stream order as tilec's are.
//
// A probe, not a tilec kernel. Variants:
//   memcpy  cudaMemcpyAsync of equal bytes (tilec-bench's %copy_eq)
//   plain   the copy kernel, plain launch
//   pdl     programmatic dependent launch, as tilec: griddepcontrol.wait
//           before the first load, launch_dependents after it
//   first   pdl, and each CTA prefetches its own slice into L2 before the
//           wait (every CTA: the later ones add requests for lines they
//           load next anyway)
//   wave    the same in the first wave's CTAs only (as many as fit the
//           GPU at once), as tilec's row-l2-prefetch-first does for the
//           first row blocks (which no CTA ahead prefetched for)
//   nowait  pdl without the wait (not stream-ordered: independent buffers
//           only; what the dependency itself costs)
//   norm    first, with a CTA-wide sum between the loads and the stores
//           (shuffles, shared memory, a barrier; the stores scaled by it):
//           a norm's shape, without its math
// CTA shapes: T threads, V 16-byte vectors a thread, one slice of T * V * 16
// bytes a CTA (128 x 4 and 512 x 1: 8 KB, a bf16 row of 4096; 256 x 4:
// 16 KB).
// (CHECK and medianUs, tilec-bench's timing, from the norm probes.)
#include "norm_probe.cuh"

enum Mode { PlainLaunch, Pdl, First, NoWait, Wave };

template <int T, int V, int M, bool R = false>
__global__ void __launch_bounds__(T) copyKernel(const uint4 *__restrict__ x, uint4 *__restrict__ y,
                                                int firstWave) {
  const size_t base = (size_t)blockIdx.x * (T * V);
  if (M == First || (M == Wave && (int)blockIdx.x < firstWave)) {
    // One 128-byte line a thread, the CTA's slice of T * V * 16 bytes.
    constexpr int lines = T * V * 16 / 128;
    for (int l = threadIdx.x; l < lines; l += T)
      asm volatile("prefetch.global.L2 [%0];" ::"l"(x + base + l * 8));
  }
  if (M != PlainLaunch && M != NoWait)
    asm volatile("griddepcontrol.wait;" ::: "memory");
  if (M != PlainLaunch)
    asm volatile("griddepcontrol.launch_dependents;");
  uint4 v[V];
#pragma unroll
  for (int k = 0; k < V; ++k) v[k] = x[base + k * T + threadIdx.x];
  if (R) {
    // The sum of the slice's words as floats, over the CTA.
    float sum = 0.f;
#pragma unroll
    for (int k = 0; k < V; ++k)
      sum += __uint_as_float(v[k].x) + __uint_as_float(v[k].y) + __uint_as_float(v[k].z) +
             __uint_as_float(v[k].w);
#pragma unroll
    for (int o = 16; o >= 1; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    __shared__ float partial[T / 32];
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = sum;
    __syncthreads();
    sum = 0.f;
#pragma unroll
    for (int w = 0; w < T / 32; ++w) sum += partial[w];
    // (Always 0 here: the inputs are memset bytes, never NaN; the stores
    // stay a copy the check can compare.)
    unsigned keep = sum != sum ? 1u : 0u;
#pragma unroll
    for (int k = 0; k < V; ++k) v[k].x ^= keep;
  }
#pragma unroll
  for (int k = 0; k < V; ++k) y[base + k * T + threadIdx.x] = v[k];
}

struct Sets {
  size_t bytes;
  std::vector<uint4 *> xs, ys;
  explicit Sets(size_t b) : bytes(b), xs(4), ys(4) {
    for (int i = 0; i < 4; ++i) {
      CHECK(cudaMalloc(&xs[i], bytes));
      CHECK(cudaMalloc(&ys[i], bytes));
      CHECK(cudaMemset(xs[i], 0x3c + i, bytes));
    }
  }
  ~Sets() {
    for (int i = 0; i < 4; ++i) {
      cudaFree(xs[i]);
      cudaFree(ys[i]);
    }
  }
};

template <int T, int V, int M, bool R = false>
float timeKernel(Sets &s) {
  size_t ctas = s.bytes / (T * V * 16);
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3((unsigned)ctas);
  config.blockDim = dim3(T);
  config.attrs = &attr;
  config.numAttrs = M == PlainLaunch ? 0 : 1;
  int perSm = 0, sms = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, copyKernel<T, V, M, R>, T, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  float us = medianUs([&](int call) {
    CHECK(cudaLaunchKernelEx(&config, copyKernel<T, V, M, R>, (const uint4 *)s.xs[call % 4],
                             s.ys[call % 4], perSm * sms));
  });
  // The copy is checked: one set's output against its input.
  std::vector<unsigned char> a(4096), b(4096);
  CHECK(cudaMemcpy(a.data(), s.xs[1], 4096, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(b.data(), s.ys[1], 4096, cudaMemcpyDeviceToHost));
  if (a != b || a[0] != 0x3d) {
    printf("copy kernel %d x %d mode %d: wrong output\n", T, V, M);
    exit(1);
  }
  return us;
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  // The ceiling tilec-bench uses: a 1 GiB copy, bytes read plus written.
  float ceiling;
  {
    Sets big(size_t(1) << 30);
    float us = medianUs([&](int call) {
      CHECK(cudaMemcpyAsync(big.ys[call % 4], big.xs[call % 4], big.bytes,
                            cudaMemcpyDeviceToDevice));
    });
    ceiling = 2.0f * big.bytes / us / 1e3f;
  }
  printf("device: %s, %d SMs; 1 GiB copy %.0f GB/s\n", prop.name, prop.multiProcessorCount,
         ceiling);
  printf("%-10s%-8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n", "moved", "memcpy",
         "128x4", "128x4pdl", "128x4fst", "128x4nw", "512x1pdl", "512x1fst", "256x4fst", "norm",
         "128x4wav", "512x1wav", "normwav", "best%");
  for (int pass = 0; pass < 2; ++pass)
    for (size_t mb : {64, 128, 256, 1024}) {
      Sets s(mb << 19); // half read, half written
      float t[13];
      t[0] = medianUs([&](int call) {
        CHECK(cudaMemcpyAsync(s.ys[call % 4], s.xs[call % 4], s.bytes, cudaMemcpyDeviceToDevice));
      });
      t[1] = timeKernel<128, 4, PlainLaunch>(s);
      t[2] = timeKernel<128, 4, Pdl>(s);
      t[3] = timeKernel<128, 4, First>(s);
      t[4] = timeKernel<128, 4, NoWait>(s);
      t[5] = timeKernel<512, 1, Pdl>(s);
      t[6] = timeKernel<512, 1, First>(s);
      t[7] = timeKernel<256, 4, First>(s);
      t[8] = timeKernel<128, 4, First, true>(s);
      t[9] = timeKernel<128, 4, Wave>(s);
      t[10] = timeKernel<512, 1, Wave>(s);
      t[11] = timeKernel<128, 4, Wave, true>(s);
      // Best of the stream-ordered copies (not nowait, not the norms) as %
      // of the ceiling.
      float best = std::min({t[1], t[2], t[3], t[5], t[6], t[7], t[9], t[10]});
      t[12] = 100.f * (2.0f * s.bytes / best / 1e3f) / ceiling;
      printf("%5zu MB  ", mb);
      for (int i = 0; i < 12; ++i) printf(" %8.2f", t[i]);
      printf(" %7.1f%%\n", t[12]);
    }
  return 0;
}
