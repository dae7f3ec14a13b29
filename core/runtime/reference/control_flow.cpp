// Reference kernels: Constant, Identity and the ops that run sub-graphs (If, Loop, Scan).
#include "core/runtime/reference/families.h"
#include "core/runtime/reference/ref_util.h"

#include <algorithm>
#include <climits>
#include <cstring>

namespace graphlens {
namespace {

void constant(KernelContext& ctx) {
    const Attributes& a = ctx.attributes();
    if (const Tensor* t = a.getTensor("value")) return ctx.setOutput(0, *t);
    if (const Attribute* f = a.find("value_float")) return ctx.setOutput(0, Tensor::scalar(f->get<float>()));
    if (const Attribute* i = a.find("value_int"))
        return ctx.setOutput(0, Tensor::int64s({}, {i->get<int64_t>()}));
    if (const Attribute* fs = a.find("value_floats")) {
        const auto& v = fs->get<std::vector<float>>();
        return ctx.setOutput(0, Tensor::floats({int64_t(v.size())}, v));
    }
    if (const Attribute* is = a.find("value_ints")) {
        const auto& v = is->get<std::vector<int64_t>>();
        return ctx.setOutput(0, Tensor::int64s({int64_t(v.size())}, v));
    }
    if (const Attribute* s = a.find("value_string"))
        return ctx.setOutput(0, Tensor::fromStrings({}, {s->get<std::string>()}));
    if (const Attribute* ss = a.find("value_strings")) {
        const auto& v = ss->get<std::vector<std::string>>();
        return ctx.setOutput(0, Tensor::fromStrings({int64_t(v.size())}, v));
    }
    throw KernelError("Constant has no value attribute this runtime reads");
}

void identity(KernelContext& ctx) { ctx.setOutput(0, ctx.input(0)); }

int64_t scalarInt(const Tensor& t) {
    const auto values = ref::toInt64s(t);
    if (values.size() != 1) throw KernelError("the trip count must hold exactly one element");
    return values[0];
}

bool truth(const Tensor& t) {
    if (t.numel() != 1) throw KernelError("the condition must hold exactly one element");
    return t.toDoubles().at(0) != 0.0;
}

void ifOp(KernelContext& ctx) {
    const char* branch = truth(ctx.input(0)) ? "then_branch" : "else_branch";
    const Attribute* body = ctx.attributes().find(branch);
    if (!body || !body->holds<GraphPtr>()) throw KernelError(std::string("If has no ") + branch);
    std::vector<Tensor> outs = ctx.runSubgraph(*body->get<GraphPtr>(), {});
    if (outs.size() != ctx.outputCount())
        throw KernelError("the If branch returns " + std::to_string(outs.size()) + " values, the node has " +
                          std::to_string(ctx.outputCount()) + " outputs");
    for (size_t i = 0; i < outs.size(); ++i) ctx.setOutput(i, std::move(outs[i]));
}

/// Stacks equally shaped tensors along a new leading axis.
Tensor stack(const std::vector<Tensor>& parts, const Tensor* likeWhenEmpty) {
    if (parts.empty()) {
        std::vector<int64_t> dims{0};
        if (likeWhenEmpty) dims.insert(dims.end(), likeWhenEmpty->dims().begin(), likeWhenEmpty->dims().end());
        return Tensor::allocate(likeWhenEmpty ? likeWhenEmpty->dtype() : DType::Float, dims);
    }
    std::vector<int64_t> dims{int64_t(parts.size())};
    dims.insert(dims.end(), parts[0].dims().begin(), parts[0].dims().end());
    Tensor out = Tensor::allocate(parts[0].dtype(), dims);
    size_t offset = 0;
    for (const Tensor& p : parts) {
        if (p.dims() != parts[0].dims() || p.dtype() != parts[0].dtype())
            throw KernelError("Loop scan outputs change shape between iterations");
        if (p.byteSize()) std::memcpy(out.mutableData() + offset, p.data(), p.byteSize());
        offset += p.byteSize();
    }
    return out;
}

void loop(KernelContext& ctx) {
    const Attribute* bodyAttr = ctx.attributes().find("body");
    if (!bodyAttr || !bodyAttr->holds<GraphPtr>()) throw KernelError("Loop has no body");
    const Graph& body = *bodyAttr->get<GraphPtr>();
    const int64_t maxTrips = ctx.hasInput(0) ? scalarInt(ctx.input(0)) : INT64_MAX;
    bool cond = ctx.hasInput(1) ? truth(ctx.input(1)) : true;
    std::vector<Tensor> carried;
    for (size_t i = 2; i < ctx.inputCount(); ++i) carried.push_back(ctx.input(i));
    const size_t scanCount = ctx.outputCount() - carried.size();
    std::vector<std::vector<Tensor>> scans(scanCount);
    constexpr int64_t kTripLimit = 10'000'000;
    for (int64_t trip = 0; trip < maxTrips && cond; ++trip) {
        if (trip >= kTripLimit) throw KernelError("Loop ran past 10 million iterations");
        std::vector<Tensor> inputs{Tensor::int64s({}, {trip}),
                                   Tensor::fromVector<uint8_t>(DType::Bool, {}, {uint8_t(cond)})};
        // The carried values move through the body: a sequence it grows has no other holder.
        for (Tensor& value : carried) inputs.push_back(std::move(value));
        std::vector<Tensor> outs = ctx.runSubgraph(body, std::move(inputs));
        if (outs.size() != 1 + carried.size() + scanCount)
            throw KernelError("the Loop body returns " + std::to_string(outs.size()) + " values");
        cond = truth(outs[0]);
        for (size_t i = 0; i < carried.size(); ++i) carried[i] = std::move(outs[1 + i]);
        for (size_t i = 0; i < scanCount; ++i) scans[i].push_back(std::move(outs[1 + carried.size() + i]));
    }
    for (size_t i = 0; i < carried.size(); ++i) ctx.setOutput(i, carried[i]);
    for (size_t i = 0; i < scanCount; ++i) ctx.setOutput(carried.size() + i, stack(scans[i], nullptr));
}

/// The slice at `index` of `t` along `axis`, that axis dropped.
Tensor sliceAlong(const Tensor& t, int64_t axis, int64_t index) {
    if (t.dtype() == DType::String || dtypeBits(t.dtype()) % 8 != 0) throw KernelError("Scan over strings or sub-byte types is not supported");
    const auto& dims = t.dims();
    if (axis < 0 || axis >= int64_t(dims.size())) throw KernelError("Scan cannot slice a tensor of shape " + ref::dimsText(dims) + " along axis " + std::to_string(axis));
    const int64_t length = dims[size_t(axis)];
    if (index < 0 || index >= length)
        throw KernelError("Scan reads slice " + std::to_string(index) + " of a tensor of shape " + ref::dimsText(dims) +
                          " along axis " + std::to_string(axis));
    std::vector<int64_t> outDims(dims);
    outDims.erase(outDims.begin() + axis);
    Tensor out = Tensor::allocate(t.dtype(), outDims);
    if (out.numel() == 0) return out;  // no rows to copy, however many the dims before the axis count
    int64_t outer = 1, inner = int64_t(dtypeBits(t.dtype()) / 8);
    for (int64_t i = 0; i < axis; ++i) outer *= dims[size_t(i)];
    for (size_t i = size_t(axis) + 1; i < dims.size(); ++i) inner *= dims[i];
    for (int64_t o = 0; o < outer; ++o)
        std::memcpy(out.mutableData() + o * inner, t.data() + (o * length + index) * inner, size_t(inner));
    return out;
}

/// Equally shaped parts stacked along a new axis `axis`.
Tensor stackAlong(const std::vector<Tensor>& parts, int64_t axis) {
    if (parts.empty()) throw KernelError("Scan ran no iteration");
    const auto& dims = parts[0].dims();
    const int64_t length = int64_t(parts.size());
    const bool empty = parts[0].numel() == 0;  // then the products below may overflow, and nothing is copied
    int64_t outer = 1, inner = int64_t(dtypeBits(parts[0].dtype()) / 8);
    for (int64_t i = 0; i < axis && !empty; ++i) outer *= dims[size_t(i)];
    for (size_t i = size_t(axis); i < dims.size() && !empty; ++i) inner *= dims[i];
    std::vector<int64_t> outDims(dims);
    outDims.insert(outDims.begin() + axis, length);
    Tensor out = Tensor::allocate(parts[0].dtype(), outDims);
    for (int64_t t = 0; t < length; ++t) {
        if (parts[size_t(t)].dims() != dims || parts[size_t(t)].dtype() != parts[0].dtype())
            throw KernelError("Scan outputs change shape between iterations");
        if (empty) continue;
        for (int64_t o = 0; o < outer; ++o)
            if (inner) std::memcpy(out.mutableData() + (o * length + t) * inner, parts[size_t(t)].data() + o * inner, size_t(inner));
    }
    return out;
}

/// One Scan (opset 9 semantics) over `states` and `scans`: final states, then the scan outputs.
std::vector<Tensor> scanOnce(const KernelContext& ctx, const Graph& body, std::vector<Tensor> states,
                             const std::vector<Tensor>& scans, const std::vector<int64_t>& inAxes,
                             const std::vector<int64_t>& inDirections, const std::vector<int64_t>& outAxes,
                             const std::vector<int64_t>& outDirections, size_t scanOutputs) {
    int64_t length = -1;
    for (size_t i = 0; i < scans.size(); ++i) {
        const int64_t l = scans[i].dims().at(size_t(inAxes[i]));
        if (length >= 0 && l != length) throw KernelError("the Scan inputs have different sequence lengths");
        length = l;
    }
    std::vector<std::vector<Tensor>> outputs(scanOutputs);
    for (int64_t step = 0; step < length; ++step) {
        std::vector<Tensor> inputs;
        for (Tensor& state : states) inputs.push_back(std::move(state));
        for (size_t i = 0; i < scans.size(); ++i)
            inputs.push_back(sliceAlong(scans[i], inAxes[i], inDirections[i] ? length - 1 - step : step));
        std::vector<Tensor> outs = ctx.runSubgraph(body, std::move(inputs));
        if (outs.size() != states.size() + scanOutputs)
            throw KernelError("the Scan body returns " + std::to_string(outs.size()) + " values");
        for (size_t i = 0; i < states.size(); ++i) states[i] = std::move(outs[i]);
        for (size_t k = 0; k < scanOutputs; ++k) outputs[k].push_back(std::move(outs[states.size() + k]));
    }
    for (size_t k = 0; k < scanOutputs; ++k) {
        if (outDirections[k]) std::reverse(outputs[k].begin(), outputs[k].end());
        states.push_back(stackAlong(outputs[k], outAxes[k]));
    }
    return states;
}

/// Scan: opset 8 (a batch axis first in every input, optional sequence_lens) and opset 9+ (scan
/// axes and directions per input and output).
void scan(KernelContext& ctx) {
    const Attributes& a = ctx.attributes();
    const Attribute* bodyAttr = a.find("body");
    if (!bodyAttr || !bodyAttr->holds<GraphPtr>()) throw KernelError("Scan has no body");
    const Graph& body = *bodyAttr->get<GraphPtr>();
    const int64_t m = a.getInt("num_scan_inputs", 0);
    const bool v8 = ctx.opset() < 9;
    const size_t first = v8 ? 1 : 0;
    if (m <= 0 || size_t(m) + first > ctx.inputCount()) throw KernelError("num_scan_inputs does not fit the inputs");
    const size_t n = ctx.inputCount() - first - size_t(m);
    const size_t k = ctx.outputCount() - n;
    auto list = [&](const char* name, size_t count, int64_t fallback) {
        std::vector<int64_t> v = a.getInts(name);
        if (v.empty()) v.assign(count, fallback);
        if (v.size() != count) throw KernelError(std::string(name) + " has " + std::to_string(v.size()) + " values, expected " + std::to_string(count));
        return v;
    };
    std::vector<Tensor> states, scans;
    for (size_t i = 0; i < n; ++i) states.push_back(ctx.input(first + i));
    for (size_t i = 0; i < size_t(m); ++i) scans.push_back(ctx.input(first + n + i));
    if (!v8) {
        std::vector<int64_t> inAxes = list("scan_input_axes", size_t(m), 0), outAxes = list("scan_output_axes", k, 0);
        for (size_t i = 0; i < inAxes.size(); ++i) inAxes[i] = ref::normalizeAxis(inAxes[i], int64_t(scans[i].rank()));
        const auto outs = scanOnce(ctx, body, states, scans, inAxes, list("scan_input_directions", size_t(m), 0), outAxes,
                                   list("scan_output_directions", k, 0), k);
        for (size_t i = 0; i < outs.size(); ++i) {
            if (i >= n) {
                const int64_t axis = ref::normalizeAxis(outAxes[i - n], int64_t(outs[i].rank()));
                if (axis != outAxes[i - n]) {
                    // a negative output axis counts from the end of the stacked output
                    std::vector<Tensor> parts;
                    for (int64_t t = 0; t < outs[i].dims()[0]; ++t) parts.push_back(sliceAlong(outs[i], 0, t));
                    ctx.setOutput(i, stackAlong(parts, axis));
                    continue;
                }
            }
            ctx.setOutput(i, outs[i]);
        }
        return;
    }
    // Opset 8: every input has a batch axis 0; the scan axis is 1 of the batched inputs.
    const int64_t batch = scans[0].dims().at(0);
    // Every state and scan input is sliced per batch entry (fuzzing: an initial state with a batch
    // of 0 beside inputs with a batch of 1 was read past its end).
    for (const auto* group : {&states, &scans})
        for (const Tensor& t : *group)
            if (t.rank() == 0 || t.dims()[0] != batch)
                throw KernelError("Scan (opset 8): an input of shape " + ref::dimsText(t.dims()) +
                                  " does not have the batch size " + std::to_string(batch) + " of the first scan input");
    if (ctx.hasInput(0))
        for (int64_t l : ref::toInt64s(ctx.input(0)))
            if (l != scans[0].dims().at(1)) throw KernelError("Scan (opset 8) with sequence_lens shorter than the sequence is not supported");
    std::vector<std::vector<Tensor>> perBatch(n + k);
    for (int64_t b = 0; b < batch; ++b) {
        std::vector<Tensor> s, x;
        for (const Tensor& t : states) s.push_back(sliceAlong(t, 0, b));
        for (const Tensor& t : scans) x.push_back(sliceAlong(t, 0, b));
        const auto outs = scanOnce(ctx, body, s, x, std::vector<int64_t>(size_t(m), 0), list("directions", size_t(m), 0),
                                   std::vector<int64_t>(k, 0), std::vector<int64_t>(k, 0), k);
        for (size_t i = 0; i < outs.size(); ++i) perBatch[i].push_back(outs[i]);
    }
    for (size_t i = 0; i < n + k; ++i) ctx.setOutput(i, stackAlong(perBatch[i], 0));
}

} // namespace

void registerControlFlowKernels(KernelRegistry& registry) {
    registry.add("Constant", constant);
    registry.add("Identity", identity);
    registry.add("If", ifOp);
    registry.add("Loop", loop);
    registry.add("Scan", scan);
}

} // namespace graphlens
