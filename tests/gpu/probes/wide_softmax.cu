// Where softmax bf16 [rows, 131072] loses its time. A hand-written kernel
// shaped like tilec's default for it: clusters of 8 CTAs of 256 threads a
// row, 64 values a thread, the (max, sum) pair combined through
// distributed shared memory, the exps made again past the reduction. The
// slice is kept in shared memory across the reduction, as
// `stream-shared=true` does; that ran at the default's speed in run s16b.
// Beside it, copies of the same shape: plain, with a CTA barrier between
// the loads and the stores, and with a cluster barrier there. Each comes
// one CTA a slice (one wave after another) and persistent (as many
// clusters as fit at once, each looping over rows). Two more softmax
// variants: persistent with the next row's slice copied ahead
// (SoftmaxPrefetch), and the first pass's exps kept as f32 so the second
// only scales them (SoftmaxKeepExp). Rows of each softmax are checked
// against a host softmax. A probe, not a tilec kernel (docs/perf.md,
// sixteenth session).
//
//   nvcc -arch=sm_90a -O3 -use_fast_math -o /tmp/wide_softmax wide_softmax.cu
#include "norm_probe.cuh"

#include <cmath>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int COLS = 131072, C = 8, T = 256, V = 8, WARPS = T / 32;
constexpr int SLICE = COLS / C / 8; // 16-byte vectors of a CTA's slice

enum Mode { Copy, CopySync, CopyCluster, Softmax, SoftmaxPrefetch, SoftmaxKeepExp };

__device__ __forceinline__ float2 combine(float2 a, float2 b) {
  float m = fmaxf(a.x, b.x);
  if (m == -INFINITY)
    return make_float2(m, 0.f);
  return make_float2(m, a.y * exp2f((a.x - m) * 1.4426950409f) +
                            b.y * exp2f((b.x - m) * 1.4426950409f));
}

// A 16-byte store the compiler keeps in place (nvcc sinks plain stores to
// the end, holding all 64 results: ptxas spilled at 64 registers).
__device__ __forceinline__ void store(uint4 *p, uint4 v) {
  asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
               "r"(v.w)
               : "memory");
}

