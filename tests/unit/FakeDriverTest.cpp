// The runtime and Executable::run against a stand-in CUDA driver
// (tests/fakecuda: libcuda.so.1 found through LD_LIBRARY_PATH, which ctest
// sets for this binary only): what tilec hands the driver at a launch
// (kernel, grid, block, dependent launch, the memref descriptors of its
// buffers), and how the driver's failures come back (out of memory, a PTX
// JIT error with the driver's log, a failed launch, a kernel fault),
// tested on machines without a GPU, CI among them.
#include "tilec/compiler/Executable.h"

#include <gtest/gtest.h>

#include <cstring>
#include <dlfcn.h>

using namespace tilec;

namespace {

/// The fake driver's test entry points, from the copy the runtime loaded.
struct Fake {
  int (*launchCount)() = nullptr;
  bool (*launch)(int, const char **, unsigned *, unsigned *, unsigned *, int *, int *) = nullptr;
  const uint8_t *(*param)(int, int, size_t *) = nullptr;
  void (*fail)(const char *, int, const char *) = nullptr;
  void (*clearLaunches)() = nullptr;
  bool ok = false;

  static Fake &get() {
    static Fake fake = [] {
      Fake f;
      if (!rt::initDriver().ok())
        return f;
      void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
      if (!h)
        return f;
      f.launchCount = reinterpret_cast<int (*)()>(dlsym(h, "tilecFakeLaunchCount"));
      f.launch = reinterpret_cast<decltype(f.launch)>(dlsym(h, "tilecFakeLaunch"));
      f.param = reinterpret_cast<decltype(f.param)>(dlsym(h, "tilecFakeLaunchParam"));
      f.fail = reinterpret_cast<decltype(f.fail)>(dlsym(h, "tilecFakeFail"));
      f.clearLaunches = reinterpret_cast<void (*)()>(dlsym(h, "tilecFakeClearLaunches"));
      f.ok = f.launchCount && f.launch && f.param && f.fail && f.clearLaunches;
      return f;
    }();
    return fake;
  }

  /// Parameter p of launch i as a 64-bit integer (its bytes checked).
  uint64_t u64(int i, int p) const {
    size_t bytes = 0;
    const uint8_t *data = param(i, p, &bytes);
    EXPECT_TRUE(data) << "parameter " << p;
    if (!data)
      return ~uint64_t(0);
    EXPECT_EQ(bytes, 8u) << "parameter " << p;
    uint64_t v = 0;
    std::memcpy(&v, data, std::min<size_t>(bytes, 8));
    return v;
  }
};

#define REQUIRE_FAKE()                                                                             \
  if (!Fake::get().ok)                                                                             \
  GTEST_SKIP() << "the fake driver is not the libcuda.so.1 loaded here (run through ctest, "      \
                  "which sets LD_LIBRARY_PATH)"

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

struct Device {
  std::shared_ptr<rt::Context> ctx;
  std::unique_ptr<rt::Stream> stream;
};

Device openDevice() {
  auto ctx = rt::Context::create(0);
  EXPECT_TRUE(ctx.ok()) << ctx.message();
  auto stream = rt::Stream::create(*ctx);
  EXPECT_TRUE(stream.ok()) << stream.message();
  return {*ctx, stream.take()};
}

} // namespace

TEST(FakeDriverTest, ContextReadsTheDevice) {
  REQUIRE_FAKE();
  Device s = openDevice();
  EXPECT_EQ(s.ctx->info().smCount, 132);
  EXPECT_EQ(s.ctx->info().computeMajor, 9);
  EXPECT_TRUE(contains(s.ctx->info().name, "fake"));
}

