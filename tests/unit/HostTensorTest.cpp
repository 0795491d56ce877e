// Unit tests for the f16/bf16 conversions, HostTensor packing and random
// data, and relativeError.
#include "tilec/HostTensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace tilec;

namespace {

float bitsFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

} // namespace

TEST(HostTensorTest, BF16RoundTripRepresentable) {
  // Values with at most 8 significant bits are exact in bf16.
  for (float v : {0.0f, 1.0f, -2.0f, 0.5f, 3.140625f, 65280.0f, 1.0f / 128,
                  0x1.fep+100f, -0x1.02p-100f})
    EXPECT_EQ(bf16ToFloat(floatToBF16(v)), v) << v;
  // Every bf16 bit pattern (except NaNs) must survive float and back.
  for (uint32_t b = 0; b < 0x10000; ++b) {
    float f = bf16ToFloat(static_cast<uint16_t>(b));
    if (std::isnan(f))
      continue;
    EXPECT_EQ(floatToBF16(f), b);
  }
  EXPECT_EQ(floatToBF16(1.0f), 0x3F80);
  EXPECT_EQ(floatToBF16(-2.0f), 0xC000);
  EXPECT_EQ(std::signbit(bf16ToFloat(floatToBF16(-0.0f))), true);
}

TEST(HostTensorTest, BF16RoundsToNearestEven) {
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to the even (1.0).
  EXPECT_EQ(bf16ToFloat(floatToBF16(1.0f + 0x1.0p-8f)), 1.0f);
  // 1 + 3*2^-8 is halfway between 1+2^-7 (odd) and 1+2^-6 (even): rounds up.
  EXPECT_EQ(bf16ToFloat(floatToBF16(1.0f + 3 * 0x1.0p-8f)), 1.0f + 0x1.0p-6f);
  // Just above the tie rounds up; just below rounds down.
  EXPECT_EQ(bf16ToFloat(floatToBF16(1.0f + 0x1.0p-8f + 0x1.0p-20f)),
            1.0f + 0x1.0p-7f);
  EXPECT_EQ(bf16ToFloat(floatToBF16(1.0f + 0x1.0p-8f - 0x1.0p-20f)), 1.0f);
  EXPECT_EQ(roundTo(DType::BF16, 3.1415926f), 3.140625f);
  EXPECT_EQ(roundTo(DType::F32, 3.1415926f), 3.1415926f);
}

TEST(HostTensorTest, BF16SpecialValues) {
  EXPECT_EQ(floatToBF16(kInf), 0x7F80);
  EXPECT_EQ(floatToBF16(-kInf), 0xFF80);
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBF16(kNaN))));
  // A signalling NaN whose payload lives only in the low 16 bits would turn
  // into inf if truncated/rounded naively.
  float snan = bitsFloat(0x7F800001u);
  ASSERT_TRUE(std::isnan(snan));
  uint16_t b = floatToBF16(snan);
  EXPECT_TRUE(std::isnan(bf16ToFloat(b)));
  EXPECT_NE(b & 0x0040, 0); // quiet bit set
  // The largest float rounds up past bf16's max finite value to inf.
  EXPECT_EQ(floatToBF16(std::numeric_limits<float>::max()), 0x7F80);
}

TEST(HostTensorTest, HalfRoundTripAndEncoding) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToHalf(0.0f), 0x0000);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(halfToFloat(0x3555), 0x1.554p-2f); // ~1/3
  // Every non-NaN half pattern round-trips exactly.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = halfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f))
      continue;
    EXPECT_EQ(floatToHalf(f), h) << std::hex << h;
  }
}

TEST(HostTensorTest, HalfRoundsToNearestEven) {
  // Half has 10 mantissa bits: 1 + 2^-11 is the tie between 1 and 1 + 2^-10.
  EXPECT_EQ(halfToFloat(floatToHalf(1.0f + 0x1.0p-11f)), 1.0f);
  EXPECT_EQ(halfToFloat(floatToHalf(1.0f + 3 * 0x1.0p-11f)), 1.0f + 0x1.0p-9f);
  EXPECT_EQ(halfToFloat(floatToHalf(1.0f + 0x1.0p-11f + 0x1.0p-20f)),
            1.0f + 0x1.0p-10f);
  EXPECT_EQ(roundTo(DType::F16, 0.1f), 0x1.998p-4f);
}

