// merge-duplicate-initializers: initializers with the same type, dims and bytes are one tensor
// stored twice (exporters write a shared weight, or the same 0 and 1 scalars, once per use), so
// every reader is pointed at the first copy and the others go.
#include "core/passes/graph_query.h"
#include "core/passes/rewriter.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace graphlens {
namespace {

void mix(size_t& h, size_t x) { h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); }

/// A hash of type, dims and a sample of the bytes (the first and last 64 and 64 spread between):
/// equal tensors hash equal, and of different weights of one shape the sample almost always
/// differs, so the bytes of a 200 MB model are not all read to find none equal.
size_t sampledHash(const Tensor& t) {
    size_t h = std::hash<int>()(int(t.dtype()));
    for (int64_t d : t.dims()) mix(h, std::hash<int64_t>()(d));
    if (t.dtype() == DType::String) return h;
    const auto bytes = std::string_view(reinterpret_cast<const char*>(t.data()), t.byteSize());
    constexpr size_t kEdge = 64, kSpread = 64;
    if (bytes.size() <= 2 * kEdge + kSpread) {
        mix(h, std::hash<std::string_view>()(bytes));
        return h;
    }
    std::string sample(bytes.substr(0, kEdge));
    for (size_t i = 0; i < kSpread; ++i) sample += bytes[kEdge + (bytes.size() - 2 * kEdge) * i / kSpread];
    sample += bytes.substr(bytes.size() - kEdge);
    mix(h, std::hash<std::string>()(sample));
    return h;
}

/// A hash of type, dims and every byte (or string).
size_t contentHash(const Tensor& t) {
    size_t h = std::hash<int>()(int(t.dtype()));
    for (int64_t d : t.dims()) mix(h, std::hash<int64_t>()(d));
    if (t.dtype() == DType::String) {
        for (const std::string& s : t.strings()) mix(h, std::hash<std::string>()(s));
    } else if (t.byteSize()) {
        mix(h, std::hash<std::string_view>()(std::string_view(reinterpret_cast<const char*>(t.data()), t.byteSize())));
    }
    return h;
}

/// An initializer kept so far, with its full hash once a tensor with the same sample asked.
struct Kept {
    ValueId value;
    std::optional<size_t> fullHash;
};

/// The kept initializer holding the same tensor as `t`, or kNoId. Tensors that share a sample
/// are told apart by their full hashes (each computed once) before their bytes are compared, so
/// many tensors alike in the sample cost one pass over each, not a comparison of every pair.
ValueId findEqual(const Graph& g, std::vector<Kept>& candidates, const Tensor& t) {
    if (candidates.empty()) return kNoId;
    const size_t full = contentHash(t);
    for (Kept& k : candidates) {
        const Tensor& other = *g.value(k.value).initializer;
        if (!k.fullHash) k.fullHash = contentHash(other);
        if (*k.fullHash == full && other.contentEquals(t)) return k.value;
    }
    return kNoId;
}

class MergeDuplicateInitializers final : public Pass {
public:
    std::string id() const override { return "merge-duplicate-initializers"; }
    std::string title() const override { return "Store equal weights once"; }
    std::string explanation() const override {
        return "Two initializers with the same element type, the same dims and the same bytes hold the "
               "same tensor; exporters write such copies for weights shared between layers (tied "
               "embeddings) and for the small constants (0, 1, -1, shape vectors) each node got its own "
               "copy of. Each initializer's type, dims and a sample of its bytes are hashed, tensors with "
               "equal hashes are compared byte for byte, and the readers of every later copy read the first one instead, so the copy "
               "goes and its bytes are saved. Initializers that are also graph inputs (defaults a caller "
               "may override), graph outputs and initializers a sub-graph reads by name are left alone.";
    }
    void run(Rewriter& rw, PassContext&) override {
        std::unordered_map<size_t, std::vector<Kept>> kept;  // by sampledHash
        const std::unordered_set<std::string> readBySubgraphs = namesReadBySubgraphs(rw.graph());
        for (ValueId v : rw.graph().initializers()) {
            const Graph& g = rw.graph();
            if (g.isGraphInput(v) || g.isGraphOutput(v) || readBySubgraphs.count(g.value(v).name)) continue;
            const Tensor& t = *g.value(v).initializer;
            std::vector<Kept>& candidates = kept[sampledHash(t)];
            const ValueId same = findEqual(g, candidates, t);
            if (same == kNoId) {
                candidates.push_back({v, std::nullopt});
                continue;
            }
            const std::string sentence = "merged the initializer " + quoted(g, v) + " into " + quoted(g, same) +
                                         ": same type, dims " + Shape::ofSizes(t.dims()).toString() + " and " +
                                         std::to_string(t.byteSize()) + " bytes";
            rw.count("bytesSaved", int64_t(t.byteSize()));
            rw.replaceAllUses(v, same);
            rw.eraseIfDead(v);
            rw.count("numMerged");
            rw.commit("merge-duplicate-initializer", sentence);
        }
    }
};

} // namespace

std::unique_ptr<Pass> makeMergeDuplicateInitializersPass() { return std::make_unique<MergeDuplicateInitializers>(); }

} // namespace graphlens
