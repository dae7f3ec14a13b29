// fold-constants: a node whose inputs are all constants computes the same tensor on every run,
// so it is computed once, now, and replaced by initializers holding its outputs. Data movement
// whose result the optimized CPU kernel checks against its inputs (Transpose, Concat: the bulk
// of what folding moves, a transposed weight per MatMul in PyTorch exports) runs on that kernel,
// into huge-page storage; everything else on its reference kernel. The folding itself
// (foldToConstants) is shared with fold-shapes.
#include "core/passes/constant_folding.h"

#include "core/graph/large_buffer.h"
#include "core/graph/op_key.h"
#include "core/passes/graph_query.h"
#include "core/passes/subgraph_match.h"
#include "core/runtime/cpu/cpu_kernel.h"
#include "core/runtime/kernel.h"
#include "core/runtime/node_descriptor.h"
#include "core/runtime/op_validation.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace graphlens {

bool isConstant(const Graph& graph, ValueId value) {
    if (value == kNoId) return false;
    if (graph.constantValue(value)) return true;
    const Node* producer = producerOf(graph, value);
    return producer && producer->opType == "Constant" && producer->domain.empty();
}

std::optional<Tensor> constantTensor(const Graph& graph, ValueId value) {
    if (!isConstant(graph, value)) return std::nullopt;
    if (const Tensor* t = graph.constantValue(value)) return *t;
    // A Constant with value_float, value_ints, ...: its reference kernel reads them all.
    const Node& producer = *producerOf(graph, value);
    KernelContext ctx(producer, 17, {});
    try {
        referenceKernels().find("", "Constant")(ctx);
    } catch (const KernelError&) {
        return std::nullopt;
    }
    return ctx.outputs().at(0);
}

bool allInputsConstant(const Graph& graph, const Node& node) {
    return std::all_of(node.inputs().begin(), node.inputs().end(),
                       [&](ValueId v) { return v == kNoId || isConstant(graph, v); });
}

bool drawsRandomNumbers(const Node& node) {
    static constexpr std::array<std::string_view, 6> kRandom = {
        "RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Bernoulli", "Multinomial"};
    return std::find(kRandom.begin(), kRandom.end(), node.opType) != kRandom.end();
}

bool hasSubgraph(const Node& node) {
    return std::any_of(node.attributes.begin(), node.attributes.end(), [](const Attributes::Entry& e) {
        return e.second.kind() == AttributeKind::Graph || e.second.kind() == AttributeKind::Graphs;
    });
}

