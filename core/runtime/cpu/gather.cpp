// An optimized CPU kernel for Gather on any axis, elements of any fixed size, int64 or int32
// indices (negative ones count from the end): the data seen as [outer, axis, inner], each output
// block is one inner run copied from the row an index picks. Constant indices are checked and
// wrapped once, at plan time; indices known only at run time are checked before any copy.
#include "core/runtime/cpu/cpu_kernel.h"
#include "core/runtime/cpu/vector_math.h"
#include "core/runtime/reference/ref_util.h"

#include <algorithm>
#include <cstring>

namespace graphlens {
namespace {

/// The indices wrapped into [0, size); KernelError naming the first that is out of range.
std::vector<int64_t> wrappedIndices(const Tensor& indices, int64_t size) {
    std::vector<int64_t> out = ref::toInt64s(indices);
    for (int64_t& index : out) {
        const int64_t wrapped = index < 0 ? index + size : index;
        if (wrapped < 0 || wrapped >= size)
            throw KernelError("the index " + std::to_string(index) + " is out of range for a dimension of " +
                              std::to_string(size));
        index = wrapped;
    }
    return out;
}

/// Single elements of T from one outer row: y[k] = row[indices[k]].
template <typename T>
GRAPHLENS_VECTOR_CLONES void gatherElements(const std::byte* row, const int64_t* indices, int64_t count,
                                            std::byte* out) {
    const T* x = reinterpret_cast<const T*>(row);
    T* y = reinterpret_cast<T*>(out);
    for (int64_t k = 0; k < count; ++k) y[k] = x[indices[k]];
}

class GatherKernel final : public PreparedKernel {
public:
    GatherKernel(int64_t outer, int64_t dim, int64_t inner, size_t bytes, std::vector<int64_t> constantIndices)
        : outer_(outer), dim_(dim), inner_(inner), bytes_(bytes), constant_(std::move(constantIndices)) {}
    std::string name() const override { return "cpu:gather"; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const std::vector<int64_t> runtime = constant_.empty() ? wrappedIndices(*in[1], dim_) : std::vector<int64_t>{};
        const std::vector<int64_t>& indices = constant_.empty() ? runtime : constant_;
        const std::byte* x = in[0]->data();
        std::byte* y = out[0].mutableData();
        const auto count = int64_t(indices.size());
        if (inner_ == 1 && (bytes_ == 4 || bytes_ == 8)) return gatherScalars(x, indices.data(), count, y);
        const size_t run = size_t(inner_) * bytes_;
#pragma omp parallel for schedule(static) if (outer_ * count * inner_ >= (1 << 16))
        for (int64_t task = 0; task < outer_ * count; ++task) {
            const int64_t o = task / count, k = task % count;
            std::memcpy(y + size_t(task) * run, x + size_t(o * dim_ + indices[size_t(k)]) * run, run);
        }
    }

private:
    /// Inner 1: element gathers, in tasks of up to 4096 indices of one outer row.
    void gatherScalars(const std::byte* x, const int64_t* indices, int64_t count, std::byte* y) const {
        constexpr int64_t kTask = 4096;
        const int64_t perRow = (count + kTask - 1) / kTask;
#pragma omp parallel for schedule(static) if (outer_ * count >= (1 << 16))
        for (int64_t task = 0; task < outer_ * perRow; ++task) {
            const int64_t o = task / perRow, first = (task % perRow) * kTask;
            const std::byte* row = x + size_t(o * dim_) * bytes_;
            std::byte* dst = y + size_t(o * count + first) * bytes_;
            const int64_t n = std::min(kTask, count - first);
            if (bytes_ == 4) gatherElements<uint32_t>(row, indices + first, n, dst);
            else gatherElements<uint64_t>(row, indices + first, n, dst);
        }
    }
    int64_t outer_, dim_, inner_;
    size_t bytes_;
    std::vector<int64_t> constant_;  ///< wrapped at plan time; empty when the indices come at run time
};

std::unique_ptr<PreparedKernel> prepareGather(const NodeDescriptor& info) {
    if (info.inputTypes.size() != 2 || info.outputTypes.size() != 1) return nullptr;
    const DType type = info.inputTypes[0], indexType = info.inputTypes[1];
    const int bits = dtypeBits(type);
    if (type == DType::String || bits < 8 || bits % 8 || (indexType != DType::Int64 && indexType != DType::Int32))
        return nullptr;
    const auto& data = info.inputDims[0];
    const auto rank = int64_t(data.size());
    int64_t axis = info.attributes().getInt("axis", 0);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank || ref::elementCount(info.outputDims[0]) == 0) return nullptr;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= data[size_t(d)];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= data[size_t(d)];
    std::vector<int64_t> constant;
    if (info.constants[1]) {
        try {
            constant = wrappedIndices(*info.constants[1], data[size_t(axis)]);
        } catch (const KernelError&) {
            return nullptr;  // the reference kernel reports it when the node runs
        }
    }
    return std::make_unique<GatherKernel>(outer, data[size_t(axis)], inner, size_t(bits / 8), std::move(constant));
}

} // namespace

void registerCpuGatherKernels(CpuKernelRegistry& registry) { registry.add("Gather", prepareGather); }

} // namespace graphlens
