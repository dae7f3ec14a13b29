// Optimized CPU kernels on oneDNN (see cpu_kernel.h): the shared engine, stream and helpers of
// onednn_internal.h, and the registration of every oneDNN factory.
#include "core/runtime/cpu/onednn_internal.h"

#include "core/graph/activation_kinds.h"
#include "core/runtime/cpu/qdq_fusion.h"

#include <omp.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>

namespace graphlens {
namespace onednn {

const dnnl::engine& engine() {
    static const dnnl::engine cpu(dnnl::engine::kind::cpu, 0);
    return cpu;
}

dnnl::stream& stream() {
    thread_local dnnl::stream s(engine());
    return s;
}

dnnl::memory packedCopy(const dnnl::memory::desc& from, void* data, const dnnl::memory::desc& to) {
    dnnl::memory user(from, engine(), data);
    dnnl::memory packed(to, engine());
    dnnl::stream& s = stream();
    dnnl::reorder(user, packed).execute(s, user, packed);
    s.wait();
    return packed;
}

void* scratchBuffer(int slot, size_t bytes) {
    struct Buffer {
        std::unique_ptr<std::byte, decltype(&std::free)> data{nullptr, &std::free};
        size_t size = 0;
    };
    thread_local Buffer buffers[4];
    Buffer& b = buffers[slot];
    if (b.size < bytes) {
        const size_t size = (bytes + 63) / 64 * 64;
        b.data.reset(static_cast<std::byte*>(std::aligned_alloc(64, size)));
        if (!b.data) throw std::bad_alloc();
        b.size = size;
    }
    return b.data.get();
}

ThreadScope::ThreadScope(int threads) {
    if (threads <= 0) return;
    const int current = omp_get_max_threads();
    if (current == threads) return;
    previous_ = current;
    omp_set_num_threads(threads);
}

ThreadScope::~ThreadScope() {
    if (previous_ > 0) omp_set_num_threads(previous_);
}

namespace {
std::atomic<ConvLayout> layoutPolicy{ConvLayout::Auto};
}

void setConvLayoutPolicy(ConvLayout layout) { layoutPolicy = layout; }
ConvLayout convLayoutPolicy() { return layoutPolicy; }

int64_t channelBlock() {
    // AVX-512 machines: oneDNN's direct kernels compute on 16-channel blocks (one zmm register).
    // cpu_isa values are bit sets: a machine with avx512_core has all of its bits.
    static const auto core = unsigned(dnnl::cpu_isa::avx512_core);
    static const int64_t block = (unsigned(dnnl::get_effective_cpu_isa()) & core) == core ? 16 : 8;
    return block;
}

} // namespace onednn

bool int8ProductsSaturate() {
    // cpu_isa values are bit sets: avx512_core_vnni's bits are in every later AVX-512 level.
    const auto effective = unsigned(dnnl::get_effective_cpu_isa());
    const auto has = [&](dnnl::cpu_isa isa) { return (effective & unsigned(isa)) == unsigned(isa); };
    return !has(dnnl::cpu_isa::avx512_core_vnni) && !has(dnnl::cpu_isa::avx2_vnni);
}

namespace onednn {

std::string cpuIsaName() {
    using isa = dnnl::cpu_isa;
    switch (dnnl::get_effective_cpu_isa()) {
    case isa::sse41: return "SSE4.1";
    case isa::avx: return "AVX";
    case isa::avx2: return "AVX2";
    case isa::avx2_vnni: return "AVX2 with VNNI";
    case isa::avx512_core: return "AVX-512";
    case isa::avx512_core_vnni: return "AVX-512 with VNNI";
    case isa::avx512_core_bf16: return "AVX-512 with VNNI and BF16";
    case isa::avx512_core_amx: return "AVX-512 with AMX";
    default: return "x86-64";
    }
}

dnnl::memory::format_tag channelBlockedTag(size_t rank) {
    using tag = dnnl::memory::format_tag;
    const bool wide = channelBlock() == 16;
    switch (rank) {
    case 3: return wide ? tag::nCw16c : tag::nCw8c;
    case 4: return wide ? tag::nChw16c : tag::nChw8c;
    case 5: return wide ? tag::nCdhw16c : tag::nCdhw8c;
    default: return tag::undef;
    }
}

Dims toDims(const std::vector<int64_t>& dims) { return Dims(dims.begin(), dims.end()); }

dnnl::memory::format_tag plainTag(size_t rank) {
    using tag = dnnl::memory::format_tag;
    switch (rank) {
    case 1: return tag::a;
    case 2: return tag::ab;
    case 3: return tag::abc;
    case 4: return tag::abcd;
    case 5: return tag::abcde;
    case 6: return tag::abcdef;
    default: return tag::undef;
    }
}

Dims plainStrides(const Dims& dims) {
    Dims strides(dims.size(), 1);
    for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
    return strides;
}

dnnl::memory::desc plainDesc(const std::vector<int64_t>& dims, dnnl::memory::data_type type) {
    const Dims d = toDims(dims);
    return dnnl::memory::desc(d, type, plainStrides(d));
}

bool allFloat(const NodeDescriptor& info) {
    for (size_t i = 0; i < info.inputTypes.size(); ++i)
        if (info.hasInput(i) && info.inputTypes[i] != DType::Float) return false;
    for (DType t : info.outputTypes)
        if (t != DType::Float) return false;
    return !info.outputTypes.empty();
}

int64_t elementCount(const std::vector<int64_t>& dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
}

std::vector<float> floatsAttribute(const Attributes& attributes, const char* name) {
    const Attribute* a = attributes.find(name);
    if (!a) return {};
    if (a->holds<std::vector<float>>()) return a->get<std::vector<float>>();
    if (a->holds<float>()) return {a->get<float>()};
    return {};
}

bool hasActivation(const Attributes& attributes) { return attributes.has("activation"); }

bool appendActivation(const Attributes& attributes, dnnl::post_ops& ops) {
    using alg = dnnl::algorithm;
    const Attribute* a = attributes.find("activation");
    if (!a) return true;
    if (!a->holds<std::string>()) return false;
    const ActivationKind* kind = activationKindNamed(a->get<std::string>());
    if (!kind) return false;
    const std::vector<float> given = floatsAttribute(attributes, "activation_params");
    const auto [alpha, beta] = activationParams(*kind, given);
    switch (kind->id) {
    case ActivationId::Relu: ops.append_eltwise(1.f, alg::eltwise_relu, 0.f, 0.f); break;
    case ActivationId::LeakyRelu: ops.append_eltwise(1.f, alg::eltwise_relu, alpha, 0.f); break;
    case ActivationId::Sigmoid: ops.append_eltwise(1.f, alg::eltwise_logistic, 0.f, 0.f); break;
    case ActivationId::Tanh: ops.append_eltwise(1.f, alg::eltwise_tanh, 0.f, 0.f); break;
    case ActivationId::HardSwish: ops.append_eltwise(1.f, alg::eltwise_hardswish, 0.f, 0.f); break;
    case ActivationId::QuickGelu: ops.append_eltwise(1.f, alg::eltwise_swish, alpha, 0.f); break;
    case ActivationId::Elu: ops.append_eltwise(1.f, alg::eltwise_elu, alpha, 0.f); break;
    case ActivationId::Clip:
        if (given.size() != 2 || !(alpha <= beta)) return false;
        ops.append_eltwise(1.f, alg::eltwise_clip_v2, alpha, beta);
        break;
    case ActivationId::HardSigmoid:
        // max(0, min(1, alpha * x + beta)): a linear step, then a clip (2.6 has no hardsigmoid).
        ops.append_eltwise(1.f, alg::eltwise_linear, alpha, beta);
        ops.append_eltwise(1.f, alg::eltwise_clip_v2, 0.f, 1.f);
        break;
    default: return false;  // no oneDNN post-op computes it
    }
    return true;
}

} // namespace onednn

void registerOneDnnKernels(CpuKernelRegistry& registry) {
    onednn::registerConvKernels(registry);
    onednn::registerMatMulKernels(registry);
    onednn::registerPoolKernels(registry);
    onednn::registerInt8Kernels(registry);
    onednn::registerQuantizeLinearKernels(registry);
    onednn::registerLookupTableKernels(registry);
    onednn::registerSqueezeExcitationKernels(registry);
    onednn::registerQLinearConcatKernels(registry);
}

} // namespace graphlens