namespace {

/// Why `node` must not be folded even though its inputs are constants; empty when it may.
std::string whyNotFoldable(const Graph& g, const Node& n) {
    if (hasSubgraph(n)) return "it has a sub-graph, which folding does not evaluate";
    if (drawsRandomNumbers(n)) return n.opType + " draws random numbers, a new sample on every run";
    if (!isDefaultDomain(n.domain))
        return "operators of the domain '" + n.domain + "' are not folded";
    if (n.opType == "DequantizeLinear")
        return "a DequantizeLinear of a constant is how a quantized (QDQ) model stores its weights; "
               "folding it would store them as floats";
    if (!referenceKernels().find(n.domain, n.opType)) return "there is no reference kernel for " + n.opType;
    for (ValueId out : n.outputs())
        if (out != kNoId && !g.value(out).opaqueType.empty())
            return "its output " + quoted(g, out) + " is not a plain tensor";
    return {};
}

/// Why a Transpose of a weight is better left to the matrix product that alone reads it: Gemm and
/// com.microsoft FusedMatMul read an operand transposed where it is (transA, transB), and
/// fuse-matmul-scale gives the product that flag. Folding would copy every byte of the weight (a
/// transformer exported with Transpose(W) before each MatMul: 200 MB) for a transposition the
/// product does for free. Empty when `n` is not such a Transpose. `subgraphReads`: the names
/// sub-graphs read from outside (namesReadBySubgraphs), when the caller has them.
std::string leftToItsProduct(const Graph& g, const Node& n, const std::unordered_set<std::string>* subgraphReads) {
    if (n.opType != "Transpose" || !n.domain.empty() || n.inputs().size() != 1 || n.outputs().size() != 1) return {};
    const Tensor* w = constantInput(g, n, 0);
    if (!w || (w->dtype() != DType::Float && w->dtype() != DType::Double) || !swapsLastTwoAxes(n, w->rank())) return {};
    const ValueId out = n.output(0);
    const Value& result = g.value(out);
    if (result.uses().size() != 1 || g.isGraphOutput(out)) return {};
    if (subgraphReads ? subgraphReads->count(result.name) > 0 : !hasSingleUse(g, out)) return {};
    const Node& reader = g.node(result.uses().front().node);
    const bool gemm = isOp(reader, "Gemm") && w->rank() == 2;
    const bool product = (isOp(reader, "MatMul") && reader.inputs().size() == 2) ||
                         (reader.opType == "FusedMatMul" && reader.domain == "com.microsoft" &&
                          reader.attributes.getInt("transBatchA", 0) == 0 && reader.attributes.getInt("transBatchB", 0) == 0);
    if (!gemm && !product) return {};
    const size_t side = reader.input(0) == out ? 0 : 1;
    if (reader.inputs().size() < 2 || reader.input(side) != out) return {};
    const ValueId other = reader.input(1 - side);
    if (other == kNoId || g.value(other).dtype != w->dtype()) return {};
    return "its one reader, " + describe(reader) + ", can read " + quoted(g, n.input(0)) + " transposed where it is (trans" +
           (side == 0 ? "A" : "B") + " = 1, which fuse-matmul-scale sets), so folding would copy its " +
           std::to_string(w->byteSize()) + " bytes for nothing";
}

/// The size cap: a result bigger than the limit AND bigger than the inputs together would grow
/// the model (a ConstantOfShape, Expand or Tile that blows a few bytes up into megabytes).
std::string sizeProblem(uint64_t outputBytes, uint64_t inputBytes, const PassContext& context) {
    if (context.foldShapesOnly && outputBytes > context.foldSizeLimitBytes)
        return "only shape computations are folded here, and its result would hold " +
               (outputBytes == UINT64_MAX ? std::string("more bytes than 64 bits can count")
                                          : std::to_string(outputBytes) + " bytes") +
               ", more than the limit of " + std::to_string(context.foldSizeLimitBytes) + " bytes";
    if (outputBytes <= context.foldSizeLimitBytes || outputBytes <= inputBytes) return {};
    if (outputBytes == UINT64_MAX)
        return "its result would have more bytes than 64 bits can count, more than the limit of " +
               std::to_string(context.foldSizeLimitBytes) + " bytes";
    return "folding would store " + std::to_string(outputBytes) + " bytes, more than the limit of " +
           std::to_string(context.foldSizeLimitBytes) + " bytes and more than its inputs' " +
           std::to_string(inputBytes) + " bytes together, so it would grow the model";
}

/// Ops whose optimized CPU kernel gives the reference's bytes (they only move data) and whose
/// factory checks the output dims against the inputs', so a shape the file misstates cannot
/// make it read or write out of bounds.
bool movesDataOnCpu(const Node& n) {
    return n.domain.empty() && (n.opType == "Transpose" || n.opType == "Concat");
}

/// Where folded tensors go: a slab of huge pages, and regions a Transpose may write its result to
/// in place of its input's (see evaluateOnCpuKernel).
struct FoldMemory {
    /// A writable region: its first byte and its owner (a WritableRegion).
    struct Region {
        std::byte* data;
        std::shared_ptr<const void> owner;
    };

    TensorSlab slab;
    /// By byte size: the regions of folded-away inputs, which nothing else holds.
    std::unordered_map<size_t, std::vector<Region>> spare;
    /// The names sub-graphs read from outside, as the pass began (folding adds no sub-graph).
    std::unordered_set<std::string> subgraphReads;

