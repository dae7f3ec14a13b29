// Tables of key attributes and input names, and the formatting of small constants.
#include "viewer/node_label.h"

#include "core/graph/dtype.h"
#include "core/graph/op_key.h"

#include <array>
#include <unordered_map>

namespace graphlens {
namespace {

enum class Show { Always, UnlessAllOnes, UnlessAllZeros, UnlessOne, UnlessZero, UnlessNotSet };

struct KeyAttribute {
    const char* name;
    const char* label;
    Show show;
    const char* separator;  ///< between the values of a list
};

constexpr std::array kKeyAttributes{
    KeyAttribute{"kernel_shape", "kernel", Show::Always, "×"},
    KeyAttribute{"strides", "stride", Show::UnlessAllOnes, "×"},
    KeyAttribute{"dilations", "dilation", Show::UnlessAllOnes, "×"},
    KeyAttribute{"pads", "pads", Show::UnlessAllZeros, ","},
    KeyAttribute{"auto_pad", "auto_pad", Show::UnlessNotSet, ","},
    KeyAttribute{"group", "group", Show::UnlessOne, ","},
    KeyAttribute{"perm", "perm", Show::Always, ","},
    KeyAttribute{"axis", "axis", Show::Always, ","},
    KeyAttribute{"axes", "axes", Show::Always, ","},
    KeyAttribute{"split", "split", Show::Always, ","},
    KeyAttribute{"keepdims", "keepdims", Show::UnlessOne, ","},
    KeyAttribute{"transA", "transA", Show::UnlessZero, ","},
    KeyAttribute{"transB", "transB", Show::UnlessZero, ","},
    KeyAttribute{"alpha", "alpha", Show::UnlessOne, ","},
    KeyAttribute{"ceil_mode", "ceil_mode", Show::UnlessZero, ","},
    KeyAttribute{"mode", "mode", Show::Always, ","},
    KeyAttribute{"activation", "activation", Show::Always, ","},
    KeyAttribute{"num_heads", "heads", Show::Always, ","},
};

bool allEqual(const std::vector<int64_t>& values, int64_t v) {
    for (int64_t x : values)
        if (x != v) return false;
    return true;
}

QString joined(const std::vector<int64_t>& values, const char* separator) {
    QStringList parts;
    for (int64_t v : values) parts << QString::number(v);
    return parts.join(QString::fromUtf8(separator));
}

/// The text of one attribute, or an empty string when it is at its default.
QString attributeText(const KeyAttribute& key, const Attribute& a) {
    switch (a.kind()) {
    case AttributeKind::Int: {
        const int64_t v = a.get<int64_t>();
        if ((key.show == Show::UnlessOne && v == 1) || (key.show == Show::UnlessZero && v == 0)) return {};
        return QString::number(v);
    }
    case AttributeKind::Float: {
        const float v = a.get<float>();
        if (key.show == Show::UnlessOne && v == 1.0f) return {};
        return QString::number(v, 'g', 4);
    }
    case AttributeKind::Ints: {
        const auto& v = a.get<std::vector<int64_t>>();
        if ((key.show == Show::UnlessAllOnes && allEqual(v, 1)) || (key.show == Show::UnlessAllZeros && allEqual(v, 0)))
            return {};
        return joined(v, key.separator);
    }
    case AttributeKind::String: {
        const std::string& v = a.get<std::string>();
        if (key.show == Show::UnlessNotSet && (v.empty() || v == "NOTSET")) return {};
        return QString::fromStdString(v);
    }
    default:
        return {};
    }
}

using InputNames = std::vector<const char*>;

const std::unordered_map<std::string, InputNames>& inputNameTable() {
    static const std::unordered_map<std::string, InputNames> table{
        {"Conv", {"X", "W", "B"}}, {"ConvTranspose", {"X", "W", "B"}}, {"FusedConv", {"X", "W", "B", "Z"}},
        {"Gemm", {"A", "B", "C"}}, {"FusedGemm", {"A", "B", "C"}}, {"MatMul", {"A", "B"}},
        {"FusedMatMul", {"A", "B"}}, {"BatchNormalization", {"X", "scale", "B", "mean", "var"}},
        {"LayerNormalization", {"X", "scale", "B"}}, {"InstanceNormalization", {"X", "scale", "B"}},
        {"SkipLayerNormalization", {"input", "skip", "gamma", "beta", "bias"}},
        {"Reshape", {"data", "shape"}}, {"Expand", {"input", "shape"}}, {"Tile", {"input", "repeats"}},
        {"Slice", {"data", "starts", "ends", "axes", "steps"}}, {"Pad", {"data", "pads", "value", "axes"}},
        {"Resize", {"X", "roi", "scales", "sizes"}}, {"Gather", {"data", "indices"}},
        {"Clip", {"input", "min", "max"}}, {"Unsqueeze", {"data", "axes"}}, {"Squeeze", {"data", "axes"}},
        {"Split", {"input", "split"}}, {"Dropout", {"data", "ratio", "training_mode"}},
        {"PRelu", {"X", "slope"}}, {"Where", {"condition", "X", "Y"}}, {"BiasGelu", {"A", "B"}},
        {"ReduceMean", {"data", "axes"}}, {"ReduceSum", {"data", "axes"}}, {"ReduceMax", {"data", "axes"}},
        {"Add", {"A", "B"}}, {"Sub", {"A", "B"}}, {"Mul", {"A", "B"}}, {"Div", {"A", "B"}},
        {"Pow", {"X", "Y"}}, {"Equal", {"A", "B"}}, {"ConstantOfShape", {"input"}},
        {"Attention", {"input", "weights", "bias", "mask_index"}},
    };
    return table;
}

QString constantText(const Tensor& t) {
    if (t.numel() > 8 || t.dtype() == DType::String) {
        QStringList dims;
        for (int64_t d : t.dims()) dims << QString::number(d);
        return dims.isEmpty() ? QStringLiteral("scalar") : dims.join(QStringLiteral("×"));
    }
    QStringList values;
    for (double v : t.toDoubles()) values << QString::number(v, 'g', 4);
    return t.rank() == 0 ? values.value(0) : "[" + values.join(',') + "]";
}

} // namespace

bool isParameterValue(const Graph& graph, ValueId value) {
    const Value& v = graph.value(value);
    return v.initializer || (v.producer() != kNoId && isDrawnAsParameter(graph, graph.node(v.producer())));
}

bool isDrawnAsParameter(const Graph& graph, const Node& node) {
    if (!isDefaultDomain(node.domain)) return false;
    if (node.opType == "Constant") return true;
    return node.opType == "Identity" && node.inputs().size() == 1 && node.input(0) != kNoId &&
           isParameterValue(graph, node.input(0));
}

const Tensor* parameterTensor(const Graph& graph, ValueId value) {
    const Value& v = graph.value(value);
    if (v.initializer) return &*v.initializer;
    if (v.producer() == kNoId) return nullptr;
    const Node& producer = graph.node(v.producer());
    if (producer.opType == "Identity") return parameterTensor(graph, producer.input(0));
    return producer.attributes.getTensor("value");
}

QStringList keyAttributeLines(const Node& node) {
    QStringList lines;
    for (const KeyAttribute& key : kKeyAttributes) {
        const Attribute* a = node.attributes.find(key.name);
        if (!a) continue;
        const QString text = attributeText(key, *a);
        if (!text.isEmpty()) lines << QString::fromUtf8(key.label) + " " + text;
    }
    if (node.opType == "Cast")
        lines << "to " + QString::fromStdString(std::string(dtypeName(DType(node.attributes.getInt("to", 0)))));
    return lines;
}

QString inputRoleName(const Node& node, int index) {
    const auto& table = inputNameTable();
    const auto it = table.find(node.opType);
    if (it != table.end() && index >= 0 && size_t(index) < it->second.size())
        return QString::fromUtf8(it->second[size_t(index)]);
    return "in" + QString::number(index);
}

QStringList parameterLines(const Graph& graph, const Node& node) {
    QStringList lines;
    for (size_t i = 0; i < node.inputs().size(); ++i) {
        const ValueId v = node.input(i);
        if (v == kNoId) continue;
        if (!isParameterValue(graph, v)) continue;
        const Tensor* tensor = parameterTensor(graph, v);
        // A Constant with value_float, value_ints, ... has no tensor attribute: name it only.
        lines << inputRoleName(node, int(i)) + " " + (tensor ? constantText(*tensor) : QStringLiteral("constant"));
    }
    return lines;
}

} // namespace graphlens
