// ConvKernel: binds a (de)convolution primitive to a node's tensors, with the reorders between
// NCHW and the primitive's blocked layouts that the plan did not make unnecessary.
#include "core/runtime/cpu/onednn_conv_kernel.h"

#include <cstring>

namespace graphlens::onednn {

using memory = dnnl::memory;
using dt = memory::data_type;

ConvKernel::ConvKernel(std::string name, const dnnl::primitive_desc& pd, const memory::desc& userWeights,
                       const NodeDescriptor& info, bool hasResidual, std::unique_ptr<WinogradConv> winograd)
    : name_(winograd ? "onednn:conv_winograd" : std::move(name)), threads_(info.threads), winograd_(std::move(winograd)) {
    const dnnl::engine& eng = engine();
    const memory::desc userSrc(pd.src_desc(0).dims(), dt::f32, plainTag(pd.src_desc(0).dims().size()));
    const memory::desc userDst(pd.dst_desc(0).dims(), dt::f32, plainTag(pd.dst_desc(0).dims().size()));
    userSrc_ = memory(userSrc, eng, DNNL_MEMORY_NONE);
    userDst_ = memory(userDst, eng, DNNL_MEMORY_NONE);
    src_ = memory(pd.src_desc(0), eng, DNNL_MEMORY_NONE);
    dst_ = memory(pd.dst_desc(0), eng, DNNL_MEMORY_NONE);
    blockedSrc_ = pd.src_desc(0) != userSrc;
    blockedDst_ = pd.dst_desc(0) != userDst;
    if (blockedSrc_) srcIn_ = dnnl::reorder(userSrc_, src_);
    if (blockedDst_) dstOut_ = dnnl::reorder(dst_, userDst_);
    if (hasResidual) {
        residual_ = memory(userDst, eng, DNNL_MEMORY_NONE);
        if (blockedDst_) residualIn_ = dnnl::reorder(residual_, dst_);
    }
    if (info.hasInput(2)) prepareBias(info, userDst.dims()[1]);
    if (winograd_) return;
    biasAfter_ = bias_ && pd.weights_desc(1).is_zero();  // a bias the primitive does not take: addBias()
    if (biasAfter_) args_.erase(DNNL_ARG_BIAS);
    primitive_ = dnnl::primitive(pd);
    prepareWeights(pd, userWeights, info.constants[1]);
    args_[DNNL_ARG_SRC] = src_;
    args_[DNNL_ARG_WEIGHTS] = weights_;
    args_[DNNL_ARG_DST] = dst_;
}

/// Constant weights: once, in the primitive's layout; others on every run.
void ConvKernel::prepareWeights(const dnnl::primitive_desc& pd, const memory::desc& userWeights,
                                const Tensor* constant) {
    const dnnl::engine& eng = engine();
    const memory::desc packed = pd.weights_desc(0);
    if (constant) {
        weights_ = packedCopy(userWeights, handleOf(*constant), packed);
    } else if (packed == userWeights) {
        weights_ = userWeights_ = memory(userWeights, eng, DNNL_MEMORY_NONE);
    } else {
        userWeights_ = memory(userWeights, eng, DNNL_MEMORY_NONE);
        weights_ = memory(packed, eng);
        weightsIn_ = dnnl::reorder(userWeights_, weights_);
    }
}

void ConvKernel::prepareBias(const NodeDescriptor& info, int64_t outChannels) {
    const memory::desc biasDesc({outChannels}, dt::f32, memory::format_tag::a);
    if (const Tensor* b = info.constants[2]) {
        bias_ = memory(biasDesc, engine());
        std::memcpy(bias_.get_data_handle(), b->data(), size_t(outChannels) * sizeof(float));
    } else {
        bias_ = memory(biasDesc, engine(), DNNL_MEMORY_NONE);
        runtimeBias_ = true;
    }
    args_[DNNL_ARG_BIAS] = bias_;
}

std::string ConvKernel::name() const {
    if (!keptSrc_ && !keptResidual_ && !keptDst_) return name_;
    const std::pair<bool, const char*> parts[] = {{keptSrc_, "in"}, {keptResidual_, "residual"}, {keptDst_, "out"}};
    std::string kept;
    for (const auto& [flag, what] : parts)
        if (flag) kept += (kept.empty() ? "" : ",") + std::string(what);
    return name_ + "[blocked " + kept + "]";
}

std::optional<memory::desc> ConvKernel::blockedInput(size_t i) const {
    if (i == 0 && blockedSrc_) return src_.get_desc();
    if (i == 3 && residual_ && blockedDst_) return dst_.get_desc();  // Z is added in dst's layout
    return std::nullopt;
}

std::optional<memory::desc> ConvKernel::blockedOutput() const {
    if (blockedDst_) return dst_.get_desc();
    return std::nullopt;
}

void ConvKernel::keepBlocked(const std::vector<bool>& inputs, bool output) {
    keptSrc_ = blockedSrc_ && inputs.size() > 0 && inputs[0];
    keptResidual_ = residual_ && blockedDst_ && inputs.size() > 3 && inputs[3];
    keptDst_ = blockedDst_ && output;
}

int ConvKernel::inPlaceInput() const {
    if (!residual_) return -1;
    // dst computes blocked: Z kept blocked and the output too, or both plain (dst is the output).
    const bool sameLayout = blockedDst_ ? keptResidual_ && keptDst_ : true;
    return sameLayout ? 3 : -1;
}

void ConvKernel::bindSource(const Tensor& x, dnnl::stream& s) {
    if (!blockedSrc_ || keptSrc_) {
        src_.set_data_handle(handleOf(x));
        return;
    }
    userSrc_.set_data_handle(handleOf(x));  // blocked copies live in the shared scratch buffers
    src_.set_data_handle(scratchBuffer(0, src_.get_desc().get_size()));
    srcIn_.execute(s, userSrc_, src_);
}

void ConvKernel::bindDestination(void* out) {
    userDst_.set_data_handle(out);
    const bool scratch = blockedDst_ && !keptDst_;
    dst_.set_data_handle(scratch ? scratchBuffer(1, dst_.get_desc().get_size()) : out);
}

/// The sum post-op adds what dst holds: Z goes there first, reordered unless it has dst's layout.
void ConvKernel::prefillResidual(const Tensor& z, dnnl::stream& s) {
    if (blockedDst_ && !keptResidual_) {
        residual_.set_data_handle(handleOf(z));
        residualIn_.execute(s, residual_, dst_);
    } else if (z.data() != dst_.get_data_handle()) {
        std::memcpy(dst_.get_data_handle(), z.data(), dst_.get_desc().get_size());
    }
}

void ConvKernel::compute(dnnl::stream& s) {
    if (winograd_) {
        winograd_->run(static_cast<const float*>(src_.get_data_handle()), static_cast<float*>(dst_.get_data_handle()),
                       bias_ ? static_cast<const float*>(bias_.get_data_handle()) : nullptr, bool(residual_));
        return;
    }
    primitive_.execute(s, args_);
    if (biasAfter_) {
        s.wait();
        addBias();
    }
}

/// dst[n, c, ...] += bias[c], on dst's plain or channel-blocked (nC...16c) layout; the padding
/// channels of the last block stay as the primitive left them (zero).
void ConvKernel::addBias() {
    const dnnl_memory_desc_t& d = dst_.get_desc().data;
    const int64_t block = d.format_desc.blocking.inner_nblks == 1 ? d.format_desc.blocking.inner_blks[0] : 1;
    const int64_t channels = d.dims[1], paddedChannels = d.padded_dims[1];
    int64_t plane = 1;
    for (int i = 2; i < d.ndims; ++i) plane *= d.dims[i];
    const int64_t rows = d.dims[0] * (paddedChannels / block);  // (image, channel block) pairs
    const auto* bias = static_cast<const float*>(bias_.get_data_handle());
    auto* out = static_cast<float*>(dst_.get_data_handle());
#pragma omp parallel for schedule(static) if (rows * plane * block >= (1 << 15))
    for (int64_t r = 0; r < rows; ++r) {
        const int64_t firstChannel = (r % (paddedChannels / block)) * block;
        float lanes[64] = {};
        for (int64_t k = 0; k < block && firstChannel + k < channels; ++k) lanes[k] = bias[firstChannel + k];
        float* row = out + r * plane * block;
        for (int64_t p = 0; p < plane; ++p)
            for (int64_t k = 0; k < block; ++k) row[p * block + k] += lanes[k];
    }
}

void ConvKernel::computeOn(void* src, void* dst) {
    ThreadScope threads(threads_);
    dnnl::stream& s = stream();
    src_.set_data_handle(src);
    dst_.set_data_handle(dst);
    compute(s);
    s.wait();
}

void ConvKernel::run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs) {
    ThreadScope threads(threads_);
    dnnl::stream& s = stream();
    if (runtimeBias_) bias_.set_data_handle(handleOf(*inputs[2]));
    if (userWeights_) userWeights_.set_data_handle(handleOf(*inputs[1]));
    if (weightsIn_) weightsIn_.execute(s, userWeights_, weights_);
    bindSource(*inputs[0], s);
    bindDestination(outputs[0].mutableData());
    if (residual_) prefillResidual(*inputs[3], s);
    compute(s);
    if (blockedDst_ && !keptDst_) dstOut_.execute(s, dst_, userDst_);
    s.wait();
}

} // namespace graphlens::onednn
