// Pad on the GPU (pad.comp): constant, reflect, edge and wrap modes over up to 6 dims (after
// merging unpadded neighbours), elements of any type moved by size, pads (negative ones crop)
// and axes from constants (opset 2's attributes, opset 11's inputs, opset 18's axes) or pads read
// at run time (without axes; the plan knows the output shape), the constant value from a constant
// (as specialization constants) or from a tensor read at run time.
#include "core/runtime/vulkan/typed.h"

#include <cstring>

namespace graphlens::vk {
namespace {

/// The node's pads, begins then ends over every axis, or nullopt with the reason in `why`.
std::optional<std::vector<int64_t>> padsOf(const NodeShapes& s, std::string& why) {
    const auto rank = int64_t(s.inputDims[0].size());
    std::vector<int64_t> pads;
    if (s.opset < 11) {
        pads = s.attributes().getInts("pads");
    } else {
        if (!s.hasInput(1) || !s.constants[1]) return why = "its pads are computed at run time", std::nullopt;  // see pad()
        const Tensor& t = *s.constants[1];
        if (t.dtype() != DType::Int64) return why = "its pads are not int64", std::nullopt;
        pads.assign(t.span<int64_t>().begin(), t.span<int64_t>().end());
    }
    if (s.opset >= 18 && s.hasInput(3)) {
        if (!s.constants[3]) return why = "its axes are computed at run time", std::nullopt;
        const Tensor& t = *s.constants[3];
        std::vector<int64_t> axes;
        if (t.dtype() == DType::Int64) axes.assign(t.span<int64_t>().begin(), t.span<int64_t>().end());
        else if (t.dtype() == DType::Int32) axes.assign(t.span<int32_t>().begin(), t.span<int32_t>().end());
        else return why = "its axes are neither int32 nor int64", std::nullopt;
        if (!axes.empty()) {
            if (pads.size() != 2 * axes.size()) return why = "its pads do not fit its axes", std::nullopt;
            std::vector<int64_t> full(size_t(2 * rank), 0);
            for (size_t i = 0; i < axes.size(); ++i) {
                const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
                if (axis < 0 || axis >= rank) return why = "an axis is out of range", std::nullopt;
                full[size_t(axis)] = pads[i];
                full[size_t(axis + rank)] = pads[i + axes.size()];
            }
            pads = std::move(full);
        }
    }
    if (int64_t(pads.size()) != 2 * rank) return why = "its pads do not have two entries per axis", std::nullopt;
    return pads;
}

std::optional<NodeProgram> pad(const NodeShapes& s) {
    if (!s.hasInput(0) || !s.hasOutput(0) || s.inputTypes[0] != s.outputTypes[0])
        return declineBecause("its output type differs from its input's");
    const DType type = s.inputTypes[0];
    const int move = moveCode(type);
    if (move < 0) return declineBecause("pad.comp moves 8-, 16-, 32- and 64-bit elements, not " + std::string(dtypeName(type)));
    const std::string mode = s.attributes().getString("mode", "constant");
    const int modeCode = mode == "constant" ? 0 : mode == "reflect" ? 1 : mode == "edge" ? 2 : mode == "wrap" ? 3 : -1;
    if (modeCode < 0) return declineBecause("the pad mode '" + mode + "' is unknown");
    const auto& x = s.inputDims[0];
    const auto& y = s.outputDims[0];
    const size_t rank = x.size();
    if (y.size() != rank) return declineBecause("its output rank differs from its input's");
    // Pads computed at run time (a graph input): the shader reads the begin pads; the output shape
    // the plan knows gives the ends.
    const bool runtimePads = s.opset >= 11 && s.hasInput(1) && !s.constants[1];
    if (runtimePads && ((s.opset >= 18 && s.hasInput(3)) || rank > 6 || numel(s.inputDims[1]) != int64_t(2 * rank) ||
                        (s.inputTypes[1] != DType::Int64 && s.inputTypes[1] != DType::Int32)))
        return declineBecause("its pads are computed at run time with axes, past 6 dims or of another type than int32/int64");
    std::string why;
    const auto pads = runtimePads ? std::optional(std::vector<int64_t>(2 * rank, 0)) : padsOf(s, why);
    if (!pads) return declineBecause(why);
    for (size_t d = 0; d < rank; ++d) {
        if (!runtimePads && x[d] + (*pads)[d] + (*pads)[d + rank] != y[d]) return declineBecause("its pads do not give the output shape");
        if (x[d] == 0) return declineBecause("its input has no elements");
    }
    // The constant: its bits as specialization constants, or a tensor bound at run time.
    uint32_t lo = 0, hi = 0;
    bool valueInput = false;
    if (modeCode == 0) {
        if (s.opset < 11) {
            const float value = s.attributes().getFloat("value", 0.0f);
            if (type != DType::Float && value != 0.0f) return declineBecause("opset 2's float value pads a non-float tensor");
            std::memcpy(&lo, &value, 4);
        } else if (s.hasInput(2)) {
            if (s.inputTypes[2] != type) return declineBecause("its constant_value has another type than its input");
            if (!s.constants[2]) {
                if (numel(s.inputDims[2]) < 1) return declineBecause("its constant_value is empty");
                valueInput = true;
            } else if (s.constants[2]->numel() >= 1) {
                const auto* bytes = reinterpret_cast<const uint8_t*>(s.constants[2]->data());
                const int size = dtypeBits(type) / 8;
                std::memcpy(&lo, bytes, size_t(std::min(size, 4)));
                if (size == 8) std::memcpy(&hi, bytes + 4, 4);
            }
        }
    }
    // Merge neighbours that neither axis pads; drop unpadded axes of size 1.
    std::vector<int64_t> out, in, begin;
    for (size_t d = 0; d < rank; ++d) {
        const bool padded = runtimePads || (*pads)[d] != 0 || (*pads)[d + rank] != 0;
        if (!padded && x[d] == 1 && y[d] == 1) continue;
        if (!padded && !out.empty() && begin.back() == 0 && out.back() == in.back()) {
            out.back() *= x[d];
            in.back() *= x[d];
            continue;
        }
        out.push_back(y[d]);
        in.push_back(x[d]);
        begin.push_back((*pads)[d]);
    }
    if (out.size() > 6) return declineBecause("it pads more than 6 separate axes");
    while (out.size() < 6) {
        out.insert(out.begin(), 1);
        in.insert(in.begin(), 1);
        begin.insert(begin.begin(), 0);
    }
    const int64_t count = numel(y);
    Constants c;
    c.i(count);
    for (int64_t v : out) c.i(v);
    for (int64_t v : in) c.i(v);
    for (int64_t v : begin) c.i(v);
    c.i(modeCode).i(move).i(int64_t(lo)).i(int64_t(hi)).i(valueInput);
    c.i(runtimePads ? elementCode(s.inputTypes[1]) : -1).i(int64_t(rank));
    Dispatch d{"pad", c.take(),
               {TensorRef::output(0), TensorRef::input(0), valueInput ? TensorRef::input(2) : TensorRef::none(),
                runtimePads ? TensorRef::input(1) : TensorRef::none()},
               flatGroups(uint64_t(count), 64)};
    return NodeProgram{"vulkan:pad", {d}};
}

} // namespace

void registerPadOps(VulkanOpRegistry& registry) { registry.add("Pad", pad); }

} // namespace graphlens::vk
