// Lookups into the activation table (activations.def).
#include "core/graph/activation_kinds.h"

#include "core/graph/attribute.h"
#include "core/graph/op_key.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace graphlens {

const ActivationKind& activationKind(ActivationId id) {
    for (const ActivationKind& kind : kActivationKinds)
        if (kind.id == id) return kind;
    throw std::logic_error("activation id " + std::to_string(int(id)) + " is not in activations.def");
}

const ActivationKind* activationKindNamed(std::string_view name) {
    for (const ActivationKind& kind : kActivationKinds)
        if (kind.name == name) return &kind;
    return nullptr;
}

const ActivationKind* activationKindOfOp(std::string_view domain, std::string_view op) {
    const std::string canonical = canonicalDomain(domain);
    for (const ActivationKind& kind : kActivationKinds)
        if (kind.has(kActUnaryOp) && kind.name == op && kind.domain == canonical) return &kind;
    return nullptr;
}

ActivationParams activationParams(const ActivationKind& kind, const Attributes& attributes) {
    ActivationParams p = kind.defaults();
    if (!kind.alphaAttribute.empty()) p[0] = attributes.getFloat(kind.alphaAttribute, p[0]);
    if (!kind.betaAttribute.empty()) p[1] = attributes.getFloat(kind.betaAttribute, p[1]);
    return p;
}

ActivationParams activationParams(const ActivationKind& kind, const std::vector<float>& given) {
    ActivationParams p = kind.defaults();
    for (size_t i = 0; i < 2 && i < given.size(); ++i)
        if (!std::isnan(given[i])) p[i] = given[i];
    return p;
}

} // namespace graphlens
