// GraphExecutor: feeds, topological execution, early freeing, sub-graphs, observer events.
#include "core/runtime/executor.h"
#include "core/runtime/value_observer.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <set>

namespace graphlens {
namespace {

std::string label(const Node& n) { return n.name.empty() ? n.opType : n.name; }

/// Names a sub-graph (and its own sub-graphs) reads from enclosing scopes.
void collectOuterNames(const Graph& g, std::set<std::string>& names) {
    for (ValueId v : g.valueIds())
        if (g.value(v).outerScope) names.insert(g.value(v).name);
    for (NodeId id : g.nodeIds())
        for (const auto& [name, attr] : g.node(id).attributes) {
            if (attr.holds<GraphPtr>()) collectOuterNames(*attr.get<GraphPtr>(), names);
            if (attr.holds<std::vector<GraphPtr>>())
                for (const GraphPtr& sub : attr.get<std::vector<GraphPtr>>()) collectOuterNames(*sub, names);
        }
}

std::set<std::string> subgraphReads(const Node& n) {
    std::set<std::string> names;
    for (const auto& [name, attr] : n.attributes)
        if (attr.holds<GraphPtr>()) collectOuterNames(*attr.get<GraphPtr>(), names);
    return names;
}

/// Whether `planned` is static and `dims` are other sizes: compared in place, since sizes()
/// would build a vector per input of every node on every run.
bool differsFromPlan(const Shape& planned, const std::vector<int64_t>& dims) {
    if (!planned.isStatic()) return false;
    if (planned.rank() != dims.size()) return true;
    for (size_t d = 0; d < dims.size(); ++d)
        if (planned[d].size() != dims[d]) return true;
    return false;
}

int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

GraphExecutor::GraphExecutor(const Graph& graph, const KernelRegistry& kernels, int64_t opset, int threads)
    : graph_(graph), kernels_(kernels), opset_(opset), threads_(threads) {
    try {
        order_ = graph.topologicalOrder();
    } catch (const GraphError& e) {
        throw ExecutionError(e.what(), ErrorKind::InvalidModel);
    }
    const auto nodes = graph.nodeIds();
    kernelOf_.assign(nodes.empty() ? 0 : size_t(nodes.back()) + 1, nullptr);
    for (NodeId id : nodes) kernelOf_[size_t(id)] = kernels.find(graph.node(id).domain, graph.node(id).opType);

    // Last use of each value, counting reads from inside sub-graphs; graph outputs are never freed.
    std::map<ValueId, size_t> lastUse;
    std::set<ValueId> readBySubgraph;  // of the node that reads the value last
    for (size_t pos = 0; pos < order_.size(); ++pos) {
        const Node& n = graph.node(order_[pos]);
        for (ValueId in : n.inputs())
            if (in != kNoId) lastUse[in] = pos;
        for (const std::string& name : subgraphReads(n))
            if (auto v = graph.findValue(name)) {
                lastUse[*v] = pos;
                readBySubgraph.insert(*v);
            }
    }
    freeAfter_.resize(order_.size());
    lastReads_.assign(kernelOf_.size(), 0);
    for (const auto& [value, pos] : lastUse) {
        if (graph.isGraphOutput(value) || graph.value(value).initializer) continue;
        freeAfter_[pos].push_back(value);
        // The node may keep the value (KernelContext::takeInput) when it reads it in one slot only
        // and not from a sub-graph too.
        const Node& n = graph.node(order_[pos]);
        if (readBySubgraph.count(value) || std::count(n.inputs().begin(), n.inputs().end(), value) != 1) continue;
        const auto slot = size_t(std::find(n.inputs().begin(), n.inputs().end(), value) - n.inputs().begin());
        if (slot < 64) lastReads_[size_t(n.id)] |= uint64_t(1) << slot;
    }
}

void GraphExecutor::setPreparedKernel(NodeId node, std::unique_ptr<PreparedKernel> kernel) {
    if (prepared_.size() < kernelOf_.size()) prepared_.resize(kernelOf_.size());
    prepared_.at(size_t(node)) = std::move(kernel);
}

void GraphExecutor::reserveBuffer(ValueId value, Tensor buffer) {
    const auto ids = graph_.valueIds();
    if (reserved_.empty() && !ids.empty()) reserved_.resize(size_t(ids.back()) + 1);
    reserved_.at(size_t(value)) = std::move(buffer);
}

const PreparedKernel* GraphExecutor::preparedKernel(NodeId node) const {
    return size_t(node) < prepared_.size() ? prepared_[size_t(node)].get() : nullptr;
}

PreparedKernel* GraphExecutor::preparedKernel(NodeId node) {
    return size_t(node) < prepared_.size() ? prepared_[size_t(node)].get() : nullptr;
}

Tensor GraphExecutor::outputBuffer(ValueId v) const {
    if (size_t(v) < reserved_.size() && !reserved_[size_t(v)].empty()) return reserved_[size_t(v)];
    const Value& value = graph_.value(v);
    auto sizes = value.shape.sizes();
    if (!sizes) throw ExecutionError("the output '" + value.name + "' has no static shape");
    return Tensor::allocate(value.dtype, *sizes);
}

std::vector<OpKey> GraphExecutor::unsupportedOps() const {
    std::set<OpKey> missing;
    for (NodeId id : order_) {
        const Node& n = graph_.node(id);
        if (!kernelOf_[size_t(id)] && !preparedKernel(id)) missing.insert(OpKey::of(n));
        for (const auto& [name, attr] : n.attributes)
            if (attr.holds<GraphPtr>()) {
                GraphExecutor sub(*attr.get<GraphPtr>(), kernels_, opset_, threads_);
                for (const OpKey& op : sub.unsupportedOps()) missing.insert(op);
            }
    }
    return {missing.begin(), missing.end()};
}

std::vector<ValueId> GraphExecutor::feedableInputs() const { return graph_.inputs(); }

void GraphExecutor::checkFeed(const Value& input, const Tensor& t) const {
    if (input.dtype != DType::Undefined && t.dtype() != input.dtype)
        throw ExecutionError("the input '" + input.name + "' is " + std::string(dtypeName(t.dtype())) +
                             " but the model expects " + std::string(dtypeName(input.dtype)), ErrorKind::BadFeeds);
    if (!input.shape.rankKnown()) return;
    bool matches = input.shape.rank() == t.rank();
    for (size_t i = 0; matches && i < t.rank(); ++i)
        matches = !input.shape[i].isStatic() || input.shape[i].size() == t.dims()[i];
    if (!matches) {
        const Shape given = Shape::ofSizes(t.dims());
        throw ExecutionError("the input '" + input.name + "' has the shape " + given.toString() +
                             " but the model expects " + input.shape.toString(), ErrorKind::BadFeeds);
    }
}

std::vector<Tensor> GraphExecutor::run(const std::map<std::string, Tensor>& feeds,
                                       ExecutionObserver* observer) {
    std::vector<Tensor> inputs;
    for (ValueId v : graph_.inputs()) {
        const Value& value = graph_.value(v);
        auto it = feeds.find(value.name);
        if (it == feeds.end() && !value.initializer)
            throw ExecutionError("the model input '" + value.name + "' was not given", ErrorKind::BadFeeds);
        inputs.push_back(it == feeds.end() ? Tensor() : it->second);
    }
    for (const auto& [name, tensor] : feeds) {
        auto v = graph_.findValue(name);
        if (!v || !graph_.isGraphInput(*v)) throw ExecutionError("the model has no input named '" + name + "'", ErrorKind::BadFeeds);
    }
    return runPositional(std::move(inputs), observer);
}

std::vector<Tensor> GraphExecutor::runPositional(std::vector<Tensor> inputs,
                                                 ExecutionObserver* observer, const OuterLookup& outer) {
    const auto ids = graph_.valueIds();
    std::vector<Tensor> values(ids.empty() ? 0 : size_t(ids.back()) + 1);
    for (ValueId v : graph_.initializers()) values[size_t(v)] = *graph_.value(v).initializer;
    if (inputs.size() > graph_.inputs().size())
        throw ExecutionError("the graph takes " + std::to_string(graph_.inputs().size()) + " inputs, got " +
                             std::to_string(inputs.size()), ErrorKind::BadFeeds);
    for (size_t i = 0; i < graph_.inputs().size(); ++i) {
        const ValueId v = graph_.inputs()[i];
        const bool given = i < inputs.size() && !inputs[i].empty();
        if (given) {
            checkFeed(graph_.value(v), inputs[i]);
            values[size_t(v)] = std::move(inputs[i]);
        } else if (!graph_.value(v).initializer) {
            throw ExecutionError("the model input '" + graph_.value(v).name + "' was not given", ErrorKind::BadFeeds);
        }
    }
    for (ValueId v : ids) {
        const Value& value = graph_.value(v);
        if (!value.outerScope) continue;
        const Tensor* t = outer ? outer(value.name) : nullptr;
        if (!t) throw ExecutionError("the sub-graph reads '" + value.name + "', which has no value");
        values[size_t(v)] = *t;
    }
    // Sub-graphs see this frame's values (and, through it, the enclosing ones) by name.
    OuterLookup lookup = [&](const std::string& name) -> const Tensor* {
        if (auto v = graph_.findValue(name); v && !values[size_t(*v)].empty()) return &values[size_t(*v)];
        return outer ? outer(name) : nullptr;
    };
    for (size_t pos = 0; pos < order_.size(); ++pos) {
        runNode(graph_.node(order_[pos]), values, observer, lookup);
        for (ValueId dead : freeAfter_[pos]) values[size_t(dead)] = Tensor();
    }
    // Moved out, so that a sequence a Loop body returns has no holder but the Loop.
    std::vector<Tensor> outputs;
    const std::vector<ValueId>& outs = graph_.outputs();
    for (size_t i = 0; i < outs.size(); ++i) {
        const bool readAgain = std::find(outs.begin() + std::ptrdiff_t(i) + 1, outs.end(), outs[i]) != outs.end();
        outputs.push_back(readAgain ? values[size_t(outs[i])] : std::move(values[size_t(outs[i])]));
    }
    return outputs;
}

void GraphExecutor::runKernel(const Node& n, std::vector<const Tensor*> inputs, std::vector<Tensor>& values,
                              std::vector<Tensor>& outputs, const OuterLookup& lookup) {
    if (PreparedKernel* prepared = size_t(n.id) < prepared_.size() ? prepared_[size_t(n.id)].get() : nullptr) {
        // A prepared kernel was sized for the plan's shapes: an input computed at run time with
        // another shape (a kernel and shape inference disagreeing) would overrun its buffers.
        for (size_t i = 0; i < inputs.size(); ++i) {
            if (!inputs[i]) continue;
            const Shape& planned = graph_.value(n.input(i)).shape;
            if (differsFromPlan(planned, inputs[i]->dims()))
                throw ExecutionError("input " + std::to_string(i) + " has the shape " +
                                     Shape::ofSizes(inputs[i]->dims()).toString() + " at run time but the plan was made for " +
                                     planned.toString());
        }
        for (size_t i = 0; i < n.outputs().size(); ++i) outputs[i] = outputBuffer(n.output(i));
        prepared->run(inputs, outputs);
        return;
    }
    SubgraphRunner subgraphs = [this, &lookup](const Graph& g, std::vector<Tensor> in) {
        auto& sub = subExecutors_[&g];
        if (!sub) sub = std::make_unique<GraphExecutor>(g, kernels_, opset_, threads_);
        return sub->runPositional(std::move(in), nullptr, lookup);
    };
    KernelContext ctx(n, opset_, std::move(inputs), threads_, std::move(subgraphs));
    if (const uint64_t last = lastReads_[size_t(n.id)]) {
        std::vector<Tensor*> lastReaders(n.inputs().size(), nullptr);
        for (size_t i = 0; i < lastReaders.size() && i < 64; ++i)
            if (last >> i & 1) lastReaders[i] = &values[size_t(n.input(i))];
        ctx.setLastReads(std::move(lastReaders));
    }
    if (!reserved_.empty()) {
        std::vector<Tensor> reserved;
        for (ValueId out : n.outputs()) reserved.push_back(size_t(out) < reserved_.size() ? reserved_[size_t(out)] : Tensor());
        ctx.setReservedOutputs(std::move(reserved));
    }
    kernelOf_[size_t(n.id)](ctx);
    outputs = std::move(ctx.outputs());
    for (size_t i = 0; i < outputs.size() && !reserved_.empty(); ++i) {
        const ValueId out = n.output(i);
        const Tensor& own = size_t(out) < reserved_.size() ? reserved_[size_t(out)] : Tensor();
        // A forwarded input that lives in the arena would outlive its planned slot: copy it.
        if (!own.empty() && outputs[i].data() != own.data() && outputs[i].sameAllocation(arena_) &&
            outputs[i].byteSize() == own.byteSize() && outputs[i].dims() == own.dims()) {
            std::memcpy(own.mutableData(), outputs[i].data(), own.byteSize());
            outputs[i] = own;
        } else if (outputs[i].sameAllocation(arena_) && outputs[i].data() != own.data()) {
            Tensor copy = Tensor::allocate(outputs[i].dtype(), outputs[i].dims());
            std::memcpy(copy.mutableData(), outputs[i].data(), outputs[i].byteSize());
            outputs[i] = std::move(copy);
        }
    }
}

void GraphExecutor::runNode(const Node& n, std::vector<Tensor>& values, ExecutionObserver* observer,
                            const OuterLookup& lookup) {
    // Built only when a node fails: a string per node per run would show in the timings.
    const auto where = [&] { return "node '" + label(n) + "' (" + n.opType + ")"; };
    if (!kernelOf_[size_t(n.id)] && !preparedKernel(n.id))
        throw ExecutionError(where() + ": the op is not supported by this backend", ErrorKind::UnsupportedOp);
    std::vector<const Tensor*> inputs;
    uint64_t bytesRead = 0;
    for (ValueId in : n.inputs()) {
        inputs.push_back(in == kNoId ? nullptr : &values[size_t(in)]);
        if (in != kNoId) bytesRead += values[size_t(in)].byteSize();
    }
    std::vector<Tensor> outputs(n.outputs().size());
    const int64_t begin = observer ? nowNs() : 0;
    try {
        runKernel(n, std::move(inputs), values, outputs, lookup);
    } catch (const KernelError& e) {
        throw ExecutionError(where() + ": " + e.what());
    } catch (const ExecutionError& e) {
        throw ExecutionError(where() + ": " + e.what(), e.kind());
    } catch (const std::bad_alloc&) {
        throw ExecutionError(where() + ": not enough memory", ErrorKind::ResourceLimit);
    } catch (const std::length_error& e) {
        throw ExecutionError(where() + ": " + e.what());
    }
    const int64_t end = observer ? nowNs() : 0;
    uint64_t bytesWritten = 0;
    for (size_t i = 0; i < n.outputs().size(); ++i) {
        const Value& out = graph_.value(n.output(i));
        if (outputs[i].empty() && (!out.uses().empty() || graph_.isGraphOutput(out.id)))
            throw ExecutionError(where() + ": the kernel produced no output " + std::to_string(i));
        bytesWritten += outputs[i].byteSize();
        values[size_t(out.id)] = std::move(outputs[i]);
    }
    if (observer) {
        observer->nodeFinished({n.id, begin, end, bytesRead, bytesWritten, 0});
        if (auto* watcher = dynamic_cast<ValueObserver*>(observer))
            for (ValueId out : n.outputs())
                if (out != kNoId && !values[size_t(out)].empty()) watcher->valueProduced(graph_, n, out, values[size_t(out)]);
    }
}

std::string joinOpNames(const std::vector<OpKey>& ops) {
    std::string text;
    for (const OpKey& op : ops) text += (text.empty() ? "" : ", ") + op.toString();
    return text;
}

std::vector<Tensor> runReference(const Graph& graph, int64_t opset,
                                 const std::map<std::string, Tensor>& feeds) {
    GraphExecutor executor(graph, referenceKernels(), opset, 1);
    return executor.run(feeds);
}

} // namespace graphlens
