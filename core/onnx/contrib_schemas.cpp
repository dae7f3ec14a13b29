// The com.microsoft schemas: each is the standard schema it extends, renamed, with the extra
// inputs and attributes ONNX Runtime's contrib schema declares.
#include "core/onnx/contrib_schemas.h"

#include <onnx/defs/schema.h>

#include <mutex>
#include <vector>

namespace graphlens {
namespace {

constexpr const char* kDomain = "com.microsoft";

struct ContribOp {
    const char* name;
    const char* extends;  ///< the standard op whose inputs and shape inference it keeps
    bool residual;        ///< adds an optional input Z after the standard ones
    std::vector<std::pair<const char*, onnx::AttributeProto::AttributeType>> attributes;
};

// FusedConv = activation(Conv(X, W, B) + Z);  FusedGemm = activation(Gemm(A, B, C))
const std::vector<ContribOp>& contribOps() {
    using A = onnx::AttributeProto;
    static const std::vector<ContribOp> ops = {
        {"FusedConv", "Conv", true, {{"activation", A::STRING}, {"activation_params", A::FLOATS}}},
        {"FusedGemm", "Gemm", false,
         {{"activation", A::STRING}, {"activation_alpha", A::FLOAT}, {"activation_beta", A::FLOAT},
          {"activation_gamma", A::FLOAT}}},
        // Gelu, BiasGelu(X, B) = Gelu(X + B), FastGelu(X[, B]), QuickGelu = X * sigmoid(alpha X): X's shape
        {"Gelu", "Relu", false, {}},
        {"BiasGelu", "Relu", true, {}},
        {"FastGelu", "Relu", true, {}},
        {"QuickGelu", "Relu", false, {{"alpha", A::FLOAT}}},
    };
    return ops;
}

void registerOne(const ContribOp& op) {
    if (onnx::OpSchemaRegistry::Schema(op.name, 1, kDomain)) return;
    const onnx::OpSchema* base = onnx::OpSchemaRegistry::Schema(op.extends);
    if (!base) return;
    onnx::OpSchema schema = *base;
    schema.SetName(op.name).SetDomain(kDomain).SinceVersion(1);
    if (op.residual)
        schema.Input(int(base->inputs().size()), "Z", "added before the activation", "T", onnx::OpSchema::Optional);
    for (const auto& [name, type] : op.attributes) schema.Attr(name, "", type, false);
    onnx::OpSchemaRegistry::OpSchemaRegisterOnce registered(schema);
}

/// ONNX Runtime also runs LayerNormalization in models before opset 17 (its kernel registered for
/// the default domain's opsets 1-16): the opset-17 schema, registered from version 1 on as well.
void registerLayerNormBeforeOpset17() {
    if (onnx::OpSchemaRegistry::Schema("LayerNormalization", 16)) return;
    const onnx::OpSchema* standard = onnx::OpSchemaRegistry::Schema("LayerNormalization", 17);
    if (!standard) return;
    onnx::OpSchema schema = *standard;
    schema.SinceVersion(1);
    onnx::OpSchemaRegistry::OpSchemaRegisterOnce registered(schema);
}

} // namespace

void registerContribSchemas() {
    static std::once_flag once;
    std::call_once(once, [] {
        auto& domains = onnx::OpSchemaRegistry::DomainToVersionRange::Instance();
        if (!domains.Map().count(kDomain)) domains.AddDomainToVersion(kDomain, 1, 1);
        for (const ContribOp& op : contribOps()) registerOne(op);
        registerLayerNormBeforeOpset17();
    });
}

} // namespace graphlens
