// The NodeConverter: inputs by TF tensor name, attributes, layout bookkeeping and naming, so each
// op's converter reads like the ONNX ops it lowers to.
#include "core/tf/tf_node_converter.h"

#include "core/tf/tf_error.h"
#include "core/tf/tf_tensor.h"

#include <cmath>
#include <mutex>

namespace graphlens::tf {

namespace {

const std::vector<int64_t> kToNchw{0, 3, 1, 2};
const std::vector<int64_t> kToNhwc{0, 2, 3, 1};

} // namespace

std::string tensorName(const std::string& input) {
    if (input.empty() || input[0] == '^') return {};
    const auto colon = input.rfind(':');
    if (colon != std::string::npos && colon + 1 < input.size() &&
        input.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
        if (input.compare(colon + 1, std::string::npos, "0") == 0) return input.substr(0, colon);
    }
    return input;
}

std::string ImportState::uniqueNodeName(const std::string& wanted) {
    std::string name = wanted;
    for (int k = 1; nodeNames.count(name); ++k) name = wanted + "_" + std::to_string(k);
    nodeNames.insert(name);
    return name;
}

ValueId ImportState::materialize(const std::string& tensor, Layout layout) {
    TensorSlot& slot = slots.at(tensor);
    ValueId& wanted = layout == Layout::NHWC ? slot.nhwc : slot.nchw;
    if (wanted != kNoId) return wanted;
    const ValueId from = layout == Layout::NHWC ? slot.nchw : slot.nhwc;
    std::string valueName = layout == Layout::NHWC ? (graphOutputs.count(tensor) ? tensor : tensor + "#nhwc")
                                                   : tensor + "#nchw";
    for (int k = 1; graph.findValue(valueName); ++k) valueName = tensor + "#layout_" + std::to_string(k);
    const std::string nodeName = uniqueNodeName(valueName);
    const NodeId id = graph.addNode("Transpose", {from}, {valueName},
                                    {{"perm", layout == Layout::NHWC ? kToNhwc : kToNchw}}, nodeName);
    Node& node = graph.node(id);
    node.provenance = {slot.origin == kNoId ? id : slot.origin};
    node.docString = layout == Layout::NHWC ? "layout: back to TensorFlow's NHWC" : "layout: NHWC to NCHW";
    wanted = node.output(0);
    return wanted;
}

NodeConverter::NodeConverter(ImportState& state, const NodeDef& def) : state_(state), def_(def) {
    for (const std::string& in : def.input())
        if (!in.empty() && in[0] != '^') inputs_.push_back(tensorName(in));
}

const std::string& NodeConverter::inputTensor(size_t i) const {
    if (i >= inputs_.size())
        fail("has " + std::to_string(inputs_.size()) + " inputs, fewer than its op needs");
    return inputs_[i];
}

ValueId NodeConverter::input(size_t i, Layout layout) {
    const std::string& tensor = inputTensor(i);
    if (layout == Layout::NCHW && !hasNchw(i)) {
        // Only the 4-D NHWC tensors of images and feature maps turn channels-first (fuzzing: a
        // ResizeBilinear of a 1-D constant made a Transpose that crashed libonnx's inference).
        const Shape& shape = graph().value(state_.slots.at(tensor).nhwc).shape;
        if (shape.rankKnown() && shape.rank() != 4)
            fail("needs a 4-D input, but its input " + std::to_string(i) + " ('" + tensor + "') has rank " +
                 std::to_string(shape.rank()));
    }
    return state_.materialize(tensor, layout);
}

bool NodeConverter::hasNchw(size_t i) const {
    return i < inputs_.size() && state_.slots.at(inputs_[i]).nchw != kNoId;
}

Tensor permuteToNchw(const Tensor& t) {
    std::vector<int64_t> d = t.dims();
    while (d.size() < 4) d.insert(d.begin(), 1);
    const int64_t n = d[0], h = d[1], w = d[2], c = d[3];
    const size_t element = size_t(dtypeBits(t.dtype()) / 8);
    Tensor out = Tensor::allocate(t.dtype(), {n, c, h, w});
    const std::byte* src = t.data();
    std::byte* dst = out.mutableData();
    for (int64_t in = 0; in < n; ++in)
        for (int64_t ih = 0; ih < h; ++ih)
            for (int64_t iw = 0; iw < w; ++iw)
                for (int64_t ic = 0; ic < c; ++ic) {
                    const int64_t s = ((in * h + ih) * w + iw) * c + ic;
                    const int64_t o = ((in * c + ic) * h + ih) * w + iw;
                    std::memcpy(dst + o * int64_t(element), src + s * int64_t(element), element);
                }
    return out;
}

ValueId NodeConverter::nchwOperand(size_t i) {
    if (hasNchw(i)) return input(i, Layout::NCHW);
    if (const Tensor* t = constant(i)) {
        if (t->numel() == 1 || t->rank() == 0) return input(i);
        if (t->rank() > 4 || t->dtype() == DType::String || dtypeBits(t->dtype()) % 8) return kNoId;
        return constantValue(permuteToNchw(*t), "nchw_operand");
    }
    const ValueId v = input(i);
    const Shape& shape = graph().value(v).shape;
    if (shape.rankKnown() && shape.rank() == 0) return v;
    if (shape.rankKnown() && shape.rank() == 4) return input(i, Layout::NCHW);
    return kNoId;
}

const Tensor* NodeConverter::constant(size_t i) const {
    const TensorSlot& slot = state_.slots.at(inputTensor(i));
    if (slot.nhwc == kNoId) return nullptr;
    const auto& init = state_.graph.value(slot.nhwc).initializer;
    return init ? &*init : nullptr;
}

std::vector<int64_t> NodeConverter::constInts(size_t i) const {
    const Tensor* t = constant(i);
    if (!t) fail("needs input " + std::to_string(i) + " ('" + inputTensor(i) + "') to be a constant");
    const std::vector<double> values = t->toDoubles();
    if (int64_t(values.size()) != std::max<int64_t>(t->numel(), 0))  // strings and types toDoubles cannot read
        fail("needs input " + std::to_string(i) + " ('" + inputTensor(i) + "') to hold integers, but it holds " +
             std::string(dtypeName(t->dtype())) + " values");
    std::vector<int64_t> out;
    for (double d : values) {
        if (!(d > -9.2e18 && d < 9.2e18))  // NaN, infinities and values no int64 holds
            fail("needs input " + std::to_string(i) + " ('" + inputTensor(i) + "') to hold integers, but it holds " +
                 (std::isnan(d) ? std::string("NaN") : std::to_string(d)));
        out.push_back(int64_t(d));
    }
    return out;
}

ValueId NodeConverter::int64Input(size_t i) {
    if (const Tensor* t = constant(i)) {
        if (t->dtype() == DType::Int64) return input(i);
        const std::vector<int64_t> values = constInts(i);
        return constantValue(Tensor::int64s(t->dims(), values), "int64_" + std::to_string(i));
    }
    const ValueId v = input(i);
    if (graph().value(v).dtype == DType::Int64) return v;
    return add("Cast", {v}, {{"to", int64_t(DType::Int64)}});
}

std::optional<size_t> NodeConverter::rankOf(ValueId value) {
    if (graph().value(value).shape.rankKnown()) return graph().value(value).shape.rank();
    if (state_.inferShapes && state_.shapesInferredAt != graph().nodeCount()) {
        state_.shapesInferredAt = graph().nodeCount();
        state_.inferShapes(graph());
    }
    if (graph().value(value).shape.rankKnown()) return graph().value(value).shape.rank();
    return std::nullopt;
}

const AttrValue* NodeConverter::attr(const std::string& key) const {
    auto it = def_.attr().find(key);
    return it == def_.attr().end() ? nullptr : &it->second;
}

int64_t NodeConverter::attrInt(const std::string& key, int64_t fallback) const {
    const AttrValue* a = attr(key);
    return a && a->value_case() == AttrValue::kI ? a->i() : fallback;
}

float NodeConverter::attrFloat(const std::string& key, float fallback) const {
    const AttrValue* a = attr(key);
    return a && a->value_case() == AttrValue::kF ? a->f() : fallback;
}

bool NodeConverter::attrBool(const std::string& key, bool fallback) const {
    const AttrValue* a = attr(key);
    return a && a->value_case() == AttrValue::kB ? a->b() : fallback;
}

std::string NodeConverter::attrString(const std::string& key, const std::string& fallback) const {
    const AttrValue* a = attr(key);
    return a && a->value_case() == AttrValue::kS ? a->s() : fallback;
}

std::vector<int64_t> NodeConverter::attrInts(const std::string& key) const {
    const AttrValue* a = attr(key);
    if (!a || a->value_case() != AttrValue::kList) return {};
    return {a->list().i().begin(), a->list().i().end()};
}

std::vector<std::string> NodeConverter::attrStrings(const std::string& key) const {
    const AttrValue* a = attr(key);
    if (!a || a->value_case() != AttrValue::kList) return {};
    return {a->list().s().begin(), a->list().s().end()};
}

int NodeConverter::attrType(const std::string& key, int fallback) const {
    const AttrValue* a = attr(key);
    return a && a->value_case() == AttrValue::kType ? a->type() : fallback;
}

bool NodeConverter::isNchwFormat() const {
    const std::string format = attrString("data_format", "NHWC");
    return format == "NCHW" || format == "NCDHW";
}

std::string NodeConverter::uniqueValueName(const std::string& wanted) const {
    std::string name = wanted;
    for (int k = 1; state_.graph.findValue(name); ++k) name = wanted + "_" + std::to_string(k);
    return name;
}

ValueId NodeConverter::constantValue(Tensor tensor, const std::string& suffix) {
    return graph().addInitializer(uniqueValueName(name() + "#" + suffix), std::move(tensor));
}

ValueId NodeConverter::int64Constant(const std::vector<int64_t>& values, const std::string& suffix, bool scalar) {
    return constantValue(Tensor::int64s(scalar ? std::vector<int64_t>{} : std::vector<int64_t>{int64_t(values.size())}, values),
                         suffix);
}

NodeId NodeConverter::addNode(const std::string& opType, std::vector<ValueId> inputs, std::vector<ValueId> outputs,
                              Attributes attributes, const std::string& nodeName, const std::string& domain) {
    const NodeId id = graph().addNodeProducing(opType, std::move(inputs), std::move(outputs), std::move(attributes),
                                               state_.uniqueNodeName(nodeName), domain);
    if (origin_ == kNoId) origin_ = id;
    Node& node = graph().node(id);
    node.provenance = {origin_};
    node.docString = "tf_op: " + op();
    return id;
}

ValueId NodeConverter::add(const std::string& opType, std::vector<ValueId> inputs, Attributes attributes,
                           int outputs, std::vector<ValueId>* all) {
    const std::string base = name() + "#" + opType;
    std::vector<ValueId> values;
    for (int k = 0; k < outputs; ++k)
        values.push_back(graph().addValue(uniqueValueName(k ? base + ":" + std::to_string(k) : base)));
    addNode(opType, std::move(inputs), values, std::move(attributes), base, {});
    if (all) *all = values;
    return values.front();
}

std::string NodeConverter::outputTensor(int index) const {
    return index == 0 ? name() : name() + ":" + std::to_string(index);
}

void NodeConverter::produce(const std::string& opType, std::vector<ValueId> inputs, Attributes attributes,
                            Layout layout, int outputs, const std::string& domain) {
    std::vector<ValueId> values;
    for (int k = 0; k < outputs; ++k) {
        const std::string tensor = outputTensor(k);
        const bool renamed = layout == Layout::NCHW && state_.graphOutputs.count(tensor);
        values.push_back(graph().addValue(uniqueValueName(renamed ? tensor + "#nchw" : tensor)));
    }
    addNode(opType, std::move(inputs), values, std::move(attributes), name(), domain);
    for (int k = 0; k < outputs; ++k) {
        TensorSlot& slot = state_.slots[outputTensor(k)];
        (layout == Layout::NCHW ? slot.nchw : slot.nhwc) = values[size_t(k)];
        slot.origin = origin_;
    }
}

void NodeConverter::produceAt(int index, const std::string& opType, std::vector<ValueId> inputs,
                              Attributes attributes, Layout layout) {
    const std::string tensor = outputTensor(index);
    const bool renamed = layout == Layout::NCHW && state_.graphOutputs.count(tensor);
    const ValueId value = graph().addValue(uniqueValueName(renamed ? tensor + "#nchw" : tensor));
    addNode(opType, std::move(inputs), {value}, std::move(attributes), tensor, {});
    TensorSlot& slot = state_.slots[tensor];
    (layout == Layout::NCHW ? slot.nchw : slot.nhwc) = value;
    slot.origin = origin_;
}

void NodeConverter::alias(int index, ValueId value, Layout layout) {
    const std::string tensor = outputTensor(index);
    if (layout == Layout::NHWC && state_.graphOutputs.count(tensor)) {
        const ValueId out = graph().addValue(uniqueValueName(tensor));
        addNode("Identity", {value}, {out}, {}, name(), {});
        value = out;
    }
    TensorSlot& slot = state_.slots[tensor];
    (layout == Layout::NCHW ? slot.nchw : slot.nhwc) = value;
    const ValueId producer = graph().value(value).producer();
    slot.origin = origin_ != kNoId ? origin_ : (producer != kNoId ? graph().node(producer).provenance.front() : kNoId);
}

void NodeConverter::fail(const std::string& why) const {
    throw TfImportError("the TensorFlow node '" + name() + "' (" + op() + ") " + why);
}

const ConvertFn* findConverter(const std::string& op) {
    static const ConverterTable table = [] {
        ConverterTable t;
        registerNnOps(t);
        registerMathOps(t);
        registerShapeOps(t);
        return t;
    }();
    auto it = table.find(op);
    return it == table.end() ? nullptr : &it->second;
}

} // namespace graphlens::tf
