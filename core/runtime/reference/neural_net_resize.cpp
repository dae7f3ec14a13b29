// Reference kernels for Resize (every mode and coordinate transformation, opset 10 to 13 inputs)
// and the older Upsample. Follows ONNX's numpy reference: each output coordinate maps to an
// input coordinate per axis, then nearest/linear/cubic weights combine the neighbours.
#include "core/runtime/reference/neural_net_internal.h"
#include "core/runtime/reference/resize_plan.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace graphlens::nn {
namespace {

struct ResizeSettings {
    std::string mode = "nearest";
    std::string coordinateMode = "half_pixel";
    std::string nearestMode = "round_prefer_floor";
    double cubicA = -0.75;
    bool excludeOutside = false;
    double extrapolation = 0.0;
};

/// The input coordinate of output coordinate `x` (ONNX's coordinate_transformation_mode).
double originalCoordinate(const ResizeSettings& s, double x, double scale, int64_t in, int64_t out,
                          double roiStart, double roiEnd) {
    const double outWidth = scale * double(in);  // as the reference: not rounded
    const std::string& m = s.coordinateMode;
    if (m == "half_pixel") return (x + 0.5) / scale - 0.5;
    if (m == "half_pixel_symmetric") {
        const double center = double(in) / 2.0, adjustment = double(out) / outWidth;
        return center * (1.0 - adjustment) + (x + 0.5) / scale - 0.5;
    }
    if (m == "pytorch_half_pixel") return outWidth == 1.0 ? -0.5 : (x + 0.5) / scale - 0.5;
    if (m == "align_corners") return outWidth == 1.0 ? 0.0 : x * double(in - 1) / (outWidth - 1.0);
    if (m == "asymmetric") return x / scale;
    if (m == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
    if (m == "tf_crop_and_resize") {
        const double span = (roiEnd - roiStart) * double(in - 1);
        return roiStart * double(in - 1) + (outWidth == 1.0 ? span / 2.0 : x * span / (outWidth - 1.0));
    }
    throw KernelError("coordinate_transformation_mode '" + m + "' is not supported");
}

/// Weights of the neighbours base-1 .. base+2 (cubic) or base .. base+1, where ratio is the
/// distance from base in (0, 1].
std::vector<double> coefficients(const ResizeSettings& s, double ratio) {
    if (s.mode == "linear") return {1.0 - ratio, ratio};
    if (s.mode == "cubic") {
        const double a = s.cubicA, r = ratio, q = 1.0 - ratio;
        return {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a, ((a + 2) * r - (a + 3)) * r * r + 1,
                ((a + 2) * q - (a + 3)) * q * q + 1, ((a * (q + 1) - 5 * a) * (q + 1) + 8 * a) * (q + 1) - 4 * a};
    }
    if (s.mode != "nearest") throw KernelError("mode '" + s.mode + "' is not one of nearest, linear, cubic");
    if (ratio == 1.0) return {0.0, 1.0};
    const std::string& n = s.nearestMode;
    if (n == "round_prefer_floor") return {double(ratio <= 0.5), double(ratio > 0.5)};
    if (n == "round_prefer_ceil") return {double(ratio < 0.5), double(ratio >= 0.5)};
    if (n == "floor") return {1.0, 0.0};
    if (n == "ceil") return {0.0, 1.0};
    throw KernelError("nearest_mode '" + n + "' is not supported");
}

ResizeAxis axisTaps(const ResizeSettings& s, int64_t in, int64_t out, double scale, double roiStart, double roiEnd) {
    ResizeAxis result{std::vector<std::vector<std::pair<int64_t, double>>>(size_t(out)), std::vector<bool>(size_t(out))};
    for (int64_t x = 0; x < out; ++x) {
        const double original = originalCoordinate(s, double(x), scale, in, out, roiStart, roiEnd);
        if (s.coordinateMode == "tf_crop_and_resize" && (original < 0 || original > double(in - 1))) {
            result.outside[size_t(x)] = true;
            continue;
        }
        const double base = std::ceil(original) - 1.0;  // ratio in (0, 1]
        std::vector<double> weights = coefficients(s, original - base);
        const int64_t n = int64_t(weights.size()), pad = (n + 1) / 2;
        // The reference takes the n nearest positions of the edge-padded axis.
        const int64_t first = std::clamp<int64_t>(int64_t(base) - (n / 2 - 1), -pad, in + pad - n);
        if (s.excludeOutside) {
            double total = 0.0;
            for (int64_t i = 0; i < n; ++i)
                total += (weights[size_t(i)] *= double(first + i >= 0 && first + i < in));
            for (double& w : weights) w /= total;
        }
        for (int64_t i = 0; i < n; ++i)
            if (weights[size_t(i)] != 0.0)
                result.taps[size_t(x)].emplace_back(std::clamp<int64_t>(first + i, 0, in - 1), weights[size_t(i)]);
    }
    return result;
}

/// Each output element: the weighted sum over the product of its per-axis neighbours.
std::vector<double> interpolate(const std::vector<double>& x, const std::vector<int64_t>& inDims,
                                const std::vector<int64_t>& outDims, const std::vector<ResizeAxis>& axes,
                                double extrapolation) {
    const size_t rank = inDims.size();
    const auto inStrides = ref::stridesOf(inDims);
    const auto outPositions = allPositions(outDims);
    std::vector<double> y(outPositions.size() / std::max<size_t>(rank, 1));
    std::vector<size_t> pick(rank);
    for (size_t o = 0; o < y.size(); ++o) {
        const int64_t* at = outPositions.data() + o * rank;
        bool outside = false, empty = false;
        for (size_t d = 0; d < rank; ++d) {
            outside = outside || axes[d].outside[size_t(at[d])];
            empty = empty || axes[d].taps[size_t(at[d])].empty();
        }
        if (outside || empty) {
            y[o] = outside ? extrapolation : 0.0;
            continue;
        }
        std::fill(pick.begin(), pick.end(), 0);
        double sum = 0.0;
        for (bool more = true; more;) {
            double weight = 1.0;
            int64_t offset = 0;
            for (size_t d = 0; d < rank; ++d) {
                const auto& [index, w] = axes[d].taps[size_t(at[d])][pick[d]];
                weight *= w;
                offset += index * inStrides[d];
            }
            sum += weight * x[size_t(offset)];
            more = false;
            for (size_t d = rank; d-- > 0 && !more;) {
                more = ++pick[d] < axes[d].taps[size_t(at[d])].size();
                if (!more) pick[d] = 0;
            }
        }
        y[o] = sum;
    }
    return y;
}

/// The per-axis taps of resizing `inDims` to `outDims` with the per-axis scales; roi holds starts
/// then ends (may be empty).
ResizePlan planOf(const ResizeSettings& s, const std::vector<int64_t>& inDims, const std::vector<int64_t>& outDims,
                  const std::vector<double>& scales, const std::vector<double>& roi) {
    const size_t rank = inDims.size();
    ResizePlan plan{outDims, {}, s.extrapolation};
    for (size_t d = 0; d < rank; ++d) {
        if (scales[d] <= 0.0) throw KernelError("scales must be positive");
        if (inDims[d] == 0 && outDims[d] > 0) throw KernelError("cannot resize an empty axis to a non-empty one");
        const double start = roi.size() == 2 * rank ? roi[d] : 0.0, end = roi.size() == 2 * rank ? roi[rank + d] : 1.0;
        plan.axes.push_back(axisTaps(s, inDims[d], outDims[d], scales[d], start, end));
    }
    return plan;
}

void interpolateWith(KernelContext& ctx, const ResizePlan& plan) {
    const Tensor& x = ctx.input(0);
    const auto y = interpolate(doublesOf(x), x.dims(), plan.outDims, plan.axes, plan.extrapolation);
    ctx.setOutput(0, tensorOfDoubles(x.dtype(), plan.outDims, y));
}

/// The node's inputs as the plan functions take them.
std::vector<const Tensor*> inputsOf(KernelContext& ctx) {
    std::vector<const Tensor*> inputs;
    for (size_t i = 0; i < ctx.inputCount(); ++i) inputs.push_back(ctx.hasInput(i) ? &ctx.input(i) : nullptr);
    return inputs;
}

/// Output dims from scales: floor(scale * size), as the reference does.
std::vector<int64_t> scaledDims(const std::vector<int64_t>& in, const std::vector<double>& scales) {
    if (scales.size() != in.size())
        throw KernelError("there are " + std::to_string(scales.size()) + " scales for rank " + std::to_string(in.size()));
    std::vector<int64_t> out(in.size());
    for (size_t d = 0; d < in.size(); ++d) {
        const double size = scales[d] * double(in[d]);
        if (!(size >= 0.0) || size > 1e12) {
            std::ostringstream why;
            why << "its scale " << scales[d] << " for axis " << d << " (of size " << in[d] << ") gives an output size of "
                << size << ", which is not a size from 0 to 1e12";
            throw KernelError(why.str());
        }
        out[d] = int64_t(size);
    }
    return out;
}

/// Opset 18's axes: the axes that scales, sizes and roi refer to (every axis when absent).
std::vector<int64_t> resizeAxes(const Attributes& a, size_t rank) {
    std::vector<int64_t> axes = a.getInts("axes");
    if (axes.empty())
        for (size_t d = 0; d < rank; ++d) axes.push_back(int64_t(d));
    std::vector<bool> seen(rank, false);
    for (int64_t& axis : axes) {
        axis = ref::normalizeAxis(axis, int64_t(rank));
        if (seen[size_t(axis)]) throw KernelError("axes repeats the axis " + std::to_string(axis));
        seen[size_t(axis)] = true;
    }
    return axes;
}

/// Values given for `axes` spread over every axis; the others keep `all`'s value.
std::vector<double> overAxes(std::vector<double> all, const std::vector<int64_t>& axes,
                             const std::vector<double>& given, const char* what) {
    if (given.size() != axes.size())
        throw KernelError(std::string(what) + " has " + std::to_string(given.size()) + " values for " +
                          std::to_string(axes.size()) + " axes");
    for (size_t i = 0; i < axes.size(); ++i) all[size_t(axes[i])] = given[i];
    return all;
}

/// Output sizes and scales from the sizes input, with keep_aspect_ratio_policy.
void sizesToScales(const Attributes& a, const std::vector<int64_t>& in, const std::vector<int64_t>& axes,
                   std::vector<double> sizes, std::vector<int64_t>& outDims, std::vector<double>& scales) {
    sizes = overAxes(std::vector<double>(in.begin(), in.end()), axes, sizes, "sizes");
    scales.assign(in.size(), 1.0);
    for (size_t d = 0; d < in.size(); ++d) {
        if (sizes[d] < 0 || (in[d] == 0 && sizes[d] > 0)) throw KernelError("sizes must be non-negative and fit the input");
        if (in[d] > 0) scales[d] = sizes[d] / double(in[d]);
    }
    const std::string policy = a.getString("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch") {
        if (policy != "not_larger" && policy != "not_smaller")
            throw KernelError("keep_aspect_ratio_policy '" + policy + "' is not supported");
        double scale = scales[size_t(axes.at(0))];
        for (int64_t axis : axes)
            scale = policy == "not_larger" ? std::min(scale, scales[size_t(axis)]) : std::max(scale, scales[size_t(axis)]);
        for (int64_t axis : axes) {
            scales[size_t(axis)] = scale;
            sizes[size_t(axis)] = std::nearbyint(scale * double(in[size_t(axis)]));
        }
    }
    outDims.assign(sizes.begin(), sizes.end());
}

} // namespace

ResizePlan planResize(const Attributes& a, int64_t opset, const std::vector<int64_t>& inDims,
                      const std::vector<const Tensor*>& inputs) {
    auto present = [&](size_t i) { return i < inputs.size() && inputs[i] != nullptr; };
    ResizeSettings s;
    s.mode = a.getString("mode", "nearest");
    s.coordinateMode = opset >= 11 ? a.getString("coordinate_transformation_mode", "half_pixel") : "asymmetric";
    s.nearestMode = opset >= 11 ? a.getString("nearest_mode", "round_prefer_floor") : "floor";
    s.cubicA = a.getFloat("cubic_coeff_a", -0.75f);
    s.excludeOutside = a.getInt("exclude_outside", 0) != 0;
    s.extrapolation = a.getFloat("extrapolation_value", 0.0f);
    if (a.getInt("antialias", 0) != 0) throw KernelError("antialias is not supported");
    const size_t rank = inDims.size();
    const std::vector<int64_t> axes = resizeAxes(a, rank);
    std::vector<double> roi;
    if (opset >= 11 && present(1) && inputs[1]->numel() > 0) {
        const std::vector<double> given = doublesOf(*inputs[1]);
        if (given.size() != 2 * axes.size()) throw KernelError("roi must have a start and an end per axis");
        roi = overAxes(std::vector<double>(rank, 0.0), axes, {given.begin(), given.begin() + int64_t(axes.size())}, "roi");
        const auto ends = overAxes(std::vector<double>(rank, 1.0), axes, {given.begin() + int64_t(axes.size()), given.end()}, "roi");
        roi.insert(roi.end(), ends.begin(), ends.end());
    }
    std::vector<int64_t> outDims;
    std::vector<double> scales;
    if (opset >= 11 && present(3) && inputs[3]->numel() > 0) {
        const std::vector<int64_t> sizes = ref::toInt64s(*inputs[3]);
        sizesToScales(a, inDims, axes, {sizes.begin(), sizes.end()}, outDims, scales);
    } else {
        const size_t scalesInput = opset >= 11 ? 2 : 1;
        if (!present(scalesInput)) throw KernelError("Resize needs scales or sizes");
        scales = overAxes(std::vector<double>(rank, 1.0), axes, doublesOf(*inputs[scalesInput]), "scales");
        outDims = scaledDims(inDims, scales);
    }
    return planOf(s, inDims, outDims, scales, roi);
}

void resize(KernelContext& ctx) {
    interpolateWith(ctx, planResize(ctx.attributes(), ctx.opset(), ctx.input(0).dims(), inputsOf(ctx)));
}

ResizePlan planUpsample(const Attributes& a, const std::vector<int64_t>& inDims,
                        const std::vector<const Tensor*>& inputs) {
    ResizeSettings s;
    s.mode = a.getString("mode", "nearest");
    if (s.mode == "bilinear") s.mode = "linear";
    s.coordinateMode = "asymmetric";
    s.nearestMode = "floor";
    std::vector<double> scales;
    if (inputs.size() > 1 && inputs[1] != nullptr) {
        scales = doublesOf(*inputs[1]);
    } else if (const Attribute* attr = a.find("scales"); attr && attr->holds<std::vector<float>>()) {
        for (float f : attr->get<std::vector<float>>()) scales.push_back(f);
    }
    return planOf(s, inDims, scaledDims(inDims, scales), scales, {});
}

void upsample(KernelContext& ctx) {
    interpolateWith(ctx, planUpsample(ctx.attributes(), ctx.input(0).dims(), inputsOf(ctx)));
}

} // namespace graphlens::nn
