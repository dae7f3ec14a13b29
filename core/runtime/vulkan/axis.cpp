// Ops along one axis on the GPU (axis.comp): ArgMax, ArgMin, Hardmax, CumSum.
#include "core/runtime/vulkan/typed.h"

namespace graphlens::vk {
namespace {

struct AxisView {
    int64_t outer = 1, n = 1, inner = 1;
};

std::optional<AxisView> viewAround(const std::vector<int64_t>& x, int64_t axis) {
    const auto rank = int64_t(x.size());
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return std::nullopt;
    AxisView v;
    for (int64_t i = 0; i < rank; ++i) (i < axis ? v.outer : i == axis ? v.n : v.inner) *= x[size_t(i)];
    return v;
}

std::optional<NodeProgram> axisProgram(const NodeShapes& s, int op, const AxisView& v, int last, int exclusive, int reverse) {
    const int tx = elementCode(s.inputTypes[0]), ty = elementCode(s.outputTypes.at(0));
    if (tx < 0 || ty < 0 || v.outer * v.n * v.inner == 0) return std::nullopt;
    const int64_t lines = v.outer * v.inner;
    Dispatch d{"axis", Constants().i(op).i(v.outer).i(v.n).i(v.inner).i(tx).i(ty).i(last).i(exclusive).i(reverse).take(),
               {TensorRef::output(0), TensorRef::input(0)}, flatGroups(uint64_t(lines), 64)};
    return NodeProgram{op < 2 ? "vulkan:arg-reduce" : op == 2 ? "vulkan:hardmax" : "vulkan:cumsum", {d}};
}

bool numeric(DType t) { return elementCode(t) >= 0 && t != DType::Bool && t != DType::UInt32 && t != DType::UInt64; }

std::optional<NodeProgram> argReduce(const NodeShapes& s) {
    if (!s.hasInput(0) || !numeric(s.inputTypes[0]) || s.outputTypes.at(0) != DType::Int64) return std::nullopt;
    const auto v = viewAround(s.inputDims[0], s.attributes().getInt("axis", 0));
    if (!v || v->n == 0 || numel(s.outputDims[0]) != v->outer * v->inner) return std::nullopt;
    return axisProgram(s, s.node.opType == "ArgMax" ? 0 : 1, *v, int(s.attributes().getInt("select_last_index", 0)), 0, 0);
}

std::optional<NodeProgram> hardmax(const NodeShapes& s) {
    if (!s.floatInput(0) || s.outputTypes.at(0) != DType::Float) return std::nullopt;
    const auto& x = s.inputDims[0];
    std::optional<AxisView> v;
    if (s.opset >= 13) {
        v = viewAround(x, s.attributes().getInt("axis", -1));
    } else {  // the input coerced to 2-D at axis
        int64_t axis = s.attributes().getInt("axis", 1);
        if (axis < 0) axis += int64_t(x.size());
        if (axis < 0 || axis > int64_t(x.size())) return std::nullopt;
        AxisView flat;
        for (int64_t i = 0; i < int64_t(x.size()); ++i) (i < axis ? flat.outer : flat.n) *= x[size_t(i)];
        v = flat;
    }
    if (!v) return std::nullopt;
    return axisProgram(s, 2, *v, 0, 0, 0);
}

std::optional<NodeProgram> cumSum(const NodeShapes& s) {
    if (!s.hasInput(0) || !numeric(s.inputTypes[0]) || s.inputTypes[0] != s.outputTypes.at(0)) return std::nullopt;
    if (!s.hasInput(1) || !s.constants[1] || s.constants[1]->numel() != 1) return std::nullopt;
    const auto v = viewAround(s.inputDims[0], int64_t(s.constants[1]->toDoubles()[0]));
    if (!v) return std::nullopt;
    const Attributes& a = s.attributes();
    return axisProgram(s, 3, *v, 0, int(a.getInt("exclusive", 0)), int(a.getInt("reverse", 0)));
}

} // namespace

void registerAxisOps(VulkanOpRegistry& registry) {
    registry.add("ArgMax", argReduce);
    registry.add("ArgMin", argReduce);
    registry.add("Hardmax", hardmax);
    registry.add("CumSum", cumSum);
}

} // namespace graphlens::vk
