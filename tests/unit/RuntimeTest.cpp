// Unit tests of the CUDA driver layer that need no GPU: the missing-driver
// errors, the loader's symbol checks and KernelArgs packing.
#include "tilec/runtime/Cuda.h"

#include "../../runtime/lib/DriverLoader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>

using namespace tilec;
using namespace tilec::rt;

namespace {

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// The driver's error on a machine without libcuda, or a skip when a driver
/// is present (the GPU tests cover that case).
#define EXPECT_NO_DRIVER_OR_SKIP(driverStatus)                                 \
  do {                                                                         \
    if ((driverStatus).ok() ||                                                 \
        !contains((driverStatus).message(), "no CUDA driver"))                 \
      GTEST_SKIP() << "libcuda.so.1 loaded here ("                             \
                   << ((driverStatus).ok() ? std::string("driver ok")          \
                                           : (driverStatus).message())         \
                   << "); the no-driver paths cannot be tested";               \
  } while (false)

const char *const tinyPtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry noop() { ret; }
)";

} // namespace

TEST(RuntimeTest, InitDriverReportsMissingDriver) {
  Status status = initDriver();
  EXPECT_NO_DRIVER_OR_SKIP(status);
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(contains(status.message(), "no CUDA driver: libcuda.so.1"))
      << status.message();
  EXPECT_TRUE(contains(status.message(), "GPU execution is unavailable"))
      << status.message();
}

TEST(RuntimeTest, InitDriverIsCachedAndThreadSafe) {
  Status first = initDriver();
  std::vector<std::string> messages(8);
  std::vector<bool> oks(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < messages.size(); ++i)
    threads.emplace_back([&, i] {
      Status status = initDriver();
      oks[i] = status.ok();
      messages[i] = status.message();
    });
  for (std::thread &thread : threads)
    thread.join();
  for (size_t i = 0; i < messages.size(); ++i) {
    EXPECT_EQ(oks[i], first.ok());
    EXPECT_EQ(messages[i], first.message());
  }
}

TEST(RuntimeTest, EntryPointsReturnTheDriverError) {
  Status driver = initDriver();
  EXPECT_NO_DRIVER_OR_SKIP(driver);

  auto ctx = Context::create(0);
  ASSERT_FALSE(ctx.ok());
  EXPECT_EQ(ctx.message(), driver.message());
  EXPECT_EQ(Context::create(-1).message(), driver.message());

  // Without a context every other factory still reports the driver, which
  // is the root cause, rather than the missing context.
  auto buffer = DeviceBuffer::allocate(nullptr, 1024);
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.message(), driver.message());
  EXPECT_EQ(DeviceBuffer::allocate(nullptr, 0).message(), driver.message());

  auto module = Module::loadPTX(nullptr, tinyPtx);
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.message(), driver.message());

  auto stream = Stream::create(nullptr);
  ASSERT_FALSE(stream.ok());
  EXPECT_EQ(stream.message(), driver.message());

  auto event = Event::create(nullptr);
  ASSERT_FALSE(event.ok());
  EXPECT_EQ(event.message(), driver.message());
}

TEST(RuntimeTest, EmptyObjectsFailCleanly) {
  DeviceBuffer buffer;
  EXPECT_EQ(buffer.size(), 0u);
  EXPECT_EQ(buffer.devicePtr(), 0u);
  char bytes[4] = {};
  Status tooBig = buffer.copyFromHost(bytes, sizeof bytes);
  EXPECT_FALSE(tooBig.ok());
  EXPECT_TRUE(contains(tooBig.message(), "4 bytes")) << tooBig.message();
  EXPECT_FALSE(buffer.copyToHost(bytes, sizeof bytes).ok());
  EXPECT_TRUE(buffer.copyFromHost(bytes, 0).ok());
  EXPECT_TRUE(buffer.fill(0xFF).ok());

  DeviceBuffer moved(std::move(buffer));
  EXPECT_EQ(moved.size(), 0u);
  buffer = std::move(moved);
  EXPECT_EQ(buffer.size(), 0u);

  Module module;
  auto kernel = module.kernel("noop");
  ASSERT_FALSE(kernel.ok());
  EXPECT_TRUE(contains(kernel.message(), "'noop'")) << kernel.message();
}

