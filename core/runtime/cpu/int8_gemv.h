// One-row int8 products on machines whose oneDNN int8 products saturate (no VNNI: AVX2, or
// AVX-512 without VNNI). A classifier's last layer (QGemm of one image's features) and a
// single token's projection multiply one row of codes by a constant weight matrix; oneDNN
// runs them there as a general u8 x s8 GEMM that packs the weights on every call and sums
// pairs of products into saturating 16-bit lanes. This kernel keeps the weights packed one
// output per row, widens both operands to 16 bits and sums with vpmaddwd into 32-bit lanes:
// the sums are exact (|A - a_zero| <= 255, |w - w_zero| <= 128, depth at most 32768), so its
// outputs equal the reference kernels' on every input, and it reads each weight once per run.
#pragma once

#include "core/graph/dtype.h"
#include "core/runtime/kernel.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace graphlens::onednn {

/// A [1, k] x [k, n] product of int8 codes with constant weights, as the int8 kernels read it.
struct Int8Gemv {
    int64_t k = 0, n = 0;
    bool transB = false;  ///< `weights` stored [n, k] (else [k, n])
    DType a = DType::UInt8;
    DType y = DType::Int32;  ///< Int32 (the sums), Float (sums x scale) or UInt8/Int8 (requantized)
    int32_t aZero = 0, yZero = 0;
    std::vector<float> scales;    ///< one or n (empty for an Int32 output)
    std::vector<int8_t> weights;  ///< w - w_zero
    std::vector<int32_t> bias;    ///< empty, or n sums added before scaling
};

/// Whether this kernel should run one-row products here: the machine has AVX2 and oneDNN's
/// int8 products saturate (its effective instruction set has no VNNI).
bool int8GemvWanted();

/// The kernel named `name` for `product` on `threads` threads, or nullptr where it does not
/// apply (depth over 32768, an output type it does not write, scales of the wrong count).
std::unique_ptr<PreparedKernel> prepareInt8Gemv(std::string name, Int8Gemv product, int threads);

} // namespace graphlens::onednn
