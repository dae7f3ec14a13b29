// The oneDNN CPU kernels against the reference kernels: Conv (grouped, depthwise, strided,
// dilated, padded, auto_pad, 1x1, 1-D and 3-D, plain and blocked layouts, fused activations and
// residual add), ConvTranspose, Gemm, MatMul and pooling; the cases the factories must decline;
// the work node_threads.h counts and that one thread computes the same bits as two; and
// the speed of a ResNet-sized convolution in both layouts.
#include "core/graph/builder.h"
#include "core/runtime/cpu/cpu_kernel.h"
#include "core/runtime/cpu/node_threads.h"
#include "core/runtime/cpu/onednn_internal.h"
#include "core/runtime/cpu/onednn_layout.h"
#include "core/runtime/cpu/winograd_conv.h"
#include "core/runtime/executor.h"

#include <QtTest>

#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>

using namespace graphlens;

namespace {

using Dims = std::vector<int64_t>;

/// Deterministic values in [-1, 1).
Tensor randomTensor(Dims dims, uint32_t seed) {
    Tensor t = Tensor::allocate(DType::Float, dims);
    uint32_t state = seed * 2654435761u + 12345u;
    for (float& v : t.mutableSpan<float>()) {
        state = state * 1664525u + 1013904223u;
        v = float(state >> 8) / float(1u << 23) - 1.f;
    }
    return t;
}

/// One operand of a node: a graph input (fed at run time) or a constant initializer.
struct Operand {
    Tensor value;
    bool constant = false;
};
Operand feed(Dims dims, uint32_t seed) { return {randomTensor(std::move(dims), seed), false}; }
Operand weight(Dims dims, uint32_t seed) { return {randomTensor(std::move(dims), seed), true}; }

/// A graph of one node over `operands` (nullopt: an omitted input).
struct NodeGraph {
    mutable GraphBuilder builder;
    NodeId node = kNoId;
    std::map<std::string, Tensor> feeds;
    std::vector<const Tensor*> inputs;  ///< in node input order; nullptr where omitted
};

std::unique_ptr<NodeGraph> oneNode(const std::string& op, const std::vector<std::optional<Operand>>& operands,
                                   Attributes attributes) {
    auto g = std::make_unique<NodeGraph>();
    std::vector<ValueId> ids;
    for (size_t i = 0; i < operands.size(); ++i) {
        if (!operands[i]) {
            ids.push_back(kNoId);
            continue;
        }
        const std::string name = "in" + std::to_string(i);
        if (operands[i]->constant) {
            ids.push_back(g->builder.initializer(name, operands[i]->value));
        } else {
            ids.push_back(g->builder.input(name, DType::Float, Shape::ofSizes(operands[i]->value.dims())));
            g->feeds[name] = operands[i]->value;
        }
    }
    g->builder.output(g->builder.op(op, ids, std::move(attributes), "node"));
    g->node = g->builder.lastNode();
    if (op.starts_with("Fused")) g->builder.graph().node(g->node).domain = "com.microsoft";  // ONNX Runtime's ops
    const Graph& graph = g->builder.graph();
    for (ValueId id : ids) {
        if (id == kNoId) {
            g->inputs.push_back(nullptr);
            continue;
        }
        const Value& v = graph.value(id);
        g->inputs.push_back(v.initializer ? &*v.initializer : &g->feeds.at(v.name));
    }
    return g;
}

/// The node's NodeDescriptor, as the CPU backend makes it, with the output dims given.
NodeDescriptor describe(const NodeGraph& g, const std::vector<Dims>& outputDims, int threads = 2) {
    const Graph& graph = g.builder.graph();
    const Node& node = graph.node(g.node);
    NodeDescriptor info{graph, node, 17, threads, {}, {}, {}, {}, {}};
    for (size_t i = 0; i < node.inputs().size(); ++i) {
        if (!g.inputs[i]) {
            info.inputDims.emplace_back();
            info.inputTypes.push_back(DType::Undefined);
            info.constants.push_back(nullptr);
            continue;
        }
        info.inputDims.push_back(g.inputs[i]->dims());
        info.inputTypes.push_back(g.inputs[i]->dtype());
        info.constants.push_back(graph.isGraphInput(node.input(i)) ? nullptr : graph.constantValue(node.input(i)));
    }
    for (const Dims& d : outputDims) {
        info.outputDims.push_back(d);
        info.outputTypes.push_back(DType::Float);
    }
    return info;
}

/// Largest violation of |got - want| <= 1e-5 + 1e-4 |want| (0 when within), as a message.
QString compare(const Tensor& got, const Tensor& want) {
    if (got.dims() != want.dims()) return "dims differ";
    auto g = got.span<float>();
    auto w = want.span<float>();
    double worst = 0;
    size_t at = 0;
    for (size_t i = 0; i < g.size(); ++i) {
        const double excess = std::abs(double(g[i]) - double(w[i])) - (1e-5 + 1e-4 * std::abs(double(w[i])));
        if (!(excess <= worst)) {  // NaN counts
            worst = std::isnan(excess) ? INFINITY : excess;
            at = i;
        }
    }
    if (worst <= 0) return {};
    return QString("element %1: got %2, want %3").arg(at).arg(double(g[at])).arg(double(w[at]));
}

/// Prepares `op` on oneDNN, checks the kernel's name, runs it and compares with the reference
/// result of `reference` (the same node unless given: fused ops compare with their parts).
void checkAgainst(const NodeGraph& g, const std::string& kernelName, const Tensor& want) {
    const NodeDescriptor info = describe(g, {want.dims()});
    auto kernel = cpuKernels().prepare(info);
    QVERIFY2(kernel, "the oneDNN factory declined");
    QCOMPARE(kernel->name(), kernelName);
    for (int round = 0; round < 2; ++round) {  // a prepared kernel runs again on its buffers
        std::vector<Tensor> outputs{Tensor::allocate(DType::Float, want.dims())};
        kernel->run(g.inputs, outputs);
        const QString problem = compare(outputs[0], want);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }
}

Tensor referenceOf(const NodeGraph& g) {
    return runReference(g.builder.graph(), 17, g.feeds).at(0);
}

void check(const std::string& op, const std::vector<std::optional<Operand>>& operands, Attributes attributes,
           const std::string& kernelName) {
    auto g = oneNode(op, operands, std::move(attributes));
    checkAgainst(*g, kernelName, referenceOf(*g));
}

bool declines(const NodeDescriptor& info) { return cpuKernels().prepare(info) == nullptr; }

const onednn::ConvLayout kLayouts[] = {onednn::ConvLayout::Plain, onednn::ConvLayout::Blocked,
                                       onednn::ConvLayout::Auto};

struct LayoutGuard {
    ~LayoutGuard() { onednn::setConvLayoutPolicy(onednn::ConvLayout::Auto); }
};

struct AlgorithmGuard {
    ~AlgorithmGuard() { onednn::setConvAlgorithm(onednn::ConvAlgorithm::Auto); }
};

/// Conv operands: x, w (constant), optional bias (constant unless `runtimeBias`).
std::vector<std::optional<Operand>> convOperands(Dims x, Dims w, bool bias, bool runtimeBias = false) {
    std::vector<std::optional<Operand>> ops{feed(x, 1), weight(w, 2)};
    if (bias) ops.push_back(Operand{randomTensor({w[0]}, 3), !runtimeBias});
    return ops;
}

/// Seconds per run of `kernel` (best of `runs` after a warm-up).
double secondsPerRun(PreparedKernel& kernel, const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs,
                     int runs) {
    kernel.run(inputs, outputs);
    double best = 1e9;
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        kernel.run(inputs, outputs);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

} // namespace

class TestCpuOneDnn : public QObject {
    Q_OBJECT
private slots:
    void convMatchesReferenceInEveryLayout_data() {
        QTest::addColumn<QString>("what");
        QTest::newRow("3x3 pad 1, few channels") << "basic";
        QTest::newRow("3x3 pad 1, 32 channels") << "wide";
        QTest::newRow("grouped, strided, asymmetric pads") << "grouped";
        QTest::newRow("depthwise stride 2") << "depthwise";
        QTest::newRow("dilated") << "dilated";
        QTest::newRow("1x1") << "pointwise";
        QTest::newRow("1x1 stride 2, no bias") << "pointwise_strided";
        QTest::newRow("SAME_UPPER stride 2") << "same_upper";
        QTest::newRow("SAME_LOWER even kernel") << "same_lower";
        QTest::newRow("VALID") << "valid";
        QTest::newRow("stem 7x7 stride 2, batch 2") << "stem";
        QTest::newRow("1-D") << "conv1d";
        QTest::newRow("3-D") << "conv3d";
        QTest::newRow("runtime bias") << "runtime_bias";
        QTest::newRow("runtime weights") << "runtime_weights";
        QTest::newRow("runtime weights, grouped") << "runtime_weights_grouped";
    }
    void convMatchesReferenceInEveryLayout() {
        QFETCH(QString, what);
        LayoutGuard guard;
        std::vector<std::optional<Operand>> ops;
        Attributes a;
        if (what == "basic") ops = convOperands({1, 8, 10, 10}, {12, 8, 3, 3}, true), a = {{"pads", {1, 1, 1, 1}}};
        if (what == "wide") ops = convOperands({1, 32, 14, 14}, {32, 32, 3, 3}, true), a = {{"pads", {1, 1, 1, 1}}};
        if (what == "grouped")
            ops = convOperands({1, 32, 9, 9}, {16, 8, 3, 3}, true),
            a = {{"group", 4}, {"strides", {2, 2}}, {"pads", {1, 0, 2, 1}}};
        if (what == "depthwise")
            ops = convOperands({2, 32, 12, 12}, {32, 1, 3, 3}, true),
            a = {{"group", 32}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}};
        if (what == "dilated")
            ops = convOperands({1, 16, 15, 15}, {24, 16, 3, 3}, true),
            a = {{"dilations", {2, 2}}, {"pads", {2, 2, 2, 2}}};
        if (what == "pointwise") ops = convOperands({1, 64, 7, 7}, {128, 64, 1, 1}, true);
        if (what == "pointwise_strided") ops = convOperands({1, 32, 8, 8}, {64, 32, 1, 1}, false), a = {{"strides", {2, 2}}};
        if (what == "same_upper")
            ops = convOperands({1, 16, 7, 7}, {16, 16, 3, 3}, true), a = {{"auto_pad", "SAME_UPPER"}, {"strides", {2, 2}}};
        if (what == "same_lower") ops = convOperands({1, 8, 7, 6}, {8, 8, 2, 2}, true), a = {{"auto_pad", "SAME_LOWER"}};
        if (what == "valid") ops = convOperands({1, 16, 9, 9}, {16, 16, 3, 3}, false), a = {{"auto_pad", "VALID"}};
        if (what == "stem")
            ops = convOperands({2, 3, 32, 32}, {16, 3, 7, 7}, true), a = {{"strides", {2, 2}}, {"pads", {3, 3, 3, 3}}};
        if (what == "conv1d") ops = convOperands({1, 16, 20}, {24, 16, 5}, true), a = {{"pads", {2, 2}}};
        if (what == "conv3d") ops = convOperands({1, 16, 6, 6, 6}, {16, 16, 3, 3, 3}, true), a = {{"pads", {1, 1, 1, 1, 1, 1}}};
        if (what == "runtime_bias") ops = convOperands({1, 16, 6, 6}, {16, 16, 3, 3}, true, true);
        if (what == "runtime_weights")
            ops = {feed({1, 16, 6, 6}, 1), feed({32, 16, 3, 3}, 2), feed({32}, 3)}, a = {{"pads", {1, 1, 1, 1}}};
        if (what == "runtime_weights_grouped")
            ops = {feed({1, 4, 6, 6}, 1), feed({6, 2, 3, 3}, 2)}, a = {{"group", 2}, {"strides", {2, 2}}};
        auto g = oneNode("Conv", ops, a);
        const Tensor want = referenceOf(*g);
        AlgorithmGuard algorithmGuard;  // the direct kernels (Winograd: winogradMatchesReference)
        onednn::setConvAlgorithm(onednn::ConvAlgorithm::Direct);
        for (onednn::ConvLayout layout : kLayouts) {
            onednn::setConvLayoutPolicy(layout);
            checkAgainst(*g, "onednn:conv", want);
        }
    }

