// Attribute defaults from libonnx's schema registry.
#include "core/onnx/schema_defaults.h"

#include "core/onnx/contrib_schemas.h"

#include <onnx/defs/schema.h>

#include <stdexcept>

namespace graphlens {
namespace {

std::optional<Attribute> fromProto(const onnx::AttributeProto& a) {
    using P = onnx::AttributeProto;
    switch (a.type()) {
    case P::FLOAT: return Attribute(a.f());
    case P::INT: return Attribute(int64_t(a.i()));
    case P::STRING: return Attribute(a.s());
    case P::FLOATS: return Attribute(std::vector<float>(a.floats().begin(), a.floats().end()));
    case P::INTS: return Attribute(std::vector<int64_t>(a.ints().begin(), a.ints().end()));
    default: return std::nullopt;
    }
}

[[noreturn]] void noDefault(const OpKey& op, int64_t opset, std::string_view name) {
    throw std::invalid_argument(op.toString() + " (opset " + std::to_string(opset) + ") has no default for '" +
                                std::string(name) + "'");
}

template <typename T>
T valueOrDefault(const Attributes& attributes, const OpKey& op, int64_t opset, std::string_view name) {
    if (const Attribute* given = attributes.find(name); given && given->holds<T>()) return given->get<T>();
    std::optional<Attribute> d = schemaDefault(op, opset, name);
    if (!d) d = schemaDefault(op, 0, name);  // an op used before its ONNX opset (ONNX Runtime's older contrib forms)
    if (!d || !d->holds<T>()) noDefault(op, opset, name);
    return d->get<T>();
}

} // namespace

std::optional<Attribute> schemaDefault(const OpKey& op, int64_t opset, std::string_view name) {
    registerContribSchemas();
    const onnx::OpSchema* schema = opset > 0 ? onnx::OpSchemaRegistry::Schema(op.op, int(opset), op.domain)
                                             : onnx::OpSchemaRegistry::Schema(op.op, op.domain);  // the latest
    if (!schema) return std::nullopt;
    const auto& attributes = schema->attributes();
    const auto it = attributes.find(std::string(name));
    if (it == attributes.end() || !it->second.default_value.has_type()) return std::nullopt;
    return fromProto(it->second.default_value);
}

std::optional<std::string> missingRequiredArgument(const OpKey& op, int64_t opset, const Attributes& attributes,
                                                   const std::vector<bool>& present) {
    registerContribSchemas();
    const onnx::OpSchema* schema = opset > 0 ? onnx::OpSchemaRegistry::Schema(op.op, int(opset), op.domain) : nullptr;
    if (!schema) return std::nullopt;
    for (const auto& entry : schema->attributes())
        if (entry.second.required && !attributes.has(entry.first))
            return "the required attribute '" + entry.first + "' is missing";
    const auto& formal = schema->inputs();
    for (size_t i = 0; i < formal.size(); ++i)
        if (formal[i].GetOption() == onnx::OpSchema::Single && (i >= present.size() || !present[i]))
            return "its required input " + std::to_string(i) + " ('" + formal[i].GetName() + "') is omitted";
    return std::nullopt;
}

float floatAttributeOrDefault(const Attributes& attributes, const OpKey& op, int64_t opset, std::string_view name) {
    return valueOrDefault<float>(attributes, op, opset, name);
}

int64_t intAttributeOrDefault(const Attributes& attributes, const OpKey& op, int64_t opset, std::string_view name) {
    return valueOrDefault<int64_t>(attributes, op, opset, name);
}

std::string stringAttributeOrDefault(const Attributes& attributes, const OpKey& op, int64_t opset,
                                     std::string_view name) {
    return valueOrDefault<std::string>(attributes, op, opset, name);
}

} // namespace graphlens
