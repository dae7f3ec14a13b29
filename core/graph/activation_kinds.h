// Activation kinds as C++ sees the table in activations.def: an enum whose values are the shader
// codes, each kind's name, domain, parameters with their defaults and flags, and lookups by name,
// by op and by id. The one place activation names, codes and defaults are stated.
#pragma once

#include <array>
#include <span>
#include <string_view>
#include <vector>

namespace graphlens {

class Attributes;

enum ActivationFlag : unsigned {
    kActUnaryOp = 1u,   ///< an op of its own, applied element-wise to input 0
    kActFusable = 2u,   ///< a fused Conv/Gemm may carry it (fuse-conv-activation and friends)
    kActOrtConv = 4u,   ///< ONNX Runtime's FusedConv accepts it
    kActOrtGemm = 8u,   ///< ONNX Runtime's FusedGemm accepts it
};

/// The kinds; each value is the kind's shader code (ACT_<ID> in the generated GLSL header).
enum class ActivationId : int {
#define GRAPHLENS_ACTIVATION(id, name, domain, code, alphaAttribute, alpha, betaAttribute, beta, flags) id = code,
#include "core/graph/activations.def"
#undef GRAPHLENS_ACTIVATION
};

/// alpha and beta: an activation's two numbers (LeakyRelu: alpha; HardSigmoid: alpha, beta;
/// Clip: min, max; Selu: alpha, gamma); unused ones are 0.
using ActivationParams = std::array<float, 2>;

struct ActivationKind {
    ActivationId id;
    std::string_view name;    ///< as ONNX / ONNX Runtime spell the op and the "activation" attribute
    std::string_view domain;  ///< "" is the default ONNX domain
    std::string_view alphaAttribute;  ///< "" when the kind takes no alpha
    float alphaDefault;
    std::string_view betaAttribute;   ///< "" when the kind takes no beta
    float betaDefault;
    unsigned flags;

    constexpr int code() const { return int(id); }
    constexpr bool has(ActivationFlag flag) const { return (flags & flag) != 0; }
    /// How many numbers the kind takes (0, 1 or 2).
    constexpr size_t paramCount() const { return !betaAttribute.empty() ? 2 : !alphaAttribute.empty() ? 1 : 0; }
    constexpr ActivationParams defaults() const { return {alphaDefault, betaDefault}; }
};

inline constexpr ActivationKind kActivationKinds[] = {
#define GRAPHLENS_ACTIVATION(id, name, domain, code, alphaAttribute, alpha, betaAttribute, beta, flags) \
    {ActivationId::id, name, domain, alphaAttribute, alpha, betaAttribute, beta, flags},
#include "core/graph/activations.def"
#undef GRAPHLENS_ACTIVATION
};

/// The row of `id`.
const ActivationKind& activationKind(ActivationId id);
/// The kind named `name` (a fused node's "activation" attribute: "Relu", "QuickGelu", ...);
/// nullptr when the table has none.
const ActivationKind* activationKindNamed(std::string_view name);
/// The kind the op (domain, op type) computes as an element-wise op of its own (kActUnaryOp);
/// nullptr otherwise. "" and "ai.onnx" are the same domain.
const ActivationKind* activationKindOfOp(std::string_view domain, std::string_view op);
/// The numbers of a node computing `kind`, from its attributes, the table's defaults where absent.
ActivationParams activationParams(const ActivationKind& kind, const Attributes& attributes);
/// The numbers given in `given` (a fused node's activation_params), the defaults where missing or NaN.
ActivationParams activationParams(const ActivationKind& kind, const std::vector<float>& given);

} // namespace graphlens
