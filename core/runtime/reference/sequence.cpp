// Reference kernels for ONNX sequence and optional values (Tensor::sequence, Tensor::optional):
// SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceAt, SequenceErase, SequenceLength,
// SplitToSequence, ConcatFromSequence, SequenceMap, Optional, OptionalHasElement and
// OptionalGetElement. Identity, If and Loop pass such values through unchanged.
#include "core/runtime/reference/families.h"
#include "core/runtime/reference/ref_util.h"
#include "core/runtime/reference/shape_internal.h"

#include "core/runtime/kernel.h"


namespace graphlens {
namespace {

/// The most elements a sequence may hold: a SplitToSequence of a [1e9, 0] tensor would otherwise
/// make a billion (empty) tensors before anything could refuse it.
constexpr size_t kMaxSequenceLength = size_t(1) << 20;

void checkLength(size_t length, const char* op) {
    if (length > kMaxSequenceLength)
        throw KernelError(std::string(op) + " would make a sequence of " + std::to_string(length) +
                          " tensors; at most " + std::to_string(kMaxSequenceLength) + " are allowed");
}

const Tensor& sequenceInput(const KernelContext& ctx, size_t i) {
    const Tensor& t = ctx.input(i);
    if (!t.isSequence()) throw KernelError("input " + std::to_string(i) + " is not a sequence");
    return t;
}

/// `position` (input `i`, one integer) as an index into a sequence of `length`: [-length,
/// length - 1], or up to `length` itself where `end` (SequenceInsert's position).
size_t positionOf(const KernelContext& ctx, size_t i, size_t length, bool end) {
    const std::vector<int64_t> values = ref::toInt64s(ctx.input(i));
    if (values.size() != 1) throw KernelError("the position must hold exactly one integer");
    const int64_t n = int64_t(length), p = values[0];
    const int64_t last = end ? n : n - 1;
    if (p < -n || p > last)
        throw KernelError("the position " + std::to_string(p) + " is outside [" + std::to_string(-n) + ", " +
                          std::to_string(last) + "] for a sequence of " + std::to_string(n) + " elements");
    return size_t(p < 0 ? p + n : p);
}

/// The element type every tensor of a new sequence must have: the sequence's own when it says
/// one, else the first element's.
void checkElementType(DType sequenceType, const Tensor& element) {
    if (element.isSequence() || element.isOptional()) throw KernelError("a sequence element must be a tensor");
    if (sequenceType != DType::Undefined && element.dtype() != sequenceType)
        throw KernelError("a tensor of " + std::string(dtypeName(element.dtype())) + " cannot join a sequence of " +
                          std::string(dtypeName(sequenceType)));
}

void sequenceEmpty(KernelContext& ctx) {
    const int64_t code = ctx.attributes().getInt("dtype", 1);  // float by default
    const auto type = dtypeFromOnnx(int32_t(code));
    if (!type || *type == DType::Undefined) throw KernelError("SequenceEmpty's dtype " + std::to_string(code) + " is not a tensor type");
    ctx.setOutput(0, Tensor::sequence(*type, {}));
}

void sequenceConstruct(KernelContext& ctx) {
    std::vector<Tensor> elements;
    for (size_t i = 0; i < ctx.inputCount(); ++i) {
        checkElementType(elements.empty() ? DType::Undefined : elements[0].dtype(), ctx.input(i));
        elements.push_back(ctx.input(i));
    }
    if (elements.empty()) throw KernelError("SequenceConstruct needs at least one input");
    const DType type = elements[0].dtype();
    ctx.setOutput(0, Tensor::sequence(type, std::move(elements)));
}

void sequenceInsert(KernelContext& ctx) {
    const Tensor& s = sequenceInput(ctx, 0);
    const Tensor& t = ctx.input(1);
    checkElementType(s.elements().empty() ? s.dtype() : s.elements()[0].dtype(), t);
    checkLength(s.elements().size() + 1, "SequenceInsert");
    const size_t at = ctx.hasInput(2) ? positionOf(ctx, 2, s.elements().size(), true) : s.elements().size();
    std::vector<Tensor> elements = ctx.takeInput(0).releaseElements();
    elements.insert(elements.begin() + std::ptrdiff_t(at), t);
    ctx.setOutput(0, Tensor::sequence(t.dtype(), std::move(elements)));
}

void sequenceAt(KernelContext& ctx) {
    const Tensor& s = sequenceInput(ctx, 0);
    ctx.setOutput(0, s.elements()[positionOf(ctx, 1, s.elements().size(), false)]);
}

void sequenceErase(KernelContext& ctx) {
    const Tensor& s = sequenceInput(ctx, 0);
    if (s.elements().empty()) throw KernelError("SequenceErase of an empty sequence");
    const size_t at = ctx.hasInput(1) ? positionOf(ctx, 1, s.elements().size(), false) : s.elements().size() - 1;
    const DType type = s.dtype();
    std::vector<Tensor> elements = ctx.takeInput(0).releaseElements();
    elements.erase(elements.begin() + std::ptrdiff_t(at));
    ctx.setOutput(0, Tensor::sequence(type, std::move(elements)));
}

void sequenceLength(KernelContext& ctx) {
    ctx.setOutput(0, Tensor::int64s({}, {int64_t(sequenceInput(ctx, 0).elements().size())}));
}

void splitToSequence(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.rank() == 0) throw KernelError("SplitToSequence cannot split a scalar");
    const int64_t axis = ref::normalizeAxis(ctx.attributes().getInt("axis", 0), int64_t(x.rank()));
    const int64_t length = x.dims()[size_t(axis)];
    std::vector<int64_t> sizes;
    bool squeeze = false;
    if (!ctx.hasInput(1)) {
        checkLength(size_t(length), "SplitToSequence");
        sizes.assign(size_t(length), 1);
        squeeze = ctx.attributes().getInt("keepdims", 1) == 0;
    } else {
        const Tensor& split = ctx.input(1);
        const std::vector<int64_t> given = ref::toInt64s(split);
        if (split.rank() == 0) {
            if (given.at(0) <= 0) throw KernelError("the split size must be positive");
            checkLength(size_t((length + given[0] - 1) / given[0]), "SplitToSequence");
            for (int64_t at = 0; at < length; at += given[0]) sizes.push_back(std::min(given[0], length - at));
        } else {
            checkLength(given.size(), "SplitToSequence");
            int64_t sum = 0;
            for (int64_t s : given) {
                if (s < 0) throw KernelError("a split size is negative");
                sum += s;
            }
            if (sum != length)
                throw KernelError("the split sizes add up to " + std::to_string(sum) + ", not the axis length " + std::to_string(length));
            sizes = given;
        }
    }
    std::vector<Tensor> parts(sizes.size());
    shape::splitInto(x, axis, sizes, [&](size_t k, std::vector<int64_t> dims) -> Tensor& {
        return parts[k] = Tensor::allocate(x.dtype(), std::move(dims));
    });
    if (squeeze)
        for (Tensor& part : parts) {
            std::vector<int64_t> dims = part.dims();
            dims.erase(dims.begin() + axis);
            part = shape::withDims(part, std::move(dims));
        }
    ctx.setOutput(0, Tensor::sequence(x.dtype(), std::move(parts)));
}

void concatFromSequence(KernelContext& ctx) {
    const Tensor& s = sequenceInput(ctx, 0);
    const auto& parts = s.elements();
    if (parts.empty()) throw KernelError("ConcatFromSequence of an empty sequence");
    const bool newAxis = ctx.attributes().getInt("new_axis", 0) == 1;
    const Tensor& first = parts[0];
    const int64_t rank = int64_t(first.rank());
    if (!ctx.attributes().has("axis")) throw KernelError("ConcatFromSequence needs its axis attribute");
    const int64_t axis = ref::normalizeAxis(ctx.attributes().getInt("axis", 0), newAxis ? rank + 1 : rank);
    // With new_axis, each part gains a unit axis at `axis` first (np.stack).
    std::vector<std::vector<int64_t>> dims;
    for (const Tensor& p : parts) {
        if (p.dtype() != first.dtype()) throw KernelError("the sequence mixes element types");
        std::vector<int64_t> d = p.dims();
        if (newAxis) d.insert(d.begin() + axis, 1);
        if (!dims.empty() && d.size() != dims[0].size()) throw KernelError("the sequence's tensors have different ranks");
        dims.push_back(d);
        for (size_t k = 0; k < d.size(); ++k)
            if (int64_t(k) != axis && d[k] != dims[0][k])
                throw KernelError("the sequence's tensors " + ref::dimsText(dims[0]) + " and " + ref::dimsText(d) +
                                  " differ off the concatenation axis");
    }
    std::vector<int64_t> outDims = dims[0];
    outDims[size_t(axis)] = 0;
    for (const auto& d : dims) outDims[size_t(axis)] += d[size_t(axis)];
    std::vector<Tensor> stacked;  // with new_axis: each part viewed with its unit axis
    stacked.reserve(parts.size());  // `joined` points into it
    std::vector<const Tensor*> joined;
    for (size_t p = 0; p < parts.size(); ++p) {
        if (newAxis) stacked.push_back(shape::withDims(parts[p], dims[p]));
        joined.push_back(newAxis ? &stacked.back() : &parts[p]);
    }
    Tensor out = Tensor::allocate(first.dtype(), outDims);
    shape::concatenateInto(joined, axis, out);
    ctx.setOutput(0, std::move(out));
}

/// SequenceMap: the body once per element of the first input; further inputs give the body
/// their element of the same index (sequences) or themselves (tensors). Each body output
/// becomes a sequence.
void sequenceMap(KernelContext& ctx) {
    const Attribute* bodyAttr = ctx.attributes().find("body");
    if (!bodyAttr || !bodyAttr->holds<GraphPtr>()) throw KernelError("SequenceMap has no body");
    const Graph& body = *bodyAttr->get<GraphPtr>();
    const Tensor& first = sequenceInput(ctx, 0);
    const size_t length = first.elements().size();
    for (size_t i = 1; i < ctx.inputCount(); ++i)
        if (ctx.input(i).isSequence() && ctx.input(i).elements().size() != length)
            throw KernelError("the input sequences have different lengths");
    std::vector<std::vector<Tensor>> outputs(ctx.outputCount());
    for (size_t k = 0; k < length; ++k) {
        std::vector<Tensor> inputs;
        for (size_t i = 0; i < ctx.inputCount(); ++i)
            inputs.push_back(ctx.input(i).isSequence() ? ctx.input(i).elements()[k] : ctx.input(i));
        std::vector<Tensor> outs = ctx.runSubgraph(body, std::move(inputs));
        if (outs.size() != outputs.size())
            throw KernelError("the SequenceMap body returns " + std::to_string(outs.size()) + " values");
        for (size_t o = 0; o < outs.size(); ++o) outputs[o].push_back(std::move(outs[o]));
    }
    for (size_t o = 0; o < outputs.size(); ++o) {
        DType type = outputs[o].empty() ? DType::Undefined : outputs[o][0].dtype();
        if (type == DType::Undefined && o < body.outputs().size()) type = body.value(body.outputs()[o]).dtype;
        ctx.setOutput(o, Tensor::sequence(type, std::move(outputs[o])));
    }
}

void optionalOp(KernelContext& ctx) {
    // Without an input, the optional holds no value (its `type` attribute says of what; nothing
    // here reads the element type of an empty optional).
    if (ctx.hasInput(0)) return ctx.setOutput(0, Tensor::optional(ctx.input(0).dtype(), ctx.input(0)));
    ctx.setOutput(0, Tensor::optional(DType::Undefined, std::nullopt));
}

void optionalHasElement(KernelContext& ctx) {
    bool has = false;
    if (ctx.hasInput(0)) has = !ctx.input(0).isOptional() || !ctx.input(0).elements().empty();
    ctx.setOutput(0, Tensor::fromVector<uint8_t>(DType::Bool, {}, {uint8_t(has)}));
}

void optionalGetElement(KernelContext& ctx) {
    const Tensor& t = ctx.input(0);
    if (!t.isOptional()) return ctx.setOutput(0, t);  // opset 18: a tensor or a sequence is its own element
    if (t.elements().empty()) throw KernelError("OptionalGetElement of an optional that holds no value");
    ctx.setOutput(0, t.elements()[0]);
}

} // namespace

void registerSequenceKernels(KernelRegistry& registry) {
    registry.add("SequenceEmpty", sequenceEmpty);
    registry.add("SequenceConstruct", sequenceConstruct);
    registry.add("SequenceInsert", sequenceInsert);
    registry.add("SequenceAt", sequenceAt);
    registry.add("SequenceErase", sequenceErase);
    registry.add("SequenceLength", sequenceLength);
    registry.add("SplitToSequence", splitToSequence);
    registry.add("ConcatFromSequence", concatFromSequence);
    registry.add("SequenceMap", sequenceMap);
    registry.add("Optional", optionalOp);
    registry.add("OptionalHasElement", optionalHasElement);
    registry.add("OptionalGetElement", optionalGetElement);
}

} // namespace graphlens
