// The cases of tst_kernel_registry_diff: for every op a kernel registry serves, one or more one-node
// graphs on generated inputs, run through the optimized kernel and through the reference kernel.
// Adding an op to a registry (cpu_kernel.h's CpuKernelRegistry, vulkan/ops.h's VulkanOpRegistry)
// means adding its rows to kCases() in kernel_diff_cases.cpp; the test fails naming any registered
// op without one.
//
// One row per case:
//
//   {"Op" | "com.microsoft:Op", {inputs...}, {attributes...}}   then optional modifiers:
//       .tol(kFloat | kExact | kSums | Tol{rtol, atol, "why"})   default kFloat (exact where every
//                                                                output is an integer or bool)
//       .vulkanTol(Tol)           where the shader computes in another way (say why in the Tol)
//       .cpu("cpu:kernel-name")   the CPU kernel the case must get (ops with several factories)
//       .only(Target::Cpu | Target::Vulkan)   the case tests one backend's path only
//       .opset(N) / .outputs(N)   default opset 17, one output
//   Integer cases run on both backends (typed.comp and the layout copies take any integer type);
//   those that say .only(Target::Cpu) name the shader's limit (64-bit and uint32 integer math runs
//   in typed64.comp, exact over 64 bits, where the device has shaderInt64).
//   Inputs: f32(dims) uniform in [-1, 1); f32(dims, lo, hi); ints(type, dims, lo, hi) inclusive;
//   bools(dims); values(tensor) fixed data; konst(input) makes any of them an initializer (a
//   constant the kernel may pack at prepare time); i64s({...}) and f32s({...}) are constant 1-D
//   fixed tensors (shapes, axes, pads, scales); none() an omitted optional input. Non-constant
//   inputs are fed at run time.
//
// A case runs on every backend that registers its op unless it says .only(); the backend must take
// it (a declined case fails: choose one its fast kernel takes). Each op gets several shapes where
// its kernel has distinct paths (odd sizes, broadcasts, blocked-sized channels, sizes past the
// threading thresholds, strides/pads/groups for Conv), values where naive formulas lose precision,
// and rows without attributes, which pin down each backend's defaults. Tolerances: exact for data
// movement, comparisons and integers; kFloat (1e-5 relative + 1e-6 absolute) for float math;
// kSums for outputs that are sums of many terms, whose rounding error follows the terms'
// magnitude, not the result's. Anything looser says why in its row.
#pragma once

#include "core/graph/attribute.h"
#include "core/graph/tensor.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace graphlens::testing {

using Dims = std::vector<int64_t>;

// ---- the table's vocabulary ---------------------------------------------------------------------

/// How one input of a case is made.
struct In {
    DType type = DType::Float;
    Dims dims;
    double lo = -1, hi = 1;        ///< uniform range; inclusive integers for integer types
    bool constant = false;         ///< an initializer rather than a fed input
    std::optional<Tensor> fixed;   ///< given data instead of random values
    bool omitted = false;
};

inline In randomInput(DType type, Dims dims, double lo, double hi) {
    In in;
    in.type = type;
    in.dims = std::move(dims);
    in.lo = lo;
    in.hi = hi;
    return in;
}
inline In f32(Dims dims, double lo = -1, double hi = 1) { return randomInput(DType::Float, std::move(dims), lo, hi); }
inline In ints(DType type, Dims dims, int64_t lo, int64_t hi) { return randomInput(type, std::move(dims), double(lo), double(hi)); }
inline In bools(Dims dims) { return randomInput(DType::Bool, std::move(dims), 0, 1); }
inline In values(Tensor t) {
    In in = randomInput(t.dtype(), t.dims(), 0, 0);
    in.fixed = std::move(t);
    return in;
}
inline In konst(In in) {
    in.constant = true;
    return in;
}
inline In i64s(std::vector<int64_t> v) { return konst(values(Tensor::int64s({int64_t(v.size())}, v))); }
inline In f32s(std::vector<float> v) { return konst(values(Tensor::floats({int64_t(v.size())}, v))); }
inline In none() {
    In in;
    in.omitted = true;
    return in;
}

/// Outputs agree when every element is within atol + rtol * |expected|.
struct Tol {
    double rtol = 0, atol = 0;
    const char* why = nullptr;
};
constexpr Tol kExact{0, 0};
constexpr Tol kFloat{1e-5, 1e-6};
/// Sums of up to a few hundred products of values in [-1, 1], accumulated in another order by the
/// optimized kernel (oneDNN blocks K, Winograd transforms): the error follows sqrt(K) times the
/// terms' size, so outputs near zero need this absolute slack.
constexpr Tol kSums{1e-5, 2e-5, "sums of many terms in another order"};
/// Winograd F(4x4, 3x3) (Vulkan's 3x3 stride-1 Conv on CPU devices) transforms the input and the
/// weights with coefficients up to 10 before the sum: its rounding error is near 1e-5 of the
/// largest terms, not of each output (as kWinogradAtol in tst_vulkan_backend).
constexpr Tol kWinograd{1e-4, 2e-4, "Winograd transforms"};

enum class Target { Both, Cpu, Vulkan };

struct Case {
    std::string key;  ///< "Op" or "com.microsoft:Op"
    std::vector<In> inputs;
    Attributes attributes;
    std::optional<Tol> tolerance;  ///< nullopt: kExact for integer/bool outputs, else kFloat
    std::optional<Tol> vulkanTolerance;  ///< where the shader computes differently (nullopt: `tolerance`)
    std::string cpuKernel;         ///< the CPU kernel it must get ("" any)
    Target backend = Target::Both;
    int64_t opsetVersion = 17;
    int outputCount = 1;
    bool bothProductKernels = false;  ///< Vulkan: run on shared-memory tiles and on texel tiles

    Case(std::string k, std::vector<In> in, Attributes a = {}) : key(std::move(k)), inputs(std::move(in)), attributes(std::move(a)) {}
    Case tol(Tol t) && { tolerance = t; return std::move(*this); }
    Case vulkanTol(Tol t) && { vulkanTolerance = t; return std::move(*this); }
    Case cpu(std::string kernel) && { cpuKernel = std::move(kernel); return std::move(*this); }
    Case only(Target b) && { backend = b; return std::move(*this); }
    Case opset(int64_t v) && { opsetVersion = v; return std::move(*this); }
    Case outputs(int n) && { outputCount = n; return std::move(*this); }

    std::string domain() const { auto c = key.find(':'); return c == std::string::npos ? "" : key.substr(0, c); }
    std::string op() const { auto c = key.find(':'); return c == std::string::npos ? key : key.substr(c + 1); }
    bool runsOn(Target b) const { return backend == Target::Both || backend == b; }
};

/// Every case, built once: the rows are in kernel_diff_cases.cpp.
const std::vector<Case>& kCases();

} // namespace graphlens::testing
