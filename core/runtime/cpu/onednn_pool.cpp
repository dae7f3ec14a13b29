// oneDNN pooling: MaxPool (without Indices), AveragePool (count_include_pad, ceil_mode) and their
// Global forms, over 1 to 3 spatial axes, in the layout the graph stores (NCHW) or, between
// blocked convolutions, in theirs. MaxPool and GlobalMaxPool also take u8/s8 tensors (what the
// CPU plan makes of a QDQ MaxPool, qdq_fusion.h), channels-last between int8 convolutions.
#include "core/runtime/cpu/onednn_internal.h"
#include "core/runtime/cpu/onednn_layout.h"
#include "core/runtime/reference/neural_net_internal.h"

#include <optional>
#include <stdexcept>

namespace graphlens::onednn {
namespace {

using memory = dnnl::memory;
using dt = memory::data_type;

/// Runs a pooling primitive on NCHW tensors or, as a blocked variant, on blocked ones (then the
/// plan passes both its input and its output blocked).
class PoolKernel final : public PreparedKernel, public BlockedLayoutKernel {
public:
    PoolKernel(const dnnl::pooling_v2_forward::primitive_desc& pd, int threads, bool blocked)
        : threads_(threads), blocked_(blocked), primitive_(pd) {
        src_ = memory(pd.src_desc(), engine(), DNNL_MEMORY_NONE);
        dst_ = memory(pd.dst_desc(), engine(), DNNL_MEMORY_NONE);
        args_ = {{DNNL_ARG_SRC, src_}, {DNNL_ARG_DST, dst_}};
        if (pd.workspace_desc().get_size() > 0) args_[DNNL_ARG_WORKSPACE] = memory(pd.workspace_desc(), engine());
    }

    std::string name() const override { return blocked_ ? "onednn:pool[blocked in,out]" : "onednn:pool"; }

    void run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs) override {
        ThreadScope threads(threads_);
        src_.set_data_handle(handleOf(*inputs[0]));
        dst_.set_data_handle(outputs[0].mutableData());
        dnnl::stream& s = stream();
        primitive_.execute(s, args_);
        s.wait();
    }

