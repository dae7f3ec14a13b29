// Optimized CPU kernels that replicate elements: Expand (a broadcast copy) and Tile, which is the
// same copy once each axis d is seen as [repeats, d] on the output and [1, d] on the input. The
// broadcast plan merges axes, so each run is one memcpy or one fill with a repeated element.
#include "core/runtime/cpu/broadcast.h"
#include "core/runtime/reference/ref_util.h"

#include <algorithm>
#include <cstring>

namespace graphlens {
namespace {

/// n copies of the element of T at `from`.
template <typename T>
void fillRun(const std::byte* from, std::byte* to, int64_t n) {
    T value;
    std::memcpy(&value, from, sizeof value);
    std::fill_n(reinterpret_cast<T*>(to), n, value);
}

class BroadcastCopyKernel final : public PreparedKernel {
public:
    BroadcastCopyKernel(std::string name, BroadcastPlan plan, size_t bytes)
        : name_(std::move(name)), plan_(std::move(plan)), bytes_(bytes) {}
    std::string name() const override { return name_; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const std::byte* x = in[0]->data();
        std::byte* y = out[0].mutableData();
        const bool repeats = plan_.repeatsInRun(0);
        parallelRuns<1>(plan_, [&](int64_t at, const std::array<int64_t, 1>& index, int64_t length) {
            const std::byte* from = x + size_t(index[0]) * bytes_;
            std::byte* to = y + size_t(at) * bytes_;
            if (!repeats) return std::memcpy(to, from, size_t(length) * bytes_), void();
            switch (bytes_) {
            case 1: fillRun<uint8_t>(from, to, length); break;
            case 2: fillRun<uint16_t>(from, to, length); break;
            case 4: fillRun<uint32_t>(from, to, length); break;
            default: fillRun<uint64_t>(from, to, length); break;
            }
        });
    }

private:
    std::string name_;
    BroadcastPlan plan_;
    size_t bytes_;
};

/// Element bytes of a type the copies can move (1, 2, 4 or 8), or 0.
size_t copyableBytes(DType type) {
    const int bits = dtypeBits(type);
    if (type == DType::String || (bits != 8 && bits != 16 && bits != 32 && bits != 64)) return 0;
    return size_t(bits / 8);
}

std::unique_ptr<PreparedKernel> prepareExpand(const NodeDescriptor& info) {
    if (info.inputTypes.size() != 2 || info.outputTypes.size() != 1) return nullptr;
    const size_t bytes = copyableBytes(info.inputTypes[0]);
    auto plan = planBroadcast({info.inputDims[0]}, info.outputDims[0]);
    if (!bytes || !plan) return nullptr;
    return std::make_unique<BroadcastCopyKernel>("cpu:expand", std::move(*plan), bytes);
}

std::unique_ptr<PreparedKernel> prepareTile(const NodeDescriptor& info) {
    if (info.inputTypes.size() != 2 || info.outputTypes.size() != 1) return nullptr;
    const size_t bytes = copyableBytes(info.inputTypes[0]);
    const auto& in = info.inputDims[0];
    const auto& out = info.outputDims[0];
    if (!bytes || in.size() != out.size()) return nullptr;
    std::vector<int64_t> inView, outView;  // axis d as [1, d] and [repeats, d]
    for (size_t d = 0; d < in.size(); ++d) {
        if (in[d] <= 0 || out[d] % in[d] != 0) return nullptr;
        inView.insert(inView.end(), {1, in[d]});
        outView.insert(outView.end(), {out[d] / in[d], in[d]});
    }
    auto plan = planBroadcast({inView}, outView);
    if (!plan) return nullptr;
    return std::make_unique<BroadcastCopyKernel>("cpu:tile", std::move(*plan), bytes);
}

} // namespace

void registerCpuExpandKernels(CpuKernelRegistry& registry) {
    registry.add("Expand", prepareExpand);
    registry.add("Tile", prepareTile);
}

} // namespace graphlens
