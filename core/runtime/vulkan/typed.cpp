// Element type codes and the operand walk of the typed shaders.
#include "core/runtime/vulkan/typed.h"

namespace graphlens::vk {

int elementCode(DType type) {
    switch (type) {
    case DType::Float: return 0;
    case DType::Int32: return 1;
    case DType::Int64: return 2;
    case DType::UInt8: return 3;
    case DType::Int8: return 4;
    case DType::UInt16: return 5;
    case DType::Int16: return 6;
    case DType::UInt32: return 7;
    case DType::UInt64: return 8;
    case DType::Bool: return 9;
    default: return -1;
    }
}

int elementSize(DType type) { return dtypeBits(type) / 8; }

int moveCode(DType type) {
    switch (dtypeBits(type)) {
    case 8: return 3;
    case 16: return 5;
    case 32: return 7;
    case 64: return 8;
    default: return -1;
    }
}

std::optional<OperandWalk> operandWalk(const std::vector<int64_t>& out, const std::vector<std::vector<int64_t>>& operands) {
    std::vector<std::vector<int64_t>> full;
    for (const auto& d : operands) {
        if (d.size() > out.size()) return std::nullopt;
        std::vector<int64_t> s(out.size(), 0);
        const std::vector<int64_t> own = stridesOf(d);
        const size_t shift = out.size() - d.size();
        for (size_t i = 0; i < d.size(); ++i) {
            if (d[i] != 1 && d[i] != out[shift + i]) return std::nullopt;
            s[shift + i] = d[i] == 1 ? 0 : own[i];
        }
        full.push_back(std::move(s));
    }
    OperandWalk w;
    w.strides.resize(operands.size());
    for (size_t i = 0; i < out.size(); ++i) {
        if (out[i] == 1) continue;
        bool merge = !w.dims.empty();
        for (size_t k = 0; k < full.size() && merge; ++k) merge = w.strides[k].back() == full[k][i] * out[i];
        if (merge) {
            w.dims.back() *= out[i];
            for (size_t k = 0; k < full.size(); ++k) w.strides[k].back() = full[k][i];
            continue;
        }
        w.dims.push_back(out[i]);
        for (size_t k = 0; k < full.size(); ++k) w.strides[k].push_back(full[k][i]);
    }
    if (w.dims.size() > 6) return std::nullopt;
    while (w.dims.size() < 6) {
        w.dims.insert(w.dims.begin(), 1);
        for (auto& s : w.strides) s.insert(s.begin(), 0);
    }
    return w;
}

} // namespace graphlens::vk