// One rms_norm kernel: its launch is the plan's (grid, block, dependent
// launch), and its parameters are the memref descriptors of x, w and y
// (allocated pointer, aligned pointer, offset, sizes, strides) in the
// plan's buffer order.
TEST(FakeDriverTest, RunHandsTheDriverThePlansLaunch) {
  REQUIRE_FAKE();
  Device s = openDevice();
  const int64_t rows = 300, cols = 4096;
  Graph g("rms_norm_fake");
  Tensor x = g.input("x", {rows, cols}, DType::BF16);
  Tensor w = g.input("w", {cols}, DType::BF16);
  g.output(nn::rms_norm(x, w, 1e-6));
  auto exe = Executable::compile(g, s.ctx);
  ASSERT_TRUE(exe.ok()) << exe.message();
  ASSERT_EQ((*exe)->kernelCount(), 1u);
  const KernelLaunchPlan &plan = (*exe)->program().launches[0];

  auto xb = rt::DeviceBuffer::allocate(s.ctx, rows * cols * 2);
  auto wb = rt::DeviceBuffer::allocate(s.ctx, cols * 2);
  auto yb = rt::DeviceBuffer::allocate(s.ctx, rows * cols * 2);
  ASSERT_TRUE(xb.ok() && wb.ok() && yb.ok());
  Fake &f = Fake::get();
  f.clearLaunches();
  for (int call = 0; call < 3; ++call) {
    Status st = (*exe)->run({&*xb, &*wb}, {&*yb}, *s.stream);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  ASSERT_EQ(f.launchCount(), 3);

  const char *kernel = nullptr;
  unsigned grid[3], block[3], shared;
  int dependent, params;
  ASSERT_TRUE(f.launch(2, &kernel, grid, block, &shared, &dependent, &params));
  EXPECT_EQ(std::string(kernel), plan.name);
  EXPECT_EQ(grid[0], static_cast<unsigned>(plan.gridSize()));
  EXPECT_EQ(grid[1], 1u);
  EXPECT_EQ(block[0], static_cast<unsigned>(plan.blockSize()));
  EXPECT_EQ(shared, static_cast<unsigned>(plan.sharedBytes));
  EXPECT_EQ(dependent, plan.dependentLaunch ? 1 : 0);
  // Rows buffers take 7 parameters, a shared vector 5.
  int expected = 0;
  for (const KernelBuffer &b : plan.buffers) {
    ASSERT_TRUE(b.kind == KernelBuffer::Kind::Rows || b.kind == KernelBuffer::Kind::SharedVector);
    expected += b.kind == KernelBuffer::Kind::Rows ? 7 : 5;
  }
  ASSERT_EQ(params, expected);
  int p = 0;
  for (const KernelBuffer &b : plan.buffers) {
    const ProgramValue &v = (*exe)->program().values[b.value];
    const rt::DeviceBuffer &buffer = v.kind == ProgramValue::Kind::Output ? *yb
                                     : v.index == 0                       ? *xb
                                                                          : *wb;
    EXPECT_EQ(f.u64(2, p), buffer.devicePtr()) << "buffer " << b.value;
    EXPECT_EQ(f.u64(2, p + 1), buffer.devicePtr());
    EXPECT_EQ(f.u64(2, p + 2), 0u);
    if (b.kind == KernelBuffer::Kind::Rows) {
      EXPECT_EQ(f.u64(2, p + 3), static_cast<uint64_t>(rows));
      EXPECT_EQ(f.u64(2, p + 4), static_cast<uint64_t>(cols));
      EXPECT_EQ(f.u64(2, p + 5), static_cast<uint64_t>(cols));
      EXPECT_EQ(f.u64(2, p + 6), 1u);
      p += 7;
    } else {
      EXPECT_EQ(f.u64(2, p + 3), static_cast<uint64_t>(cols));
      EXPECT_EQ(f.u64(2, p + 4), 1u);
      p += 5;
    }
  }
}

TEST(FakeDriverTest, OutOfMemoryIsAnError) {
  REQUIRE_FAKE();
  Device s = openDevice();
  Fake::get().fail("cuMemAlloc_v2", 2, nullptr);
  auto buffer = rt::DeviceBuffer::allocate(s.ctx, 1 << 20);
  Fake::get().fail("cuMemAlloc_v2", 0, nullptr);
  ASSERT_FALSE(buffer.ok());
  EXPECT_TRUE(contains(buffer.message(), "cuMemAlloc(1048576 bytes) failed"))
      << buffer.message();
  EXPECT_TRUE(contains(buffer.message(), "CUDA_ERROR_OUT_OF_MEMORY")) << buffer.message();
}

TEST(FakeDriverTest, PtxJitFailureCarriesTheDriversLog) {
  REQUIRE_FAKE();
  Device s = openDevice();
  Graph g("softmax_jit_fails");
  Tensor x = g.input("x", {7, 333}, DType::F32);
  g.output(nn::softmax(x));
  Fake::get().fail("cuModuleLoadDataEx", 218, "ptxas fatal   : the fake driver's log line");
  auto exe = Executable::compile(g, s.ctx);
  Fake::get().fail("cuModuleLoadDataEx", 0, "");
  ASSERT_FALSE(exe.ok());
  EXPECT_TRUE(contains(exe.message(), "PTX JIT failed: CUDA_ERROR_INVALID_PTX")) << exe.message();
  EXPECT_TRUE(contains(exe.message(), "the fake driver's log line")) << exe.message();
  // The failure is not cached: the same graph compiles once the driver
  // takes its PTX.
  auto again = Executable::compile(g, s.ctx);
  EXPECT_TRUE(again.ok()) << again.message();
}

TEST(FakeDriverTest, FailedLaunchNamesTheKernelAndItsGrid) {
  REQUIRE_FAKE();
  Device s = openDevice();
  Graph g("add_launch_fails");
  Tensor a = g.input("a", {64, 256}, DType::F32);
  Tensor b = g.input("b", {64, 256}, DType::F32);
  g.output(a + b);
  auto exe = Executable::compile(g, s.ctx);
  ASSERT_TRUE(exe.ok()) << exe.message();
  auto ab = rt::DeviceBuffer::allocate(s.ctx, 64 * 256 * 4);
  auto bb = rt::DeviceBuffer::allocate(s.ctx, 64 * 256 * 4);
  auto yb = rt::DeviceBuffer::allocate(s.ctx, 64 * 256 * 4);
  ASSERT_TRUE(ab.ok() && bb.ok() && yb.ok());
  for (const char *fn : {"cuLaunchKernelEx", "cuLaunchKernel"})
    Fake::get().fail(fn, 701, nullptr);
  Status st = (*exe)->run({&*ab, &*bb}, {&*yb}, *s.stream);
  for (const char *fn : {"cuLaunchKernelEx", "cuLaunchKernel"})
    Fake::get().fail(fn, 0, nullptr);
  ASSERT_FALSE(st.ok());
  const KernelLaunchPlan &plan = (*exe)->program().launches[0];
  EXPECT_TRUE(contains(st.message(), "('" + plan.name + "', grid (" +
                                         std::to_string(plan.gridSize()) + ", 1, 1), block (" +
                                         std::to_string(plan.blockSize()) + ", 1, 1)"))
      << st.message();
  EXPECT_TRUE(contains(st.message(), "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES")) << st.message();
}

TEST(FakeDriverTest, KernelFaultSaysTheContextIsLost) {
  REQUIRE_FAKE();
  Device s = openDevice();
  Fake::get().fail("cuStreamSynchronize", 700, nullptr);
  Status st = s.stream->synchronize();
  Fake::get().fail("cuStreamSynchronize", 0, nullptr);
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(contains(st.message(), "CUDA_ERROR_ILLEGAL_ADDRESS")) << st.message();
  EXPECT_TRUE(contains(st.message(), "the CUDA context cannot be used again")) << st.message();
}

// A program of several kernels, a TMA GEMM among them (sm_90 on the stand-in
// device): every kernel launches once a run, in the plan's order, with the
// plan's grid and dependent launch; every parameter has the bytes its PTX
// declares (the tensor maps 128, by value), and the last parameters of a
// TMA kernel are its maps.
TEST(FakeDriverTest, EveryKernelOfAProgramLaunchesInOrder) {
  REQUIRE_FAKE();
  Device s = openDevice();
  const int64_t tokens = 256, hidden = 512, out = 1024;
  Graph g("norm_linear_softmax_fake");
  Tensor x = g.input("x", {tokens, hidden}, DType::BF16);
  Tensor nw = g.input("nw", {hidden}, DType::BF16);
  Tensor w = g.input("w", {out, hidden}, DType::BF16);
  g.output(nn::softmax(nn::linear(nn::rms_norm(x, nw, 1e-6), w)));
  auto exe = Executable::compile(g, s.ctx);
  ASSERT_TRUE(exe.ok()) << exe.message();
  const CompiledProgram &p = (*exe)->program();
  ASSERT_GE(p.launches.size(), 2u);
  bool anyTma = false;
  for (const KernelLaunchPlan &plan : p.launches)
    anyTma |= !plan.tensorMaps.empty();
  EXPECT_TRUE(anyTma) << "no TMA GEMM kernel on sm_90";

  std::vector<rt::DeviceBuffer> ins, outs;
  for (size_t bytes : {tokens * hidden * 2, hidden * 2, out * hidden * 2}) {
    auto b = rt::DeviceBuffer::allocate(s.ctx, bytes);
    ASSERT_TRUE(b.ok()) << b.message();
    ins.push_back(b.take());
  }
  auto y = rt::DeviceBuffer::allocate(s.ctx, tokens * out * 2);
  ASSERT_TRUE(y.ok());
  Fake &f = Fake::get();
  f.clearLaunches();
  Status st = (*exe)->run({&ins[0], &ins[1], &ins[2]}, {&*y}, *s.stream);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_EQ(f.launchCount(), static_cast<int>(p.launches.size()));
  for (size_t k = 0; k < p.launches.size(); ++k) {
    const KernelLaunchPlan &plan = p.launches[k];
    const char *kernel = nullptr;
    unsigned grid[3], block[3], shared;
    int dependent, params;
    ASSERT_TRUE(f.launch(static_cast<int>(k), &kernel, grid, block, &shared, &dependent, &params));
    EXPECT_EQ(std::string(kernel), plan.name) << "launch " << k;
    EXPECT_LE(grid[0], static_cast<unsigned>(plan.gridSize())) << plan.name;
    EXPECT_EQ(block[0], static_cast<unsigned>(plan.blockSize())) << plan.name;
    EXPECT_EQ(dependent, plan.dependentLaunch ? 1 : 0) << plan.name;
    // The maps are the last parameters, 128 bytes each; the rest 8 bytes.
    int maps = static_cast<int>(plan.tensorMaps.size());
    for (int q = 0; q < params; ++q) {
      size_t bytes = 0;
      ASSERT_TRUE(f.param(static_cast<int>(k), q, &bytes));
      EXPECT_EQ(bytes, q >= params - maps ? 128u : 8u) << plan.name << " parameter " << q;
    }
  }
}