    /// A writable region of `bytes`: a spare one, else a fresh buffer of that size.
    Region regionOf(size_t bytes) {
        if (auto it = spare.find(bytes); it != spare.end() && !it->second.empty()) {
            Region region = std::move(it->second.back());
            it->second.pop_back();
            return region;
        }
        std::shared_ptr<std::byte> buffer = allocateLargeBuffer(bytes);
        std::byte* data = buffer.get();
        return {data, writableRegion(std::move(buffer), data)};
    }
};

/// The input bytes a Transpose may overwrite with its result: those of an initializer that this
/// fold erases (this node reads it once; no graph input or output) and whose storage nothing else
/// holds and may be written (a weight the loader read; not one shared with another value or a
/// snapshot of the model, not a read-only mapping of external data). Folding the transposed
/// weights of a PyTorch export there takes no fresh memory, whose first touch costs more than the
/// transpose. `input` is the fold's own copy of the initializer's tensor.
std::byte* overwritableInput(const Graph& g, const Node& n, const Tensor& input) {
    if (n.opType != "Transpose" || n.inputs().size() != 1) return nullptr;
    const ValueId v = n.input(0);
    const Value& value = g.value(v);
    if (!value.initializer || value.producer() != kNoId || value.uses().size() != 1 || g.isGraphOutput(v) ||
        g.isGraphInput(v))
        return nullptr;
    return exclusivelyHeldBytes(input, 2);  // the graph's initializer and `input`
}

/// The node's outputs from its optimized CPU kernel, into `memory` (a Transpose over its input
/// where overwritableInput allows); nullopt when that kernel does not take the node (the reference
/// kernel then runs it).
std::optional<std::vector<Tensor>> evaluateOnCpuKernel(const Graph& g, const Node& n,
                                                       const std::vector<std::optional<Tensor>>& inputs,
                                                       int64_t opset, FoldMemory& memory) {
    if (!movesDataOnCpu(n) || inputs.empty() || !inputs[0]) return std::nullopt;
    const auto info = describeNode(g, n, opset, 1);
    if (!info || info->inputDims.size() != inputs.size()) return std::nullopt;
    std::vector<const Tensor*> given;
    for (size_t i = 0; i < inputs.size(); ++i) {
        // The kernel is prepared for the inferred shapes: they must be the tensors' own.
        if (!inputs[i] || info->inputDims[i] != inputs[i]->dims() || info->inputTypes[i] != inputs[i]->dtype())
            return std::nullopt;
        given.push_back(&*inputs[i]);
    }
    for (size_t i = 0; i < info->outputTypes.size(); ++i)
        if (info->outputTypes[i] != inputs[0]->dtype()) return std::nullopt;
    const auto kernel = cpuKernels().prepare(*info);
    if (!kernel) return std::nullopt;
    std::vector<Tensor> outputs;
    if (std::byte* own = overwritableInput(g, n, *inputs[0]); own && info->outputTypes.size() == 1) {
        // The result goes to a region of the input's size that an earlier Transpose left (a fresh
        // one for the first of each size), and the input's region is left for the next: no copy
        // back, and the fresh memory of a PyTorch export's weight transposes is one per size.
        const Tensor& input = *inputs[0];
        const size_t bytes = input.byteSize();
        FoldMemory::Region region = memory.regionOf(bytes);
        outputs.push_back(Tensor::view(input.dtype(), info->outputDims[0], region.data, bytes, std::move(region.owner)));
        kernel->run(given, outputs);
        // Past this point the fold happens (the size cap cannot refuse a result of the input's
        // size), so the input's bytes are free once this fold's copy of the input is gone.
        memory.spare[bytes].push_back({own, input.sharedStorage()});
        return outputs;
    }
    for (size_t i = 0; i < info->outputTypes.size(); ++i)
        outputs.push_back(memory.slab.allocate(info->outputTypes[i], info->outputDims[i]));
    kernel->run(given, outputs);
    return outputs;
}

/// Runs the node on its constant inputs: on its optimized CPU kernel where that moves the data
/// (evaluateOnCpuKernel), else on its reference kernel.
std::vector<Tensor> evaluate(const Graph& g, const Node& n, const std::vector<std::optional<Tensor>>& inputs,
                             int64_t opset, FoldMemory* memory) {
    // Identity of a weight (PyTorch writes hundreds for shared parameters) shares its storage.
    if (n.opType == "Identity" && n.domain.empty() && !inputs.empty() && inputs[0]) return {*inputs[0]};
    if (memory)
        if (auto outputs = evaluateOnCpuKernel(g, n, inputs, opset, *memory)) return std::move(*outputs);
    std::vector<const Tensor*> given;
    for (const auto& t : inputs) given.push_back(t ? &*t : nullptr);
    KernelContext ctx(n, opset, std::move(given));
    referenceKernels().find(n.domain, n.opType)(ctx);
    for (size_t i = 0; i < ctx.outputs().size(); ++i)
        if (n.output(i) != kNoId && ctx.outputs()[i].empty())
            throw KernelError("the kernel left output " + std::to_string(i) + " unset");
    return std::move(ctx.outputs());
}

/// "'a'" or "'a', 'b'": the names the folded values keep.
std::string outputNames(const Graph& g, const Node& n) {
    std::string names;
    for (ValueId out : n.outputs())
        if (out != kNoId) names += (names.empty() ? "" : ", ") + quoted(g, out);
    return names;
}

/// The node's outputs, computed on its constant inputs; nullopt (after a decline) when the
/// kernel fails or the result is over the size cap.
std::optional<std::vector<Tensor>> evaluateWithinCap(NodeId id, Rewriter& rw, const PassContext& context,
                                                     FoldMemory* memory) {
    const Graph& g = rw.graph();
    const Node& n = g.node(id);
    std::vector<std::optional<Tensor>> inputs;
    uint64_t inputBytes = 0;
    for (ValueId v : n.inputs()) {
        inputs.push_back(v == kNoId ? std::nullopt : constantTensor(g, v));
        if (inputs.back()) inputBytes += inputs.back()->byteSize();
    }
    std::string why;
    if (const auto predicted = predictedOutputBytes(g, n)) why = sizeProblem(*predicted, inputBytes, context);
    std::vector<Tensor> outputs;
    if (why.empty()) {
        try {
            outputs = evaluate(g, n, inputs, context.opset, memory);
        } catch (const std::exception& e) {
            why = std::string("its reference kernel failed: ") + e.what();
        }
    }
    uint64_t outputBytes = 0;
    for (const Tensor& t : outputs) outputBytes += t.byteSize();
    if (why.empty())
        for (const Tensor& t : outputs)
            if (t.isSequence() || t.isOptional()) why = "its result is a sequence or an optional, which no initializer can hold";
    if (why.empty()) why = sizeProblem(outputBytes, inputBytes, context);
    if (!why.empty()) {
        rw.decline(id, "kept: " + why);
        return std::nullopt;
    }
    return outputs;
}

} // namespace

