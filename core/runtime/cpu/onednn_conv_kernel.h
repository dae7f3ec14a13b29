// The kernel behind every oneDNN convolution (Conv, FusedConv, ConvTranspose): runs a prepared
// primitive, reordering activations between NCHW and the blocked layout it computes in, except
// where the plan keeps them blocked between kernels (see onednn_layout.h).
#pragma once

#include "core/runtime/cpu/onednn_internal.h"
#include "core/runtime/cpu/onednn_layout.h"
#include "core/runtime/cpu/winograd_conv.h"

#include <memory>

#include <string>
#include <unordered_map>

namespace graphlens::onednn {

class ConvKernel final : public PreparedKernel, public BlockedLayoutKernel {
public:
    /// `pd`: a (de)convolution; `userWeights`: the ONNX weights as oneDNN reads them, reordered
    /// now when constant (info.constants[1]), on every run otherwise. `hasResidual`: input 3 (Z)
    /// is added to the result before the activation (a sum post-op). With `winograd`, that
    /// computes on pd's layouts instead of the primitive, which is then never created, and the
    /// weights are Winograd's own.
    ConvKernel(std::string name, const dnnl::primitive_desc& pd, const dnnl::memory::desc& userWeights,
               const NodeDescriptor& info, bool hasResidual, std::unique_ptr<WinogradConv> winograd = nullptr);

    std::string name() const override;
    void run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs) override;

    std::optional<dnnl::memory::desc> blockedInput(size_t i) const override;
    std::optional<dnnl::memory::desc> blockedOutput() const override;
    void keepBlocked(const std::vector<bool>& inputs, bool output) override;
    /// The residual (input 3) where it arrives in the layout the result is accumulated in: the
    /// result then builds up in its buffer instead of a copy of it.
    int inPlaceInput() const override;

    /// One computation from `src` into `dst`, both in the layouts the kernel computes in (see
    /// blockedInput/blockedOutput; plain where those are nullopt): what the plan times when it
    /// measures the algorithms of a layer. Needs constant weights and bias.
    void computeOn(void* src, void* dst);
    size_t sourceBytes() const { return src_.get_desc().get_size(); }
    size_t destinationBytes() const { return dst_.get_desc().get_size(); }

private:
    void prepareWeights(const dnnl::primitive_desc& pd, const dnnl::memory::desc& userWeights, const Tensor* constant);
    void prepareBias(const NodeDescriptor& info, int64_t outChannels);
    void addBias();
    void bindSource(const Tensor& x, dnnl::stream& s);
    void bindDestination(void* out);
    void prefillResidual(const Tensor& z, dnnl::stream& s);
    void compute(dnnl::stream& s);

    std::string name_;
    int threads_;
    dnnl::primitive primitive_;
    dnnl::memory userSrc_, userDst_, src_, dst_, userWeights_, weights_, bias_, residual_;
    dnnl::reorder srcIn_, dstOut_, residualIn_, weightsIn_;
    std::unordered_map<int, dnnl::memory> args_;
    bool blockedSrc_ = false, blockedDst_ = false;  ///< the primitive computes in a blocked layout
    bool keptSrc_ = false, keptDst_ = false, keptResidual_ = false;  ///< the plan passes them blocked
    bool runtimeBias_ = false;
    bool biasAfter_ = false;  ///< the primitive computes without the bias; addBias() adds it
    std::unique_ptr<WinogradConv> winograd_;
};

} // namespace graphlens::onednn
