// oneDNN pooling in the layout the graph stores (NCHW): MaxPool (without Indices), AveragePool
// (count_include_pad, ceil_mode) and their Global forms, over 1 to 3 spatial axes.
#include "core/runtime/cpu/onednn_internal.h"
#include "core/runtime/reference/neural_net_internal.h"

namespace graphlens::onednn {
namespace {

using memory = dnnl::memory;
using dt = memory::data_type;

class PoolKernel final : public PreparedKernel {
public:
    PoolKernel(const dnnl::pooling_v2_forward::primitive_desc& pd, const memory::desc& src, const memory::desc& dst,
               int threads)
        : threads_(threads), primitive_(pd) {
        src_ = memory(src, engine(), DNNL_MEMORY_NONE);
        dst_ = memory(dst, engine(), DNNL_MEMORY_NONE);
        args_ = {{DNNL_ARG_SRC, src_}, {DNNL_ARG_DST, dst_}};
        if (pd.workspace_desc().get_size() > 0) args_[DNNL_ARG_WORKSPACE] = memory(pd.workspace_desc(), engine());
    }

    std::string name() const override { return "onednn:pool"; }

    void run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs) override {
        ThreadScope threads(threads_);
        src_.set_data_handle(handleOf(*inputs[0]));
        dst_.set_data_handle(outputs[0].mutableData());
        dnnl::stream& s = stream();
        primitive_.execute(s, args_);
        s.wait();
    }

private:
    int threads_;
    dnnl::pooling_v2_forward primitive_;
    memory src_, dst_;
    std::unordered_map<int, memory> args_;
};

std::unique_ptr<PreparedKernel> makePool(const CpuNodeInfo& info) {
    const std::string& op = info.node.opType;
    const bool global = op == "GlobalAveragePool" || op == "GlobalMaxPool";
    const bool max = op == "MaxPool" || op == "GlobalMaxPool";
    if (info.inputDims.size() != 1 || !info.hasInput(0) || info.outputDims.empty() || !allFloat(info)) return nullptr;
    // MaxPool's Indices output is the reference kernel's.
    if (info.node.outputs.size() > 1 && info.node.outputs[1] != kNoId) return nullptr;
    const auto& x = info.inputDims[0];
    if (x.size() < 3 || x.size() > 5 || elementCount(x) <= 0) return nullptr;
    const std::vector<int64_t> spatial(x.begin() + 2, x.end());
    const size_t rank = spatial.size();
    const Attributes& a = info.attributes();

    nn::WindowGeometry g;
    bool includePad = false;
    if (global) {
        g = {spatial, spatial, std::vector<int64_t>(rank, 1), std::vector<int64_t>(rank, 1),
             std::vector<int64_t>(rank, 0), std::vector<int64_t>(rank, 0), std::vector<int64_t>(rank, 1)};
    } else {
        if (!a.has("kernel_shape")) return nullptr;
        includePad = !max && a.getInt("count_include_pad", 0) != 0;
        try {
            g = nn::windowGeometry(a, spatial, a.getInts("kernel_shape"), a.getInt("ceil_mode", 0) != 0);
        } catch (const std::exception&) {
            return nullptr;
        }
    }
    std::vector<int64_t> outDims{x[0], x[1]};
    outDims.insert(outDims.end(), g.outSizes.begin(), g.outSizes.end());
    if (outDims != info.outputDims[0]) return nullptr;

    Dims kernel, strides, dilation, padL, padR;
    for (size_t i = 0; i < rank; ++i) {
        const int64_t extent = (g.kernel[i] - 1) * g.dilations[i] + 1;
        // ceil_mode's last window may reach past the end padding: oneDNN pads it further.
        const int64_t reach = (g.outSizes[i] - 1) * g.strides[i] + extent - g.inSizes[i] - g.padsBegin[i];
        const int64_t right = std::max(g.padsEnd[i], reach);
        // The reference counts only the explicit padding; windows wholly in padding are left out.
        if (includePad && reach > g.padsEnd[i]) return nullptr;
        if (g.dilations[i] != 1 && (!max || g.padsBegin[i] > 0 || right > 0)) return nullptr;
        if (g.padsBegin[i] >= g.kernel[i] || right >= g.kernel[i]) return nullptr;
        kernel.push_back(g.kernel[i]);
        strides.push_back(g.strides[i]);
        dilation.push_back(g.dilations[i] - 1);
        padL.push_back(g.padsBegin[i]);
        padR.push_back(right);
    }
    const dnnl::algorithm alg = max ? dnnl::algorithm::pooling_max
                                    : includePad ? dnnl::algorithm::pooling_avg_include_padding
                                                 : dnnl::algorithm::pooling_avg_exclude_padding;
    try {
        ThreadScope threads(info.threads);
        const memory::desc src(toDims(x), dt::f32, plainTag(x.size()));
        const memory::desc dst(toDims(outDims), dt::f32, plainTag(outDims.size()));
        const dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference, alg, src, dst, strides, kernel,
                                                  dilation, padL, padR);
        const dnnl::pooling_v2_forward::primitive_desc pd(desc, engine());
        return std::make_unique<PoolKernel>(pd, src, dst, info.threads);
    } catch (const dnnl::error&) {
        return nullptr;
    }
}

} // namespace

void registerPoolKernels(CpuKernelRegistry& registry) {
    for (const char* op : {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"}) registry.add(op, makePool);
}

} // namespace graphlens::onednn
