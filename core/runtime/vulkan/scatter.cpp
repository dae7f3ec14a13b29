// Ops that read or write elements at positions held in index tensors, and tensors made from a
// few numbers, on the GPU: GatherND (gathernd.comp), ScatterElements (also as Scatter, its name before
// opset 11) and ScatterND (a copy of the data, then scatter.comp), OneHot (onehot.comp) and Range (range.comp). Elements of any type move
// as bits; the scatter reductions combine float32 or integers of up to 32 bits (64-bit ones run on
// the CPU). Indices are int32 or int64, negative ones counting from the end of their axis.
#include "core/runtime/vulkan/typed.h"

namespace graphlens::vk {
namespace {

bool indexType(DType t) { return t == DType::Int64 || t == DType::Int32; }

/// Up to 6 axes (dims and element strides) that index tuples address, padded with unit dims.
void addAxes(Constants& c, const std::vector<int64_t>& dims, const std::vector<int64_t>& strides) {
    for (size_t m = 0; m < 6; ++m) c.i(m < dims.size() ? dims[m] : 1);
    for (size_t m = 0; m < 6; ++m) c.i(m < strides.size() ? strides[m] : 0);
}

std::optional<NodeProgram> gatherND(const NodeShapes& s) {
    if (!s.hasInput(0) || !s.hasInput(1) || !s.hasOutput(0) || moveCode(s.inputTypes[0]) < 0 ||
        s.inputTypes[0] != s.outputTypes[0] || !indexType(s.inputTypes[1]))
        return std::nullopt;
    const auto& x = s.inputDims[0];
    const auto& ind = s.inputDims[1];
    const int64_t batchDims = s.attributes().getInt("batch_dims", 0);
    if (ind.empty() || batchDims < 0 || batchDims >= int64_t(ind.size())) return std::nullopt;
    const int64_t k = ind.back();
    if (k < 1 || k > 6 || batchDims + k > int64_t(x.size())) return std::nullopt;
    for (int64_t b = 0; b < batchDims; ++b)
        if (ind[size_t(b)] != x[size_t(b)]) return std::nullopt;
    const auto strides = stridesOf(x);
    int64_t inner = 1, tuplesPerBatch = 1, batchStride = 1;
    for (size_t d = size_t(batchDims + k); d < x.size(); ++d) inner *= x[d];
    for (size_t d = size_t(batchDims); d + 1 < ind.size(); ++d) tuplesPerBatch *= ind[d];
    for (size_t d = size_t(batchDims); d < x.size(); ++d) batchStride *= x[d];
    const int64_t count = numel(s.outputDims[0]);
    if (count != numel(ind) / k * inner) return std::nullopt;
    Constants c;
    c.i(count).i(inner).i(tuplesPerBatch).i(batchStride).i(k);
    addAxes(c, {x.begin() + batchDims, x.begin() + batchDims + k}, {strides.begin() + batchDims, strides.begin() + batchDims + k});
    c.i(elementCode(s.inputTypes[1])).i(moveCode(s.inputTypes[0]));
    Dispatch d{"gathernd", c.take(), {TensorRef::output(0), TensorRef::input(0), TensorRef::input(1)}, flatGroups(uint64_t(count), 64)};
    return NodeProgram{"vulkan:gathernd", {d}};
}

/// scatter.comp's lines: dims and target, update and index strides, padded to 6 at the front.
struct Lines {
    std::vector<int64_t> dims, target, update, index;
};

/// ScatterElements and ScatterND: copy the data to the output, then scatter.comp over `lines`.
std::optional<NodeProgram> scatterProgram(const NodeShapes& s, Lines lines, int64_t steps, int64_t indexStep, int64_t updateStep,
                                          int64_t k, const std::vector<int64_t>& axisDims, const std::vector<int64_t>& axisStrides,
                                          const char* kernel) {
    const DType t = s.inputTypes[0];
    const std::string reduction = s.attributes().getString("reduction", "none");
    const int code = reduction == "none" ? 0 : reduction == "add" ? 1 : reduction == "mul" ? 2 : reduction == "max" ? 3
                   : reduction == "min" ? 4 : -1;
    if (code < 0) return std::nullopt;
    if (code > 0) {
        if (elementCode(t) < 0 || t == DType::Bool || dtypeBits(t) == 64)
            return declineBecause("a scatter reduction of " + std::string(dtypeName(t)) + " runs on the CPU (shaders combine float32 and integers of up to 32 bits)");
        if (t == DType::UInt32 && code >= 3) return std::nullopt;  // signed comparisons
    }
    if (lines.dims.size() > 6) return std::nullopt;
    while (lines.dims.size() < 6) {
        lines.dims.insert(lines.dims.begin(), 1);
        lines.target.insert(lines.target.begin(), 0);
        lines.update.insert(lines.update.begin(), 0);
        lines.index.insert(lines.index.begin(), 0);
    }
    const int64_t count = numel(lines.dims);
    if (count == 0 || steps == 0) return std::nullopt;
    const int64_t n = numel(s.inputDims[0]);
    auto copy = copyDispatch({{n}, {1}, {1}}, TensorRef::output(0), TensorRef::input(0), t);
    if (!copy) return std::nullopt;
    Constants c;
    c.i(count);
    for (const auto* v : {&lines.dims, &lines.target, &lines.update, &lines.index})
        for (int64_t x : *v) c.i(x);
    c.i(steps).i(indexStep).i(updateStep).i(k);
    addAxes(c, axisDims, axisStrides);
    c.i(elementCode(s.inputTypes[1])).i(code > 0 ? elementCode(t) : moveCode(t)).i(code);
    Dispatch scatter{"scatter", c.take(), {TensorRef::output(0), TensorRef::input(1), TensorRef::input(2)},
                     flatGroups(uint64_t(count), 64)};
    scatter.waits = true;
    return NodeProgram{kernel, {*copy, scatter}};
}

bool scatterTypes(const NodeShapes& s) {
    return s.hasInput(0) && s.hasInput(1) && s.hasInput(2) && s.hasOutput(0) && moveCode(s.inputTypes[0]) >= 0 &&
           s.inputTypes[0] == s.outputTypes[0] && s.inputTypes[2] == s.inputTypes[0] && indexType(s.inputTypes[1]) &&
           s.outputDims[0] == s.inputDims[0];
}

std::optional<NodeProgram> scatterElements(const NodeShapes& s) {
    if (!scatterTypes(s)) return std::nullopt;
    const auto& x = s.inputDims[0];
    const auto& ind = s.inputDims[1];
    const auto rank = int64_t(x.size());
    int64_t axis = s.attributes().getInt("axis", 0);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank || int64_t(ind.size()) != rank || s.inputDims[2] != ind) return std::nullopt;
    for (int64_t d = 0; d < rank; ++d)
        if (d != axis && ind[size_t(d)] > x[size_t(d)]) return std::nullopt;
    const auto dataStrides = stridesOf(x), indStrides = stridesOf(ind);
    Lines lines;
    for (int64_t d = 0; d < rank; ++d) {
        if (d == axis) continue;
        lines.dims.push_back(ind[size_t(d)]);
        lines.target.push_back(dataStrides[size_t(d)]);
        lines.update.push_back(indStrides[size_t(d)]);
        lines.index.push_back(indStrides[size_t(d)]);
    }
    const int64_t step = indStrides[size_t(axis)];
    return scatterProgram(s, lines, ind[size_t(axis)], step, step, 1, {x[size_t(axis)]}, {dataStrides[size_t(axis)]},
                          "vulkan:scatter-elements");
}

std::optional<NodeProgram> scatterND(const NodeShapes& s) {
    if (!scatterTypes(s)) return std::nullopt;
    const auto& x = s.inputDims[0];
    const auto& ind = s.inputDims[1];
    if (ind.empty()) return std::nullopt;
    const int64_t k = ind.back();
    if (k < 1 || k > 6 || k > int64_t(x.size())) return std::nullopt;
    std::vector<int64_t> expected(ind.begin(), ind.end() - 1);
    expected.insert(expected.end(), x.begin() + k, x.end());
    if (s.inputDims[2] != expected) return std::nullopt;
    int64_t inner = 1;
    for (size_t d = size_t(k); d < x.size(); ++d) inner *= x[d];
    const int64_t tuples = numel(ind) / k;
    const auto strides = stridesOf(x);
    Lines lines{{inner}, {1}, {1}, {0}};
    return scatterProgram(s, lines, tuples, k, inner, k, {x.begin(), x.begin() + k}, {strides.begin(), strides.begin() + k},
                          "vulkan:scatter-nd");
}

std::optional<NodeProgram> oneHot(const NodeShapes& s) {
    if (!s.hasInput(0) || !s.hasInput(1) || !s.hasInput(2) || !s.hasOutput(0)) return std::nullopt;
    const DType ti = s.inputTypes[0], tv = s.inputTypes[2];
    if (elementCode(ti) < 0 || ti == DType::Bool || moveCode(tv) < 0 || tv != s.outputTypes[0] || numel(s.inputDims[2]) != 2)
        return std::nullopt;
    const auto& ind = s.inputDims[0];
    const auto rank = int64_t(ind.size()) + 1;
    int64_t axis = s.attributes().getInt("axis", -1);
    if (axis < 0) axis += rank;
    const auto& y = s.outputDims[0];
    if (axis < 0 || axis >= rank || int64_t(y.size()) != rank) return std::nullopt;
    const int64_t depth = y[size_t(axis)];
    if (depth <= 0 || depth >= (int64_t(1) << 24)) return std::nullopt;  // indices compared as floats
    int64_t inner = 1;
    for (size_t d = size_t(axis); d < ind.size(); ++d) inner *= ind[d];
    const int64_t count = numel(y);
    if (count != numel(ind) * depth) return std::nullopt;
    Dispatch d{"onehot", Constants().i(count).i(depth).i(inner).i(elementCode(ti)).i(moveCode(tv)).take(),
               {TensorRef::output(0), TensorRef::input(0), TensorRef::input(2)}, flatGroups(uint64_t(count), 64)};
    return NodeProgram{"vulkan:onehot", {d}};
}

std::optional<NodeProgram> range(const NodeShapes& s) {
    if (!s.hasInput(0) || !s.hasInput(1) || !s.hasInput(2) || !s.hasOutput(0)) return std::nullopt;
    const DType t = s.inputTypes[0];
    if (elementCode(t) < 0 || t == DType::Bool || s.inputTypes[2] != t || s.outputTypes[0] != t) return std::nullopt;
    if (numel(s.inputDims[0]) != 1 || numel(s.inputDims[2]) != 1 || s.outputDims[0].size() != 1) return std::nullopt;
    const int64_t count = s.outputDims[0][0];
    if (count <= 0 || count >= (int64_t(1) << 31)) return std::nullopt;
    Dispatch d{"range", Constants().i(count).i(elementCode(t)).take(), {TensorRef::output(0), TensorRef::input(0), TensorRef::input(2)},
               flatGroups(uint64_t(count), 64)};
    return NodeProgram{"vulkan:range", {d}};
}

} // namespace

void registerScatterOps(VulkanOpRegistry& registry) {
    registry.add("GatherND", gatherND);
    registry.add("ScatterElements", scatterElements);
    registry.add("Scatter", scatterElements);  // ScatterElements' name before opset 11
    registry.add("ScatterND", scatterND);
    registry.add("OneHot", oneHot);
    registry.add("Range", range);
}

} // namespace graphlens::vk
