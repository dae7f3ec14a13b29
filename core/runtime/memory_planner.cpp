// Greedy-by-size placement (as in TFLite's and MNN's planners) with in-place chains.
#include "core/runtime/memory_planner.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace graphlens {
namespace {

uint64_t alignUp(uint64_t bytes, uint64_t alignment) {
    return (bytes + alignment - 1) / alignment * alignment;
}

/// Tensors that share one buffer: an in-place chain, placed as a single block.
struct Block {
    uint64_t bytes = 0;
    int firstStep = 0;
    int lastStep = 0;
    uint64_t offset = 0;
    bool placed = false;
};

bool overlapInTime(const Block& a, const Block& b) {
    return a.firstStep <= b.lastStep && b.firstStep <= a.lastStep;
}

/// For each tensor, the tensor whose buffer it lives in (itself unless partOf leads elsewhere)
/// and its byte offset there. A part that would not fit in its owner, or a chain that loops,
/// keeps a buffer of its own.
std::vector<std::pair<size_t, uint64_t>> resolveParts(const std::vector<TensorLifetime>& tensors) {
    std::vector<std::pair<size_t, uint64_t>> root(tensors.size());
    for (size_t i = 0; i < tensors.size(); ++i) {
        size_t at = i;
        uint64_t offset = 0;
        for (size_t hops = 0; hops <= tensors.size(); ++hops) {
            const TensorLifetime& t = tensors[at];
            if (t.partOf < 0 || size_t(t.partOf) >= tensors.size()) break;
            const TensorLifetime& owner = tensors[size_t(t.partOf)];
            if (t.offsetInOwner > owner.bytes || t.bytes > owner.bytes - t.offsetInOwner) break;
            offset += t.offsetInOwner;
            at = size_t(t.partOf);
        }
        if (tensors[at].partOf >= 0 && size_t(tensors[at].partOf) < tensors.size()) at = i, offset = 0;  // looped or did not fit
        root[i] = {at, offset};
    }
    return root;
}

/// Merges in-place tensors into the block of the tensor they take over, and parts into the block
/// of the tensor they live in; returns block per tensor.
std::vector<int> formBlocks(const std::vector<TensorLifetime>& tensors, uint64_t alignment,
                            const std::vector<std::pair<size_t, uint64_t>>& root, std::vector<Block>& blocks,
                            int& inPlaceCount) {
    std::vector<int> blockOf(tensors.size(), -1);
    std::vector<bool> takenOver(tensors.size(), false);
    // A buffer shared by parts: one block from the first part's step to the last reader's.
    std::vector<bool> shared(tensors.size(), false);
    for (size_t i = 0; i < tensors.size(); ++i)
        if (root[i].first != i) shared[i] = shared[root[i].first] = true;
    for (size_t i = 0; i < tensors.size(); ++i) {
        if (!shared[i] || root[i].first != i) continue;
        blockOf[i] = int(blocks.size());
        blocks.push_back({alignUp(tensors[i].bytes, alignment), tensors[i].firstStep, tensors[i].lastStep, 0, false});
    }
    for (size_t i = 0; i < tensors.size(); ++i) {
        if (!shared[i] || root[i].first == i) continue;
        blockOf[i] = blockOf[root[i].first];
        Block& b = blocks[size_t(blockOf[i])];
        b.firstStep = std::min(b.firstStep, tensors[i].firstStep);
        b.lastStep = std::max(b.lastStep, tensors[i].lastStep);
    }
    // Producers come before consumers in step order, so visit tensors by first step.
    std::vector<size_t> order(tensors.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return tensors[a].firstStep < tensors[b].firstStep; });
    for (size_t i : order) {
        if (shared[i]) continue;
        const TensorLifetime& t = tensors[i];
        const uint64_t bytes = alignUp(t.bytes, alignment);
        const int source = t.inPlaceOf;
        if (source >= 0 && size_t(source) < tensors.size() && !shared[size_t(source)] && !takenOver[size_t(source)] &&
            blockOf[size_t(source)] >= 0 && tensors[size_t(source)].lastStep == t.firstStep &&
            blocks[size_t(blockOf[size_t(source)])].lastStep == t.firstStep &&
            alignUp(tensors[size_t(source)].bytes, alignment) >= bytes) {
            takenOver[size_t(source)] = true;
            Block& b = blocks[size_t(blockOf[size_t(source)])];
            b.lastStep = std::max(b.lastStep, t.lastStep);
            blockOf[i] = blockOf[size_t(source)];
            ++inPlaceCount;
            continue;
        }
        blockOf[i] = int(blocks.size());
        blocks.push_back({bytes, t.firstStep, t.lastStep, 0, false});
    }
    return blockOf;
}

/// Places `block` at the lowest offset of the smallest gap that fits among placed blocks alive
/// at the same time, or after the highest of them.
void placeBestFit(Block& block, const std::vector<Block>& blocks) {
    std::vector<const Block*> live;
    for (const Block& other : blocks)
        if (other.placed && overlapInTime(block, other)) live.push_back(&other);
    std::sort(live.begin(), live.end(), [](const Block* a, const Block* b) { return a->offset < b->offset; });
    uint64_t cursor = 0;
    uint64_t bestOffset = UINT64_MAX;
    uint64_t bestGap = UINT64_MAX;
    for (const Block* other : live) {
        if (other->offset > cursor) {
            const uint64_t gap = other->offset - cursor;
            if (gap >= block.bytes && gap < bestGap) {
                bestGap = gap;
                bestOffset = cursor;
            }
        }
        cursor = std::max(cursor, other->offset + other->bytes);
    }
    block.offset = bestOffset != UINT64_MAX ? bestOffset : cursor;
    block.placed = true;
}

} // namespace

MemoryPlan planMemory(const std::vector<TensorLifetime>& tensors, uint64_t alignment) {
    if (alignment == 0 || (alignment & (alignment - 1)))
        throw std::invalid_argument("planMemory: the alignment must be a power of two");
    MemoryPlan plan;
    std::vector<Block> blocks;
    const std::vector<std::pair<size_t, uint64_t>> root = resolveParts(tensors);
    const std::vector<int> blockOf = formBlocks(tensors, alignment, root, blocks, plan.inPlaceCount);

    std::vector<size_t> bySize(blocks.size());
    std::iota(bySize.begin(), bySize.end(), 0);
    std::stable_sort(bySize.begin(), bySize.end(), [&](size_t a, size_t b) {
        if (blocks[a].bytes != blocks[b].bytes) return blocks[a].bytes > blocks[b].bytes;
        return blocks[a].firstStep < blocks[b].firstStep;
    });
    for (size_t i : bySize) {
        placeBestFit(blocks[i], blocks);
        plan.arenaBytes = std::max(plan.arenaBytes, blocks[i].offset + blocks[i].bytes);
    }

    int lastStep = -1;
    for (const TensorLifetime& t : tensors) {
        plan.naiveBytes += alignUp(t.bytes, alignment);
        lastStep = std::max(lastStep, t.lastStep);
    }
    plan.liveBytes.assign(size_t(lastStep + 1), 0);
    for (const Block& b : blocks)
        for (int step = std::max(b.firstStep, 0); step <= b.lastStep; ++step) plan.liveBytes[size_t(step)] += b.bytes;
    for (uint64_t live : plan.liveBytes) plan.lowerBoundBytes = std::max(plan.lowerBoundBytes, live);
    for (size_t i = 0; i < tensors.size(); ++i) {
        plan.offsets.push_back(blocks[size_t(blockOf[i])].offset + root[i].second);
        plan.partCount += root[i].first != i;
    }
    return plan;
}

} // namespace graphlens
