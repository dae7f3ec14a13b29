// Optimized CPU kernels for Resize of float NCHW images, nearest and linear (bilinear), with
// scales or sizes known at plan time. Each output column and row is mapped to its input
// neighbours and weights once, by the reference kernel's formulas (coordinate transformation,
// nearest rounding, edge clamping); running gathers each output row, after blending the two
// input rows it reads (bilinear) in a vectorized loop. Cubic, antialias,
// tf_crop_and_resize, exclude_outside, axes and aspect-ratio policies go to the reference kernel.
#include "core/runtime/cpu/cpu_kernel.h"
#include "core/runtime/cpu/vector_math.h"
#include "core/runtime/reference/ref_util.h"

#include <algorithm>
#include <cmath>

namespace graphlens {
namespace {

struct ResizeMode {
    bool linear = false;
    std::string coordinates = "half_pixel";
    std::string nearest = "round_prefer_floor";
};

/// Per output coordinate of one axis: the two input neighbours and their weights (nearest: the
/// first neighbour with weight 1).
struct AxisMap {
    std::vector<int32_t> first, second;
    std::vector<float> firstWeight, secondWeight;
};

/// The input coordinate of output coordinate `x`, as the reference computes it.
std::optional<double> originalCoordinate(const std::string& mode, double x, double scale, int64_t in, int64_t out) {
    const double outWidth = scale * double(in);
    if (mode == "half_pixel") return (x + 0.5) / scale - 0.5;
    if (mode == "half_pixel_symmetric")
        return double(in) / 2.0 * (1.0 - double(out) / outWidth) + (x + 0.5) / scale - 0.5;
    if (mode == "pytorch_half_pixel") return outWidth == 1.0 ? -0.5 : (x + 0.5) / scale - 0.5;
    if (mode == "align_corners") return outWidth == 1.0 ? 0.0 : x * double(in - 1) / (outWidth - 1.0);
    if (mode == "asymmetric") return x / scale;
    if (mode == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
    return std::nullopt;
}

/// Whether nearest rounding picks the upper neighbour at `ratio` in (0, 1] past the lower one.
std::optional<bool> picksUpper(const std::string& mode, double ratio) {
    if (ratio == 1.0) return true;
    if (mode == "round_prefer_floor") return ratio > 0.5;
    if (mode == "round_prefer_ceil") return ratio >= 0.5;
    if (mode == "floor") return false;
    if (mode == "ceil") return true;
    return std::nullopt;
}

std::optional<AxisMap> mapAxis(const ResizeMode& m, int64_t in, int64_t out, double scale) {
    AxisMap map;
    auto clampIndex = [&](double i) { return int32_t(std::clamp<double>(i, 0.0, double(in - 1))); };
    for (int64_t x = 0; x < out; ++x) {
        const auto original = originalCoordinate(m.coordinates, double(x), scale, in, out);
        if (!original) return std::nullopt;
        const double base = std::ceil(*original) - 1.0;  // the lower neighbour; ratio in (0, 1]
        const double ratio = *original - base;
        if (m.linear) {
            const int32_t first = clampIndex(base), second = clampIndex(base + 1.0);
            const bool one = first == second;  // clamped at an edge: that value, exactly
            map.first.push_back(first);
            map.second.push_back(second);
            map.firstWeight.push_back(one ? 1.f : float(1.0 - ratio));
            map.secondWeight.push_back(one ? 0.f : float(ratio));
        } else {
            const auto upper = picksUpper(m.nearest, ratio);
            if (!upper) return std::nullopt;
            map.first.push_back(clampIndex(base + (*upper ? 1.0 : 0.0)));
        }
    }
    return map;
}

/// True when the map reads output coordinate x from input coordinate x alone.
bool isIdentity(const AxisMap& map, bool linear) {
    for (size_t x = 0; x < map.first.size(); ++x) {
        const bool firstOk = map.first[x] == int32_t(x) || (linear && map.firstWeight[x] == 0.f);
        const bool secondOk = !linear || map.second[x] == int32_t(x) || map.secondWeight[x] == 0.f;
        if (!firstOk || !secondOk) return false;
    }
    return true;
}

GRAPHLENS_VECTOR_CLONES
void nearestRow(const float* src, const int32_t* columns, float* dst, int64_t width) {
    for (int64_t x = 0; x < width; ++x) dst[x] = src[columns[x]];
}

/// The vertical step of bilinear interpolation: two input rows blended, along contiguous memory.
GRAPHLENS_VECTOR_CLONES
void blendRows(const float* top, const float* bottom, float topWeight, float bottomWeight, float* out, int64_t width) {
    for (int64_t x = 0; x < width; ++x) out[x] = top[x] * topWeight + bottom[x] * bottomWeight;
}

/// The horizontal step: each output column from its two neighbours in the blended row.
GRAPHLENS_VECTOR_CLONES
void interpolateRow(const float* row, const AxisMap& cols, float* dst, int64_t width) {
    const int32_t* c0 = cols.first.data();
    const int32_t* c1 = cols.second.data();
    const float* w0 = cols.firstWeight.data();
    const float* w1 = cols.secondWeight.data();
    for (int64_t x = 0; x < width; ++x) dst[x] = row[c0[x]] * w0[x] + row[c1[x]] * w1[x];
}

class Resize2dKernel final : public PreparedKernel {
public:
    Resize2dKernel(bool linear, int64_t planes, int64_t inH, int64_t inW, AxisMap rows, AxisMap cols)
        : linear_(linear), planes_(planes), inH_(inH), inW_(inW), rows_(std::move(rows)), cols_(std::move(cols)) {}
    std::string name() const override { return linear_ ? "cpu:resize-linear" : "cpu:resize-nearest"; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const float* x = in[0]->span<float>().data();
        float* y = out[0].mutableSpan<float>().data();
        const auto outH = int64_t(rows_.first.size()), outW = int64_t(cols_.first.size());
        const int64_t tasks = planes_ * outH;
#pragma omp parallel if (tasks * outW >= (1 << 15))
        {
            std::vector<float> blended(linear_ ? size_t(inW_) : 0);
#pragma omp for schedule(static)
            for (int64_t task = 0; task < tasks; ++task) {
                const auto oy = size_t(task % outH);
                const float* src = x + (task / outH) * inH_ * inW_;
                if (!linear_) {
                    nearestRow(src + rows_.first[oy] * inW_, cols_.first.data(), y + task * outW, outW);
                    continue;
                }
                interpolateRow(verticalRow(src, oy, blended.data()), cols_, y + task * outW, outW);
            }
        }
    }

private:
    /// The input row output row oy reads: blended into `buffer`, unless it is one exact row.
    const float* verticalRow(const float* plane, size_t oy, float* buffer) const {
        const float* top = plane + rows_.first[oy] * inW_;
        const float* bottom = plane + rows_.second[oy] * inW_;
        if (rows_.firstWeight[oy] == 0.f) return bottom;
        if (rows_.secondWeight[oy] == 0.f || top == bottom) return top;
        blendRows(top, bottom, rows_.firstWeight[oy], rows_.secondWeight[oy], buffer, inW_);
        return buffer;
    }
    bool linear_;
    int64_t planes_, inH_, inW_;
    AxisMap rows_, cols_;
};

/// The per-axis scales a Resize node states at plan time (from constant scales, or sizes over
/// the input's), and the output dims the reference derives from them; nullopt when unknown.
std::optional<std::vector<double>> constantScales(const NodeDescriptor& info, std::vector<int64_t>& outDims) {
    const auto& in = info.inputDims[0];
    const size_t scalesInput = info.opset >= 11 ? 2 : 1, sizesInput = 3;
    std::vector<double> scales;
    if (info.opset >= 11 && info.hasInput(sizesInput) && ref::elementCount(info.inputDims[sizesInput]) > 0) {
        if (!info.constants[sizesInput] || info.constants[sizesInput]->dtype() != DType::Int64) return std::nullopt;
        outDims = ref::toInt64s(*info.constants[sizesInput]);
        if (outDims.size() != in.size()) return std::nullopt;
        for (size_t d = 0; d < in.size(); ++d) scales.push_back(double(outDims[d]) / double(in[d]));
        return scales;
    }
    if (!info.hasInput(scalesInput) || !info.constants[scalesInput]) return std::nullopt;
    scales = info.constants[scalesInput]->toDoubles();
    if (scales.size() != in.size()) return std::nullopt;
    for (size_t d = 0; d < in.size(); ++d) {
        // The reference refuses what is not a size (NaN, infinite, over 1e12) and says why; the
        // kernel leaves such a node to it instead of converting it to an integer.
        const double size = scales[d] * double(in[d]);
        if (!(scales[d] > 0.0) || !(size <= 1e12)) return std::nullopt;
        outDims.push_back(int64_t(size));
    }
    return scales;
}

std::optional<ResizeMode> resizeMode(const NodeDescriptor& info) {
    const Attributes& a = info.attributes();
    const std::string mode = a.getString("mode", "nearest");
    if ((mode != "nearest" && mode != "linear") || a.getInt("exclude_outside", 0) != 0 ||
        a.getInt("antialias", 0) != 0 || a.has("axes") || a.getString("keep_aspect_ratio_policy", "stretch") != "stretch")
        return std::nullopt;
    ResizeMode m;
    m.linear = mode == "linear";
    if (info.opset < 11) {  // Resize-10: asymmetric coordinates, nearest rounds down
        m.coordinates = "asymmetric";
        m.nearest = "floor";
    } else {
        m.coordinates = a.getString("coordinate_transformation_mode", "half_pixel");
        m.nearest = a.getString("nearest_mode", "round_prefer_floor");
    }
    return m;
}

std::unique_ptr<PreparedKernel> prepareResize(const NodeDescriptor& info) {
    if (info.inputTypes.empty() || info.inputTypes[0] != DType::Float || info.outputTypes.size() != 1) return nullptr;
    const auto& in = info.inputDims[0];
    if (in.size() != 4 || ref::elementCount(in) == 0) return nullptr;
    const auto mode = resizeMode(info);
    std::vector<int64_t> outDims;
    const auto scales = constantScales(info, outDims);
    if (!mode || !scales || outDims != info.outputDims[0] || ref::elementCount(outDims) == 0) return nullptr;
    std::vector<AxisMap> maps;
    for (size_t d = 0; d < 4; ++d) {
        auto map = mapAxis(*mode, in[d], outDims[d], (*scales)[d]);
        if (!map) return nullptr;
        maps.push_back(std::move(*map));
    }
    if (!isIdentity(maps[0], mode->linear) || !isIdentity(maps[1], mode->linear)) return nullptr;  // N, C resized
    return std::make_unique<Resize2dKernel>(mode->linear, in[0] * in[1], in[2], in[3], std::move(maps[2]),
                                            std::move(maps[3]));
}

} // namespace

void registerCpuResizeKernels(CpuKernelRegistry& registry) { registry.add("Resize", prepareResize); }

} // namespace graphlens
