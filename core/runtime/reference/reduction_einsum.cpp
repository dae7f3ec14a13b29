// Reference kernels of the reduction family for linear algebra: Einsum (a general equation with
// ellipsis broadcasting, diagonals, transposes and sums) and Det.
#include "core/runtime/reference/reduction_internal.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace graphlens::reduction {
namespace {

constexpr int kLetters = 52;     ///< label ids 0..51: 'A'..'Z', 'a'..'z'; ellipsis dims follow
constexpr int kEllipsis = -1;    ///< marks "..." in a parsed term

/// The labels of one term ("ij", "...ii"), with kEllipsis where "..." stands.
std::vector<int> parseTerm(const std::string& term) {
    std::vector<int> labels;
    for (size_t i = 0; i < term.size(); ++i) {
        const char c = term[i];
        if (c >= 'A' && c <= 'Z') labels.push_back(c - 'A');
        else if (c >= 'a' && c <= 'z') labels.push_back(26 + (c - 'a'));
        else if (term.compare(i, 3, "...") == 0 && std::count(labels.begin(), labels.end(), kEllipsis) == 0) {
            labels.push_back(kEllipsis);
            i += 2;
        } else {
            throw KernelError("the Einsum term '" + term + "' is not letters with at most one '...'");
        }
    }
    return labels;
}

/// A term with its ellipsis replaced by the ids of the `width` broadcast dims it covers (the
/// rightmost of the `maxWidth` ellipsis dims).
std::vector<int> expandTerm(const std::vector<int>& term, int64_t width, int64_t maxWidth) {
    std::vector<int> out;
    for (int label : term) {
        if (label != kEllipsis) {
            out.push_back(label);
            continue;
        }
        for (int64_t j = maxWidth - width; j < maxWidth; ++j) out.push_back(kLetters + int(j));
    }
    return out;
}

struct EinsumPlan {
    std::vector<std::vector<int>> inputs;  ///< each input's label per axis
    std::vector<int> output;               ///< the output's label per axis
};

/// Parses `equation` for inputs of the given ranks; implicit output: the ellipsis dims, then
/// the labels used once, in alphabetical order.
EinsumPlan planEinsum(std::string equation, const std::vector<size_t>& ranks) {
    std::erase(equation, ' ');
    const size_t arrow = equation.find("->");
    const std::string lhs = equation.substr(0, arrow);
    std::vector<std::vector<int>> terms;
    for (size_t start = 0;;) {
        const size_t comma = lhs.find(',', start);
        terms.push_back(parseTerm(lhs.substr(start, comma - start)));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (terms.size() != ranks.size())
        throw KernelError("the Einsum equation has " + std::to_string(terms.size()) + " terms for " +
                          std::to_string(ranks.size()) + " inputs");
    std::vector<int64_t> widths;
    for (size_t i = 0; i < terms.size(); ++i) {
        const bool ellipsis = std::count(terms[i].begin(), terms[i].end(), kEllipsis) > 0;
        const int64_t width = int64_t(ranks[i]) - int64_t(terms[i].size()) + (ellipsis ? 1 : 0);
        if (width < 0 || (!ellipsis && width != 0))
            throw KernelError("the Einsum term " + std::to_string(i) + " does not match its input's rank " +
                              std::to_string(ranks[i]));
        widths.push_back(width);
    }
    const int64_t maxWidth = widths.empty() ? 0 : *std::max_element(widths.begin(), widths.end());
    EinsumPlan plan;
    for (size_t i = 0; i < terms.size(); ++i) plan.inputs.push_back(expandTerm(terms[i], widths[i], maxWidth));
    if (arrow != std::string::npos) {
        plan.output = expandTerm(parseTerm(equation.substr(arrow + 2)), maxWidth, maxWidth);
        return plan;
    }
    std::vector<int> uses(size_t(kLetters), 0);
    for (const auto& term : plan.inputs)
        for (int label : term)
            if (label < kLetters) ++uses[size_t(label)];
    for (int64_t j = 0; j < maxWidth; ++j) plan.output.push_back(kLetters + int(j));
    for (int label = 0; label < kLetters; ++label)
        if (uses[size_t(label)] == 1) plan.output.push_back(label);
    return plan;
}

/// The size of every label; letters must agree, ellipsis dims broadcast.
std::vector<int64_t> labelSizes(const EinsumPlan& plan, const std::vector<const Tensor*>& inputs, size_t labelCount) {
    std::vector<int64_t> sizes(labelCount, -1);
    for (size_t i = 0; i < inputs.size(); ++i)
        for (size_t axis = 0; axis < plan.inputs[i].size(); ++axis) {
            const int64_t dim = inputs[i]->dims()[axis];
            int64_t& size = sizes[size_t(plan.inputs[i][axis])];
            const bool broadcast = plan.inputs[i][axis] >= kLetters && (dim == 1 || size == 1);
            if (size == -1 || (broadcast && size == 1)) size = dim;
            else if (size != dim && !broadcast)
                throw KernelError("Einsum dimension sizes " + std::to_string(size) + " and " + std::to_string(dim) +
                                  " disagree for one label");
        }
    return sizes;
}

/// How far each label moves the offset of a tensor with `labels` per axis and `dims`.
std::vector<int64_t> labelStrides(const std::vector<int>& labels, const std::vector<int64_t>& dims, size_t labelCount) {
    std::vector<int64_t> strides(labelCount, 0);
    const std::vector<int64_t> axisStrides = ref::stridesOf(dims);
    for (size_t axis = 0; axis < labels.size(); ++axis)
        if (dims[axis] != 1) strides[size_t(labels[axis])] += axisStrides[axis];
    return strides;
}

/// Sums, over every combination of the `loop` labels, the product of the inputs' elements there;
/// the output labels come first in `loop`, so each output element is a run of consecutive steps.
std::vector<double> contract(const std::vector<std::vector<double>>& values,
                             const std::vector<std::vector<int64_t>>& strides, const std::vector<int>& loop,
                             const std::vector<int64_t>& loopDims, int64_t outCount) {
    const int64_t total = ref::elementCount(loopDims);
    std::vector<double> out(size_t(outCount), 0.0);
    std::vector<int64_t> counter(loop.size(), 0);
    for (int64_t n = 0; n < total; ++n) {
        double product = 1.0;
        for (size_t i = 0; i < values.size(); ++i) {
            int64_t offset = 0;
            for (size_t l = 0; l < loop.size(); ++l) offset += counter[l] * strides[i][size_t(loop[l])];
            product *= values[i][size_t(offset)];
        }
        out[size_t(n / (total / outCount))] += product;
        for (size_t l = loop.size(); l-- > 0;) {  // odometer increment
            if (++counter[l] < loopDims[l]) break;
            counter[l] = 0;
        }
    }
    return out;
}

/// The determinant of the n x n row-major matrix `a` (destroyed), by LU with partial pivoting.
double determinant(std::vector<double> a, int64_t n) {
    double det = 1.0;
    for (int64_t col = 0; col < n; ++col) {
        int64_t pivot = col;
        for (int64_t r = col + 1; r < n; ++r)
            if (std::abs(a[size_t(r * n + col)]) > std::abs(a[size_t(pivot * n + col)])) pivot = r;
        if (a[size_t(pivot * n + col)] == 0.0) return 0.0;
        if (pivot != col) {
            for (int64_t c = 0; c < n; ++c) std::swap(a[size_t(pivot * n + c)], a[size_t(col * n + c)]);
            det = -det;
        }
        const double p = a[size_t(col * n + col)];
        det *= p;
        for (int64_t r = col + 1; r < n; ++r) {
            const double factor = a[size_t(r * n + col)] / p;
            for (int64_t c = col; c < n; ++c) a[size_t(r * n + c)] -= factor * a[size_t(col * n + c)];
        }
    }
    return det;
}

} // namespace

void einsum(KernelContext& ctx) {
    std::vector<const Tensor*> inputs;
    std::vector<size_t> ranks;
    for (size_t i = 0; i < ctx.inputCount(); ++i) {
        inputs.push_back(&ctx.input(i));
        if (inputs.back()->dtype() != inputs.front()->dtype())
            throw KernelError("the Einsum inputs must all have the same element type");
        ranks.push_back(inputs.back()->rank());
    }
    if (inputs.empty()) throw KernelError("Einsum needs at least one input");
    const EinsumPlan plan = planEinsum(ctx.attributes().getString("equation"), ranks);
    size_t labelCount = kLetters;
    for (const auto& term : plan.inputs)
        for (int label : term) labelCount = std::max(labelCount, size_t(label) + 1);
    std::vector<int64_t> sizes = labelSizes(plan, inputs, labelCount);
    std::vector<int> loop;  // output labels first, then the summed ones
    std::vector<int64_t> outDims;
    for (int label : plan.output) {
        if (size_t(label) >= labelCount || sizes[size_t(label)] < 0 || std::count(loop.begin(), loop.end(), label))
            throw KernelError("the Einsum output names a label twice or one no input has");
        loop.push_back(label);
        outDims.push_back(sizes[size_t(label)]);
    }
    for (size_t label = 0; label < labelCount; ++label)
        if (sizes[label] >= 0 && std::count(loop.begin(), loop.end(), int(label)) == 0) loop.push_back(int(label));
    std::vector<int64_t> loopDims;
    for (int label : loop) loopDims.push_back(sizes[size_t(label)]);
    const int64_t outCount = ref::elementCount(outDims);
    std::vector<std::vector<double>> values;
    std::vector<std::vector<int64_t>> strides;
    for (size_t i = 0; i < inputs.size(); ++i) {
        values.push_back(doublesOf(*inputs[i], "Einsum"));
        strides.push_back(labelStrides(plan.inputs[i], inputs[i]->dims(), labelCount));
    }
    ctx.setOutput(0, tensorOf(inputs[0]->dtype(), outDims, contract(values, strides, loop, loopDims, outCount)));
}

void det(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    requireFloating(x.dtype(), "Det");
    const auto& dims = x.dims();
    if (dims.size() < 2 || dims[dims.size() - 1] != dims[dims.size() - 2])
        throw KernelError("Det needs square matrices in the last two dimensions, got " + ref::dimsText(dims));
    const int64_t n = dims.back();
    const std::vector<int64_t> batchDims(dims.begin(), dims.end() - 2);
    const int64_t batch = ref::elementCount(batchDims);
    const std::vector<double> in = doublesOf(x, "Det");
    std::vector<double> out(static_cast<size_t>(batch));
    for (int64_t b = 0; b < batch; ++b) {
        const auto first = in.begin() + b * n * n;
        out[size_t(b)] = determinant(std::vector<double>(first, first + n * n), n);
    }
    ctx.setOutput(0, tensorOf(x.dtype(), batchDims, out));
}

} // namespace graphlens::reduction
