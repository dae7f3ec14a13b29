// Ops whose output the plan knows (Constant, Shape, Size) or that fill it with one value
// (ConstantOfShape, EyeLike), and Dropout outside training (a copy, and a mask of ones): the known
// bytes are packed at plan time and written by copy.comp, a fill is a copy from one element at
// stride 0.
#include "core/runtime/vulkan/typed.h"

#include <algorithm>
#include <cstring>

namespace graphlens::vk {
namespace {

/// `bytes` as a packed tensor, padded to whole words (the shaders read words).
Tensor packedBytes(std::string bytes) {
    bytes.resize((bytes.size() + 3) / 4 * 4, '\0');
    const auto size = int64_t(bytes.size());
    return Tensor::fromBytes(DType::UInt8, {size}, std::move(bytes));
}

std::string bytesOf(const Tensor& t) { return std::string(reinterpret_cast<const char*>(t.data()), t.byteSize()); }

/// Output 0 written from packed tensor 0, element for element (`stride` 1) or all from its first
/// element (`stride` 0).
std::optional<NodeProgram> writePacked(const NodeShapes& s, Tensor packed, int64_t stride, const char* kernel) {
    if (!s.hasOutput(0)) return std::nullopt;
    const int64_t n = numel(s.outputDims[0]);
    if (n == 0) return std::nullopt;
    auto d = copyDispatch({{n}, {stride}, {1}}, TensorRef::output(0), TensorRef::packed(0), s.outputTypes[0]);
    if (!d) return std::nullopt;
    NodeProgram program{kernel, {*d}};
    program.packed.push_back(std::move(packed));
    return program;
}

template <typename T> std::string rawBytes(const std::vector<T>& v) {
    std::string bytes(v.size() * sizeof(T), '\0');
    if (!v.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
    return bytes;
}

std::optional<NodeProgram> constant(const NodeShapes& s) {
    const Attributes& a = s.attributes();
    std::string bytes;
    if (const Tensor* t = a.getTensor("value")) {
        if (t->dtype() != s.outputTypes.at(0) || t->dtype() == DType::String) return std::nullopt;
        bytes = bytesOf(*t);
    } else if (a.has("value_float")) {
        bytes = rawBytes(std::vector<float>{a.getFloat("value_float", 0)});
    } else if (a.has("value_floats")) {
        const Attribute* floats = a.find("value_floats");
        if (!floats->holds<std::vector<float>>()) return std::nullopt;
        bytes = rawBytes(floats->get<std::vector<float>>());
    } else if (a.has("value_int")) {
        bytes = rawBytes(std::vector<int64_t>{a.getInt("value_int", 0)});
    } else if (a.has("value_ints")) {
        bytes = rawBytes(a.getInts("value_ints"));
    } else {
        return std::nullopt;
    }
    if (bytes.size() != dtypeStorageBytes(s.outputTypes[0], uint64_t(numel(s.outputDims[0])))) return std::nullopt;
    return writePacked(s, packedBytes(std::move(bytes)), 1, "vulkan:constant");
}

std::optional<NodeProgram> shape(const NodeShapes& s) {
    if (!s.hasInput(0) || s.outputTypes.at(0) != DType::Int64) return std::nullopt;
    const auto& x = s.inputDims[0];
    const auto rank = int64_t(x.size());
    auto clampAxis = [rank](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
    const int64_t start = clampAxis(s.attributes().getInt("start", 0));
    const int64_t end = clampAxis(s.attributes().getInt("end", rank));
    std::vector<int64_t> dims;
    for (int64_t i = start; i < end; ++i) dims.push_back(x[size_t(i)]);
    if (int64_t(dims.size()) != numel(s.outputDims[0])) return std::nullopt;
    return writePacked(s, packedBytes(rawBytes(dims)), 1, "vulkan:shape");
}

std::optional<NodeProgram> size(const NodeShapes& s) {
    if (!s.hasInput(0) || s.outputTypes.at(0) != DType::Int64) return std::nullopt;
    return writePacked(s, packedBytes(rawBytes(std::vector<int64_t>{numel(s.inputDims[0])})), 1, "vulkan:size");
}

std::optional<NodeProgram> constantOfShape(const NodeShapes& s) {
    std::string value;
    if (const Tensor* t = s.attributes().getTensor("value")) {
        if (t->numel() != 1 || t->dtype() != s.outputTypes.at(0)) return std::nullopt;
        value = bytesOf(*t);
    } else {
        if (s.outputTypes.at(0) != DType::Float) return std::nullopt;
        value = rawBytes(std::vector<float>{0.0f});
    }
    return writePacked(s, packedBytes(std::move(value)), 0, "vulkan:fill");
}

/// EyeLike: zeros, then ones along diagonal k (a copy at stride cols + 1 from one packed one).
std::optional<NodeProgram> eyeLike(const NodeShapes& s) {
    const auto& y = s.outputDims.at(0);
    const DType t = s.outputTypes.at(0);
    if (y.size() != 2 || numel(y) == 0) return std::nullopt;
    const int64_t k = s.attributes().getInt("k", 0), rows = y[0], cols = y[1];
    std::string zero(size_t(dtypeBits(t) / 8), '\0'), one = zero;
    if (t == DType::Float) one = rawBytes(std::vector<float>{1.0f});
    else if (elementCode(t) > 0) one[0] = 1;  // little-endian integers and bool
    else return std::nullopt;
    auto fill = copyDispatch({{numel(y)}, {0}, {1}}, TensorRef::output(0), TensorRef::packed(0), t);
    if (!fill) return std::nullopt;
    NodeProgram program{"vulkan:eye", {*fill}};
    program.packed.push_back(packedBytes(zero));
    const int64_t first = std::max<int64_t>(0, -k), last = std::min(rows, cols - k);  // rows on the diagonal
    if (last > first) {
        auto diagonal = copyDispatch({{last - first}, {0}, {cols + 1}, 0, first * cols + first + k},
                                     TensorRef::output(0), TensorRef::packed(1), t);
        if (!diagonal) return std::nullopt;
        diagonal->waits = true;
        program.dispatches.push_back(*diagonal);
        program.packed.push_back(packedBytes(one));
    }
    return program;
}

/// Dropout outside training: output 0 is the input, the mask (output 1) all true.
std::optional<NodeProgram> dropout(const NodeShapes& s) {
    if (!s.hasInput(0) || s.inputTypes[0] != s.outputTypes.at(0)) return std::nullopt;
    if (s.hasInput(2)) {  // training_mode
        if (!s.constants[2] || s.constants[2]->numel() != 1 || s.constants[2]->toDoubles()[0] != 0) return std::nullopt;
    }
    if (s.opset < 7 && s.attributes().getInt("is_test", 0) == 0) return std::nullopt;
    const int64_t n = numel(s.outputDims[0]);
    if (n == 0) return std::nullopt;
    auto copy = copyDispatch({{n}, {1}, {1}}, TensorRef::output(0), TensorRef::input(0), s.outputTypes[0]);
    if (!copy) return std::nullopt;
    NodeProgram program{"vulkan:dropout", {*copy}};
    if (s.hasOutput(1)) {
        if (s.outputTypes[1] != DType::Bool || numel(s.outputDims[1]) != n) return std::nullopt;
        auto mask = copyDispatch({{n}, {0}, {1}}, TensorRef::output(1), TensorRef::packed(0), DType::Bool);
        if (!mask) return std::nullopt;
        program.dispatches.push_back(*mask);
        program.packed.push_back(packedBytes(std::string(1, '\1')));
    }
    return program;
}

/// Identity of tensors that are not float (the float one is a unary activation).
std::optional<NodeProgram> identity(const NodeShapes& s) {
    if (!s.hasInput(0) || s.inputTypes[0] != s.outputTypes.at(0) || s.inputTypes[0] == DType::Float) return std::nullopt;
    const int64_t n = numel(s.outputDims[0]);
    auto d = copyDispatch({{n}, {1}, {1}}, TensorRef::output(0), TensorRef::input(0), s.outputTypes[0]);
    if (!d || n == 0) return std::nullopt;
    NodeProgram program{"vulkan:copy", {*d}, true, true};
    return program;
}

} // namespace

void registerConstantOps(VulkanOpRegistry& registry) {
    registry.add("Constant", constant);
    registry.add("Shape", shape);
    registry.add("Size", size);
    registry.add("ConstantOfShape", constantOfShape);
    registry.add("EyeLike", eyeLike);
    registry.add("Dropout", dropout);
    registry.add("Identity", identity);
}

} // namespace graphlens::vk
