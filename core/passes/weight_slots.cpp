// The weight input of Conv, Gemm and MatMul, one table row per op.
#include "core/passes/weight_slots.h"

#include "core/passes/pattern.h"

#include <string_view>

namespace graphlens {
namespace {

struct WeightAxisRule {
    std::string_view op;  ///< opKey() form
    std::optional<int64_t> (*axis)(const Node& node, int64_t rank);
};

std::optional<int64_t> firstAxis(const Node&, int64_t rank) { return rank >= 1 ? std::optional<int64_t>(0) : std::nullopt; }

std::optional<int64_t> matMulColumns(const Node& n, int64_t rank) {
    if (rank < 2) return std::nullopt;
    return n.attributes.getInt("transB", 0) ? rank - 2 : rank - 1;
}

std::optional<int64_t> gemmColumns(const Node& n, int64_t rank) {
    if (rank != 2) return std::nullopt;
    return n.attributes.getInt("transB", 0) ? 0 : 1;
}

// W[M, C/group, k...] -> axis 0;  B[..., K, N] -> axis rank-1;  Gemm B[K, N] -> 1, transB B[N, K] -> 0
constexpr WeightAxisRule kRules[] = {
    {"Conv", firstAxis},
    {"com.microsoft:FusedConv", firstAxis},
    {"MatMul", matMulColumns},
    {"com.microsoft:FusedMatMul", matMulColumns},
    {"Gemm", gemmColumns},
    {"com.microsoft:FusedGemm", gemmColumns},
};

} // namespace

std::optional<int64_t> outputChannelAxis(const Node& node, size_t rank) {
    const std::string key = opKey(node);
    for (const WeightAxisRule& rule : kRules)
        if (rule.op == key) return rule.axis(node, int64_t(rank));
    return std::nullopt;
}

} // namespace graphlens