TEST(HostTensorTest, HalfOverflowAndSpecials) {
  EXPECT_EQ(floatToHalf(65519.0f), 0x7BFF); // below the tie: stays finite
  EXPECT_EQ(floatToHalf(65520.0f), 0x7C00); // tie with odd max: to inf
  EXPECT_EQ(floatToHalf(1e6f), 0x7C00);
  EXPECT_EQ(floatToHalf(-1e6f), 0xFC00);
  EXPECT_EQ(floatToHalf(kInf), 0x7C00);
  EXPECT_EQ(halfToFloat(0x7C00), kInf);
  EXPECT_EQ(halfToFloat(0xFC00), -kInf);
  uint16_t n = floatToHalf(kNaN);
  EXPECT_EQ(n & 0x7C00, 0x7C00);
  EXPECT_NE(n & 0x03FF, 0);
  EXPECT_TRUE(std::isnan(halfToFloat(n)));
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(bitsFloat(0x7F800001u)))));
}

TEST(HostTensorTest, HalfSubnormals) {
  const float tiny = 0x1.0p-24f; // smallest half subnormal
  EXPECT_EQ(floatToHalf(tiny), 0x0001);
  EXPECT_EQ(halfToFloat(0x0001), tiny);
  EXPECT_EQ(halfToFloat(0x03FF), 1023 * tiny); // largest subnormal
  EXPECT_EQ(floatToHalf(0x1.0p-14f), 0x0400);  // smallest normal
  EXPECT_EQ(floatToHalf(5 * tiny), 0x0005);
  // 2^-25 is the tie between 0 and 2^-24: goes to even (0).
  EXPECT_EQ(floatToHalf(0x1.0p-25f), 0x0000);
  EXPECT_EQ(floatToHalf(-0x1.0p-25f), 0x8000);
  // Slightly above the tie rounds up to the smallest subnormal.
  EXPECT_EQ(floatToHalf(0x1.2p-25f), 0x0001);
  // 1.5 units is a tie between 1 (odd) and 2 (even): to 2; 2.5 -> 2.
  EXPECT_EQ(floatToHalf(1.5f * tiny), 0x0002);
  EXPECT_EQ(floatToHalf(2.5f * tiny), 0x0002);
  EXPECT_EQ(floatToHalf(3.5f * tiny), 0x0004);
  // The largest subnormal plus half a unit rounds up into the normal range.
  EXPECT_EQ(floatToHalf(1023.5f * tiny), 0x0400);
  EXPECT_EQ(floatToHalf(1e-10f), 0x0000);
}

TEST(HostTensorTest, ConstructionAndBytesRoundTrip) {
  HostTensor z({2, 3}, DType::BF16);
  EXPECT_EQ(z.numel(), 6);
  EXPECT_EQ(z.byteSize(), 12u);
  for (float v : z.values)
    EXPECT_EQ(v, 0.0f);
  HostTensor s({}, DType::F32);
  EXPECT_EQ(s.numel(), 1);

  HostTensor f({3}, DType::F32);
  f.values = {1.0f, -2.5f, 3.1415926f};
  std::vector<uint8_t> fb = f.toBytes();
  ASSERT_EQ(fb.size(), 12u);
  // 1.0f = 0x3F800000, little-endian.
  EXPECT_EQ(fb[0], 0x00);
  EXPECT_EQ(fb[1], 0x00);
  EXPECT_EQ(fb[2], 0x80);
  EXPECT_EQ(fb[3], 0x3F);
  HostTensor f2 = HostTensor::fromBytes({3}, DType::F32, fb.data());
  EXPECT_EQ(f2.values, f.values);
  EXPECT_EQ(f2.shape, f.shape);
  EXPECT_EQ(f2.dtype, DType::F32);

  for (DType d : {DType::F16, DType::BF16}) {
    HostTensor t = HostTensor::random({4, 5}, d, 7, -3.0f, 3.0f);
    std::vector<uint8_t> bytes = t.toBytes();
    ASSERT_EQ(bytes.size(), 40u);
    HostTensor back = HostTensor::fromBytes({4, 5}, d, bytes.data());
    EXPECT_EQ(back.values, t.values) << dtypeName(d);
    EXPECT_EQ(back.dtype, d);
  }
  HostTensor h({1}, DType::F16);
  h.values = {1.0f};
  std::vector<uint8_t> hb = h.toBytes();
  ASSERT_EQ(hb.size(), 2u);
  EXPECT_EQ(hb[0], 0x00);
  EXPECT_EQ(hb[1], 0x3C);
  HostTensor b({1}, DType::BF16);
  b.values = {-2.0f};
  std::vector<uint8_t> bb = b.toBytes();
  EXPECT_EQ(bb[0], 0x00);
  EXPECT_EQ(bb[1], 0xC0);
}

