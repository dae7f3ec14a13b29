// Reference kernels: Constant, Identity and the ops that run sub-graphs (If, Loop).
#include "core/runtime/reference/families.h"
#include "core/runtime/reference/ref_util.h"

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
        inputs.insert(inputs.end(), carried.begin(), carried.end());
        std::vector<Tensor> outs = ctx.runSubgraph(body, inputs);
        if (outs.size() != 1 + carried.size() + scanCount)
            throw KernelError("the Loop body returns " + std::to_string(outs.size()) + " values");
        cond = truth(outs[0]);
        for (size_t i = 0; i < carried.size(); ++i) carried[i] = outs[1 + i];
        for (size_t i = 0; i < scanCount; ++i) scans[i].push_back(outs[1 + carried.size() + i]);
    }
    for (size_t i = 0; i < carried.size(); ++i) ctx.setOutput(i, carried[i]);
    for (size_t i = 0; i < scanCount; ++i) ctx.setOutput(carried.size() + i, stack(scans[i], nullptr));
}

} // namespace

void registerControlFlowKernels(KernelRegistry& registry) {
    registry.add("Constant", constant);
    registry.add("Identity", identity);
    registry.add("If", ifOp);
    registry.add("Loop", loop);
}

} // namespace graphlens
