// Host tensors and the bit-exact float <-> f16/bf16 conversions used by the
// reference evaluator, the runtime's copies and the tests.
#include "tilec/HostTensor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace tilec {

namespace {

uint32_t floatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

float bitsFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

} // namespace

uint16_t floatToBF16(float value) {
  uint32_t bits = floatBits(value);
  // Rounding a NaN could carry into the exponent and produce inf, so keep the
  // top mantissa bits and force the quiet bit instead.
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  // Round to nearest even: add 0x7FFF plus the lowest kept bit; a carry out of
  // the mantissa correctly bumps the exponent (up to inf on overflow).
  uint32_t lsb = (bits >> 16) & 1u;
  bits += 0x7FFFu + lsb;
  return static_cast<uint16_t>(bits >> 16);
}

float bf16ToFloat(uint16_t bits) {
  return bitsFloat(static_cast<uint32_t>(bits) << 16);
}

uint16_t floatToHalf(float value) {
  uint32_t bits = floatBits(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t abs = bits & 0x7FFFFFFFu;

  if (abs > 0x7F800000u) // NaN: keep payload bits, force quiet.
    return static_cast<uint16_t>(sign | 0x7E00u | ((abs >> 13) & 0x3FFu));
  if (abs >= 0x47800000u) // >= 2^16 (or inf): beyond any rounding to 65504.
    return static_cast<uint16_t>(sign | 0x7C00u);

  if (abs >= 0x38800000u) {
    // Normal half range [2^-14, 2^16): rebias exponent (127 -> 15) and round
    // off the 13 low mantissa bits; a carry may overflow into inf, which is
    // exactly the IEEE result for values >= 65520.
    uint32_t result = (abs >> 13) - (112u << 10);
    uint32_t rem = abs & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (result & 1u)))
      ++result;
    return static_cast<uint16_t>(sign | result);
  }

  // Subnormal half (unit 2^-24). Values <= 2^-25 round to zero: 2^-25 itself
  // is the tie between 0 and 2^-24 and goes to the even side (0).
  if (abs <= 0x33000000u)
    return sign;
  uint32_t exponent = abs >> 23;
  uint32_t mantissa = (abs & 0x7FFFFFu) | 0x800000u;
  // value = mantissa * 2^(exponent - 150); in units of 2^-24 that is
  // mantissa * 2^(exponent - 126), i.e. a right shift by 126 - exponent.
  uint32_t shift = 126u - exponent;
  uint32_t result = mantissa >> shift;
  uint32_t rem = mantissa & ((1u << shift) - 1u);
  uint32_t half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (result & 1u)))
    ++result; // May become 0x400, the smallest normal: still correct.
  return static_cast<uint16_t>(sign | result);
}

float halfToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1Fu;
  uint32_t mantissa = bits & 0x3FFu;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in float.
    float v = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -v : v;
  }
  if (exponent == 31)
    return bitsFloat(sign | 0x7F800000u | (mantissa << 13));
  return bitsFloat(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

float roundTo(DType dtype, float value) {
  switch (dtype) {
  case DType::F32:
    return value;
  case DType::F16:
    return halfToFloat(floatToHalf(value));
  case DType::BF16:
    return bf16ToFloat(floatToBF16(value));
  }
  return value;
}

HostTensor::HostTensor(Shape shapeIn, DType dtypeIn)
    : shape(std::move(shapeIn)), dtype(dtypeIn) {
  values.assign(static_cast<size_t>(numElements(shape)), 0.0f);
}

std::vector<uint8_t> HostTensor::toBytes() const {
  std::vector<uint8_t> bytes(byteSize());
  uint8_t *out = bytes.data();
  // Explicit little-endian packing so the layout does not depend on the host.
  for (float v : values) {
    if (dtype == DType::F32) {
      uint32_t b = floatBits(v);
      for (int i = 0; i < 4; ++i)
        *out++ = static_cast<uint8_t>(b >> (8 * i));
    } else {
      uint16_t b = dtype == DType::F16 ? floatToHalf(v) : floatToBF16(v);
      *out++ = static_cast<uint8_t>(b);
      *out++ = static_cast<uint8_t>(b >> 8);
    }
  }
  return bytes;
}

HostTensor HostTensor::fromBytes(Shape shape, DType dtype, const void *data) {
  HostTensor t(std::move(shape), dtype);
  const uint8_t *in = static_cast<const uint8_t *>(data);
  for (float &v : t.values) {
    if (dtype == DType::F32) {
      uint32_t b = 0;
      for (int i = 0; i < 4; ++i)
        b |= static_cast<uint32_t>(*in++) << (8 * i);
      v = bitsFloat(b);
    } else {
      uint16_t b = static_cast<uint16_t>(in[0] | (in[1] << 8));
      in += 2;
      v = dtype == DType::F16 ? halfToFloat(b) : bf16ToFloat(b);
    }
  }
  return t;
}

HostTensor causalMask(int64_t sq, int64_t sk, DType dtype) {
  if (sq < 1 || sk < sq)
    throw Error("causalMask: need 1 <= sq <= sk, got sq " + std::to_string(sq) + ", sk " +
                std::to_string(sk));
  HostTensor t({sq, sk}, dtype);
  for (int64_t i = 0; i < sq; ++i)
    for (int64_t j = i + (sk - sq) + 1; j < sk; ++j)
      t.values[i * sk + j] = -INFINITY;
  return t;
}

HostTensor HostTensor::random(Shape shape, DType dtype, uint64_t seed,
                              float lo, float hi) {
  HostTensor t(std::move(shape), dtype);
  std::mt19937_64 gen(seed);
  // Build the uniform value from raw engine bits rather than
  // std::uniform_real_distribution, whose algorithm differs between standard
  // libraries; this keeps test data identical everywhere for a seed.
  for (float &v : t.values) {
    double u = static_cast<double>(gen() >> 11) * 0x1.0p-53; // [0, 1)
    float x = static_cast<float>(lo + (static_cast<double>(hi) - lo) * u);
    if (x >= hi) // The float conversion may round up onto hi.
      x = std::nextafter(hi, lo);
    v = roundTo(dtype, x);
  }
  return t;
}

double relativeError(const HostTensor &got, const HostTensor &ref, double floor) {
  const double inf = std::numeric_limits<double>::infinity();
  if (got.shape != ref.shape || got.values.size() != ref.values.size())
    return inf;
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.values.size(); ++i) {
    double g = got.values[i], r = ref.values[i];
    if (!std::isfinite(r)) {
      // A non-finite reference only matches the same non-finite value.
      if ((std::isnan(r) && std::isnan(g)) || g == r)
        continue;
      return inf;
    }
    if (!std::isfinite(g))
      return inf;
    num += (g - r) * (g - r);
    den += r * r;
  }
  double scale =
      std::max(std::sqrt(den), floor * std::sqrt(static_cast<double>(ref.values.size())));
  if (scale == 0)
    return num == 0 ? 0.0 : inf;
  return std::sqrt(num) / scale;
}

} // namespace tilec