    void convFusesActivations_data() {
        QTest::addColumn<QString>("activation");
        for (const char* a : {"Relu", "LeakyRelu", "Clip", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish"})
            QTest::newRow(a) << a;
    }
    void convFusesActivations() {
        QFETCH(QString, activation);
        LayoutGuard guard;
        const std::string act = activation.toStdString();
        std::vector<float> params;
        Attributes actAttrs;
        GraphBuilder ref;
        const Tensor x = randomTensor({1, 16, 8, 8}, 1), w = randomTensor({16, 16, 3, 3}, 2), b = randomTensor({16}, 3);
        const ValueId xv = ref.input("x", DType::Float, Shape::ofSizes(x.dims()));
        ValueId y = ref.op("Conv", {xv, ref.initializer("w", w), ref.initializer("b", b)}, {{"pads", {1, 1, 1, 1}}});
        if (act == "LeakyRelu") params = {0.1f}, y = ref.op(act, {y}, {{"alpha", 0.1f}});
        else if (act == "Clip")
            params = {-0.5f, 0.5f},
            y = ref.op(act, {y, ref.initializer("lo", Tensor::scalar(-0.5f)), ref.initializer("hi", Tensor::scalar(0.5f))});
        else if (act == "HardSigmoid") params = {0.3f, 0.4f}, y = ref.op(act, {y}, {{"alpha", 0.3f}, {"beta", 0.4f}});
        else y = ref.op(act, {y});
        ref.output(y);
        const Tensor want = runReference(ref.graph(), 17, {{"x", x}}).at(0);

        Attributes fused{{"pads", {1, 1, 1, 1}}, {"activation", act}};
        if (!params.empty()) fused.set("activation_params", params);
        for (const std::string op : {"Conv", "FusedConv"}) {
            auto g = oneNode(op, {Operand{x, false}, Operand{w, true}, Operand{b, true}}, fused);
            for (onednn::ConvLayout layout : kLayouts) {
                onednn::setConvLayoutPolicy(layout);
                checkAgainst(*g, "onednn:conv", want);
            }
        }
    }

    void fusedConvAddsTheResidualBeforeTheActivation() {
        LayoutGuard guard;
        const Tensor x = randomTensor({1, 16, 8, 8}, 1), w = randomTensor({32, 16, 3, 3}, 2), b = randomTensor({32}, 3);
        const Tensor z = randomTensor({1, 32, 4, 4}, 4);
        GraphBuilder ref;
        const ValueId xv = ref.input("x", DType::Float, Shape::ofSizes(x.dims())), zv = ref.input("z", DType::Float, Shape::ofSizes(z.dims()));
        const ValueId c = ref.op("Conv", {xv, ref.initializer("w", w), ref.initializer("b", b)},
                                 {{"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}});
        ref.output(ref.op("Relu", {ref.op("Add", {c, zv})}));
        const Tensor want = runReference(ref.graph(), 17, {{"x", x}, {"z", z}}).at(0);
        auto g = oneNode("FusedConv", {Operand{x, false}, Operand{w, true}, Operand{b, true}, Operand{z, false}},
                         {{"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}, {"activation", "Relu"}});
        for (onednn::ConvLayout layout : kLayouts) {
            onednn::setConvLayoutPolicy(layout);
            checkAgainst(*g, "onednn:conv", want);
        }
    }

    /// Winograd F(2x2,3x3), forced on blocked convolutions: every tile edge case (odd sizes,
    /// no or asymmetric padding, a batch), bias, residual and the activations it applies itself.
    void winogradMatchesReference_data() {
        QTest::addColumn<QString>("what");
        QTest::newRow("28x28 64->32 pad 1, bias") << "basic";
        QTest::newRow("odd 7x9, batch 2") << "odd";
        QTest::newRow("no padding (10x10 -> 8x8)") << "valid";
        QTest::newRow("asymmetric pads 0,1,2,1") << "asymmetric";
        QTest::newRow("no bias") << "no_bias";
        QTest::newRow("runtime bias") << "runtime_bias";
        QTest::newRow("Relu") << "Relu";
        QTest::newRow("LeakyRelu") << "LeakyRelu";
        QTest::newRow("Clip") << "Clip";
        QTest::newRow("residual, then Relu") << "residual";
    }
    void winogradMatchesReference() {
        QFETCH(QString, what);
        LayoutGuard layoutGuard;
        AlgorithmGuard algorithmGuard;
        const std::string w = what.toStdString();
        Attributes a{{"pads", {1, 1, 1, 1}}};
        std::vector<std::optional<Operand>> ops = convOperands({1, 64, 28, 28}, {32, 64, 3, 3}, true);
        if (w == "odd") ops = convOperands({2, 16, 7, 9}, {32, 16, 3, 3}, true);  // channels: multiples of 16 (AVX-512 blocks)
        if (w == "valid") ops = convOperands({1, 16, 10, 10}, {16, 16, 3, 3}, true), a = {};
        if (w == "asymmetric") ops = convOperands({1, 16, 9, 8}, {32, 16, 3, 3}, true), a = {{"pads", {0, 1, 2, 1}}};
        if (w == "no_bias") ops = convOperands({1, 32, 12, 12}, {32, 32, 3, 3}, false);
        if (w == "runtime_bias") ops = convOperands({1, 32, 12, 12}, {32, 32, 3, 3}, true, true);
        if (w == "Relu" || w == "residual") a.set("activation", std::string("Relu"));
        if (w == "LeakyRelu") a.set("activation", w), a.set("activation_params", std::vector<float>{0.2f});
        if (w == "Clip") a.set("activation", w), a.set("activation_params", std::vector<float>{-0.5f, 0.75f});
        if (w == "residual") ops.push_back(feed({1, 32, 28, 28}, 4));
        auto g = oneNode("FusedConv", ops, a);
        g->builder.graph().node(g->node).domain = "com.microsoft";
        const Tensor want = referenceOf(*g);
        onednn::setConvLayoutPolicy(onednn::ConvLayout::Blocked);
        onednn::setConvAlgorithm(onednn::ConvAlgorithm::Winograd);
        checkAgainst(*g, "onednn:conv_winograd", want);
        onednn::setConvAlgorithm(onednn::ConvAlgorithm::Direct);
        checkAgainst(*g, "onednn:conv", want);
    }

    /// The transforms on both block widths, whatever layout this machine's oneDNN prefers
    /// (AVX2 machines compute on 8-channel blocks, AVX-512 ones on 16): the input is reordered
    /// into the blocked layout here, and the result back, with bias, residual and Clip.
    void winogradComputesOnEitherBlockWidth_data() {
        QTest::addColumn<int>("block");
        QTest::newRow("nChw8c") << 8;
        QTest::newRow("nChw16c") << 16;
    }
    void winogradComputesOnEitherBlockWidth() {
        QFETCH(int, block);
        AlgorithmGuard algorithmGuard;
        onednn::setConvAlgorithm(onednn::ConvAlgorithm::Winograd);
        const Dims x{2, 32, 9, 11}, y{2, 48, 9, 11};
        std::vector<std::optional<Operand>> ops = convOperands(x, {48, 32, 3, 3}, true);
        ops.push_back(feed(y, 4));
        auto g = oneNode("FusedConv", ops,
                         {{"pads", {1, 1, 1, 1}}, {"activation", "Clip"}, {"activation_params", std::vector<float>{-0.5f, 1.f}}});
        g->builder.graph().node(g->node).domain = "com.microsoft";
        const Tensor want = referenceOf(*g);

        onednn::WinogradShape shape;
        shape.block = block;
        shape.batch = 2, shape.inChannels = 32, shape.outChannels = 48;
        shape.inHeight = shape.outHeight = 9, shape.inWidth = shape.outWidth = 11;
        shape.padTop = shape.padLeft = 1;
        auto winograd = onednn::WinogradConv::make(shape, describe(*g, {y}));
        QVERIFY(winograd);
        using tag = dnnl::memory::format_tag;
        const tag blocked = block == 8 ? tag::nChw8c : tag::nChw16c;
        const auto desc = [](const Dims& d, tag t) { return dnnl::memory::desc(onednn::toDims(d), dnnl::memory::data_type::f32, t); };
        dnnl::memory src(desc(x, blocked), onednn::engine()), dst(desc(y, blocked), onednn::engine());
        dnnl::memory plainX(desc(x, tag::nchw), onednn::engine(), onednn::handleOf(*g->inputs[0]));
        dnnl::memory plainZ(desc(y, tag::nchw), onednn::engine(), onednn::handleOf(*g->inputs[3]));
        Tensor got = Tensor::allocate(DType::Float, y);
        dnnl::memory plainY(desc(y, tag::nchw), onednn::engine(), got.mutableData());
        dnnl::stream& s = onednn::stream();
        dnnl::reorder(plainX, src).execute(s, plainX, src);
        dnnl::reorder(plainZ, dst).execute(s, plainZ, dst);  // the residual, added in place
        s.wait();
        winograd->run(static_cast<const float*>(src.get_data_handle()), static_cast<float*>(dst.get_data_handle()),
                      g->inputs[2]->span<float>().data(), true);
        dnnl::reorder(dst, plainY).execute(s, dst, plainY);
        s.wait();
        const QString problem = compare(got, want);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    /// Left to itself (Auto layout and algorithm), a ResNet-shaped 3x3 convolution computes
    /// blocked in this machine's channel block (8 on AVX2, 16 on AVX-512) and takes Winograd on
    /// both kinds of machine; shapes where it measured slower on both keep the direct kernel.
    void winogradTakenWhereItPays_data() {
        QTest::addColumn<int>("channels");
        QTest::addColumn<int>("size");
        QTest::addColumn<int>("outChannels");
        QTest::addColumn<bool>("winograd");
        QTest::newRow("64 on 56x56") << 64 << 56 << 64 << true;
        QTest::newRow("256 on 14x14") << 256 << 14 << 256 << true;
        QTest::newRow("512 on 7x7") << 512 << 7 << 512 << true;
        QTest::newRow("16 on 112x112: transforms dominate") << 16 << 112 << 16 << false;
        QTest::newRow("128 -> 32 on 7x7: small plane, narrow products") << 128 << 7 << 32 << false;
    }
    void winogradTakenWhereItPays() {
        QFETCH(int, channels);
        QFETCH(int, size);
        QFETCH(int, outChannels);
        QFETCH(bool, winograd);
        const Dims x{1, channels, size, size}, y{1, outChannels, size, size};
        auto g = oneNode("FusedConv", convOperands(x, {outChannels, channels, 3, 3}, true),
                         {{"pads", {1, 1, 1, 1}}, {"activation", "Relu"}});
        g->builder.graph().node(g->node).domain = "com.microsoft";
        auto kernel = cpuKernels().prepare(describe(*g, {y}));
        QVERIFY(kernel);
        QCOMPARE(kernel->name(), std::string(winograd ? "onednn:conv_winograd" : "onednn:conv"));
        auto* layout = dynamic_cast<onednn::BlockedLayoutKernel*>(kernel.get());
        QVERIFY(layout && layout->blockedOutput());
        using tag = dnnl::memory::format_tag;
        const tag blocked = onednn::channelBlock() == 16 ? tag::nChw16c : tag::nChw8c;
        QVERIFY(*layout->blockedOutput() == dnnl::memory::desc(onednn::toDims(y), dnnl::memory::data_type::f32, blocked));
    }

    /// Convolutions Winograd cannot compute keep the direct kernel even when it is forced.
    void winogradDeclinesWhatItCannotCompute_data() {
        QTest::addColumn<QString>("what");
        QTest::newRow("stride 2") << "strided";
        QTest::newRow("dilated") << "dilated";
        QTest::newRow("grouped") << "grouped";
        QTest::newRow("5x5") << "five";
        QTest::newRow("12 output channels") << "channels";
        QTest::newRow("Sigmoid activation") << "sigmoid";
        QTest::newRow("runtime weights") << "runtime_weights";
        QTest::newRow("NCHW layout") << "plain";
    }
    void winogradDeclinesWhatItCannotCompute() {
        QFETCH(QString, what);
        LayoutGuard layoutGuard;
        AlgorithmGuard algorithmGuard;
        const std::string w = what.toStdString();
        Attributes a{{"pads", {1, 1, 1, 1}}};
        std::vector<std::optional<Operand>> ops = convOperands({1, 32, 12, 12}, {32, 32, 3, 3}, true);
        if (w == "strided") a.set("strides", std::vector<int64_t>{2, 2});
        if (w == "dilated") a.set("dilations", std::vector<int64_t>{2, 2}), a.set("pads", std::vector<int64_t>{2, 2, 2, 2});
        if (w == "grouped") ops = convOperands({1, 32, 12, 12}, {32, 16, 3, 3}, true), a.set("group", int64_t(2));
        if (w == "five") ops = convOperands({1, 32, 12, 12}, {32, 32, 5, 5}, true), a.set("pads", std::vector<int64_t>{2, 2, 2, 2});
        if (w == "channels") ops = convOperands({1, 32, 12, 12}, {12, 32, 3, 3}, true);
        if (w == "sigmoid") a.set("activation", std::string("Sigmoid"));
        if (w == "runtime_weights") ops = {feed({1, 32, 12, 12}, 1), feed({32, 32, 3, 3}, 2), feed({32}, 3)};
        auto g = oneNode("FusedConv", ops, a);
        g->builder.graph().node(g->node).domain = "com.microsoft";
        onednn::setConvLayoutPolicy(w == "plain" ? onednn::ConvLayout::Plain : onednn::ConvLayout::Blocked);
        onednn::setConvAlgorithm(onednn::ConvAlgorithm::Winograd);
        checkAgainst(*g, "onednn:conv", referenceOf(*g));
    }

    void convTransposeMatchesReference_data() {
        QTest::addColumn<QString>("what");
        QTest::newRow("stride 2, pads, output_padding") << "upsample";
        QTest::newRow("grouped") << "grouped";
        QTest::newRow("output_shape") << "output_shape";
        QTest::newRow("SAME_UPPER") << "same_upper";
        QTest::newRow("dilated, runtime bias") << "dilated";
        QTest::newRow("wide, blocked") << "wide";
        QTest::newRow("runtime weights") << "runtime_weights";
        QTest::newRow("output_padding beyond the pads") << "output_padding";
        QTest::newRow("output_padding beyond the pads, wide") << "output_padding_wide";
        QTest::newRow("output_shape, strides 3x2") << "output_shape_3x2";
    }
    void convTransposeMatchesReference() {
        QFETCH(QString, what);
        LayoutGuard guard;
        std::vector<std::optional<Operand>> ops;
        Attributes a;
        if (what == "upsample")
            ops = {feed({1, 8, 5, 5}, 1), weight({8, 4, 3, 3}, 2), weight({4}, 3)},
            a = {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}, {"output_padding", {1, 1}}};
        if (what == "grouped") ops = {feed({1, 8, 4, 4}, 1), weight({8, 3, 3, 3}, 2)}, a = {{"group", 2}, {"strides", {2, 2}}};
        if (what == "output_shape")
            ops = {feed({1, 4, 3, 3}, 1), weight({4, 2, 3, 3}, 2)}, a = {{"strides", {2, 2}}, {"output_shape", {6, 6}}};
        if (what == "same_upper")
            ops = {feed({1, 4, 5, 5}, 1), weight({4, 6, 3, 3}, 2)}, a = {{"strides", {2, 2}}, {"auto_pad", "SAME_UPPER"}};
        if (what == "dilated")
            ops = {feed({2, 4, 5, 5}, 1), weight({4, 4, 3, 3}, 2), feed({4}, 3)}, a = {{"dilations", {2, 2}}};
        if (what == "wide")
            ops = {feed({1, 32, 7, 7}, 1), weight({32, 32, 4, 4}, 2), weight({32}, 3)},
            a = {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}};
        if (what == "runtime_weights")
            ops = {feed({1, 16, 5, 5}, 1), feed({16, 8, 3, 3}, 2)}, a = {{"group", 2}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}};
        if (what == "output_padding")
            ops = {feed({1, 4, 3, 3}, 1), weight({4, 4, 3, 3}, 2), weight({4}, 3)},
            a = {{"strides", {2, 2}}, {"output_padding", {1, 1}}};
        if (what == "output_padding_wide")
            ops = {feed({2, 32, 5, 5}, 1), weight({32, 16, 3, 3}, 2), weight({16}, 3)},
            a = {{"strides", {2, 2}}, {"output_padding", {1, 1}}};
        if (what == "output_shape_3x2")
            ops = {feed({1, 16, 3, 3}, 1), weight({16, 16, 3, 3}, 2)},
            a = {{"strides", {3, 2}}, {"output_shape", {10, 8}}, {"output_padding", {1, 1}}};
        auto g = oneNode("ConvTranspose", ops, a);
        const Tensor want = referenceOf(*g);
        for (onednn::ConvLayout layout : kLayouts) {
            onednn::setConvLayoutPolicy(layout);
            checkAgainst(*g, "onednn:conv_transpose", want);
        }
    }

    void gemmMatchesReference_data() {
        QTest::addColumn<QString>("what");
        QTest::newRow("transB, bias over N") << "classifier";
        QTest::newRow("transA, runtime B, full C, alpha, beta") << "trans_a";
        QTest::newRow("scalar C, alpha") << "scalar_c";
        QTest::newRow("runtime C of M x 1") << "column_c";
        QTest::newRow("no C") << "no_c";
        QTest::newRow("runtime bias over N") << "runtime_bias";
        QTest::newRow("both transposed, beta 0") << "beta0";
        QTest::newRow("transB, 256 columns (B stored with padded rows)") << "padded";
    }
    void gemmMatchesReference() {
        QFETCH(QString, what);
        if (what == "classifier")
            check("Gemm", {feed({4, 256}, 1), weight({100, 256}, 2), weight({100}, 3)}, {{"transB", 1}}, "onednn:gemm");
        if (what == "trans_a")
            check("Gemm", {feed({32, 5}, 1), feed({32, 7}, 2), weight({5, 7}, 3)},
                  {{"transA", 1}, {"alpha", 2.0f}, {"beta", 0.5f}}, "onednn:gemm");
        if (what == "scalar_c")
            check("Gemm", {feed({6, 9}, 1), weight({9, 5}, 2), weight({1}, 3)}, {{"alpha", 0.5f}}, "onednn:gemm");
        if (what == "column_c") check("Gemm", {feed({6, 9}, 1), weight({9, 5}, 2), feed({6, 1}, 3)}, {}, "onednn:gemm");
        if (what == "no_c") check("Gemm", {feed({3, 17}, 1), weight({17, 11}, 2)}, {}, "onednn:gemm");
        if (what == "runtime_bias")
            check("Gemm", {feed({3, 17}, 1), weight({11, 17}, 2), feed({1, 11}, 3)}, {{"transB", 1}}, "onednn:gemm");
        if (what == "beta0")
            check("Gemm", {feed({17, 3}, 1), feed({11, 17}, 2), feed({3, 11}, 3)},
                  {{"transA", 1}, {"transB", 1}, {"beta", 0.0f}}, "onednn:gemm");
        if (what == "padded")
            check("Gemm", {feed({4, 64}, 1), weight({256, 64}, 2), weight({256}, 3)}, {{"transB", 1}}, "onednn:gemm");
    }

    void matMulMatchesReference_data() {
        QTest::addColumn<QString>("what");
        QTest::newRow("4-D A, constant 2-D B") << "folded";
        QTest::newRow("broadcast batches, runtime B") << "broadcast";
        QTest::newRow("2-D A, batched B") << "batched_b";
        QTest::newRow("vector A") << "vector_a";
        QTest::newRow("vector B") << "vector_b";
        QTest::newRow("constant 3-D B") << "constant_3d";
        QTest::newRow("runtime 2-D B") << "runtime_2d";
        QTest::newRow("constant 2-D B of 512 columns (stored with padded rows)") << "padded";
    }
    void matMulMatchesReference() {
        QFETCH(QString, what);
        if (what == "folded") check("MatMul", {feed({2, 3, 8, 16}, 1), weight({16, 12}, 2)}, {}, "onednn:matmul");
        if (what == "broadcast") check("MatMul", {feed({2, 1, 5, 8}, 1), feed({3, 8, 4}, 2)}, {}, "onednn:matmul");
        if (what == "batched_b") check("MatMul", {feed({5, 8}, 1), feed({4, 8, 6}, 2)}, {}, "onednn:matmul");
        if (what == "vector_a") check("MatMul", {feed({8}, 1), weight({8, 6}, 2)}, {}, "onednn:matmul");
        if (what == "vector_b") check("MatMul", {feed({2, 3, 8}, 1), feed({8}, 2)}, {}, "onednn:matmul");
        if (what == "constant_3d") check("MatMul", {feed({2, 5, 8}, 1), weight({2, 8, 6}, 2)}, {}, "onednn:matmul");
        if (what == "runtime_2d") check("MatMul", {feed({7, 64}, 1), feed({64, 33}, 2)}, {}, "onednn:matmul");
        if (what == "padded") check("MatMul", {feed({2, 8, 32}, 1), weight({32, 512}, 2)}, {}, "onednn:matmul");
    }

    /// com.microsoft FusedMatMul against the standard ops it stands for: Transpose of the last
    /// two axes of each transposed operand, MatMul, Mul by alpha (all reference kernels).
    void fusedMatMulMatchesTransposeMatMulScale_data() {
        QTest::addColumn<QString>("what");
        QTest::newRow("attention: runtime 4-D, transB, alpha") << "attention";
        QTest::newRow("transA 3-D, constant 2-D B") << "trans_a";
        QTest::newRow("constant 2-D B transposed, batch folded into rows") << "folded_trans_b";
        QTest::newRow("both transposed, broadcast batch") << "both";
        QTest::newRow("alpha only, vector B") << "vector_b";
    }
    void fusedMatMulMatchesTransposeMatMulScale() {
        QFETCH(QString, what);
        struct Case { Dims a, b; bool constantB; int64_t transA, transB; float alpha; };
        const Case c = what == "attention"        ? Case{{1, 4, 16, 8}, {1, 4, 12, 8}, false, 0, 1, 0.125f}
                       : what == "trans_a"        ? Case{{2, 8, 5}, {8, 6}, true, 1, 0, 1.f}
                       : what == "folded_trans_b" ? Case{{2, 3, 8}, {6, 8}, true, 0, 1, -2.f}
                       : what == "both"           ? Case{{3, 1, 8, 5}, {2, 6, 8}, false, 1, 1, 0.5f}
                                                  : Case{{2, 3, 8}, {8}, false, 0, 1, 3.f};
        const Tensor a = randomTensor(c.a, 1), b = randomTensor(c.b, 2);
        GraphBuilder ref;
        auto swapped = [&](ValueId v, size_t rank) {
            std::vector<int64_t> perm(rank);
            std::iota(perm.begin(), perm.end(), 0);
            std::swap(perm[rank - 2], perm[rank - 1]);
            return ref.op("Transpose", {v}, {{"perm", perm}});
        };
        ValueId av = ref.input("a", DType::Float, Shape::ofSizes(c.a)), bv = ref.input("b", DType::Float, Shape::ofSizes(c.b));
        if (c.transA && c.a.size() >= 2) av = swapped(av, c.a.size());
        if (c.transB && c.b.size() >= 2) bv = swapped(bv, c.b.size());
        ref.output(ref.op("Mul", {ref.op("MatMul", {av, bv}), ref.initializer("alpha", Tensor::scalar(c.alpha))}));
        const Tensor want = runReference(ref.graph(), 17, {{"a", a}, {"b", b}}).at(0);
        auto g = oneNode("FusedMatMul", {Operand{a, false}, Operand{b, c.constantB}},
                         {{"transA", c.transA}, {"transB", c.transB}, {"alpha", c.alpha}});
        g->builder.graph().node(g->node).domain = "com.microsoft";
        checkAgainst(*g, "onednn:fused-matmul", want);
        // The reference kernel of FusedMatMul agrees too (it is what --verify and --reference run).
        const QString problem = compare(referenceOf(*g), want);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    void poolMatchesReference_data() {
        QTest::addColumn<QString>("what");
        QTest::newRow("MaxPool 3x3 s2 p1") << "max";
        QTest::newRow("MaxPool ceil_mode") << "max_ceil";
        QTest::newRow("MaxPool SAME_UPPER") << "max_same";
        QTest::newRow("MaxPool dilated") << "max_dilated";
        QTest::newRow("MaxPool 1-D") << "max_1d";
        QTest::newRow("AveragePool ceil_mode, pads") << "avg_ceil";
        QTest::newRow("AveragePool count_include_pad") << "avg_include";
        QTest::newRow("AveragePool count_include_pad, ceil_mode within pads") << "avg_include_ceil";
        QTest::newRow("AveragePool 3-D") << "avg_3d";
        QTest::newRow("AveragePool 2x2 s2 (DenseNet transition)") << "avg_transition";
        QTest::newRow("AveragePool count_include_pad, no padding") << "avg_include_inside";
        QTest::newRow("AveragePool SAME_LOWER, odd size") << "avg_same";
        QTest::newRow("GlobalAveragePool") << "global_avg";
        QTest::newRow("GlobalMaxPool") << "global_max";
    }
    void poolMatchesReference() {
        QFETCH(QString, what);
        if (what == "max")
            check("MaxPool", {feed({1, 16, 13, 13}, 1)}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}},
                  "cpu:maxpool");
        if (what == "max_ceil")
            check("MaxPool", {feed({1, 8, 12, 12}, 1)}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"ceil_mode", 1}},
                  "cpu:maxpool");
        if (what == "max_same")
            check("MaxPool", {feed({2, 8, 7, 7}, 1)}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}, {"auto_pad", "SAME_UPPER"}},
                  "cpu:maxpool");
        if (what == "max_dilated")
            check("MaxPool", {feed({1, 4, 11, 11}, 1)}, {{"kernel_shape", {3, 3}}, {"dilations", {2, 2}}}, "onednn:pool");
        if (what == "max_1d")
            check("MaxPool", {feed({1, 4, 20}, 1)}, {{"kernel_shape", {3}}, {"strides", {2}}, {"pads", {1, 1}}}, "onednn:pool");
        if (what == "avg_ceil")
            check("AveragePool", {feed({1, 8, 12, 12}, 1)},
                  {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}, {"ceil_mode", 1}}, "cpu:averagepool");
        if (what == "avg_include")
            check("AveragePool", {feed({1, 8, 9, 9}, 1)},
                  {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}, {"count_include_pad", 1}}, "onednn:pool");
        if (what == "avg_include_ceil")  // (11 + 2 - 3) / 2 is exact: ceil_mode changes nothing
            check("AveragePool", {feed({1, 8, 11, 11}, 1)},
                  {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}, {"count_include_pad", 1},
                   {"ceil_mode", 1}},
                  "onednn:pool");
        if (what == "avg_3d")
            check("AveragePool", {feed({1, 4, 6, 6, 6}, 1)}, {{"kernel_shape", {2, 2, 2}}, {"strides", {2, 2, 2}}},
                  "onednn:pool");
        if (what == "avg_transition")
            check("AveragePool", {feed({1, 32, 14, 14}, 1)}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}, "cpu:averagepool");
        if (what == "avg_include_inside")
            check("AveragePool", {feed({2, 8, 9, 9}, 1)}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"count_include_pad", 1}},
                  "cpu:averagepool");
        if (what == "avg_same")
            check("AveragePool", {feed({1, 8, 7, 9}, 1)}, {{"kernel_shape", {3, 2}}, {"auto_pad", "SAME_LOWER"}}, "cpu:averagepool");
        if (what == "global_avg") check("GlobalAveragePool", {feed({2, 32, 7, 7}, 1)}, {}, "cpu:global-average-pool");
        if (what == "global_max") check("GlobalMaxPool", {feed({1, 16, 5, 5}, 1)}, {}, "onednn:pool");
    }

    /// The work node_threads.h counts: multiply-adds of convolutions, matrix products and pooling,
    /// and the bytes every node reads and writes.
    void nodeWorkCountsMultiplyAddsAndBytes() {
        auto conv = oneNode("Conv", convOperands({1, 16, 24, 24}, {16, 16, 3, 3}, false), Attributes{{"pads", {1, 1, 1, 1}}});
        const NodeWork convWork = nodeWork(describe(*conv, {{1, 16, 24, 24}}));
        QCOMPARE(convWork.multiplyAdds, uint64_t(16 * 24 * 24) * (16 * 9));
        QCOMPARE(convWork.bytes, uint64_t(4) * (16 * 24 * 24 + 16 * 16 * 9 + 16 * 24 * 24));

        auto depthwise = oneNode("Conv", convOperands({1, 64, 56, 56}, {64, 1, 3, 3}, false),
                                 Attributes{{"pads", {1, 1, 1, 1}}, {"group", 64}});
        QCOMPARE(nodeWork(describe(*depthwise, {{1, 64, 56, 56}})).multiplyAdds, uint64_t(64 * 56 * 56) * 9);

        auto transposed = oneNode("ConvTranspose", convOperands({1, 8, 16, 16}, {8, 4, 3, 3}, false), Attributes{});
        QCOMPARE(nodeWork(describe(*transposed, {{1, 4, 18, 18}})).multiplyAdds, uint64_t(8 * 16 * 16) * (4 * 9));

        auto product = oneNode("MatMul", {feed({64, 96}, 1), weight({96, 32}, 2)}, {});
        QCOMPARE(nodeWork(describe(*product, {{64, 32}})).multiplyAdds, uint64_t(64 * 32 * 96));
        auto gemm = oneNode("Gemm", {feed({96, 64}, 1), weight({96, 32}, 2)}, Attributes{{"transA", 1}});
        QCOMPARE(nodeWork(describe(*gemm, {{64, 32}})).multiplyAdds, uint64_t(64 * 32 * 96));

        auto pool = oneNode("MaxPool", {feed({1, 32, 16, 16}, 1)}, Attributes{{"kernel_shape", {2, 2}}, {"strides", {2, 2}}});
        QCOMPARE(nodeWork(describe(*pool, {{1, 32, 8, 8}})).multiplyAdds, uint64_t(32 * 8 * 8) * 4);
        auto global = oneNode("GlobalAveragePool", {feed({1, 32, 7, 7}, 1)}, {});
        QCOMPARE(nodeWork(describe(*global, {{1, 32, 1, 1}})).multiplyAdds, uint64_t(32 * 7 * 7));

        auto relu = oneNode("Relu", {feed({1, 16}, 1)}, {});
        const NodeWork reluWork = nodeWork(describe(*relu, {{1, 16}}));
        QCOMPARE(reluWork.multiplyAdds, uint64_t(0));
        QCOMPARE(reluWork.bytes, uint64_t(2 * 16 * 4));
    }

    /// Convolutions and pooling compute the same bits on one thread as on two, so a plan that
    /// chose one thread (node_threads.h) changes no output of theirs.
    void oneThreadComputesTheSameBits_data() {
        QTest::addColumn<QString>("what");
        QTest::newRow("3x3 conv, blocked") << "conv";
        QTest::newRow("depthwise conv") << "depthwise";
        QTest::newRow("max pool") << "pool";
    }
    void oneThreadComputesTheSameBits() {
        QFETCH(QString, what);
        std::unique_ptr<NodeGraph> g;
        Dims out;
        if (what == "conv") {
            g = oneNode("Conv", convOperands({1, 32, 20, 20}, {32, 32, 3, 3}, true), Attributes{{"pads", {1, 1, 1, 1}}});
            out = {1, 32, 20, 20};
        } else if (what == "depthwise") {
            g = oneNode("Conv", convOperands({1, 48, 20, 20}, {48, 1, 3, 3}, true),
                        Attributes{{"pads", {1, 1, 1, 1}}, {"group", 48}});
            out = {1, 48, 20, 20};
        } else {
            g = oneNode("MaxPool", {feed({1, 32, 16, 16}, 1)}, Attributes{{"kernel_shape", {3, 3}}, {"strides", {2, 2}}});
            out = {1, 32, 7, 7};
        }
        std::vector<Tensor> results;
        for (int threads : {1, 2}) {
            auto kernel = cpuKernels().prepare(describe(*g, {out}, threads));
            QVERIFY(kernel);
            std::vector<Tensor> outputs{Tensor::allocate(DType::Float, out)};
            kernel->run(g->inputs, outputs);
            results.push_back(outputs[0]);
        }
        QCOMPARE(results[0].byteSize(), results[1].byteSize());
        QVERIFY(std::memcmp(results[0].data(), results[1].data(), results[0].byteSize()) == 0);
    }

    void factoriesDeclineWhatTheyDoNotHandle() {
        {  // an unknown auto_pad
            auto g = oneNode("Conv", {feed({1, 4, 5, 5}, 1), weight({4, 4, 3, 3}, 2)}, {{"auto_pad", "SAME"}});
            QVERIFY(declines(describe(*g, {{1, 4, 5, 5}})));
        }
        {  // a Clip activation without its bounds
            auto g = oneNode("Conv", {feed({1, 4, 5, 5}, 1), weight({4, 4, 3, 3}, 2)}, {{"activation", "Clip"}});
            QVERIFY(declines(describe(*g, {{1, 4, 3, 3}})));
        }
        {  // an activation oneDNN is not asked to fuse
            auto g = oneNode("Conv", {feed({1, 4, 5, 5}, 1), weight({4, 4, 3, 3}, 2)}, {{"activation", "Gelu"}});
            QVERIFY(declines(describe(*g, {{1, 4, 3, 3}})));
        }
        {  // a residual input on a plain Conv
            auto g = oneNode("Conv", {feed({1, 4, 5, 5}, 1), weight({4, 4, 3, 3}, 2), std::nullopt, feed({1, 4, 3, 3}, 3)}, {});
            QVERIFY(declines(describe(*g, {{1, 4, 3, 3}})));
        }
        {  // int8 input to an average (MaxPool takes u8/s8 codes; their average is not the reference's)
            auto g = oneNode("AveragePool", {feed({1, 4, 6, 6}, 1)}, {{"kernel_shape", {2, 2}}});
            NodeDescriptor info = describe(*g, {{1, 4, 5, 5}});
            info.inputTypes[0] = DType::Int8;
            info.outputTypes[0] = DType::Int8;
            QVERIFY(declines(info));
        }
        {  // double Gemm
            auto g = oneNode("Gemm", {feed({2, 3}, 1), weight({3, 4}, 2)}, {});
            NodeDescriptor info = describe(*g, {{2, 4}});
            for (DType& t : info.inputTypes) t = DType::Double;
            info.outputTypes[0] = DType::Double;
            QVERIFY(declines(info));
        }
        {  // MaxPool's Indices output
            GraphBuilder b;
            const ValueId x = b.input("x", DType::Float, {1, 4, 6, 6});
            const auto outs = b.ops("MaxPool", {x}, 2, {{"kernel_shape", {2, 2}}}, "node");
            b.output(outs[0]);
            b.output(outs[1]);
            const Graph& graph = b.graph();
            const Node& node = graph.node(b.lastNode());
            NodeDescriptor info{graph, node, 17, 1, {{1, 4, 6, 6}}, {DType::Float}, {nullptr},
                             {{1, 4, 5, 5}, {1, 4, 5, 5}}, {DType::Float, DType::Int64}};
            QVERIFY(declines(info));
        }
        {  // count_include_pad where ceil_mode reaches past the pads: the reference counts less
            auto g = oneNode("AveragePool", {feed({1, 4, 6, 6}, 1)},
                             {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"ceil_mode", 1}, {"count_include_pad", 1}});
            const Tensor want = referenceOf(*g);
            QVERIFY(declines(describe(*g, {want.dims()})));
        }
        {  // ConvTranspose whose output_shape asks for more than the input reaches
            auto g = oneNode("ConvTranspose", {feed({1, 4, 3, 3}, 1), weight({4, 4, 3, 3}, 2)}, {{"output_shape", {8, 8}}});
            QVERIFY(declines(describe(*g, {{1, 4, 8, 8}})));
        }
        {  // output dims that disagree with the attributes
            auto g = oneNode("Conv", {feed({1, 4, 5, 5}, 1), weight({4, 4, 3, 3}, 2)}, {});
            QVERIFY(declines(describe(*g, {{1, 4, 5, 5}})));
        }
    }

    /// GFLOP/s of ResNet-sized 3x3 convolutions with 2 threads, NCHW versus blocked-with-reorders.
    void convSpeed() {
        LayoutGuard guard;
        struct Layer {
            const char* name;
            Dims x, w;
            Attributes a;
        };
        const Layer layers[] = {
            {"1x256x14x14 3x3 256->256", {1, 256, 14, 14}, {256, 256, 3, 3}, {{"pads", {1, 1, 1, 1}}}},
            {"1x64x56x56 3x3 64->64", {1, 64, 56, 56}, {64, 64, 3, 3}, {{"pads", {1, 1, 1, 1}}}},
            {"1x256x56x56 1x1 256->64", {1, 256, 56, 56}, {64, 256, 1, 1}, {}},
            {"1x128x28x28 dw 3x3", {1, 128, 28, 28}, {128, 1, 3, 3}, {{"pads", {1, 1, 1, 1}}, {"group", 128}}},
            {"1x1024x14x14 1x1 1024->256", {1, 1024, 14, 14}, {256, 1024, 1, 1}, {}},
            {"1x512x7x7 1x1 512->2048", {1, 512, 7, 7}, {2048, 512, 1, 1}, {}},
            {"1x128x28x28 3x3 128->128", {1, 128, 28, 28}, {128, 128, 3, 3}, {{"pads", {1, 1, 1, 1}}}},
            {"1x512x7x7 3x3 512->512", {1, 512, 7, 7}, {512, 512, 3, 3}, {{"pads", {1, 1, 1, 1}}}},
            {"1x256x14x14 3x3 s2 256->512", {1, 256, 14, 14}, {512, 256, 3, 3}, {{"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}}},
        };
        if (!qEnvironmentVariableIsSet("GRAPHLENS_BENCH_RUNS"))
            QSKIP("timing only: set GRAPHLENS_BENCH_RUNS (e.g. 20) to measure");
        const int runs = std::max(1, qEnvironmentVariableIntValue("GRAPHLENS_BENCH_RUNS"));
        AlgorithmGuard algorithmGuard;  // the direct kernels (Winograd: winogradSpeed)
        onednn::setConvAlgorithm(onednn::ConvAlgorithm::Direct);
        for (const Layer& l : layers) {
            auto g = oneNode("Conv", {feed(l.x, 1), weight(l.w, 2), weight({l.w[0]}, 3)}, l.a);
            const int64_t stride = l.a.getInts("strides", {1, 1})[0];
            const Dims out{l.x[0], l.w[0], l.x[2] / stride, l.x[3] / stride};
            const double flops = 2.0 * double(out[0] * out[1] * out[2] * out[3]) * double(l.w[1] * l.w[2] * l.w[3]);
            QString line = QString("%1:").arg(l.name);
            for (onednn::ConvLayout layout : {onednn::ConvLayout::Plain, onednn::ConvLayout::Blocked, onednn::ConvLayout::Auto}) {
                onednn::setConvLayoutPolicy(layout);
                auto kernel = cpuKernels().prepare(describe(*g, {out}, 2));
                QVERIFY(kernel);
                std::vector<Tensor> outputs{Tensor::allocate(DType::Float, out)};
                const double s = secondsPerRun(*kernel, g->inputs, outputs, runs);
                const char* names[] = {"auto", "plain", "blocked"};
                line += QString(" %1 %2 GFLOP/s (%3 ms)").arg(names[int(layout)]).arg(flops / s * 1e-9, 0, 'f', 1).arg(s * 1e3, 0, 'f', 3);
            }
            qInfo().noquote() << line;
        }
    }

    /// ResNet's 3x3 stride-1 convolutions, blocked, direct against Winograd F(2x2,3x3), 2 threads
    /// (GFLOP/s counted as the direct convolution's, so the figures compare time).
    void winogradSpeed() {
        LayoutGuard layoutGuard;
        AlgorithmGuard algorithmGuard;
        if (!qEnvironmentVariableIsSet("GRAPHLENS_BENCH_RUNS"))
            QSKIP("timing only: set GRAPHLENS_BENCH_RUNS (e.g. 20) to measure");
        const int runs = std::max(1, qEnvironmentVariableIntValue("GRAPHLENS_BENCH_RUNS"));
        onednn::setConvLayoutPolicy(onednn::ConvLayout::Blocked);
        struct Layer {
            int64_t in, out, size;
        };
        const Layer layers[] = {{16, 16, 112}, {32, 32, 56},  {64, 64, 56},   {128, 128, 28},  {256, 256, 14},
                                {512, 512, 7}, {1024, 1024, 4}, {128, 32, 56}, {128, 32, 28}, {128, 32, 14}, {128, 32, 7}};  // DenseNet: 128 -> 32
        for (const auto& [in, out, size] : layers) {
            const Dims x{1, in, size, size}, y{1, out, size, size}, w{out, in, 3, 3};
            auto g = oneNode("Conv", {feed(x, 1), weight(w, 2), weight({out}, 3)}, {{"pads", {1, 1, 1, 1}}});
            const double flops = 2.0 * double(out * size * size) * double(in * 9);
            QString line = QString("1x%1x%2x%2 3x3 %1->%3:").arg(in).arg(size).arg(out);
            double seconds[2] = {};
            for (int k = 0; k < 2; ++k) {
                onednn::setConvAlgorithm(k == 0 ? onednn::ConvAlgorithm::Direct : onednn::ConvAlgorithm::Winograd);
                auto kernel = cpuKernels().prepare(describe(*g, {y}, 2));
                QVERIFY(kernel);
                std::vector<Tensor> outputs{Tensor::allocate(DType::Float, y)};
                seconds[k] = secondsPerRun(*kernel, g->inputs, outputs, runs);
                line += QString(" %1 %2 GFLOP/s (%3 ms)").arg(k == 0 ? "direct" : "winograd")
                            .arg(flops / seconds[k] * 1e-9, 0, 'f', 1).arg(seconds[k] * 1e3, 0, 'f', 3);
            }
            qInfo().noquote() << line << QString(" speedup %1x").arg(seconds[0] / seconds[1], 0, 'f', 2);
        }
    }

    /// GFLOP/s of transformer- and classifier-sized products with a constant B (packed once).
    void matMulSpeed() {
        if (!qEnvironmentVariableIsSet("GRAPHLENS_BENCH_RUNS"))
            QSKIP("timing only: set GRAPHLENS_BENCH_RUNS (e.g. 20) to measure");
        const int runs = std::max(1, qEnvironmentVariableIntValue("GRAPHLENS_BENCH_RUNS"));
        struct Product {
            const char* name;
            std::string op;
            Dims a, b, out;
            Attributes attrs;
            double flops;
        };
        const Product products[] = {
            {"MatMul 1x128x768 x 768x768", "MatMul", {1, 128, 768}, {768, 768}, {1, 128, 768}, {}, 2.0 * 128 * 768 * 768},
            {"Gemm 8x2048 x (1000x2048)^T", "Gemm", {8, 2048}, {1000, 2048}, {8, 1000}, {{"transB", 1}}, 2.0 * 8 * 2048 * 1000},
        };
        for (const Product& p : products) {
            auto g = oneNode(p.op, {feed(p.a, 1), weight(p.b, 2)}, p.attrs);
            auto kernel = cpuKernels().prepare(describe(*g, {p.out}, 2));
            QVERIFY(kernel);
            std::vector<Tensor> outputs{Tensor::allocate(DType::Float, p.out)};
            const double s = secondsPerRun(*kernel, g->inputs, outputs, runs);
            qInfo().noquote() << QString("%1: %2 GFLOP/s (%3 ms)").arg(p.name).arg(p.flops / s * 1e-9, 0, 'f', 1).arg(s * 1e3, 0, 'f', 3);
        }
    }
};

QTEST_APPLESS_MAIN(TestCpuOneDnn)
#include "tst_cpu_onednn.moc"