    std::optional<memory::desc> blockedInput(size_t i) const override {
        if (i == 0 && blocked_) return src_.get_desc();
        return std::nullopt;
    }
    std::optional<memory::desc> blockedOutput() const override {
        if (blocked_) return dst_.get_desc();
        return std::nullopt;
    }
    void keepBlocked(const std::vector<bool>& inputs, bool output) override {
        if (blocked_ && (inputs.empty() || !inputs[0] || !output))
            throw std::logic_error("a blocked pooling needs its input and output blocked");
    }

private:
    int threads_;
    bool blocked_;
    dnnl::pooling_v2_forward primitive_;
    memory src_, dst_;
    std::unordered_map<int, memory> args_;
};

/// A pooling node in oneDNN's terms.
struct PoolSetup {
    dnnl::algorithm algorithm = dnnl::algorithm::pooling_max;
    dt type = dt::f32;  ///< of both the input and the output
    std::vector<int64_t> src, dst;
    Dims kernel, strides, dilation, padL, padR;
};

/// The window geometry of a pooling node, nullopt where the reference's semantics differ from
/// oneDNN's.
std::optional<PoolSetup> poolSetup(const NodeDescriptor& info) {
    const std::string& op = info.node.opType;
    const bool global = op == "GlobalAveragePool" || op == "GlobalMaxPool";
    const bool max = op == "MaxPool" || op == "GlobalMaxPool";
    if (info.inputDims.size() != 1 || !info.hasInput(0) || info.outputDims.empty() || info.outputTypes.empty()) return std::nullopt;
    // The maximum of u8 or s8 codes is exact; averages of them are not the reference's.
    const DType type = info.inputTypes[0];
    const bool int8 = type == DType::UInt8 || type == DType::Int8;
    if (info.outputTypes[0] != type || !(type == DType::Float || (int8 && max))) return std::nullopt;
    // MaxPool's Indices output is the reference kernel's.
    if (info.node.outputs().size() > 1 && info.node.output(1) != kNoId) return std::nullopt;
    const auto& x = info.inputDims[0];
    if (x.size() < 3 || x.size() > 5 || elementCount(x) <= 0) return std::nullopt;
    const std::vector<int64_t> spatial(x.begin() + 2, x.end());
    const size_t rank = spatial.size();
    const Attributes& a = info.attributes();

    nn::WindowGeometry g;
    bool includePad = false;
    if (global) {
        g = {spatial, spatial, std::vector<int64_t>(rank, 1), std::vector<int64_t>(rank, 1),
             std::vector<int64_t>(rank, 0), std::vector<int64_t>(rank, 0), std::vector<int64_t>(rank, 1)};
    } else {
        if (!a.has("kernel_shape")) return std::nullopt;
        includePad = !max && a.getInt("count_include_pad", 0) != 0;
        try {
            g = nn::windowGeometry(a, spatial, a.getInts("kernel_shape"), a.getInt("ceil_mode", 0) != 0);
        } catch (const std::exception&) {
            return std::nullopt;
        }
    }
    PoolSetup setup;
    setup.type = type == DType::Float ? dt::f32 : type == DType::UInt8 ? dt::u8 : dt::s8;
    setup.src = x;
    setup.dst = {x[0], x[1]};
    setup.dst.insert(setup.dst.end(), g.outSizes.begin(), g.outSizes.end());
    if (setup.dst != info.outputDims[0]) return std::nullopt;
    for (size_t i = 0; i < rank; ++i) {
        const int64_t extent = (g.kernel[i] - 1) * g.dilations[i] + 1;
        // ceil_mode's last window may reach past the end padding: oneDNN pads it further.
        const int64_t reach = (g.outSizes[i] - 1) * g.strides[i] + extent - g.inSizes[i] - g.padsBegin[i];
        const int64_t right = std::max(g.padsEnd[i], reach);
        // The reference counts only the explicit padding; windows wholly in padding are left out.
        if (includePad && reach > g.padsEnd[i]) return std::nullopt;
        if (g.dilations[i] != 1 && (!max || g.padsBegin[i] > 0 || right > 0)) return std::nullopt;
        if (g.padsBegin[i] >= g.kernel[i] || right >= g.kernel[i]) return std::nullopt;
        setup.kernel.push_back(g.kernel[i]);
        setup.strides.push_back(g.strides[i]);
        setup.dilation.push_back(g.dilations[i] - 1);
        setup.padL.push_back(g.padsBegin[i]);
        setup.padR.push_back(right);
    }
    setup.algorithm = max ? dnnl::algorithm::pooling_max
                          : includePad ? dnnl::algorithm::pooling_avg_include_padding
                                       : dnnl::algorithm::pooling_avg_exclude_padding;
    return setup;
}

/// The pooling primitive from `src` to `dst` (format_tag::any: src's kind of layout).
std::unique_ptr<PreparedKernel> makePoolKernel(const PoolSetup& p, const memory::desc& src, const memory::desc& dst,
                                               int threads, bool blocked) {
    try {
        ThreadScope scope(threads);
        const dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference, p.algorithm, src, dst,
                                                  p.strides, p.kernel, p.dilation, p.padL, p.padR);
        const dnnl::pooling_v2_forward::primitive_desc pd(desc, engine());
        return std::make_unique<PoolKernel>(pd, threads, blocked);
    } catch (const dnnl::error&) {
        return nullptr;
    }
}

std::unique_ptr<PreparedKernel> makePool(const NodeDescriptor& info) {
    const std::optional<PoolSetup> p = poolSetup(info);
    // oneDNN pools u8/s8 NCHW with its reference loops (SqueezeNet's 55x55 pools: 7 ms each);
    // pool.cpp's kernel does those, this one the channels-last variant below.
    if (!p || p->type != dt::f32) return nullptr;
    return makePoolKernel(*p, plainDesc(p->src), plainDesc(p->dst), info.threads, false);
}

} // namespace

std::unique_ptr<PreparedKernel> prepareBlockedPool(const NodeDescriptor& info, const dnnl::memory::desc& src) {
    const std::string& op = info.node.opType;
    if (op != "MaxPool" && op != "AveragePool") return nullptr;  // global pools: plain is as fast
    const std::optional<PoolSetup> p = poolSetup(info);
    if (!p || src.dims() != toDims(p->src) || src.data_type() != p->type || src == plainDesc(p->src, p->type)) return nullptr;
    return makePoolKernel(*p, src, memory::desc(toDims(p->dst), p->type, memory::format_tag::any), info.threads, true);
}

void registerPoolKernels(CpuKernelRegistry& registry) {
    for (const char* op : {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"}) registry.add(op, makePool);
}

} // namespace graphlens::onednn