template <int MODE, bool PERSISTENT>
__global__ void __launch_bounds__(T, MODE >= SoftmaxPrefetch ? 3 : 4)
    wide(const uint4 *__restrict__ x, uint4 *__restrict__ y, int rows) {
  const int t = threadIdx.x;
  int rank = blockIdx.x % C;
  if (MODE >= CopyCluster)
    rank = cg::this_cluster().block_rank();
  const int first = blockIdx.x / C, step = PERSISTENT ? gridDim.x / C : rows;
  __shared__ float2 warpPair[WARPS];
  __shared__ float2 ctaPair[2];
  // (Softmax: the CTA's slice waits here across the reduction, each thread
  // its own vectors, as tilec's stream-shared schedule.)
  __shared__ uint4 slice[MODE == Softmax ? V * T : 1];
  // (SoftmaxPrefetch, persistent: a ring of two such slices in dynamic
  // shared memory; the next row's slice is copied in with cp.async while
  // the CTA works on this one.)
  extern __shared__ uint4 ring[];
  auto prefetch = [&](int r, int stage) {
    if (r < rows) {
      const uint4 *src = x + (size_t)r * (COLS / 8) + rank * SLICE + t;
#pragma unroll
      for (int k = 0; k < V; ++k) {
        unsigned dst = (unsigned)__cvta_generic_to_shared(ring + stage * V * T + k * T + t);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src + k * T));
      }
    }
    asm volatile("cp.async.commit_group;");
  };
  if (MODE == SoftmaxPrefetch) prefetch(first, 0);
  int it = 0;
  for (int r = first; r < rows; r += step, ++it) {
    const size_t base = (size_t)r * (COLS / 8) + rank * SLICE + t;
    const uint4 *xp = x + base;
    uint4 *row = MODE == SoftmaxPrefetch ? ring + (it & 1) * V * T : slice;
    uint4 v[V];
    if (MODE == SoftmaxPrefetch) {
      prefetch(r + step, (it + 1) & 1);
      asm volatile("cp.async.wait_group 1;" ::: "memory");
    } else {
#pragma unroll
      for (int k = 0; k < V; ++k) v[k] = xp[k * T];
    }
    if (MODE == CopySync) __syncthreads();
    if (MODE == CopyCluster) cg::this_cluster().sync();
    if (MODE >= Softmax) {
      const bool inRegisters = MODE == Softmax || MODE == SoftmaxKeepExp;
      // (SoftmaxKeepExp: the exps of the first pass wait in dynamic shared
      // memory as f32, 64 KB a CTA, and the second pass only scales them.)
      float4 *exps = reinterpret_cast<float4 *>(ring);
      if (MODE == Softmax) {
#pragma unroll
        for (int k = 0; k < V; ++k) row[k * T + t] = v[k];
      }
      float m = -INFINITY;
#pragma unroll
      for (int k = 0; k < V; ++k) {
        float f[8];
        unpack(inRegisters ? v[k] : row[k * T + t], f);
#pragma unroll
        for (int i = 0; i < 8; ++i) m = fmaxf(m, f[i]);
      }
      // (Read the slice back: kept from the max's widening, its 64 values
      // would hold 64 registers.)
      asm volatile("" ::: "memory");
      const float ml = m * 1.4426950409f;
      float s = 0.f;
#pragma unroll
      for (int k = 0; k < V; ++k) {
        float f[8];
        unpack(MODE == SoftmaxKeepExp ? v[k] : row[k * T + t], f);
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          f[i] = exp2f(f[i] * 1.4426950409f - ml);
          s += f[i];
        }
        if (MODE == SoftmaxKeepExp) {
          exps[2 * k * T + t] = make_float4(f[0], f[1], f[2], f[3]);
          exps[(2 * k + 1) * T + t] = make_float4(f[4], f[5], f[6], f[7]);
        }
      }
      float2 p = make_float2(m, s);
#pragma unroll
      for (int o = 16; o >= 1; o >>= 1)
        p = combine(p, make_float2(__shfl_xor_sync(~0u, p.x, o), __shfl_xor_sync(~0u, p.y, o)));
      if ((t & 31) == 0) warpPair[t >> 5] = p;
      __syncthreads();
      if (t == 0) {
        float2 q = warpPair[0];
#pragma unroll
        for (int w = 1; w < WARPS; ++w) q = combine(q, warpPair[w]);
        ctaPair[it & 1] = q;
      }
      cg::cluster_group cluster = cg::this_cluster();
      cluster.sync();
      // (The max of the ranks' maxima first, then their rescaled sums.)
      float2 pairs[C];
#pragma unroll
      for (int c = 0; c < C; ++c) pairs[c] = *cluster.map_shared_rank(&ctaPair[it & 1], c);
      float2 q = make_float2(pairs[0].x, 0.f);
#pragma unroll
      for (int c = 1; c < C; ++c) q.x = fmaxf(q.x, pairs[c].x);
      const float qx = q.x == -INFINITY ? 0.f : q.x;
#pragma unroll
      for (int c = 0; c < C; ++c) q.y += pairs[c].y * exp2f((pairs[c].x - qx) * 1.4426950409f);
      const float mg = q.x * 1.4426950409f, inv = 1.f / q.y;
#pragma unroll
      for (int k = 0; k < V; ++k) {
        float e[8];
        if (MODE == SoftmaxKeepExp) {
          const float scale = exp2f(ml - mg) * inv;
          float4 a = exps[2 * k * T + t], b = exps[(2 * k + 1) * T + t];
          e[0] = a.x * scale; e[1] = a.y * scale; e[2] = a.z * scale; e[3] = a.w * scale;
          e[4] = b.x * scale; e[5] = b.y * scale; e[6] = b.z * scale; e[7] = b.w * scale;
        } else {
          unpack(row[k * T + t], e);
#pragma unroll
          for (int i = 0; i < 8; ++i) e[i] = exp2f(e[i] * 1.4426950409f - mg) * inv;
        }
        store(y + base + k * T, make_uint4(pack2(e[0], e[1]), pack2(e[2], e[3]),
                                           pack2(e[4], e[5]), pack2(e[6], e[7])));
      }
    } else {
#pragma unroll
      for (int k = 0; k < V; ++k) store(y + base + k * T, v[k]);
    }
  }
  // (No CTA leaves while the others may still read its pairs.)
  if (MODE >= Softmax) cg::this_cluster().sync();
}