std::vector<Tensor> evaluateOnConstants(const Graph& g, const Node& n, int64_t opset) {
    std::vector<std::optional<Tensor>> inputs;
    for (ValueId v : n.inputs()) inputs.push_back(v == kNoId ? std::nullopt : constantTensor(g, v));
    return evaluate(g, n, inputs, opset, nullptr);
}

namespace {

bool foldInto(NodeId id, Rewriter& rw, const PassContext& context, const std::string& kind, FoldMemory* memory) {
    const Graph& g = rw.graph();
    const Node& n = g.node(id);
    std::string why = whyNotFoldable(g, n);
    if (why.empty()) why = leftToItsProduct(g, n, memory ? &memory->subgraphReads : nullptr);
    if (!why.empty()) {
        rw.decline(id, "kept: " + why);
        return false;
    }
    std::optional<std::vector<Tensor>> outputs = evaluateWithinCap(id, rw, context, memory);
    if (!outputs) return false;
    uint64_t bytes = 0;
    for (const Tensor& t : *outputs) bytes += t.byteSize();
    const std::string sentence = "folded " + describe(n) + " into the constant " + outputNames(g, n) + " (" +
                                 std::to_string(bytes) + " bytes)";
    const std::vector<ValueId> inputs = n.inputs();
    rw.replaceByConstants(id, std::move(*outputs));
    for (NodeId orphan : deadConstantNodes(g, inputs)) {
        rw.removeNode(orphan);
        rw.count("numConstantNodesRemoved");
    }
    rw.count("numFolded");
    rw.commit(kind, sentence);
    return true;
}

} // namespace

bool foldToConstants(NodeId id, Rewriter& rw, const PassContext& context, const std::string& kind) {
    return foldInto(id, rw, context, kind, nullptr);  // one node: not worth a slab's block
}

namespace {

class FoldConstants final : public Pass {
public:
    bool refreshesShapes() const override { return true; }
    std::string id() const override { return "fold-constants"; }
    std::string title() const override { return "Fold constant sub-expressions"; }
    std::string explanation() const override {
        return "A node whose inputs are all constants (initializers or Constant nodes, never graph "
               "inputs, whose values change from run to run) computes the same tensor every time the "
               "model runs: Transpose(W), Cast(c), Reshape(c, s), Mul(a, b) of two weights. The pass "
               "evaluates it once (Transpose and Concat on the optimized CPU kernels, which move the "
               "same bytes, the rest with the node's reference kernel) and stores the result as an "
               "initializer under the same value name, so consumers and graph outputs do not change. "
               "Nodes are visited in topological order, so whole constant chains collapse in one sweep; "
               "a Constant node left without readers is removed. A node is kept when it draws random "
               "numbers (RandomNormal, RandomUniform, Bernoulli, Multinomial, ...), has a sub-graph, "
               "belongs to another domain than ONNX's, has no reference kernel, is a DequantizeLinear "
               "(the stored form of a quantized weight), or when its result would be larger than the "
               "folding limit and larger than its inputs together, as a ConstantOfShape, Expand or Tile "
               "blowing a few bytes up into megabytes would be. A Transpose swapping the last two "
               "axes of a float weight that one MatMul, FusedMatMul or Gemm alone reads is kept too: "
               "that product reads the weight transposed where it is (transB = 1, set by "
               "fuse-matmul-scale), so folding would copy the whole weight for nothing.";
    }
    void run(Rewriter& rw, PassContext& context) override {
        FoldMemory memory;  // the folded tensors, packed into shared huge pages
        memory.subgraphReads = namesReadBySubgraphs(rw.graph());
        for (NodeId id : rw.graph().topologicalOrder()) {
            if (!rw.graph().hasNode(id)) continue;  // an orphaned Constant removed by a fold
            const Node& n = rw.graph().node(id);
            if (n.opType == "Constant" && n.domain.empty()) continue;  // a constant already
            if (allInputsConstant(rw.graph(), n)) foldInto(id, rw, context, "fold-constant", &memory);
        }
    }
};

} // namespace

std::unique_ptr<Pass> makeFoldConstantsPass() { return std::make_unique<FoldConstants>(); }

} // namespace graphlens
