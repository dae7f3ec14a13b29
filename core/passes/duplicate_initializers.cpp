// merge-duplicate-initializers: initializers with the same type, dims and bytes are one tensor
// stored twice (exporters write a shared weight, or the same 0 and 1 scalars, once per use), so
// every reader is pointed at the first copy and the others go.
#include "core/passes/graph_query.h"
#include "core/passes/rewriter.h"

#include <algorithm>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace graphlens {
namespace {

/// A hash of type, dims and bytes; equal hashes are then compared byte for byte.
size_t contentHash(const Tensor& t) {
    size_t h = std::hash<int>()(int(t.dtype()));
    const auto mix = [&h](size_t x) { h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    for (int64_t d : t.dims()) mix(std::hash<int64_t>()(d));
    if (t.dtype() == DType::String) {
        for (const std::string& s : t.strings()) mix(std::hash<std::string>()(s));
    } else if (t.byteSize()) {
        mix(std::hash<std::string_view>()(std::string_view(reinterpret_cast<const char*>(t.data()), t.byteSize())));
    }
    return h;
}

class MergeDuplicateInitializers final : public Pass {
public:
    std::string id() const override { return "merge-duplicate-initializers"; }
    std::string title() const override { return "Store equal weights once"; }
    std::string explanation() const override {
        return "Two initializers with the same element type, the same dims and the same bytes hold the "
               "same tensor; exporters write such copies for weights shared between layers (tied "
               "embeddings) and for the small constants (0, 1, -1, shape vectors) each node got its own "
               "copy of. Each initializer's bytes are hashed, tensors with equal hashes are compared byte "
               "for byte, and the readers of every later copy read the first one instead, so the copy "
               "goes and its bytes are saved. Initializers that are also graph inputs (defaults a caller "
               "may override), graph outputs and initializers a sub-graph reads by name are left alone.";
    }
    void run(Rewriter& rw, PassContext&) override {
        std::unordered_multimap<size_t, ValueId> kept;
        const std::unordered_set<std::string> readBySubgraphs = namesReadBySubgraphs(rw.graph());
        for (ValueId v : rw.graph().initializers()) {
            const Graph& g = rw.graph();
            if (g.isGraphInput(v) || g.isGraphOutput(v) || readBySubgraphs.count(g.value(v).name)) continue;
            const Tensor& t = *g.value(v).initializer;
            const size_t h = contentHash(t);
            auto [first, last] = kept.equal_range(h);
            auto same = std::find_if(first, last, [&](const auto& e) { return g.value(e.second).initializer->contentEquals(t); });
            if (same == last) {
                kept.emplace(h, v);
                continue;
            }
            const std::string sentence = "merged the initializer " + quoted(g, v) + " into " + quoted(g, same->second) +
                                         ": same type, dims " + Shape::ofSizes(t.dims()).toString() + " and " +
                                         std::to_string(t.byteSize()) + " bytes";
            rw.count("bytesSaved", int64_t(t.byteSize()));
            rw.replaceAllUses(v, same->second);
            rw.eraseIfDead(v);
            rw.count("numMerged");
            rw.commit("merge-duplicate-initializer", sentence);
        }
    }
};

} // namespace

std::unique_ptr<Pass> makeMergeDuplicateInitializersPass() { return std::make_unique<MergeDuplicateInitializers>(); }

} // namespace graphlens
