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

/// Both models run in rounds. Each round one side computes and the comparison keeps (up to the
/// budget) its values still to compare, then the other runs and each of its values is compared
/// the moment it is computed, the kept copy freed once its last partner is done. The side kept is
/// A, unless only A streams (A on the CPU, B on Vulkan): the side whose values arrive all together
/// at the end of its run goes first, so they are not held beside the other's.
class NumericComparison {
public:
    NumericComparison(const Model& a, const Model& b, const CompareOptions& options, ComparisonReport& report)
        : options_(options), report_(report), runA_(a, options.backendA, options.deviceA, options.feeds, options.threads),
          runB_(b, options.backendB, options.deviceB, feedsForB(a.graph, b.graph, options.feeds), options.threads),
          aFirst_(!runA_.streams() || runB_.streams()) {
        for (size_t m = 0; m < report.matching.matches.size(); ++m)
            for (const auto& [va, vb] : report.matching.matches[m].values)
                pairs_.push_back({m, a.graph.value(va).name, b.graph.value(vb).name, false, std::nullopt, {}});
        for (const TappedRun* run : {&runA_, &runB_})
            for (const auto& [name, bytes] : run->valueBytes()) report.intermediateBytes += bytes;
    }

    void run() {
        do {
            ++report_.rounds;
            std::map<std::string, Captured> captured = captureFirst();
            compareSecond(captured);
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

    const std::string& nameOn(const TensorPair& p, bool first) const { return first == aFirst_ ? p.nameA : p.nameB; }
    TappedRun& runOf(bool first) { return first == aFirst_ ? runA_ : runB_; }
    std::string labelOf(bool first) const { return first == aFirst_ ? "A" : "B"; }
    void keepOutputs(bool first, std::vector<Tensor> outputs) {
        outputsHeld_ += bytesOf(outputs);
        (first == aFirst_ ? outputsA_ : outputsB_) = std::move(outputs);
    }

    void step(const std::string& stage) {
        const size_t done = size_t(std::count_if(pairs_.begin(), pairs_.end(), [](const TensorPair& p) { return p.done; }));
        if (options_.progress && !options_.progress(stage + ", round " + std::to_string(report_.rounds),
                                                    pairs_.empty() ? 0 : double(done) / double(pairs_.size())))
            throw CompareCancelled();
    }

    /// Captured values (held_) plus graph outputs kept for the final comparison.
    void holdMore(uint64_t bytes) {
        held_ += bytes;
        peak_ = std::max(peak_, held_ + outputsHeld_);
    }

    /// The values the first side is asked for this round: all pending ones when it streams (the
    /// sink keeps what fits), else as many as their planned sizes fit in the budget.
    std::set<std::string> wantedFromFirst() {
        const TappedRun& run = runOf(true);
        std::set<std::string> wanted;
        uint64_t planned = 0;
        for (const TensorPair& p : pairs_) {
            const std::string& name = nameOn(p, true);
            if (p.done || wanted.count(name)) continue;
            if (!run.streams() && options_.memoryBudget && !wanted.empty()) {
                auto it = run.valueBytes().find(name);
                const uint64_t bytes = it == run.valueBytes().end() ? 0 : it->second;
                if (planned + bytes > options_.memoryBudget) continue;
                planned += bytes;
            }
            wanted.insert(name);
        }
        return wanted;
    }

    std::map<std::string, Captured> captureFirst() {
        step("run " + labelOf(true));
        const std::set<std::string> wanted = wantedFromFirst();
        std::map<std::string, Captured> captured;
        std::set<std::string> seen;
        const bool streaming = runOf(true).streams();
        const TappedRun::Sink sink = [&](const std::string& name, const Tensor& tensor) {
            seen.insert(name);
            if (streaming && options_.memoryBudget && held_ > 0 && held_ + tensor.byteSize() > options_.memoryBudget) return;
            captured[name].tensor = streaming ? deepCopy(tensor) : tensor;  // a read-back is the run's own copy
            holdMore(tensor.byteSize());
        };
        std::vector<Tensor> outputs = runOf(true).run(wanted, sink);
        peak_ = std::max(peak_, held_ + outputsHeld_ + bytesOf(outputs));  // a read-back is in held_
        if (report_.rounds == 1) keepOutputs(true, std::move(outputs));
        for (TensorPair& p : pairs_) {
            const std::string& name = nameOn(p, true);
            if (p.done || !wanted.count(name)) continue;
            if (!seen.count(name)) {
                p.done = true;
                p.note = labelOf(true) + " does not compute " + name + " (a constant after preparation)";
            } else if (auto it = captured.find(name); it != captured.end()) {
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

    void compareSecond(std::map<std::string, Captured>& captured) {
        step("run " + labelOf(false));
        std::multimap<std::string, size_t> active;  // second side's value name -> pair
        std::set<std::string> wanted;
        for (size_t i = 0; i < pairs_.size(); ++i)
            if (!pairs_[i].done && captured.count(nameOn(pairs_[i], true))) {
                active.emplace(nameOn(pairs_[i], false), i);
                wanted.insert(nameOn(pairs_[i], false));
            }
        const TappedRun::Sink sink = [&](const std::string& name, const Tensor& tensor) {
            auto [first, last] = active.equal_range(name);
            for (auto it = first; it != last; ++it) {
                TensorPair& p = pairs_[it->second];
                if (p.done) continue;
                const Tensor& kept = captured.at(nameOn(p, true)).tensor;
                p.error = aFirst_ ? measureError(kept, tensor) : measureError(tensor, kept);
                p.done = true;
                release(captured, nameOn(p, true));
            }
        };
        uint64_t readBack = 0;
        const uint64_t before = held_;
        std::vector<Tensor> outputs = runOf(false).run(wanted, sink, &readBack);
        peak_ = std::max(peak_, before + outputsHeld_ + readBack + bytesOf(outputs));
        if (report_.rounds == 1) keepOutputs(false, std::move(outputs));
        for (const auto& [name, index] : active) {
            TensorPair& p = pairs_[index];
            if (p.done) continue;
            p.done = true;
            p.note = labelOf(false) + " does not compute " + name + " (a constant after preparation)";
            release(captured, nameOn(p, true));
        }
    }

    const CompareOptions& options_;
    ComparisonReport& report_;
    TappedRun runA_, runB_;
    bool aFirst_;
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
