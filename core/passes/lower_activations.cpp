// Lowering GELU, QuickGelu and LayerNormalization into standard ONNX nodes.
#include "core/passes/lower_activations.h"

#include "core/graph/activation_kinds.h"
#include "core/onnx/schema_defaults.h"
#include "core/passes/rewriter.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace graphlens {
namespace {

/// Writes a chain of standard nodes in place of the fused `node`: op() adds one step, finish()
/// puts the last step where the fused node was (it keeps the node's outputs).
class Chain {
public:
    Chain(Rewriter& rw, NodeId node) : rw_(rw), node_(node), base_(rw.graph().node(node).name) {
        const Value& out = rw.graph().value(rw.graph().node(node).output(0));
        dtype_ = out.dtype;
        shape_ = out.shape;
    }
    ValueId input(size_t i) const { return rw_.graph().node(node_).input(i); }
    bool hasInput(size_t i) const {
        const auto& in = rw_.graph().node(node_).inputs();
        return i < in.size() && in[i] != kNoId;
    }
    const Attributes& attributes() const { return rw_.graph().node(node_).attributes; }
    const Shape& outputShape() const { return shape_; }

    /// One step; its output has the fused node's type and `shape` (default: the output's shape).
    ValueId op(const std::string& type, std::vector<ValueId> inputs, Attributes attributes = {},
               std::optional<Shape> shape = std::nullopt) {
        const NodeId from[] = {node_};
        const std::string name = base_ + "_" + type + "_" + std::to_string(++steps_);
        const NodeId id = rw_.addNode(type, std::move(inputs), {name}, std::move(attributes), from, name);
        const ValueId out = rw_.graph().node(id).output(0);
        if (dtype_ != DType::Undefined) rw_.setValueInfo(out, dtype_, shape ? *shape : shape_);
        return out;
    }
    ValueId constant(float value) { return rw_.addInitializer(base_ + "_const", Tensor::scalar(value)); }
    void finish(const std::string& type, std::vector<ValueId> inputs, Attributes attributes = {}) {
        rw_.replaceNodes({node_}, type, std::move(inputs), std::move(attributes));
    }

private:
    Rewriter& rw_;
    NodeId node_;
    std::string base_;
    DType dtype_ = DType::Undefined;
    Shape shape_;
    int steps_ = 0;
};

/// 0.5 * x * (1 + t): the last three nodes of both GELU forms, t computed from x.
void finishHalfXTimesOnePlus(Chain& c, ValueId x, ValueId t) {
    const ValueId onePlus = c.op("Add", {t, c.constant(1.f)});
    const ValueId product = c.op("Mul", {x, onePlus});
    c.finish("Mul", {product, c.constant(0.5f)});
}

void lowerErfGelu(Chain& c, ValueId x) {
    const ValueId scaled = c.op("Div", {x, c.constant(float(std::numbers::sqrt2))});
    finishHalfXTimesOnePlus(c, x, c.op("Erf", {scaled}));
}

} // namespace

void lowerGelu(Rewriter& rw, NodeId node, int64_t) {
    Chain c(rw, node);
    lowerErfGelu(c, c.input(0));
}

void lowerBiasGelu(Rewriter& rw, NodeId node, int64_t) {
    Chain c(rw, node);
    lowerErfGelu(c, c.op("Add", {c.input(0), c.input(1)}));
}

void lowerFastGelu(Rewriter& rw, NodeId node, int64_t) {
    Chain c(rw, node);
    const ValueId x = c.hasInput(1) ? c.op("Add", {c.input(0), c.input(1)}) : c.input(0);
    const ValueId cube = c.op("Pow", {x, c.constant(3.f)});
    const ValueId sum = c.op("Add", {x, c.op("Mul", {cube, c.constant(0.044715f)})});
    const ValueId inner = c.op("Mul", {sum, c.constant(float(std::sqrt(2 / std::numbers::pi)))});
    finishHalfXTimesOnePlus(c, x, c.op("Tanh", {inner}));
}

void lowerQuickGelu(Rewriter& rw, NodeId node, int64_t) {
    Chain c(rw, node);
    const ValueId x = c.input(0);
    const float alpha = activationParams(activationKind(ActivationId::QuickGelu), c.attributes())[0];
    const ValueId z = alpha == 1.f ? x : c.op("Mul", {x, c.constant(alpha)});
    c.finish("Mul", {x, c.op("Sigmoid", {z})});
}

void lowerLayerNormalization(Rewriter& rw, NodeId node, int64_t opset) {
    const Node& n = rw.graph().node(node);
    for (size_t i = 1; i < n.outputs().size(); ++i)
        if (n.output(i) != kNoId && !rw.graph().value(n.output(i)).uses().empty())
            throw std::runtime_error("LayerNormalization '" + n.name +
                                     "' cannot be lowered: its statistics outputs are read");
    Chain c(rw, node);
    const Shape& shape = c.outputShape();
    int64_t axis = c.attributes().getInt("axis", -1);
    std::vector<int64_t> axes;
    if (shape.rankKnown()) {
        const auto rank = int64_t(shape.rank());
        for (int64_t a = axis < 0 ? axis + rank : axis; a < rank; ++a) axes.push_back(a);
    } else if (axis == -1) {
        axes.push_back(-1);
    } else {
        throw std::runtime_error("LayerNormalization '" + n.name + "' cannot be lowered: its input's rank is unknown");
    }
    std::optional<Shape> reduced;
    if (shape.rankKnown()) {
        std::vector<Dim> dims = shape.dims();
        for (int64_t a : axes) dims[size_t(a)] = Dim(int64_t(1));
        reduced = Shape(dims);
    }
    auto mean = [&](ValueId v) {
        if (opset >= 18) {
            const ValueId axesInput = rw.addInitializer("axes", Tensor::int64s({int64_t(axes.size())}, axes));
            return c.op("ReduceMean", {v, axesInput}, {}, reduced);
        }
        return c.op("ReduceMean", {v}, {{"axes", axes}}, reduced);
    };
    const ValueId x = c.input(0);
    const ValueId d = c.op("Sub", {x, mean(x)});
    const ValueId variance = mean(c.op("Pow", {d, c.constant(2.f)}));
    const ValueId epsilon = c.constant(floatAttributeOrDefault(c.attributes(), OpKey("", "LayerNormalization"), opset, "epsilon"));
    const ValueId deviation = c.op("Sqrt", {c.op("Add", {variance, epsilon}, {}, reduced)}, {}, reduced);
    const ValueId normalized = c.op("Div", {d, deviation});
    const bool bias = c.hasInput(2);
    const ValueId scale = c.input(1);
    if (!bias) return c.finish("Mul", {normalized, scale});
    c.finish("Add", {c.op("Mul", {normalized, scale}), c.input(2)});
}

} // namespace graphlens