template <int MODE, bool PERSISTENT>
float timeIt(Rows &d, int rows, int *grid) {
  auto kernel = wide<MODE, PERSISTENT>;
  cudaLaunchConfig_t config = {};
  config.blockDim = dim3(T);
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = C;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  bool cluster = MODE >= CopyCluster;
  config.attrs = cluster ? &attr : nullptr;
  config.numAttrs = cluster ? 1 : 0;
  config.gridDim = dim3(rows * C);
  if (MODE >= SoftmaxPrefetch) {
    config.dynamicSmemBytes = 2 * V * T * 16; // (two bf16 slices, or one slice's f32 exps)
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               (int)config.dynamicSmemBytes));
    // (The largest carveout: left to the driver, run s16e's kept exps ran
    // at half speed.)
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  }
  if (cluster) {
    int n = 0;
    CHECK(cudaOccupancyMaxActiveClusters(&n, kernel, &config));
    printf("  (%d clusters at once)\n", n);
  }
  if (PERSISTENT) {
    int n = 0;
    if (cluster) {
      config.gridDim = dim3(C * 64);
      CHECK(cudaOccupancyMaxActiveClusters(&n, kernel, &config));
      n *= C;
    } else {
      int perSM = 0;
      CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, kernel, T, 0));
      n = perSM * 132 / C * C;
    }
    config.gridDim = dim3(n);
  }
  *grid = config.gridDim.x;
  return medianUs([&](int call) {
    CHECK(cudaLaunchKernelEx(&config, kernel, (const uint4 *)d.xs[call % 4], d.ys[call % 4], rows));
  });
}

// Row r of the softmax probe's output against a host softmax of its input.
bool checkRow(Rows &d, int r) {
  std::vector<uint16_t> in(COLS), out(COLS);
  CHECK(cudaMemcpy(in.data(), (const char *)d.xs[0] + (size_t)r * COLS * 2, COLS * 2,
                   cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(out.data(), (const char *)d.ys[0] + (size_t)r * COLS * 2, COLS * 2,
                   cudaMemcpyDeviceToHost));
  auto f = [](uint16_t h) { uint32_t u = (uint32_t)h << 16; float v; memcpy(&v, &u, 4); return v; };
  double m = -INFINITY, s = 0;
  for (uint16_t h : in) m = std::max(m, (double)f(h));
  for (uint16_t h : in) s += std::exp(f(h) - m);
  double worst = 0;
  for (int i = 0; i < COLS; ++i) {
    double want = std::exp(f(in[i]) - m) / s;
    worst = std::max(worst, std::fabs(f(out[i]) - want) / want);
  }
  printf("  row %d: worst relative error %.3g\n", r, worst);
  return worst < 1e-2;
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
  for (int rows : {4096, 1024}) {
    Rows d(rows, COLS);
    double gb = 2.0 * d.bytes / 1e9;
    auto line = [&](const char *what, float us, int grid) {
      printf("%-40s %5d rows  grid %6d  %8.1f us  %6.0f GB/s\n", what, rows, grid, us, gb / us * 1e6);
    };
    int g;
    float us;
    us = timeIt<Copy, false>(d, rows, &g); line("copy, one CTA a slice", us, g);
    us = timeIt<CopySync, false>(d, rows, &g); line("copy, CTA barrier", us, g);
    us = timeIt<CopyCluster, false>(d, rows, &g); line("copy, cluster barrier", us, g);
    us = timeIt<Softmax, false>(d, rows, &g); line("softmax, clusters of 8", us, g);
    bool ok = checkRow(d, 0) && checkRow(d, rows - 1);
    us = timeIt<SoftmaxKeepExp, false>(d, rows, &g); line("softmax, clusters of 8, exps kept (f32)", us, g);
    ok = checkRow(d, 0) && checkRow(d, rows - 1) && ok;
    us = timeIt<Copy, true>(d, rows, &g); line("copy, persistent", us, g);
    us = timeIt<CopyCluster, true>(d, rows, &g); line("copy, cluster barrier, persistent", us, g);
    us = timeIt<Softmax, true>(d, rows, &g); line("softmax, clusters of 8, persistent", us, g);
    ok = checkRow(d, 0) && checkRow(d, rows - 1) && ok;
    us = timeIt<SoftmaxPrefetch, true>(d, rows, &g); line("softmax, persistent, next row prefetched", us, g);
    ok = checkRow(d, 0) && checkRow(d, rows - 1) && ok;
    if (!ok) { printf("softmax probe: WRONG\n"); return 1; }
  }
  return 0;
}
