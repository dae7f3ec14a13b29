// The comparison engine: matching, structural diff, and the numeric comparison in rounds.
#include "core/compare/compare.h"

#include "core/compare/tapped_run.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace graphlens {
namespace {

/// One tensor pair to compare.
struct TensorPair {
    size_t match = 0;
    std::string nameA, nameB;
    bool done = false;
    std::optional<TensorError> error;
    std::string note;
};

Tensor deepCopy(const Tensor& t) {
    Tensor copy = Tensor::allocate(t.dtype(), t.dims());
    if (t.byteSize()) std::memcpy(copy.mutableData(), t.data(), t.byteSize());
    return copy;
}

uint64_t bytesOf(const std::vector<Tensor>& tensors) {
    uint64_t total = 0;
    for (const Tensor& t : tensors) total += t.byteSize();
    return total;
}

/// The feeds of B: by input name, else A's feed of the input at the same position (a renamed
/// export of the same network).
std::map<std::string, Tensor> feedsForB(const Graph& a, const Graph& b, const std::map<std::string, Tensor>& feeds) {
    std::map<std::string, Tensor> fed;
    for (size_t j = 0; j < b.inputs().size(); ++j) {
        const std::string& name = b.value(b.inputs()[j]).name;
        if (auto it = feeds.find(name); it != feeds.end()) fed[name] = it->second;
        else if (j < a.inputs().size())
            if (auto at = feeds.find(a.value(a.inputs()[j]).name); at != feeds.end()) fed[name] = at->second;
    }
    return fed;
}

/// Both models run in rounds; each round A computes and the comparison keeps (up to the budget)
/// the values still to compare, then B runs and each of its values is compared the moment it is
/// computed, freeing A's copy once its last partner is done.
class NumericComparison {
public:
    NumericComparison(const Model& a, const Model& b, const CompareOptions& options, ComparisonReport& report)
        : options_(options), report_(report), runA_(a, options.backendA, options.deviceA, options.feeds, options.threads),
          runB_(b, options.backendB, options.deviceB, feedsForB(a.graph, b.graph, options.feeds), options.threads) {
        for (size_t m = 0; m < report.matching.matches.size(); ++m)
            for (const auto& [va, vb] : report.matching.matches[m].values)
                pairs_.push_back({m, a.graph.value(va).name, b.graph.value(vb).name, false, std::nullopt, {}});
        for (const TappedRun* run : {&runA_, &runB_})
            for (const auto& [name, bytes] : run->valueBytes()) report.intermediateBytes += bytes;
    }

    void run() {
        do {
            ++report_.rounds;
            std::map<std::string, Captured> captured = captureA();
            compareB(captured);
        } while (std::any_of(pairs_.begin(), pairs_.end(), [](const TensorPair& p) { return !p.done; }));
        report_.peakBytes = peak_;
    }

    const std::vector<TensorPair>& pairs() const { return pairs_; }
    const std::vector<Tensor>& outputsA() const { return outputsA_; }
    const std::vector<Tensor>& outputsB() const { return outputsB_; }

private:
    struct Captured {
        Tensor tensor;
        int partners = 0;
    };

    void step(const std::string& stage) {
        const size_t done = size_t(std::count_if(pairs_.begin(), pairs_.end(), [](const TensorPair& p) { return p.done; }));
        if (options_.progress && !options_.progress(stage + ", round " + std::to_string(report_.rounds),
                                                    pairs_.empty() ? 0 : double(done) / double(pairs_.size())))
            throw CompareCancelled();
    }

    /// Captured A values (held_) plus graph outputs kept for the final comparison.
    void holdMore(uint64_t bytes) {
        held_ += bytes;
        peak_ = std::max(peak_, held_ + outputsHeld_);
    }

    /// The A values to ask for this round: all pending ones when A streams (the sink keeps what
    /// fits), else as many as their planned sizes fit in the budget.
    std::set<std::string> wantedFromA() const {
        std::set<std::string> wanted;
        uint64_t planned = 0;
        for (const TensorPair& p : pairs_) {
            if (p.done || wanted.count(p.nameA)) continue;
            if (!runA_.streams() && options_.memoryBudget && !wanted.empty()) {
                auto it = runA_.valueBytes().find(p.nameA);
                const uint64_t bytes = it == runA_.valueBytes().end() ? 0 : it->second;
                if (planned + bytes > options_.memoryBudget) continue;
                planned += bytes;
            }
            wanted.insert(p.nameA);
        }
        return wanted;
    }

    std::map<std::string, Captured> captureA() {
        step("run A");
        const std::set<std::string> wanted = wantedFromA();
        std::map<std::string, Captured> captured;
        std::set<std::string> seen;
        const bool streaming = runA_.streams();
        const TappedRun::Sink sink = [&](const std::string& name, const Tensor& tensor) {
            seen.insert(name);
            if (streaming && options_.memoryBudget && held_ > 0 && held_ + tensor.byteSize() > options_.memoryBudget) return;
            captured[name].tensor = streaming ? deepCopy(tensor) : tensor;  // a read-back is the run's own copy
            holdMore(tensor.byteSize());
        };
        uint64_t readBack = 0;
        std::vector<Tensor> outputs = runA_.run(wanted, sink, &readBack);
        peak_ = std::max(peak_, held_ + outputsHeld_ + bytesOf(outputs));  // a read-back is in held_
        if (report_.rounds == 1) {
            outputsA_ = std::move(outputs);
            outputsHeld_ += bytesOf(outputsA_);
        }
        for (TensorPair& p : pairs_) {
            if (p.done || !wanted.count(p.nameA)) continue;
            if (!seen.count(p.nameA)) {
                p.done = true;
                p.note = "A does not compute " + p.nameA + " (a constant after preparation)";
            } else if (auto it = captured.find(p.nameA); it != captured.end()) {
                ++it->second.partners;
            }
        }
        return captured;
    }

