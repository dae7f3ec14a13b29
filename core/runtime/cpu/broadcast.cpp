// Numpy broadcasting for the CPU kernels (see broadcast.h): merging the axes of a broadcast into
// an [outer..., run] view, and the binary kernel that runs over it.
#include "core/runtime/cpu/broadcast.h"
#include "core/runtime/reference/ref_util.h"

namespace graphlens {

std::optional<BroadcastPlan> planBroadcast(const std::vector<std::vector<int64_t>>& inputs,
                                           const std::vector<int64_t>& out) {
    const size_t rank = out.size();
    std::vector<std::vector<int64_t>> strides;  // per input, per output axis
    for (const auto& dims : inputs) {
        if (dims.size() > rank) return std::nullopt;
        const size_t offset = rank - dims.size();
        const auto contiguous = ref::stridesOf(dims);
        std::vector<int64_t> s(rank, 0);
        for (size_t d = 0; d < dims.size(); ++d) {
            if (dims[d] != out[d + offset] && dims[d] != 1) return std::nullopt;
            s[d + offset] = dims[d] == 1 ? 0 : contiguous[d];
        }
        strides.push_back(std::move(s));
    }
    BroadcastPlan p;
    p.count = ref::elementCount(out);
    if (p.count == 0) return std::nullopt;
    p.strides.resize(inputs.size());
    for (size_t d = 0; d < rank; ++d) {
        if (out[d] == 1) continue;
        bool merges = !p.dims.empty();  // every input continues the previous axis (or repeats across both)
        for (size_t i = 0; i < inputs.size() && merges; ++i)
            merges = p.strides[i].back() == strides[i][d] * out[d];
        if (merges) p.dims.back() *= out[d];
        else p.dims.push_back(out[d]);
        for (size_t i = 0; i < inputs.size(); ++i) {
            if (merges) p.strides[i].back() = strides[i][d];
            else p.strides[i].push_back(strides[i][d]);
        }
    }
    if (p.dims.empty()) {  // a single element
        p.dims = {1};
        for (auto& s : p.strides) s = {0};
    }
    return p;
}

void BroadcastBinaryKernel::run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) {
    const std::byte* a = in[0]->data();
    const std::byte* b = in[1]->data();
    std::byte* y = out[0].mutableData();
    const BinaryLoops::RunFn loop = plan_.repeatsInRun(0) ? loops_.repeatA
                                    : plan_.repeatsInRun(1) ? loops_.repeatB
                                                            : loops_.both;
    const size_t inBytes = loops_.inBytes, outBytes = loops_.outBytes;
    parallelRuns<2>(plan_, [&](int64_t at, const std::array<int64_t, 2>& index, int64_t length) {
        loop(a + size_t(index[0]) * inBytes, b + size_t(index[1]) * inBytes, y + size_t(at) * outBytes, length);
    });
}

std::unique_ptr<PreparedKernel> makeBroadcastBinary(const NodeDescriptor& info, std::string name, BinaryLoops loops) {
    if (info.inputDims.size() != 2 || info.outputDims.size() != 1 || !info.hasInput(0) || !info.hasInput(1))
        return nullptr;
    auto plan = planBroadcast({info.inputDims[0], info.inputDims[1]}, info.outputDims[0]);
    if (!plan) return nullptr;
    const bool inPlace = info.inputTypes[0] == info.outputTypes[0] &&
                         ref::elementCount(info.inputDims[0]) == plan->count;
    return std::make_unique<BroadcastBinaryKernel>(std::move(name), std::move(*plan), loops, inPlace);
}

} // namespace graphlens
