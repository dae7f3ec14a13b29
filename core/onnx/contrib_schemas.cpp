// The com.microsoft schemas: each is the standard schema it extends, renamed, with the extra
// inputs and attributes ONNX Runtime's contrib schema declares.
#include "core/onnx/contrib_schemas.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <algorithm>

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

/// Broadcasts batch dims a and b (numpy rules) into `out`; false when they do not broadcast.
bool broadcastBatch(const onnx::TensorShapeProto& a, int aBatch, const onnx::TensorShapeProto& b, int bBatch,
                    onnx::TensorShapeProto& out) {
    const int rank = std::max(aBatch, bBatch);
    for (int i = 0; i < rank; ++i) {
        const int ai = i - (rank - aBatch), bi = i - (rank - bBatch);
        const onnx::TensorShapeProto::Dimension* da = ai >= 0 ? &a.dim(ai) : nullptr;
        const onnx::TensorShapeProto::Dimension* db = bi >= 0 ? &b.dim(bi) : nullptr;
        auto* d = out.add_dim();
        const bool oneA = !da || (da->has_dim_value() && da->dim_value() == 1);
        const bool oneB = !db || (db->has_dim_value() && db->dim_value() == 1);
        if (oneA && db) *d = *db;
        else if (oneB && da) *d = *da;
        else if (da->has_dim_value() && db->has_dim_value() && da->dim_value() != db->dim_value()) return false;
        else if (da->has_dim_value()) *d = *da;
        else *d = *db;
    }
    return true;
}

/// FusedMatMul(A, B) = alpha * op(A) x op(B), op swapping the last two axes when transA / transB:
/// MatMul's schema with its attributes and the shape of the transposed product.
void registerFusedMatMul() {
    if (onnx::OpSchemaRegistry::Schema("FusedMatMul", 1, kDomain)) return;
    const onnx::OpSchema* base = onnx::OpSchemaRegistry::Schema("MatMul");
    if (!base) return;
    using A = onnx::AttributeProto;
    onnx::OpSchema schema = *base;
    schema.SetName("FusedMatMul").SetDomain(kDomain).SinceVersion(1);
    schema.Attr("alpha", "scale of the product", A::FLOAT, 1.0f);
    for (const char* name : {"transA", "transB", "transBatchA", "transBatchB"})
        schema.Attr(name, "", A::INT, int64_t(0));
    schema.TypeAndShapeInferenceFunction([](onnx::InferenceContext& ctx) {
        onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
        if (!onnx::hasNInputShapes(ctx, 2)) return;
        onnx::TensorShapeProto a = onnx::getInputShape(ctx, 0), b = onnx::getInputShape(ctx, 1);
        auto swapLastTwo = [](onnx::TensorShapeProto& s) {
            const int r = s.dim_size();
            if (r >= 2) s.mutable_dim()->SwapElements(r - 2, r - 1);
        };
        if (onnx::getAttribute(ctx, "transA", 0) != 0) swapLastTwo(a);
        if (onnx::getAttribute(ctx, "transB", 0) != 0) swapLastTwo(b);
        if (a.dim_size() == 0 || b.dim_size() == 0) fail_shape_inference("FusedMatMul does not take scalars");
        const bool vectorA = a.dim_size() == 1, vectorB = b.dim_size() == 1;
        const int aBatch = vectorA ? 0 : a.dim_size() - 2, bBatch = vectorB ? 0 : b.dim_size() - 2;
        onnx::TensorShapeProto out;
        if (!broadcastBatch(a, aBatch, b, bBatch, out)) fail_shape_inference("FusedMatMul batch dims do not broadcast");
        if (!vectorA) *out.add_dim() = a.dim(a.dim_size() - 2);
        if (!vectorB) *out.add_dim() = b.dim(b.dim_size() - 1);
        onnx::updateOutputShape(ctx, 0, out);
    });
    onnx::OpSchemaRegistry::OpSchemaRegisterOnce registered(schema);
}

/// SkipLayerNormalization(input, skip, gamma[, beta, bias]) = LayerNorm(input + skip + bias) over
/// the last axis; the outputs after the first (mean, inverse std, the sum) are optional.
void registerSkipLayerNormalization() {
    if (onnx::OpSchemaRegistry::Schema("SkipLayerNormalization", 1, kDomain)) return;
    using A = onnx::AttributeProto;
    onnx::OpSchema schema;
    schema.SetName("SkipLayerNormalization").SetDomain(kDomain).SinceVersion(1);
    schema.Attr("epsilon", "added to the variance", A::FLOAT, 1e-12f);
    schema.Input(0, "input", "", "T").Input(1, "skip", "", "T").Input(2, "gamma", "", "T");
    schema.Input(3, "beta", "", "T", onnx::OpSchema::Optional).Input(4, "bias", "", "T", onnx::OpSchema::Optional);
    schema.Output(0, "output", "", "T").Output(1, "mean", "", "U", onnx::OpSchema::Optional);
    schema.Output(2, "inv_std_var", "", "U", onnx::OpSchema::Optional);
    schema.Output(3, "input_skip_bias_sum", "", "T", onnx::OpSchema::Optional);
    schema.TypeConstraint("T", {"tensor(float)", "tensor(float16)", "tensor(double)"}, "");
    schema.TypeConstraint("U", {"tensor(float)"}, "");
    schema.TypeAndShapeInferenceFunction([](onnx::InferenceContext& ctx) {
        onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
        if (ctx.getNumOutputs() > 3) onnx::propagateElemTypeFromInputToOutput(ctx, 0, 3);
        if (!onnx::hasInputShape(ctx, 0)) return;
        onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
        if (ctx.getNumOutputs() > 3) onnx::propagateShapeFromInputToOutput(ctx, 0, 3);
    });
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
        registerFusedMatMul();
        registerSkipLayerNormalization();
        registerLayerNormBeforeOpset17();
    });
}

} // namespace graphlens