    void release(std::map<std::string, Captured>& captured, const std::string& name) {
        auto it = captured.find(name);
        if (it == captured.end() || --it->second.partners > 0) return;
        held_ -= std::min(held_, it->second.tensor.byteSize());
        captured.erase(it);
    }

    void compareB(std::map<std::string, Captured>& captured) {
        step("run B");
        std::multimap<std::string, size_t> active;  // B value name -> pair
        std::set<std::string> wanted;
        for (size_t i = 0; i < pairs_.size(); ++i)
            if (!pairs_[i].done && captured.count(pairs_[i].nameA)) {
                active.emplace(pairs_[i].nameB, i);
                wanted.insert(pairs_[i].nameB);
            }
        const TappedRun::Sink sink = [&](const std::string& name, const Tensor& tensor) {
            auto [first, last] = active.equal_range(name);
            for (auto it = first; it != last; ++it) {
                TensorPair& p = pairs_[it->second];
                if (p.done) continue;
                p.error = measureError(captured.at(p.nameA).tensor, tensor);
                p.done = true;
                release(captured, p.nameA);
            }
        };
        uint64_t readBack = 0;
        const uint64_t before = held_;
        std::vector<Tensor> outputs = runB_.run(wanted, sink, &readBack);
        peak_ = std::max(peak_, before + outputsHeld_ + readBack + bytesOf(outputs));
        if (report_.rounds == 1) {
            outputsB_ = std::move(outputs);
            outputsHeld_ += bytesOf(outputsB_);
        }
        for (const auto& [name, index] : active) {
            TensorPair& p = pairs_[index];
            if (p.done) continue;
            p.done = true;
            p.note = "B does not compute " + p.nameB + " (a constant after preparation)";
            release(captured, p.nameA);
        }
    }

    const CompareOptions& options_;
    ComparisonReport& report_;
    TappedRun runA_, runB_;
    std::vector<TensorPair> pairs_;
    std::vector<Tensor> outputsA_, outputsB_;
    uint64_t held_ = 0, outputsHeld_ = 0, peak_ = 0;
};

/// Worst errors over a node's compared outputs.
void collectNodeErrors(const Model& a, const Model& b, const std::vector<TensorPair>& pairs, ComparisonReport& report) {
    for (size_t m = 0; m < report.matching.matches.size(); ++m) {
        const NodeMatch& match = report.matching.matches[m];
        NodeError e;
        e.match = m;
        e.nameA = nodeDisplayName(a.graph, match.boundaryA);
        e.nameB = nodeDisplayName(b.graph, match.b);
        e.op = b.graph.node(match.b).opType;
        report.nodes.push_back(e);
    }
    for (const TensorPair& p : pairs) {
        NodeError& e = report.nodes[p.match];
        if (!p.error) {
            if (e.note.empty()) e.note = p.note;
            continue;
        }
        if (!e.compared) {
            e.compared = true;
            e.error = *p.error;
            continue;
        }
        e.error.maxAbsError = std::max(e.error.maxAbsError, p.error->maxAbsError);
        e.error.maxRelError = std::max(e.error.maxRelError, p.error->maxRelError);
        e.error.cosine = std::min(e.error.cosine, p.error->cosine);
        if (e.error.problem.empty()) e.error.problem = p.error->problem;
    }
    for (NodeError& e : report.nodes)
        if (!e.compared && e.note.empty()) e.note = "no output to compare";
}

void compareOutputs(const Model& a, const Model& b, const std::vector<Tensor>& outA, const std::vector<Tensor>& outB,
                    ComparisonReport& report) {
    const auto& namesA = a.graph.outputs();
    const auto& namesB = b.graph.outputs();
    std::vector<bool> used(namesB.size(), false);
    for (size_t i = 0; i < namesA.size() && i < outA.size(); ++i) {
        const std::string& name = a.graph.value(namesA[i]).name;
        size_t j = namesB.size();
        for (size_t k = 0; k < namesB.size(); ++k)
            if (!used[k] && b.graph.value(namesB[k]).name == name) j = k;
        if (j == namesB.size() && i < namesB.size() && !used[i]) j = i;
        if (j == namesB.size() || j >= outB.size()) continue;
        used[j] = true;
        report.outputs.push_back({name, b.graph.value(namesB[j]).name, measureError(outA[i], outB[j])});
    }
}

} // namespace

std::optional<size_t> ComparisonReport::firstDivergentOutput() const {
    for (size_t i = 0; i < outputs.size(); ++i)
        if (diverges(outputs[i].error)) return i;
    return std::nullopt;
}

ComparisonReport compareModels(const Model& a, const Model& b, const ProvenanceMap& provenance, const CompareOptions& options) {
    ComparisonReport report;
    report.tolerance = options.tolerance;
    report.numeric = options.numeric;
    report.matching = matchNodes(a.graph, b.graph, provenance);
    report.changed = diffMatchedNodes(a.graph, b.graph, report.matching);
    if (!options.numeric) return report;
    NumericComparison numeric(a, b, options, report);
    numeric.run();
    collectNodeErrors(a, b, numeric.pairs(), report);
    compareOutputs(a, b, numeric.outputsA(), numeric.outputsB(), report);
    for (size_t i = 0; i < report.nodes.size() && !report.firstDivergence; ++i)
        if (report.nodes[i].compared && report.diverges(report.nodes[i].error)) report.firstDivergence = i;
    return report;
}

} // namespace graphlens
