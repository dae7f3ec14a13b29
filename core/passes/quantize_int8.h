// Symmetric per-channel int8 weights, shared by quantize-int8-weights and quantize-int8:
//   scale_k = max|W_k| / 127,   q = clamp(round(W / scale_k), -127, 127),   W' = q * scale_k
#pragma once

#include "core/graph/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace graphlens {

/// The squared-error bookkeeping of one or more quantized tensors.
struct WeightError {
    double maxAbs = 0, sumSquaredError = 0, sumSquared = 0;
    int64_t bytesBefore = 0, bytesAfter = 0;
    double relative() const { return sumSquared > 0 ? std::sqrt(sumSquaredError / sumSquared) : 0; }
    void add(const WeightError& e) {
        maxAbs = std::max(maxAbs, e.maxAbs);
        sumSquaredError += e.sumSquaredError;
        sumSquared += e.sumSquared;
        bytesBefore += e.bytesBefore;
        bytesAfter += e.bytesAfter;
    }
};

struct QuantizedWeight {
    Tensor q;      ///< int8, W's shape
    Tensor scale;  ///< float, one per channel
    Tensor zeroPoint;  ///< int8 zeros, one per channel
    WeightError error;
};

/// Symmetric per-channel int8 quantization of the float tensor `w` along `axis` with codes in
/// [-levels, levels]: scale_k = max|W_k| / levels (127; 63 for 7-bit weights that int8 products
/// without VNNI cannot saturate, see int8ProductsSaturate). An all-zero channel gets scale 1 and
/// stays exactly zero.
QuantizedWeight quantizePerChannel(const Tensor& w, int64_t axis, int levels = 127);

} // namespace graphlens
