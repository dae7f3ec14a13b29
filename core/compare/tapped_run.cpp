// TappedRun: observer-fed CPU runs, read-back Vulkan runs.
#include "core/compare/tapped_run.h"

#include "core/runtime/backend_registry.h"
#include "core/runtime/errors.h"
#include "core/runtime/value_observer.h"

namespace graphlens {
namespace {

class WantedValues final : public ValueObserver {
public:
    WantedValues(const std::set<std::string>& wanted, const TappedRun::Sink& sink) : wanted_(wanted), sink_(sink) {}
    void valueProduced(const Graph& graph, const Node&, ValueId value, const Tensor& tensor) override {
        const std::string& name = graph.value(value).name;
        if (wanted_.count(name)) sink_(name, tensor);
    }

private:
    const std::set<std::string>& wanted_;
    const TappedRun::Sink& sink_;
};

} // namespace

TappedRun::TappedRun(const Model& model, std::string backend, int device, std::map<std::string, Tensor> feeds, int threads)
    : model_(model), backend_(std::move(backend)), device_(device), feeds_(std::move(feeds)) {
    compile_.threads = threads;
    for (const auto& [name, tensor] : feeds_) compile_.inputShapes[name] = tensor.dims();
    const PreparedModel prepared = prepareModel(model, compile_.inputShapes);
    const Graph& g = prepared.model.graph;
    for (NodeId id : g.nodeIds())
        for (ValueId out : g.node(id).outputs()) {
            if (out == kNoId || g.node(id).opType == "Constant") continue;
            const Value& v = g.value(out);
            if (auto count = v.shape.numel(); count && v.dtype != DType::Undefined && v.dtype != DType::String)
                valueBytes_[v.name] = dtypeStorageBytes(v.dtype, uint64_t(*count));
        }
    if (backend_ == "cpu") cpuPlan_ = compileObservableCpuPlan(model, compile_);
    else vulkan_ = makeBackend(backend_, device_);
}

TappedRun::~TappedRun() = default;

std::vector<Tensor> TappedRun::run(const std::set<std::string>& wanted, const Sink& sink, uint64_t* readBackBytes) {
    if (readBackBytes) *readBackBytes = 0;
    if (cpuPlan_) {
        WantedValues observer(wanted, sink);
        return cpuPlan_->run(feeds_, &observer);
    }
    // Vulkan: the wanted values become graph outputs of a copy, in execution order.
    Model copy = model_;
    Graph& g = copy.graph;
    const size_t outputs = g.outputs().size();
    std::vector<ValueId> extra = g.outputs();
    std::vector<std::string> names;
    for (NodeId id : g.topologicalOrder())
        for (ValueId out : g.node(id).outputs()) {
            if (out == kNoId || !wanted.count(g.value(out).name) || !g.value(out).opaqueType.empty()) continue;
            names.push_back(g.value(out).name);
            if (!g.isGraphOutput(out)) extra.push_back(out);
        }
    g.setOutputs(extra);
    std::vector<Tensor> results = vulkan_->compile(copy, compile_)->run(feeds_);
    for (size_t i = outputs; i < results.size() && readBackBytes; ++i) *readBackBytes += results[i].byteSize();
    for (const std::string& name : names) {
        const ValueId v = *g.findValue(name);
        for (size_t i = 0; i < extra.size() && i < results.size(); ++i)
            if (extra[i] == v) {
                sink(name, results[i]);
                break;
            }
    }
    results.resize(outputs);
    return results;
}

} // namespace graphlens