TEST(RuntimeTest, KernelArgsPacksEachArgumentInItsOwnSlot) {
  KernelArgs args;
  EXPECT_EQ(args.count(), 0u);
  EXPECT_TRUE(args.pointers().empty());

  const uint64_t ptr = 0x7f0012345678ull;
  args.addPointer(ptr);
  args.addI64(-1234567890123ll);
  args.addI32(-42);
  args.addI32(7);
  ASSERT_EQ(args.count(), 4u);

  std::vector<void *> pointers = args.pointers();
  ASSERT_EQ(pointers.size(), 4u);
  for (void *p : pointers)
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 8, 0u) << "misaligned slot";
  // Distinct, increasing slots: one 8-byte slot per argument.
  for (size_t i = 1; i < pointers.size(); ++i)
    EXPECT_EQ(static_cast<char *>(pointers[i]) -
                  static_cast<char *>(pointers[i - 1]),
              8);

  uint64_t gotPtr;
  int64_t gotI64;
  int32_t gotI32a, gotI32b;
  std::memcpy(&gotPtr, pointers[0], sizeof gotPtr);
  std::memcpy(&gotI64, pointers[1], sizeof gotI64);
  std::memcpy(&gotI32a, pointers[2], sizeof gotI32a);
  std::memcpy(&gotI32b, pointers[3], sizeof gotI32b);
  EXPECT_EQ(gotPtr, ptr);
  EXPECT_EQ(gotI64, -1234567890123ll);
  EXPECT_EQ(gotI32a, -42);
  EXPECT_EQ(gotI32b, 7);

  // Earlier values survive the storage growing (pointers are re-taken).
  for (int i = 0; i < 100; ++i)
    args.addI32(i);
  pointers = args.pointers();
  ASSERT_EQ(args.count(), 104u);
  std::memcpy(&gotPtr, pointers[0], sizeof gotPtr);
  EXPECT_EQ(gotPtr, ptr);
  int32_t last;
  std::memcpy(&last, pointers[103], sizeof last);
  EXPECT_EQ(last, 99);
}

TEST(RuntimeTest, KernelArgsCarriesATensorMapByValue) {
  TensorMap map;
  for (int i = 0; i < 16; ++i)
    map.words[i] = 0x0101010101010101ull * static_cast<uint64_t>(i + 1);
  KernelArgs args;
  args.addPointer(0x1000);
  args.addBytes(&map, sizeof map);
  args.addI64(-5);
  ASSERT_EQ(args.count(), 3u);
  std::vector<void *> pointers = args.pointers();
  // The 128 bytes travel whole, in 16 slots of their own.
  EXPECT_EQ(std::memcmp(pointers[1], map.words, sizeof map), 0);
  EXPECT_EQ(static_cast<char *>(pointers[2]) - static_cast<char *>(pointers[1]), 128);
  int64_t last;
  std::memcpy(&last, pointers[2], sizeof last);
  EXPECT_EQ(last, -5);
}

TEST(RuntimeTest, TensorMapChecksItsShapeBeforeTheDriver) {
  TensorMap map;
  Status s = encodeTensorMap(map, TensorMapElement::BF16, 0x10000, {}, {});
  EXPECT_TRUE(contains(s.message(), "1 to 5 dims")) << s.message();
  s = encodeTensorMap(map, TensorMapElement::BF16, 0x10000, {128, 64}, {64});
  EXPECT_TRUE(contains(s.message(), "box of the same rank")) << s.message();
  EXPECT_TRUE(contains(s.message(), "tensor [128, 64] in boxes of [64]")) << s.message();
  s = encodeTensorMap(map, TensorMapElement::F16, 0x10000, {0, 64}, {128, 64});
  EXPECT_TRUE(contains(s.message(), "positive dims")) << s.message();
  s = encodeTensorMap(map, TensorMapElement::F32, 0x10000, {512, 64}, {512, 64});
  EXPECT_TRUE(contains(s.message(), "at most 256")) << s.message();
  // A valid description gets as far as the driver: here its absence.
  s = encodeTensorMap(map, TensorMapElement::BF16, 0x10000, {128, 64}, {128, 64});
  EXPECT_NO_DRIVER_OR_SKIP(s);
  EXPECT_TRUE(contains(s.message(), "no CUDA driver")) << s.message();
}

TEST(RuntimeTest, LoaderReportsUnloadableLibrary) {
  detail::DriverApi api;
  Status status = detail::loadDriverFrom("libtilec-no-such-driver.so.1", api);
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(contains(status.message(),
                       "no CUDA driver: libtilec-no-such-driver.so.1 could "
                       "not be loaded ("))
      << status.message();
  EXPECT_EQ(api.handle, nullptr);
  EXPECT_EQ(api.cuInit, nullptr);
}

TEST(RuntimeTest, LoaderNamesMissingSymbol) {
  // libc loads everywhere and exports no driver entry point, so the first
  // symbol looked up is the one reported.
  detail::DriverApi api;
  Status status = detail::loadDriverFrom("libc.so.6", api);
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(contains(status.message(),
                       "unusable CUDA driver: libc.so.6 has no symbol "
                       "'cuGetErrorName'"))
      << status.message();
  EXPECT_EQ(api.handle, nullptr);
  EXPECT_EQ(api.cuGetErrorName, nullptr);
}
