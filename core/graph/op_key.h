// The canonical name of an operator: its domain and op type, with the default ONNX domain spelled
// one way ("", never "ai.onnx": the loader and Graph::addNode normalize it), so registries,
// messages and comparisons never normalize it again.
#pragma once

#include <compare>
#include <string>
#include <string_view>

namespace graphlens {

/// The default ONNX domain's other spelling, as files may write it.
inline constexpr std::string_view kOnnxDomainAlias = "ai.onnx";

/// True for the default ONNX domain in either spelling ("" or "ai.onnx").
constexpr bool isDefaultDomain(std::string_view domain) { return domain.empty() || domain == kOnnxDomainAlias; }

/// `domain` in its one spelling: "" for the default ONNX domain, as is otherwise.
inline std::string canonicalDomain(std::string_view domain) {
    return isDefaultDomain(domain) ? std::string() : std::string(domain);
}

/// (domain, op type) with the domain canonical; what every op registry keys on.
struct OpKey {
    std::string domain;  ///< canonical: "" is the default ONNX domain
    std::string op;

    OpKey() = default;
    OpKey(std::string_view opDomain, std::string_view opType) : domain(canonicalDomain(opDomain)), op(opType) {}
    /// The key of a node (anything with `domain` and `opType`).
    template <typename NodeLike>
    static OpKey of(const NodeLike& node) { return OpKey(node.domain, node.opType); }

    bool isDefaultDomain() const { return domain.empty(); }
    /// "Op" in the default domain, "domain:Op" otherwise: the one spelling of messages and listings.
    std::string toString() const { return domain.empty() ? op : domain + ":" + op; }

    auto operator<=>(const OpKey&) const = default;
    bool operator==(const OpKey&) const = default;
};

} // namespace graphlens
