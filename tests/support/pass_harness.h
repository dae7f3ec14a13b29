// Running one pass in a test: shapes inferred first (as after loading a file), the pass run to a
// fixed point (a pass that does not converge fails the test), and the rewritten model checked
// numerically against the original on seeded inputs, outputs and matched intermediates.
#pragma once

#include "core/graph/builder.h"
#include "core/onnx/shape_inference.h"
#include "core/passes/pass_manager.h"
#include "core/passes/pass_registry.h"
#include "core/passes/verify.h"
#include "support/seeded_tensor.h"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>

namespace graphlens::testing {

/// A BatchNormalization over `c` channels with seeded statistics (variance positive).
inline ValueId batchNorm(GraphBuilder& b, ValueId x, int64_t c, const std::string& name, uint64_t seed) {
    return b.op("BatchNormalization",
                {x, b.initializer(name + ".gamma", seeded({c}, seed, 0.5f, 1.5f)),
                 b.initializer(name + ".beta", seeded({c}, seed + 1)), b.initializer(name + ".mean", seeded({c}, seed + 2)),
                 b.initializer(name + ".var", seeded({c}, seed + 3, 0.1f, 2.0f))},
                {}, name);
}

/// Seeded uniform floats in [lo, hi) for every float graph input without an initializer.
inline std::map<std::string, Tensor> seededFeeds(const Graph& graph, uint64_t seed = 7, float lo = -1, float hi = 1) {
    std::map<std::string, Tensor> feeds;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    for (ValueId v : graph.inputs()) {
        const Value& in = graph.value(v);
        if (in.initializer) continue;
        const auto dims = in.shape.sizes();
        if (!dims || in.dtype != DType::Float) throw std::runtime_error("test input '" + in.name + "' needs a static float shape");
        Tensor t = Tensor::allocate(DType::Float, *dims);
        for (float& x : t.mutableSpan<float>()) x = dist(rng);
        feeds[in.name] = t;
    }
    return feeds;
}

/// Infers every value's type and shape, as the loader does for a file.
inline Model withShapes(Model model) {
    inferShapesForInputs(model, {});
    return model;
}

struct CheckedPass {
    PassResult result;
    VerifyReport verification;
};

/// Runs pass `id` on `model` (fails when it does not converge) and verifies it numerically.
inline CheckedPass runPassChecked(Model& model, const std::string& id, PassContext context = {},
                                  VerifyOptions verify = {}) {
    context.failIfNotConverged = true;
    if (const int64_t opset = model.opsetVersion()) context.opset = opset;
    NumericChecker checker(seededFeeds(model.graph), verify);
    checker.setBaseline(model);
    auto passes = makePipeline(id);
    if (passes.size() != 1) throw std::runtime_error("'" + id + "' is not one pass");
    CheckedPass out;
    out.result = runPass(*passes.front(), model, context);
    if (const auto problems = model.graph.validate(); !problems.empty())
        throw std::runtime_error("pass '" + id + "' left a broken graph: " + problems.front());
    out.verification = checker.check(model);
    return out;
}

inline int countOps(const Graph& graph, const std::string& opType) {
    int n = 0;
    for (NodeId id : graph.nodeIds()) n += graph.node(id).opType == opType;
    return n;
}

/// The first node of `opType` (throws when there is none).
inline const Node& firstOfType(const Graph& graph, const std::string& opType) {
    for (NodeId id : graph.nodeIds())
        if (graph.node(id).opType == opType) return graph.node(id);
    throw std::runtime_error("the graph has no " + opType);
}

/// True when some decline reason contains `phrase`.
inline bool declinedWith(const PassResult& result, const std::string& phrase) {
    return std::any_of(result.declines.begin(), result.declines.end(),
                       [&](const Decline& d) { return d.reason.find(phrase) != std::string::npos; });
}

} // namespace graphlens::testing