TEST(HostTensorTest, RandomIsDeterministicAndInRange) {
  HostTensor a = HostTensor::random({64, 33}, DType::F32, 42);
  HostTensor b = HostTensor::random({64, 33}, DType::F32, 42);
  HostTensor c = HostTensor::random({64, 33}, DType::F32, 43);
  EXPECT_EQ(a.values, b.values);
  EXPECT_NE(a.values, c.values);
  int zeros = 0, negatives = 0;
  double sum = 0;
  for (float v : a.values) {
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 1.0f);
    zeros += v == 0.0f;
    negatives += v < 0.0f;
    sum += v;
  }
  EXPECT_LT(zeros, 5);
  // Roughly uniform on [-1, 1): about half negative, mean near 0.
  EXPECT_GT(negatives, 900);
  EXPECT_LT(negatives, 1212);
  EXPECT_LT(std::fabs(sum / a.numel()), 0.1);

  HostTensor r = HostTensor::random({1000}, DType::BF16, 1, 2.0f, 5.0f);
  for (float v : r.values) {
    EXPECT_GE(v, 2.0f);
    EXPECT_LE(v, 5.0f);
    EXPECT_EQ(roundTo(DType::BF16, v), v); // representable in bf16
  }
}

TEST(HostTensorTest, RelativeError) {
  HostTensor ref({2, 2}, DType::F32);
  ref.values = {3.0f, 0.0f, 0.0f, 4.0f}; // ||ref|| = 5
  HostTensor got = ref;
  EXPECT_EQ(relativeError(got, ref), 0.0);
  got.values = {3.0f, 1.0f, 0.0f, 4.0f}; // ||diff|| = 1
  EXPECT_NEAR(relativeError(got, ref), 0.2, 1e-12);
  got.values = {0.0f, 0.0f, 0.0f, 0.0f};
  EXPECT_NEAR(relativeError(got, ref), 1.0, 1e-12);
  got.values = {3.0f, kNaN, 0.0f, 4.0f};
  EXPECT_TRUE(std::isinf(relativeError(got, ref)));
  got.values = {3.0f, kInf, 0.0f, 4.0f};
  EXPECT_TRUE(std::isinf(relativeError(got, ref)));
  HostTensor other({4}, DType::F32);
  other.values = ref.values;
  EXPECT_TRUE(std::isinf(relativeError(other, ref))); // shape differs
  HostTensor zeros({3}, DType::F32);
  EXPECT_EQ(relativeError(zeros, zeros), 0.0);
  // A floor: ||ref|| taken as at least floor * sqrt(n). Against zeros a
  // small difference is small at that scale; a large reference is
  // unaffected.
  HostTensor tiny({4}, DType::F32);
  tiny.values = {2e-3f, 0.0f, 0.0f, 0.0f}; // ||diff|| = 2e-3
  HostTensor zero4({4}, DType::F32);
  EXPECT_TRUE(std::isinf(relativeError(tiny, zero4)));
  EXPECT_NEAR(relativeError(tiny, zero4, 1e-2), 0.1, 1e-7); // (2e-3 as a float)
  got.values = {3.0f, 1.0f, 0.0f, 4.0f};
  EXPECT_NEAR(relativeError(got, ref, 1e-2), 0.2, 1e-12);
}
