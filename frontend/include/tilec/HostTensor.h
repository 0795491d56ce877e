// Host-side tensors and the float <-> f16/bf16 conversions shared by the
// reference evaluator, the runtime's copies and the tests.
#pragma once

#include "tilec/Graph.h"

#include <cstdint>
#include <vector>

namespace tilec {

uint16_t floatToBF16(float value); // round to nearest even; NaN stays NaN
float bf16ToFloat(uint16_t bits);
uint16_t floatToHalf(float value); // round to nearest even; overflow -> inf
float halfToFloat(uint16_t bits);
/// The nearest value representable in dtype.
float roundTo(DType dtype, float value);

/// A dense row-major tensor on the host. Values are stored as float and are
/// always representable in `dtype`.
struct HostTensor {
  Shape shape;
  DType dtype = DType::F32;
  std::vector<float> values;

  HostTensor() = default;
  HostTensor(Shape shape, DType dtype); // zero-filled
  int64_t numel() const { return static_cast<int64_t>(values.size()); }
  size_t byteSize() const { return values.size() * dtypeBytes(dtype); }

  /// Packed in dtype (f32, or 16-bit f16/bf16), ready to copy to a device.
  std::vector<uint8_t> toBytes() const;
  static HostTensor fromBytes(Shape shape, DType dtype, const void *data);
  /// Uniform in [lo, hi), rounded to dtype; deterministic for a seed.
  static HostTensor random(Shape shape, DType dtype, uint64_t seed,
                           float lo = -1.0f, float hi = 1.0f);
};

/// The causal mask of nn::attention for sq queries over sk keys, [sq, sk]:
/// query i sees keys j <= i + (sk - sq) (0), not the later ones (-inf), so
/// the last query sees every key (the queries are the last sq positions, as
/// with a KV cache; sk >= sq gives every query a key).
HostTensor causalMask(int64_t sq, int64_t sk, DType dtype = DType::F32);

/// ||got - ref||_2 / ||ref||_2 in double; +inf if shapes differ or got has a
/// NaN/inf where ref is finite (a non-finite ref matches only itself). 0
/// when both are all zeros. `floor` > 0: ||ref||_2 is taken as at least
/// floor * sqrt(n), i.e. floor a value (RMS), so that a reference of
/// (nearly) zeros is compared at that scale instead of its own.
double relativeError(const HostTensor &got, const HostTensor &ref, double floor = 0);

} // namespace tilec
