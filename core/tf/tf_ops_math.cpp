// TensorFlow's element-wise math, comparisons, reductions and arg/top-k ops as ONNX ops. Element-wise
// ops keep a channels-first input channels-first when every other operand can follow it (a tensor
// also held in NCHW, a constant permuted at import, a scalar), so a chain of convolutions and the
// math between them stays free of layout Transposes.
#include "core/tf/tf_node_converter.h"

#include "core/tf/tf_tensor.h"

namespace graphlens::tf {
namespace {

/// Inputs of an element-wise op and the layout to compute it in.
std::pair<std::vector<ValueId>, Layout> elementwiseInputs(NodeConverter& c, size_t count) {
    bool anyNchw = false;
    for (size_t i = 0; i < count; ++i) anyNchw = anyNchw || c.hasNchw(i);
    if (anyNchw) {
        std::vector<ValueId> in;
        for (size_t i = 0; i < count; ++i) {
            const ValueId v = c.nchwOperand(i);
            if (v == kNoId) break;
            in.push_back(v);
        }
        if (in.size() == count) return {in, Layout::NCHW};
    }
    std::vector<ValueId> in;
    for (size_t i = 0; i < count; ++i) in.push_back(c.input(i));
    return {in, Layout::NHWC};
}

bool isFloatT(const NodeConverter& c) {
    const auto type = dtypeFromTf(c.attrType("T", DT_FLOAT));
    return type && isFloatingPoint(*type);
}

void binary(ConverterTable& t, const std::string& tfOp, const std::string& onnxOp, size_t arity = 2) {
    t[tfOp] = [onnxOp, arity](NodeConverter& c) {
        const size_t n = arity == 0 ? c.inputCount() : arity;
        auto [in, layout] = elementwiseInputs(c, n);
        if (n == 1) return c.alias(0, in[0], layout);
        c.produce(onnxOp, in, {}, layout);
    };
}

void unary(ConverterTable& t, const std::string& tfOp, const std::string& onnxOp) {
    t[tfOp] = [onnxOp](NodeConverter& c) {
        auto [in, layout] = elementwiseInputs(c, 1);
        c.produce(onnxOp, in, {}, layout);
    };
}

/// An element-wise op made of several ONNX nodes: `body` gets the inputs (in the chosen layout)
/// and returns the last node's op and inputs, which produce the TF output.
using Body = std::function<std::pair<std::string, std::vector<ValueId>>(NodeConverter&, const std::vector<ValueId>&)>;
void composite(ConverterTable& t, const std::string& tfOp, size_t arity, Body body) {
    t[tfOp] = [arity, body](NodeConverter& c) {
        auto [in, layout] = elementwiseInputs(c, arity);
        auto [op, inputs] = body(c, in);
        c.produce(op, inputs, {}, layout);
    };
}

void reduction(ConverterTable& t, const std::string& tfOp, const std::string& onnxOp) {
    t[tfOp] = [onnxOp](NodeConverter& c) {
        std::vector<int64_t> axes = c.constInts(1);
        const bool keep = c.attrBool("keep_dims", false);
        if (axes.empty()) return c.alias(0, c.input(0));
        Layout in = Layout::NHWC, out = Layout::NHWC;
        if (c.hasNchw(0)) {
            bool h = false, w = false, ch = false;
            for (int64_t a : axes) {
                const int64_t n = toNchwAxis(a);  // an axis outside [-4, 3] matches none: validation refuses it
                h = h || n == 2;
                w = w || n == 3;
                ch = ch || n == 1;
            }
            if (keep || (h && w) || ch) {
                in = Layout::NCHW;
                out = keep ? Layout::NCHW : Layout::NHWC;
                for (int64_t& a : axes) a = toNchwAxis(a);
            }
        }
        const ValueId x = c.input(0, in);
        Attributes attrs{{"keepdims", int64_t(keep)}};
        if (onnxOp == "ReduceSum") return c.produce(onnxOp, {x, c.int64Constant(axes, "axes")}, attrs, out);
        attrs.set("axes", axes);
        c.produce(onnxOp, {x}, attrs, out);
    };
}

void argReduce(NodeConverter& c, const std::string& onnxOp) {
    const std::vector<int64_t> axis = c.constInts(1);
    if (axis.size() != 1) c.fail("needs one axis");
    const ValueId arg = c.add(onnxOp, {c.input(0)}, {{"axis", axis[0]}, {"keepdims", int64_t(0)}});
    const int type = c.attrType("output_type", DT_INT64);
    if (type == DT_INT64) return c.alias(0, arg);
    c.produce("Cast", {arg}, {{"to", int64_t(*dtypeFromTf(type))}});
}

void convertTopK(NodeConverter& c) {
    const ValueId k = c.add("Reshape", {c.int64Input(1), c.int64Constant({1}, "k_shape")});
    std::vector<ValueId> outs;
    c.add("TopK", {c.input(0), k}, {{"axis", int64_t(-1)}, {"largest", int64_t(1)},
                                    {"sorted", int64_t(c.attrBool("sorted", true))}}, 2, &outs);
    c.alias(0, outs[0]);
    c.produceAt(1, "Cast", {outs[1]}, {{"to", int64_t(DType::Int32)}});
}

void convertCast(NodeConverter& c) {
    const int dst = c.attrType("DstT", DT_FLOAT);
    const auto type = dtypeFromTf(dst);
    if (!type) c.fail("casts to " + tfTypeName(dst) + ", which GraphLens has no type for");
    const Layout layout = c.hasNchw(0) ? Layout::NCHW : Layout::NHWC;
    c.produce("Cast", {c.input(0, layout)}, {{"to", int64_t(*type)}}, layout);
}

} // namespace

void registerMathOps(ConverterTable& t) {
    binary(t, "Add", "Add");
    binary(t, "AddV2", "Add");
    binary(t, "Sub", "Sub");
    binary(t, "Mul", "Mul");
    binary(t, "RealDiv", "Div");
    binary(t, "Div", "Div");
    binary(t, "DivNoNan", "Div");
    binary(t, "Maximum", "Max");
    binary(t, "Minimum", "Min");
    binary(t, "Pow", "Pow");
    binary(t, "Greater", "Greater");
    binary(t, "GreaterEqual", "GreaterOrEqual");
    binary(t, "Less", "Less");
    binary(t, "LessEqual", "LessOrEqual");
    binary(t, "Equal", "Equal");
    binary(t, "LogicalAnd", "And");
    binary(t, "LogicalOr", "Or");
    binary(t, "AddN", "Sum", 0);
    binary(t, "Select", "Where", 3);
    binary(t, "SelectV2", "Where", 3);
    for (const auto& [tfOp, onnxOp] : std::vector<std::pair<std::string, std::string>>{
             {"Exp", "Exp"}, {"Log", "Log"}, {"Sqrt", "Sqrt"}, {"Abs", "Abs"}, {"Neg", "Neg"},
             {"Floor", "Floor"}, {"Ceil", "Ceil"}, {"Round", "Round"}, {"Sin", "Sin"}, {"Cos", "Cos"},
             {"Tan", "Tan"}, {"Asin", "Asin"}, {"Acos", "Acos"}, {"Atan", "Atan"}, {"Sinh", "Sinh"},
             {"Cosh", "Cosh"}, {"Asinh", "Asinh"}, {"Acosh", "Acosh"}, {"Atanh", "Atanh"},
             {"Reciprocal", "Reciprocal"}, {"Inv", "Reciprocal"}, {"Softplus", "Softplus"},
             {"Softsign", "Softsign"}, {"Erf", "Erf"}, {"Sign", "Sign"}, {"LogicalNot", "Not"},
             {"IsNan", "IsNaN"}})
        unary(t, tfOp, onnxOp);
    composite(t, "Rsqrt", 1, [](NodeConverter& c, const std::vector<ValueId>& in) {
        return std::pair{std::string("Reciprocal"), std::vector<ValueId>{c.add("Sqrt", {in[0]})}};
    });
    composite(t, "Square", 1, [](NodeConverter&, const std::vector<ValueId>& in) {
        return std::pair{std::string("Mul"), std::vector<ValueId>{in[0], in[0]}};
    });
    composite(t, "SquaredDifference", 2, [](NodeConverter& c, const std::vector<ValueId>& in) {
        const ValueId d = c.add("Sub", {in[0], in[1]});
        return std::pair{std::string("Mul"), std::vector<ValueId>{d, d}};
    });
    composite(t, "NotEqual", 2, [](NodeConverter& c, const std::vector<ValueId>& in) {
        return std::pair{std::string("Not"), std::vector<ValueId>{c.add("Equal", {in[0], in[1]})}};
    });
    composite(t, "FloorDiv", 2, [](NodeConverter& c, const std::vector<ValueId>& in) {
        if (!isFloatT(c)) {  // integers: (a - floormod(a, b)) / b is exact, where ONNX Div truncates
            const ValueId mod = c.add("Mod", {in[0], in[1]}, {{"fmod", int64_t(0)}});
            return std::pair{std::string("Div"), std::vector<ValueId>{c.add("Sub", {in[0], mod}), in[1]}};
        }
        return std::pair{std::string("Floor"), std::vector<ValueId>{c.add("Div", {in[0], in[1]})}};
    });
    composite(t, "FloorMod", 2, [](NodeConverter& c, const std::vector<ValueId>& in) {
        if (!isFloatT(c)) return std::pair{std::string("Mod"), in};  // fmod=0: the sign of the divisor, as TF
        const ValueId q = c.add("Floor", {c.add("Div", {in[0], in[1]})});
        return std::pair{std::string("Sub"), std::vector<ValueId>{in[0], c.add("Mul", {q, in[1]})}};
    });
    // atan2(y, x) = 2 atan(y / (sqrt(x^2 + y^2) + x)), the half-angle form (exact but at x < 0, y = 0)
    composite(t, "Atan2", 2, [](NodeConverter& c, const std::vector<ValueId>& in) {
        const ValueId r = c.add("Sqrt", {c.add("Add", {c.add("Mul", {in[1], in[1]}), c.add("Mul", {in[0], in[0]})})});
        const ValueId half = c.add("Atan", {c.add("Div", {in[0], c.add("Add", {r, in[1]})})});
        return std::pair{std::string("Mul"), std::vector<ValueId>{half, c.constantValue(Tensor::scalar(2.f), "two")}};
    });
    reduction(t, "Mean", "ReduceMean");
    reduction(t, "Sum", "ReduceSum");
    reduction(t, "Max", "ReduceMax");
    reduction(t, "Min", "ReduceMin");
    reduction(t, "Prod", "ReduceProd");
    t["ArgMax"] = [](NodeConverter& c) { argReduce(c, "ArgMax"); };
    t["ArgMin"] = [](NodeConverter& c) { argReduce(c, "ArgMin"); };
    t["TopKV2"] = convertTopK;
    t["Cast"] = convertCast;
}

} // namespace graphlens::tf
