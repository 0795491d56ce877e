// Shared by the norm probes (ln_cache.cu, ln_parts.cu): a hand-written
// bf16 norm shaped like tilec's schedule, bf16 rows in four input/output
// sets, and tilec-bench's timer (3 warm-up calls, batches of 20, median of
// 15). Probes, not tilec kernels.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include <cuda_bf16.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

// Eight bf16 of a 16-byte vector as f32.
__device__ __forceinline__ void unpack(uint4 v, float *f) {
  const uint32_t w[4] = {v.x, v.y, v.z, v.w};
  for (int i = 0; i < 4; ++i) {
    f[2 * i] = __uint_as_float(w[i] << 16);
    f[2 * i + 1] = __uint_as_float(w[i] & 0xffff0000u);
  }
}

__device__ __forceinline__ uint32_t pack2(float a, float b) {
  __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
  return *reinterpret_cast<uint32_t *>(&h);
}

// Four sets of bf16 [rows, cols] inputs (U(-2, 4)) and outputs, and a
// weight and a bias of cols each.
struct Rows {
  size_t bytes = 0;
  std::vector<uint4 *> xs, ys;
  uint4 *w = nullptr, *b = nullptr;

  Rows(size_t rows, int cols) : bytes(rows * cols * 2), xs(4), ys(4) {
    std::vector<uint16_t> host(rows * cols);
    uint32_t s = 12345;
    for (auto &h : host) {
      s = s * 1664525u + 1013904223u;
      float v = 1.f + 6.f * ((s >> 8) / 16777216.f - 0.5f);
      uint32_t u;
      memcpy(&u, &v, 4);
      h = (uint16_t)(u >> 16);
    }
    for (int i = 0; i < 4; ++i) {
      CHECK(cudaMalloc(&xs[i], bytes));
      CHECK(cudaMalloc(&ys[i], bytes));
      CHECK(cudaMemcpy(xs[i], host.data(), bytes, cudaMemcpyHostToDevice));
    }
    CHECK(cudaMalloc(&w, cols * 2));
    CHECK(cudaMalloc(&b, cols * 2));
    CHECK(cudaMemcpy(w, host.data(), cols * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, host.data() + cols, cols * 2, cudaMemcpyHostToDevice));
  }
  ~Rows() {
    for (int i = 0; i < 4; ++i) {
      CHECK(cudaFree(xs[i]));
      CHECK(cudaFree(ys[i]));
    }
    CHECK(cudaFree(w));
    CHECK(cudaFree(b));
  }
  Rows(const Rows &) = delete;
  Rows &operator=(const Rows &) = delete;
};

// Median microseconds of one call of `enqueue(call)` (call counts up, so
// the sets rotate), timed like tilec-bench.
template <class Enqueue>
float medianUs(Enqueue enqueue) {
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  int call = 0;
  for (int i = 0; i < 3; ++i)
    enqueue(call++);
  std::vector<float> batches;
  for (int rep = 0; rep < 15; ++rep) {
    CHECK(cudaEventRecord(e0));
    for (int i = 0; i < 20; ++i)
      enqueue(call++);
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    batches.push_back(ms * 1e3f / 20);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaEventDestroy(e0));
  CHECK(cudaEventDestroy(e1));
  std::sort(batches.begin(), batches.end());
  return batches[7];
}

// How the row is loaded: plain ld.global (nvcc makes a const __restrict__
// load LDG.CONSTANT), past L1's allocation, evict-first, or __ldg.
enum Policy { Plain, NoAlloc, Cs, Nc };

