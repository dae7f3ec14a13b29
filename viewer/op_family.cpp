// The op -> family table. Ops of other domains than the default one are fused operators.
#include "viewer/op_family.h"

#include "core/graph/op_key.h"

#include <array>
#include <string_view>
#include <unordered_map>

namespace graphlens {
namespace {

using Row = std::pair<std::string_view, OpFamily>;

constexpr std::array kFamilies{
    Row{"Conv", OpFamily::Linear}, Row{"ConvTranspose", OpFamily::Linear},
    Row{"ConvInteger", OpFamily::Linear}, Row{"QLinearConv", OpFamily::Linear},
    Row{"Gemm", OpFamily::Linear}, Row{"MatMul", OpFamily::Linear},
    Row{"MatMulInteger", OpFamily::Linear}, Row{"QLinearMatMul", OpFamily::Linear},
    Row{"Einsum", OpFamily::Linear},

    Row{"Relu", OpFamily::Activation}, Row{"LeakyRelu", OpFamily::Activation},
    Row{"PRelu", OpFamily::Activation}, Row{"Elu", OpFamily::Activation},
    Row{"Selu", OpFamily::Activation}, Row{"Celu", OpFamily::Activation},
    Row{"Sigmoid", OpFamily::Activation}, Row{"HardSigmoid", OpFamily::Activation},
    Row{"HardSwish", OpFamily::Activation}, Row{"Tanh", OpFamily::Activation},
    Row{"Softmax", OpFamily::Activation}, Row{"LogSoftmax", OpFamily::Activation},
    Row{"Softplus", OpFamily::Activation}, Row{"Softsign", OpFamily::Activation},
    Row{"Gelu", OpFamily::Activation}, Row{"Mish", OpFamily::Activation},
    Row{"Clip", OpFamily::Activation}, Row{"ThresholdedRelu", OpFamily::Activation},

    Row{"BatchNormalization", OpFamily::Normalization},
    Row{"LayerNormalization", OpFamily::Normalization},
    Row{"InstanceNormalization", OpFamily::Normalization},
    Row{"GroupNormalization", OpFamily::Normalization},
    Row{"LpNormalization", OpFamily::Normalization}, Row{"LRN", OpFamily::Normalization},
    Row{"MeanVarianceNormalization", OpFamily::Normalization},
    Row{"Dropout", OpFamily::Normalization},

    Row{"MaxPool", OpFamily::Pooling}, Row{"AveragePool", OpFamily::Pooling},
    Row{"GlobalAveragePool", OpFamily::Pooling}, Row{"GlobalMaxPool", OpFamily::Pooling},
    Row{"GlobalLpPool", OpFamily::Pooling}, Row{"LpPool", OpFamily::Pooling},
    Row{"MaxRoiPool", OpFamily::Pooling}, Row{"RoiAlign", OpFamily::Pooling},
    Row{"MaxUnpool", OpFamily::Pooling}, Row{"Resize", OpFamily::Pooling},
    Row{"Upsample", OpFamily::Pooling},

    Row{"Add", OpFamily::Elementwise}, Row{"Sub", OpFamily::Elementwise},
    Row{"Mul", OpFamily::Elementwise}, Row{"Div", OpFamily::Elementwise},
    Row{"Pow", OpFamily::Elementwise}, Row{"Sqrt", OpFamily::Elementwise},
    Row{"Reciprocal", OpFamily::Elementwise}, Row{"Neg", OpFamily::Elementwise},
    Row{"Abs", OpFamily::Elementwise}, Row{"Exp", OpFamily::Elementwise},
    Row{"Log", OpFamily::Elementwise}, Row{"Erf", OpFamily::Elementwise},
    Row{"Min", OpFamily::Elementwise}, Row{"Max", OpFamily::Elementwise},
    Row{"Sum", OpFamily::Elementwise}, Row{"Mean", OpFamily::Elementwise},
    Row{"Where", OpFamily::Elementwise}, Row{"Equal", OpFamily::Elementwise},
    Row{"Less", OpFamily::Elementwise}, Row{"Greater", OpFamily::Elementwise},
    Row{"Not", OpFamily::Elementwise}, Row{"And", OpFamily::Elementwise},
    Row{"Or", OpFamily::Elementwise}, Row{"Floor", OpFamily::Elementwise},
    Row{"Ceil", OpFamily::Elementwise}, Row{"Round", OpFamily::Elementwise},
    Row{"Sin", OpFamily::Elementwise}, Row{"Cos", OpFamily::Elementwise},
    Row{"Sign", OpFamily::Elementwise}, Row{"Mod", OpFamily::Elementwise},
    Row{"QuantizeLinear", OpFamily::Elementwise}, Row{"DequantizeLinear", OpFamily::Elementwise},

    Row{"Reshape", OpFamily::ShapeLayout}, Row{"Transpose", OpFamily::ShapeLayout},
    Row{"Flatten", OpFamily::ShapeLayout}, Row{"Squeeze", OpFamily::ShapeLayout},
    Row{"Unsqueeze", OpFamily::ShapeLayout}, Row{"Concat", OpFamily::ShapeLayout},
    Row{"Split", OpFamily::ShapeLayout}, Row{"Slice", OpFamily::ShapeLayout},
    Row{"Gather", OpFamily::ShapeLayout}, Row{"GatherElements", OpFamily::ShapeLayout},
    Row{"GatherND", OpFamily::ShapeLayout}, Row{"ScatterND", OpFamily::ShapeLayout},
    Row{"ScatterElements", OpFamily::ShapeLayout}, Row{"Expand", OpFamily::ShapeLayout},
    Row{"Tile", OpFamily::ShapeLayout}, Row{"Pad", OpFamily::ShapeLayout},
    Row{"Shape", OpFamily::ShapeLayout}, Row{"Size", OpFamily::ShapeLayout},
    Row{"Cast", OpFamily::ShapeLayout}, Row{"CastLike", OpFamily::ShapeLayout},
    Row{"Identity", OpFamily::ShapeLayout}, Row{"ConstantOfShape", OpFamily::ShapeLayout},
    Row{"Range", OpFamily::ShapeLayout}, Row{"DepthToSpace", OpFamily::ShapeLayout},
    Row{"SpaceToDepth", OpFamily::ShapeLayout}, Row{"OneHot", OpFamily::ShapeLayout},
    Row{"NonZero", OpFamily::ShapeLayout}, Row{"Trilu", OpFamily::ShapeLayout},

    Row{"ReduceMean", OpFamily::Reduction}, Row{"ReduceSum", OpFamily::Reduction},
    Row{"ReduceMax", OpFamily::Reduction}, Row{"ReduceMin", OpFamily::Reduction},
    Row{"ReduceProd", OpFamily::Reduction}, Row{"ReduceL1", OpFamily::Reduction},
    Row{"ReduceL2", OpFamily::Reduction}, Row{"ReduceLogSumExp", OpFamily::Reduction},
    Row{"ReduceSumSquare", OpFamily::Reduction}, Row{"ArgMax", OpFamily::Reduction},
    Row{"ArgMin", OpFamily::Reduction}, Row{"TopK", OpFamily::Reduction},
    Row{"CumSum", OpFamily::Reduction},

    Row{"If", OpFamily::ControlFlow}, Row{"Loop", OpFamily::ControlFlow},
    Row{"Scan", OpFamily::ControlFlow}, Row{"SequenceMap", OpFamily::ControlFlow},
};

} // namespace

OpFamily opFamily(std::string_view opType, std::string_view domain) {
    if (!isDefaultDomain(domain)) return OpFamily::Fused;
    static const std::unordered_map<std::string_view, OpFamily> table(kFamilies.begin(), kFamilies.end());
    const auto it = table.find(opType);
    return it == table.end() ? OpFamily::Other : it->second;
}

std::string_view opFamilyName(OpFamily family) {
    constexpr std::array<std::string_view, kOpFamilyCount> names{
        "convolution / linear", "activation", "normalization", "pooling", "element-wise",
        "shape / layout", "reduction", "control flow", "fused", "other"};
    return names[static_cast<int>(family)];
}

} // namespace graphlens
