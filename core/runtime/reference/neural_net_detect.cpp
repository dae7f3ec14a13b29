// Reference kernels for detection and sampling: RoiAlign, NonMaxSuppression and GridSample,
// following onnxruntime's CPU kernels, which produced the ONNX test data.
#include "core/runtime/reference/neural_net_internal.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace graphlens::nn {
namespace {

void checkImage(const Tensor& x, const char* what) {
    if (x.rank() != 4) throw KernelError(std::string(what) + " must be 4-D (N, C, H, W), got " + ref::dimsText(x.dims()));
    if (x.dims()[2] <= 0 || x.dims()[3] <= 0) throw KernelError(std::string(what) + " has an empty image");
}

/// Bilinear value of a plane at (y, x), onnxruntime's RoiAlign rules: zero far outside,
/// clamped at the border.
double roiSample(const double* plane, int64_t height, int64_t width, double y, double x) {
    if (y < -1.0 || y > double(height) || x < -1.0 || x > double(width)) return 0.0;
    y = std::max(y, 0.0);
    x = std::max(x, 0.0);
    int64_t yLow = int64_t(y), xLow = int64_t(x), yHigh = yLow + 1, xHigh = xLow + 1;
    if (yLow >= height - 1) y = double(yHigh = yLow = height - 1);
    if (xLow >= width - 1) x = double(xHigh = xLow = width - 1);
    const double ly = y - double(yLow), lx = x - double(xLow), hy = 1.0 - ly, hx = 1.0 - lx;
    return hy * hx * plane[yLow * width + xLow] + hy * lx * plane[yLow * width + xHigh] +
           ly * hx * plane[yHigh * width + xLow] + ly * lx * plane[yHigh * width + xHigh];
}

/// Where RoiAlign's output bins and their sampling grids lie in the input, for one roi.
struct RoiBins {
    double startH, startW, binH, binW;
    int64_t gridH, gridW;
};

RoiBins roiBins(const double* roi, double scale, bool halfPixel, int64_t outH, int64_t outW, int64_t sampling) {
    const double offset = halfPixel ? 0.5 : 0.0;
    const double startW = roi[0] * scale - offset, startH = roi[1] * scale - offset;
    double roiW = roi[2] * scale - offset - startW, roiH = roi[3] * scale - offset - startH;
    if (!halfPixel) roiW = std::max(roiW, 1.0), roiH = std::max(roiH, 1.0);
    const double binH = roiH / double(outH), binW = roiW / double(outW);
    if (!(std::abs(binH) < 1e4 && std::abs(binW) < 1e4))
        throw KernelError("a region of interest is too large or not a number");
    return {startH, startW, binH, binW, sampling > 0 ? sampling : int64_t(std::ceil(binH)),
            sampling > 0 ? sampling : int64_t(std::ceil(binW))};
}

/// The average (or maximum) of the bilinear samples of output bin (ph, pw).
double poolBin(const double* plane, int64_t height, int64_t width, const RoiBins& b, int64_t ph, int64_t pw,
               bool maxMode) {
    double acc = 0.0;
    bool first = true;
    for (int64_t iy = 0; iy < b.gridH; ++iy)
        for (int64_t ix = 0; ix < b.gridW; ++ix) {
            const double y = b.startH + double(ph) * b.binH + (double(iy) + 0.5) * b.binH / double(b.gridH);
            const double x = b.startW + double(pw) * b.binW + (double(ix) + 0.5) * b.binW / double(b.gridW);
            const double v = roiSample(plane, height, width, y, x);
            acc = !maxMode ? acc + v : first ? v : std::max(acc, v);
            first = false;
        }
    return maxMode ? acc : acc / double(std::max<int64_t>(b.gridH * b.gridW, 1));
}

/// Corners (y1, x1, y2, x2) of box `i`, in either box format.
std::array<double, 4> boxCorners(const std::vector<double>& boxes, size_t i, bool centerPoint) {
    const double* b = boxes.data() + 4 * i;
    if (centerPoint) return {b[1] - b[3] / 2, b[0] - b[2] / 2, b[1] + b[3] / 2, b[0] + b[2] / 2};
    return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

bool overlapsTooMuch(const std::array<double, 4>& a, const std::array<double, 4>& b, double threshold) {
    const double areaA = (a[2] - a[0]) * (a[3] - a[1]), areaB = (b[2] - b[0]) * (b[3] - b[1]);
    if (areaA <= 0 || areaB <= 0) return false;
    const double h = std::max(0.0, std::min(a[2], b[2]) - std::max(a[0], b[0]));
    const double w = std::max(0.0, std::min(a[3], b[3]) - std::max(a[1], b[1]));
    const double intersection = h * w;
    return intersection / (areaA + areaB - intersection) > threshold;
}

double optionalScalar(const KernelContext& ctx, size_t i, double fallback) {
    if (!ctx.hasInput(i) || ctx.input(i).numel() == 0) return fallback;
    return scalarOf(ctx.input(i), "a NonMaxSuppression limit or threshold");
}

/// GridSample's reflection of a coordinate into [low, high].
double reflect(double x, double low, double high) {
    const double range = high - low;
    if (range <= 0) return low;
    if (x < low || x > high) {
        const double d = x < low ? low - x : x - high;
        const int64_t n = int64_t(d / range);
        const double r = d - double(n) * range;
        const bool towardsHigh = (x < low) == (n % 2 == 0);
        x = towardsHigh ? low + r : high - r;
    }
    return x;
}

struct GridSampler {
    const double* plane;
    int64_t height, width;
    std::string padding;
    bool alignCorners;

    double pixel(int64_t y, int64_t x) const {
        if (padding == "zeros") return y >= 0 && y < height && x >= 0 && x < width ? plane[y * width + x] : 0.0;
        if (padding == "reflection") {
            const double lo = alignCorners ? 0.0 : -0.5;
            y = int64_t(reflect(double(y), lo, alignCorners ? double(height - 1) : double(height) - 0.5));
            x = int64_t(reflect(double(x), lo, alignCorners ? double(width - 1) : double(width) - 0.5));
        }
        return plane[std::clamp<int64_t>(y, 0, height - 1) * width + std::clamp<int64_t>(x, 0, width - 1)];
    }
};

std::array<double, 4> cubicWeights(double t) {
    const double a = -0.75;
    t = std::abs(t);
    return {((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a, ((a + 2) * t - (a + 3)) * t * t + 1,
            ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
            ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a};
}

double gridValue(const GridSampler& s, const std::string& mode, double y, double x) {
    if (!std::isfinite(x) || !std::isfinite(y)) return 0.0;
    x = std::clamp(x, -1e9, 1e9);  // far outside either way; keeps the integer casts defined
    y = std::clamp(y, -1e9, 1e9);
    const double xMin = s.alignCorners ? 0.0 : -0.5, yMin = xMin;
    const double xMax = s.alignCorners ? double(s.width - 1) : double(s.width) - 0.5;
    const double yMax = s.alignCorners ? double(s.height - 1) : double(s.height) - 0.5;
    if (mode == "nearest") {
        x = std::nearbyint(x);
        y = std::nearbyint(y);
    }
    if (x < xMin || x > xMax || y < yMin || y > yMax) {
        if (s.padding == "border") {
            x = std::clamp(x, 0.0, double(s.width - 1));
            y = std::clamp(y, 0.0, double(s.height - 1));
        } else if (s.padding == "reflection") {
            x = reflect(x, xMin, xMax);
            y = reflect(y, yMin, yMax);
        }
    }
    if (mode == "nearest") return s.pixel(int64_t(y), int64_t(x));
    const int64_t x0 = int64_t(std::floor(x)), y0 = int64_t(std::floor(y));
    if (mode == "bilinear") {
        const double dx = x - double(x0), dy = y - double(y0);
        return (1 - dy) * ((1 - dx) * s.pixel(y0, x0) + dx * s.pixel(y0, x0 + 1)) +
               dy * ((1 - dx) * s.pixel(y0 + 1, x0) + dx * s.pixel(y0 + 1, x0 + 1));
    }
    if (mode != "bicubic") throw KernelError("mode '" + mode + "' is not one of bilinear, nearest, bicubic");
    const auto wx = cubicWeights(x - double(x0)), wy = cubicWeights(y - double(y0));
    double sum = 0.0;
    for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j < 4; ++j) sum += wy[size_t(i)] * wx[size_t(j)] * s.pixel(y0 - 1 + i, x0 - 1 + j);
    return sum;
}

} // namespace

void roiAlign(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    checkImage(x, "the RoiAlign input");
    const std::vector<double> rois = doublesOf(ctx.input(1));
    const std::vector<int64_t> batchIndex = ref::toInt64s(ctx.input(2));
    const Attributes& a = ctx.attributes();
    const int64_t outH = a.getInt("output_height", 1), outW = a.getInt("output_width", 1);
    const int64_t sampling = a.getInt("sampling_ratio", 0);
    if (sampling > 4096) throw KernelError("sampling_ratio " + std::to_string(sampling) + " is unreasonably large");
    const std::string defaultMode = ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel";
    const bool halfPixel = a.getString("coordinate_transformation_mode", defaultMode) == "half_pixel";
    const bool maxMode = a.getString("mode", "avg") == "max";
    const int64_t channels = x.dims()[1], height = x.dims()[2], width = x.dims()[3];
    if (rois.size() != batchIndex.size() * 4 || outH <= 0 || outW <= 0)
        throw KernelError("rois must be (num_rois, 4) with one batch index per roi");
    const std::vector<int64_t> outDims{int64_t(batchIndex.size()), channels, outH, outW};
    ref::checkWorkingSet("the output", outDims, sizeof(double));
    const std::vector<double> input = doublesOf(x);
    std::vector<double> y(size_t(ref::elementCount(outDims)));
    for (size_t r = 0; r < batchIndex.size(); ++r) {
        if (batchIndex[r] < 0 || batchIndex[r] >= x.dims()[0]) throw KernelError("a batch index is out of range");
        const RoiBins bins = roiBins(rois.data() + 4 * r, a.getFloat("spatial_scale", 1.0f), halfPixel, outH, outW, sampling);
        for (int64_t c = 0; c < channels; ++c) {
            const double* plane = input.data() + (batchIndex[r] * channels + c) * height * width;
            for (int64_t ph = 0; ph < outH; ++ph)
                for (int64_t pw = 0; pw < outW; ++pw)
                    y[size_t(((int64_t(r) * channels + c) * outH + ph) * outW + pw)] =
                        poolBin(plane, height, width, bins, ph, pw, maxMode);
        }
    }
    ctx.setOutput(0, tensorOfDoubles(x.dtype(), {int64_t(batchIndex.size()), channels, outH, outW}, y));
}

void nonMaxSuppression(KernelContext& ctx) {
    const Tensor& boxesT = ctx.input(0);
    const Tensor& scoresT = ctx.input(1);
    if (boxesT.rank() != 3 || boxesT.dims()[2] != 4 || scoresT.rank() != 3 || scoresT.dims()[0] != boxesT.dims()[0] ||
        scoresT.dims()[2] != boxesT.dims()[1])
        throw KernelError("boxes must be (batch, boxes, 4) and scores (batch, classes, boxes)");
    const int64_t batches = boxesT.dims()[0], classes = scoresT.dims()[1], count = boxesT.dims()[1];
    const int64_t maxPerClass = int64_t(optionalScalar(ctx, 2, 0.0));
    const double iouThreshold = optionalScalar(ctx, 3, 0.0);
    const bool hasScoreThreshold = ctx.hasInput(4) && ctx.input(4).numel() > 0;
    const double scoreThreshold = optionalScalar(ctx, 4, 0.0);
    const bool centerPoint = ctx.attributes().getInt("center_point_box", 0) != 0;
    const std::vector<double> boxes = doublesOf(boxesT), scores = doublesOf(scoresT);
    std::vector<int64_t> selected;
    for (int64_t b = 0; b < batches; ++b)
        for (int64_t c = 0; c < classes; ++c) {
            const double* s = scores.data() + (b * classes + c) * count;
            std::vector<int64_t> order;
            for (int64_t i = 0; i < count; ++i)
                if (!std::isnan(s[i]) && (!hasScoreThreshold || s[i] > scoreThreshold)) order.push_back(i);
            std::stable_sort(order.begin(), order.end(), [&](int64_t l, int64_t r) { return s[l] > s[r]; });
            std::vector<int64_t> kept;
            for (int64_t i : order) {
                if (int64_t(kept.size()) >= maxPerClass) break;
                const auto box = boxCorners(boxes, size_t(b * count + i), centerPoint);
                const bool suppressed = std::any_of(kept.begin(), kept.end(), [&](int64_t k) {
                    return overlapsTooMuch(boxCorners(boxes, size_t(b * count + k), centerPoint), box, iouThreshold);
                });
                if (!suppressed) kept.push_back(i);
            }
            for (int64_t k : kept) selected.insert(selected.end(), {b, c, k});
        }
    ctx.setOutput(0, Tensor::int64s({int64_t(selected.size() / 3), 3}, selected));
}

void gridSample(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& grid = ctx.input(1);
    checkImage(x, "the GridSample input");
    if (grid.rank() != 4 || grid.dims()[0] != x.dims()[0] || grid.dims()[3] != 2)
        throw KernelError("the grid must be (N, H_out, W_out, 2) for a 4-D input");
    const Attributes& a = ctx.attributes();
    const std::string mode = a.getString("mode", "bilinear");
    const bool alignCorners = a.getInt("align_corners", 0) != 0;
    const int64_t n = x.dims()[0], channels = x.dims()[1], height = x.dims()[2], width = x.dims()[3];
    const int64_t outH = grid.dims()[1], outW = grid.dims()[2];
    const std::vector<double> input = doublesOf(x), g = doublesOf(grid);
    std::vector<double> y(size_t(n * channels * outH * outW));
    const auto denormalize = [&](double v, int64_t size) {
        return alignCorners ? (v + 1) / 2 * double(size - 1) : ((v + 1) * double(size) - 1) / 2;
    };
    for (int64_t b = 0; b < n; ++b)
        for (int64_t c = 0; c < channels; ++c) {
            const GridSampler sampler{input.data() + (b * channels + c) * height * width, height, width,
                                      a.getString("padding_mode", "zeros"), alignCorners};
            for (int64_t i = 0; i < outH * outW; ++i) {
                const double* at = g.data() + (b * outH * outW + i) * 2;
                y[size_t((b * channels + c) * outH * outW + i)] =
                    gridValue(sampler, mode, denormalize(at[1], height), denormalize(at[0], width));
            }
        }
    ctx.setOutput(0, tensorOfDoubles(x.dtype(), {n, channels, outH, outW}, y));
}

} // namespace graphlens::nn