template <int P>
__device__ __forceinline__ uint4 loadRow(const uint4 *p) {
  uint4 v;
  if (P == Plain) {
    v = *p;
  } else if (P == NoAlloc) {
    asm volatile("ld.global.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  } else if (P == Cs) {
    asm volatile("ld.global.cs.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  } else {
    v = __ldg(p);
  }
  return v;
}

// layer_norm's parts (ln_parts.cu switches them one at a time):
//   WELFORD  the statistics are the mean and M2 (else the sum of squares)
//   ONEPASS  ... from one pass, sum and sum of squares (no second pass)
//   BIAS     a bias vector is loaded and added
//   TOP      the weights (and bias) load with the row, not past the reduction
enum { WELFORD = 1, ONEPASS = 2, BIAS = 4, TOP = 8 };

// The norm: COLS / 32 threads a row (256 at 8192, 128 at 4096, as tilec's
// schedule), four 16-byte vectors of 8 a thread, one row a CTA, the row
// loaded with policy P (Nc: the weights too).
template <int P, int F, int COLS>
__global__ void __launch_bounds__(COLS / 32) norm(const uint4 *__restrict__ x, const uint4 *__restrict__ w,
                                                  const uint4 *__restrict__ bias, uint4 *__restrict__ y) {
  constexpr int V = 4, T = COLS / 32, WARPS = T / 32;
  const int t = threadIdx.x;
  const uint4 *row = x + (size_t)blockIdx.x * (COLS / 8);
  float f[V][8];
  uint4 raw[V], rw[V], rb[V];
#pragma unroll
  for (int k = 0; k < V; ++k) raw[k] = loadRow<P>(row + k * T + t);
  if (F & TOP) {
#pragma unroll
    for (int k = 0; k < V; ++k) {
      rw[k] = P == Nc ? __ldg(w + k * T + t) : w[k * T + t];
      if (F & BIAS) rb[k] = P == Nc ? __ldg(bias + k * T + t) : bias[k * T + t];
    }
  }
#pragma unroll
  for (int k = 0; k < V; ++k) unpack(raw[k], f[k]);
  float a = 0.f, m2 = 0.f;
  if (F & WELFORD) {
#pragma unroll
    for (int k = 0; k < V; ++k)
#pragma unroll
      for (int i = 0; i < 8; ++i) a += f[k][i];
    a *= 1.f / (V * 8);
#pragma unroll
    for (int k = 0; k < V; ++k)
#pragma unroll
      for (int i = 0; i < 8; ++i) { float d = f[k][i] - a; m2 += d * d; }
  } else {
#pragma unroll
    for (int k = 0; k < V; ++k)
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        if (F & ONEPASS) a += f[k][i];
        m2 += f[k][i] * f[k][i];
      }
  }
  float n = V * 8;
#pragma unroll
  for (int o = 16; o >= 1; o >>= 1) {
    float ob = __shfl_xor_sync(0xffffffffu, a, o);
    float om = __shfl_xor_sync(0xffffffffu, m2, o);
    if (F & WELFORD) {
      float d = ob - a;
      m2 = m2 + om + d * d * n * 0.5f;
      a = (a + ob) * 0.5f;
      n *= 2;
    } else {
      a += ob;
      m2 += om;
    }
  }
  __shared__ float sa[WARPS], sm[WARPS];
  if ((t & 31) == 0) { sa[t >> 5] = a; sm[t >> 5] = m2; }
  __syncthreads();
  a = sa[0]; m2 = sm[0];
#pragma unroll
  for (int i = 1; i < WARPS; ++i) {
    if (F & WELFORD) {
      float d = sa[i] - a;
      m2 = m2 + sm[i] + d * d * (n * i) / (i + 1);
      a = a + d / (i + 1);
    } else {
      a += sa[i];
      m2 += sm[i];
    }
  }
  float mean = (F & WELFORD) ? a : (F & ONEPASS) ? a / COLS : 0.f;
  float var = (F & WELFORD) ? m2 / COLS : (F & ONEPASS) ? m2 / COLS - mean * mean : m2 / COLS;
  float r = rsqrtf(var + 1e-5f);
  uint4 *out = y + (size_t)blockIdx.x * (COLS / 8);
#pragma unroll
  for (int k = 0; k < V; ++k) {
    float wf[8], bf[8];
    unpack((F & TOP) ? rw[k] : P == Nc ? __ldg(w + k * T + t) : w[k * T + t], wf);
    if (F & BIAS) unpack((F & TOP) ? rb[k] : P == Nc ? __ldg(bias + k * T + t) : bias[k * T + t], bf);
    float o[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) o[i] = (f[k][i] - mean) * r * wf[i] + ((F & BIAS) ? bf[i] : 0.f);
    out[k * T + t] = make_uint4(pack2(o[0], o[1]), pack2(o[2], o[3]), pack2(o[4], o[5]),
                                pack2(o[6], o[7]));
  }
}

