// How many thread-block clusters of each size fit the GPU at once, one CTA
// an SM (dynamic shared memory past half an SM's forces one): the driver's
// own count (cudaOccupancyMaxActiveClusters), for the row scheduler's table
// of cluster slots (passes/lib/ScheduleRowKernels.cpp). A probe, not a
// tilec kernel: the kernel body is empty.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void probe() {}

int main() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  int smem = 120 * 1024;
  cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaFuncSetAttribute(probe, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
  for (int threads : {512, 1024}) {
    for (int c = 1; c <= 16; ++c) {
      cudaLaunchConfig_t config = {};
      config.gridDim = dim3(c * 16);
      config.blockDim = dim3(threads);
      config.dynamicSmemBytes = smem;
      cudaLaunchAttribute attr;
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim.x = c;
      attr.val.clusterDim.y = 1;
      attr.val.clusterDim.z = 1;
      config.attrs = &attr;
      config.numAttrs = 1;
      int n = 0;
      cudaError_t e = cudaOccupancyMaxActiveClusters(&n, probe, &config);
      printf("threads %d cluster %2d: %3d clusters at once, %3d CTAs (%s)\n", threads, c, n,
             n * c, cudaGetErrorString(e));
    }
  }
  return 0;
}
