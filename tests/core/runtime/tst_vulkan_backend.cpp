// The Vulkan backend against the CPU backend on small graphs (Conv + Relu, FusedConv with a
// residual, grouped, strided, dilated and 1-D Conv, depthwise Conv (odd rows, strides, dilations, multipliers, fused epilogue), Gemm, batched MatMul, products
// of two activations, broadcast Add, pools, Softmax, LayerNorm, SkipLayerNorm, BiasGelu), the
// products on both kinds of kernels (shared-memory tiles for GPUs, texel tiles for CPU devices),
// the per-node timestamps it reports, and CPU fallbacks with their transfers in the plan. Skips
// where there is no Vulkan device (or the build has no Vulkan backend).
#include "core/graph/builder.h"
#include "core/runtime/backend.h"
#include "core/runtime/backend_registry.h"
#include "core/runtime/executor.h"
#include "core/runtime/tensor_compare.h"
#include "support/seeded_tensor.h"

#include <QtTest>


using namespace graphlens;
using namespace graphlens::testing;

namespace {

class Collect final : public ExecutionObserver {
public:
    void nodeFinished(const NodeEvent& e) override { events.push_back(e); }
    std::vector<NodeEvent> events;
};

/// A graph with one input `x` of `dims`; `body` adds nodes and returns the output.
template <typename Body>
Model graphOf(const std::vector<int64_t>& dims, Body body, bool microsoft = false) {
    GraphBuilder b;
    const ValueId x = b.input("x", DType::Float, Shape::ofSizes(dims));
    b.output(body(b, x));
    Model m = b.model(17);
    if (microsoft) m.opsets.push_back({"com.microsoft", 1});
    return m;
}

/// While it lives, plans use the product kernels `kind` ("tiles" or "texels") whatever the device.
class ProductKernels {
public:
    explicit ProductKernels(const char* kind) { qputenv("GRAPHLENS_VULKAN_PRODUCTS", kind); }
    ~ProductKernels() { qunsetenv("GRAPHLENS_VULKAN_PRODUCTS"); }
};

ValueId microsoftOp(GraphBuilder& b, const std::string& op, std::vector<ValueId> inputs, Attributes a) {
    const ValueId y = b.op(op, std::move(inputs), std::move(a));
    b.graph().node(b.lastNode()).domain = "com.microsoft";
    return y;
}

} // namespace

/// Winograd F(4x4, 3x3) rounds differently from a direct sum: its error is near 1e-5 of the
/// outputs' magnitude (here up to about 10), so outputs near zero get this absolute slack.
constexpr double kWinogradAtol = 2e-4;

class TestVulkanBackend : public QObject {
    Q_OBJECT

    std::unique_ptr<Backend> vulkan_;
    std::string problem_;

    /// Runs `m` on Vulkan and on the CPU with the same input; fails unless they agree within 1e-4
    /// relative + `atol`. Returns the Vulkan plan's kernel names.
    std::vector<std::string> agreesWithCpu(const Model& m, const std::vector<int64_t>& dims, unsigned seed = 1,
                                           double atol = 1e-5) {
        const std::map<std::string, Tensor> feeds{{"x", seeded(dims, seed)}};
        const Tensor want = makeCpuBackend()->compile(m, {})->run(feeds).at(0);
        auto plan = vulkan_->compile(m, {});
        for (int run = 0; run < 2; ++run) {  // the second run reuses the recorded command buffers
            const Tensor got = plan->run(feeds).at(0);
            const TensorComparison c = compareTensors(got, want, 1e-4, atol);
            if (!c.matches) {
                QTest::qFail(c.mismatch.c_str(), __FILE__, __LINE__);
                return {};
            }
        }
        std::vector<std::string> kernels;
        for (const PlannedNode& n : plan->nodes()) kernels.push_back(n.kernel);
        return kernels;
    }

    /// agreesWithCpu() with the product kernels `kind`.
    std::vector<std::string> agreesWithCpuOn(const char* kind, const Model& m, const std::vector<int64_t>& dims,
                                             double atol = 1e-5) {
        const ProductKernels products(kind);
        return agreesWithCpu(m, dims, 1, atol);
    }

private slots:
    void initTestCase() {
        try {
            vulkan_ = makeBackend("vulkan");
        } catch (const std::exception& e) {
            problem_ = e.what();
        }
    }

    void init() {
        if (!vulkan_) QSKIP(problem_.c_str());
    }

    void convReluRunsOnBothProductKernels() {
        const Tensor w = seeded({32, 8, 3, 3}, 2), bias = seeded({32}, 3);
        const Model m = graphOf({2, 8, 15, 15}, [&](GraphBuilder& b, ValueId x) {
            return b.op("Relu", {b.op("Conv", {x, b.initializer("w", w), b.initializer("b", bias)},
                                      {{"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}})});
        });
        QCOMPARE(agreesWithCpuOn("tiles", m, {2, 8, 15, 15}), (std::vector<std::string>{"vulkan:conv-gemm", "vulkan:unary"}));
        QCOMPARE(agreesWithCpuOn("texels", m, {2, 8, 15, 15}), (std::vector<std::string>{"vulkan:conv-texel", "vulkan:unary"}));
    }

    void fusedConvAddsBiasResidualAndActivation() {
        const Tensor w = seeded({70, 16, 3, 3}, 4), bias = seeded({70}, 5), z = seeded({1, 70, 9, 9}, 6);
        const Model m = graphOf({1, 16, 9, 9}, [&](GraphBuilder& b, ValueId x) {
            return microsoftOp(b, "FusedConv", {x, b.initializer("w", w), b.initializer("b", bias), b.initializer("z", z)},
                               {{"pads", {1, 1, 1, 1}}, {"activation", std::string("LeakyRelu")},
                                {"activation_params", std::vector<float>{0.2f}}});
        }, true);
        QCOMPARE(agreesWithCpuOn("tiles", m, {1, 16, 9, 9}), (std::vector<std::string>{"vulkan:conv-gemm"}));
        // 3x3 with stride 1: Winograd, the epilogue in its output transform.
        QCOMPARE(agreesWithCpuOn("texels", m, {1, 16, 9, 9}, kWinogradAtol), (std::vector<std::string>{"vulkan:conv-winograd"}));
    }

    void winogradCoversPartialTilesBatchesAndNoPadding() {
        const Tensor w = seeded({12, 6, 3, 3}, 22), bias = seeded({12}, 23);
        const Model m = graphOf({2, 6, 8, 11}, [&](GraphBuilder& b, ValueId x) {
            // 6 x 9 outputs: the last row and column of 4x4 tiles are partly outside.
            return b.op("Conv", {x, b.initializer("w", w), b.initializer("b", bias)}, {{"pads", {0, 0, 0, 0}}});
        });
        QCOMPARE(agreesWithCpuOn("texels", m, {2, 6, 8, 11}, kWinogradAtol), (std::vector<std::string>{"vulkan:conv-winograd"}));
        const Model padded = graphOf({1, 6, 7, 7}, [&](GraphBuilder& b, ValueId x) {
            return b.op("Conv", {x, b.initializer("w", w)}, {{"pads", {1, 2, 1, 0}}});
        });
        QCOMPARE(agreesWithCpuOn("texels", padded, {1, 6, 7, 7}, kWinogradAtol),
                 (std::vector<std::string>{"vulkan:conv-winograd"}));
    }

    void texelConvCoversGroupsStridesDilationsAndOneDimension() {
        // 3 groups of 4 input and 6 output channels, stride 2, dilation 2, uneven pads.
        const Tensor w = seeded({18, 4, 3, 2}, 17), bias = seeded({18}, 18);
        const Model grouped = graphOf({2, 12, 13, 11}, [&](GraphBuilder& b, ValueId x) {
            return b.op("Conv", {x, b.initializer("w", w), b.initializer("b", bias)},
                        {{"group", int64_t(3)}, {"strides", {2, 1}}, {"dilations", {2, 2}}, {"pads", {2, 0, 1, 3}}});
        });
        QCOMPARE(agreesWithCpuOn("texels", grouped, {2, 12, 13, 11}), (std::vector<std::string>{"vulkan:conv-texel"}));
        // 5 input channels: the second texel of channels is 3/4 padding.
        const Tensor w1 = seeded({9, 5, 4}, 19);
        const Model line = graphOf({3, 5, 20}, [&](GraphBuilder& b, ValueId x) {
            return b.op("Conv", {x, b.initializer("w", w1)}, {{"pads", {3, 1}}, {"strides", {3}}});
        });
        QCOMPARE(agreesWithCpuOn("texels", line, {3, 5, 20}), (std::vector<std::string>{"vulkan:conv-texel"}));
        // 1x1 with strides and pads: only the positions read are packed.
        const Tensor w2 = seeded({10, 6, 1, 1}, 24);
        const Model pointwise = graphOf({2, 6, 9, 7}, [&](GraphBuilder& b, ValueId x) {
            return b.op("Conv", {x, b.initializer("w", w2)}, {{"strides", {2, 3}}, {"pads", {1, 0, 0, 1}}});
        });
        QCOMPARE(agreesWithCpuOn("texels", pointwise, {2, 6, 9, 7}), (std::vector<std::string>{"vulkan:conv-texel"}));
    }

    void pointwiseConvReadsTheInputInPlace() {
        // 11 output channels: the second block of 8 is partly empty; two images of 6x6 positions.
        const Tensor w = seeded({11, 10, 1, 1}, 31), bias = seeded({11}, 32);
        const Model m = graphOf({2, 10, 6, 6}, [&](GraphBuilder& b, ValueId x) {
            return b.op("Conv", {x, b.initializer("w", w), b.initializer("b", bias)});
        });
        QCOMPARE(agreesWithCpuOn("texels", m, {2, 10, 6, 6}), (std::vector<std::string>{"vulkan:conv-pointwise"}));
        // FusedConv: residual and Clip(0, 6) in the epilogue, no bias.
        const Tensor w2 = seeded({16, 3, 1, 1}, 33), z = seeded({1, 16, 4, 5}, 34);
        const Model fused = graphOf({1, 3, 4, 5}, [&](GraphBuilder& b, ValueId x) {
            return microsoftOp(b, "FusedConv", {x, b.initializer("w", w2), kNoId, b.initializer("z", z)},
                               {{"activation", std::string("Clip")}, {"activation_params", std::vector<float>{0.0f, 0.5f}}});
        }, true);
        QCOMPARE(agreesWithCpuOn("texels", fused, {1, 3, 4, 5}), (std::vector<std::string>{"vulkan:conv-pointwise"}));
        // 5x5 positions are not whole texels: the packed texel product.
        const Model odd = graphOf({1, 10, 5, 5}, [&](GraphBuilder& b, ValueId x) {
            return b.op("Conv", {x, b.initializer("w", w), b.initializer("b", bias)});
        });
        QCOMPARE(agreesWithCpuOn("texels", odd, {1, 10, 5, 5}), (std::vector<std::string>{"vulkan:conv-texel"}));
    }

    void depthwiseConvRunsDirect() {
        const Tensor w = seeded({12, 1, 3, 3}, 7);
        const Model m = graphOf({1, 12, 10, 10}, [&](GraphBuilder& b, ValueId x) {
            return b.op("Conv", {x, b.initializer("w", w)}, {{"pads", {1, 1, 1, 1}}, {"group", int64_t(12)}});
        });
        QCOMPARE(agreesWithCpuOn("tiles", m, {1, 12, 10, 10}), (std::vector<std::string>{"vulkan:conv-direct"}));
        QCOMPARE(agreesWithCpuOn("texels", m, {1, 12, 10, 10}), (std::vector<std::string>{"vulkan:conv-depthwise"}));
    }

    void depthwiseConvCoversOddRowsStridesDilationsAndMultipliers() {
        // Rows of 13 and 7 columns start at every offset within a texel; 8 outputs per invocation
        // leave a partial block at each row's end.
        const Tensor w = seeded({6, 1, 3, 3}, 25), bias = seeded({6}, 26);
        const Model strided = graphOf({2, 6, 11, 13}, [&](GraphBuilder& b, ValueId x) {
            return b.op("Conv", {x, b.initializer("w", w), b.initializer("b", bias)},
                        {{"pads", {1, 0, 2, 1}}, {"strides", {2, 2}}, {"group", int64_t(6)}});
        });
        QCOMPARE(agreesWithCpuOn("texels", strided, {2, 6, 11, 13}), (std::vector<std::string>{"vulkan:conv-depthwise"}));
        // Two output channels per input channel, a 5x3 kernel dilated by (1, 2), stride (1, 3).
        const Tensor w2 = seeded({8, 1, 5, 3}, 27);
        const Model multiplied = graphOf({1, 4, 9, 7}, [&](GraphBuilder& b, ValueId x) {
            return b.op("Conv", {x, b.initializer("w", w2)},
                        {{"pads", {2, 2, 2, 2}}, {"strides", {1, 3}}, {"dilations", {1, 2}}, {"group", int64_t(4)}});
        });
        QCOMPARE(agreesWithCpuOn("texels", multiplied, {1, 4, 9, 7}), (std::vector<std::string>{"vulkan:conv-depthwise"}));
        // FusedConv: bias, residual and Clip(0, 6) in the same dispatch.
        const Tensor z = seeded({1, 5, 6, 6}, 28), w3 = seeded({5, 1, 3, 3}, 29), bias3 = seeded({5}, 30);
        const Model fused = graphOf({1, 5, 6, 6}, [&](GraphBuilder& b, ValueId x) {
            return microsoftOp(b, "FusedConv", {x, b.initializer("w", w3), b.initializer("b", bias3), b.initializer("z", z)},
                               {{"pads", {1, 1, 1, 1}}, {"group", int64_t(5)}, {"activation", std::string("Clip")},
                                {"activation_params", std::vector<float>{0.0f, 6.0f}}});
        }, true);
        QCOMPARE(agreesWithCpuOn("texels", fused, {1, 5, 6, 6}), (std::vector<std::string>{"vulkan:conv-depthwise"}));
    }

    void gemmWithTransposeAndBroadcastBias() {
        const Tensor w = seeded({100, 70}, 8), c = seeded({100}, 9);
        const Model m = graphOf({5, 70}, [&](GraphBuilder& b, ValueId x) {
            return b.op("Gemm", {x, b.initializer("w", w), b.initializer("c", c)},
                        {{"transB", int64_t(1)}, {"alpha", 0.5f}, {"beta", 2.0f}});
        });
        QCOMPARE(agreesWithCpuOn("tiles", m, {5, 70}), (std::vector<std::string>{"vulkan:matmul"}));
        // 5 rows: the texel product runs transposed, the lanes over the 100 columns.
        QCOMPARE(agreesWithCpuOn("texels", m, {5, 70}), (std::vector<std::string>{"vulkan:matmul-texel"}));
        const Tensor rowBias = seeded({37, 1}, 20), w2 = seeded({70, 9}, 21);
        const Model rows = graphOf({37, 70}, [&](GraphBuilder& b, ValueId x) {
            return microsoftOp(b, "FusedGemm", {x, b.initializer("w", w2), b.initializer("c", rowBias)},
                               {{"activation", std::string("Relu")}, {"beta", 0.5f}});
        }, true);
        QCOMPARE(agreesWithCpuOn("texels", rows, {37, 70}), (std::vector<std::string>{"vulkan:matmul-texel"}));
    }

    void batchedMatMulBroadcastsBatches() {
        const Tensor w = seeded({2, 1, 70, 9}, 10);
        const Model m = graphOf({2, 3, 5, 70}, [&](GraphBuilder& b, ValueId x) {
            return b.op("MatMul", {x, b.initializer("w", w)});
        });
        QCOMPARE(agreesWithCpuOn("tiles", m, {2, 3, 5, 70}), (std::vector<std::string>{"vulkan:matmul"}));
        QCOMPARE(agreesWithCpuOn("texels", m, {2, 3, 5, 70}), (std::vector<std::string>{"vulkan:matmul-texel"}));
    }

    void matMulOfTwoActivationsPacksBothOperands() {
        // Attention's scores: x times its own transpose, both operands packed on the device.
        const Model m = graphOf({2, 3, 19, 10}, [&](GraphBuilder& b, ValueId x) {
            return b.op("MatMul", {x, b.op("Transpose", {x}, {{"perm", {0, 1, 3, 2}}})});
        });
        QCOMPARE(agreesWithCpuOn("texels", m, {2, 3, 19, 10}),
                 (std::vector<std::string>{"vulkan:transpose", "vulkan:matmul-texel"}));
        QCOMPARE(agreesWithCpuOn("tiles", m, {2, 3, 19, 10}), (std::vector<std::string>{"vulkan:transpose", "vulkan:matmul"}));
    }

    void addBroadcastsLikeNumpy() {
        const Tensor y = seeded({3, 1, 5}, 11);
        const Model m = graphOf({2, 3, 4, 5}, [&](GraphBuilder& b, ValueId x) {
            return b.op("Mul", {b.op("Add", {x, b.initializer("y", y)}), b.initializer("s", Tensor::scalar(3.0f))});
        });
        QCOMPARE(agreesWithCpu(m, {2, 3, 4, 5}), (std::vector<std::string>{"vulkan:binary", "vulkan:binary"}));
    }

    /// A graph output that a later element-wise op reads is read back after its segment: the op
    /// must not write over it in place (`graphlens compare --backend-b vulkan` and models exported
    /// with intermediate outputs saw the Mul's result in the Add's output).
    void graphOutputReadByAnInPlaceOpKeepsItsValue() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({4}));
        const ValueId a = b.op("Add", {x, b.initializer("one", Tensor::scalar(1.0f))});
        b.output(b.op("Mul", {a, b.initializer("two", Tensor::scalar(2.0f))}));
        b.output(a);
        const Model m = b.model(17);
        const std::map<std::string, Tensor> feeds{{"x", Tensor::fromVector(DType::Float, {4}, std::vector<float>{1, 2, 3, 4})}};
        const std::vector<Tensor> got = vulkan_->compile(m, {})->run(feeds);
        QCOMPARE(got.size(), size_t(2));
        QCOMPARE(got[0].toDoubles(), (std::vector<double>{4, 6, 8, 10}));
        QCOMPARE(got[1].toDoubles(), (std::vector<double>{2, 3, 4, 5}));
    }

    void poolsMatchTheCpu() {
        const Model m = graphOf({2, 4, 11, 11}, [&](GraphBuilder& b, ValueId x) {
            const ValueId mx = b.op("MaxPool", {x}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}});
            const ValueId av = b.op("AveragePool", {mx}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}},
                                                          {"count_include_pad", int64_t(1)}});
            const ValueId ex = b.op("AveragePool", {av}, {{"kernel_shape", {2, 2}}, {"pads", {1, 1, 0, 0}}});
            return b.op("GlobalAveragePool", {ex});
        });
        // Through storage buffers (GPUs) and through texel views (CPU devices).
        for (const char* kind : {"tiles", "texels"})
            QCOMPARE(agreesWithCpuOn(kind, m, {2, 4, 11, 11}),
                     (std::vector<std::string>{"vulkan:pool", "vulkan:pool", "vulkan:pool", "vulkan:reduce"}));
    }

    void softmaxAndLayerNormMatchTheCpu() {
        const Tensor scale = seeded({10}, 12), bias = seeded({10}, 13);
        const Model m = graphOf({4, 6, 10}, [&](GraphBuilder& b, ValueId x) {
            const ValueId s = b.op("Softmax", {x}, {{"axis", int64_t(1)}});
            return b.op("LayerNormalization", {s, b.initializer("scale", scale), b.initializer("bias", bias)});
        });
        QCOMPARE(agreesWithCpu(m, {4, 6, 10}), (std::vector<std::string>{"vulkan:softmax", "vulkan:layernorm"}));
    }

    void transformerFusionsRunOnTheGpu() {
        // What the passes make of a transformer block: SkipLayerNormalization and BiasGelu.
        const Tensor skip = seeded({2, 5, 12}, 25), gamma = seeded({12}, 26), beta = seeded({12}, 27), bias = seeded({12}, 28);
        const Model m = graphOf({2, 5, 12}, [&](GraphBuilder& b, ValueId x) {
            const ValueId normed = microsoftOp(b, "SkipLayerNormalization",
                                               {x, b.initializer("skip", skip), b.initializer("gamma", gamma),
                                                b.initializer("beta", beta), b.initializer("bias", bias)},
                                               {{"epsilon", 1e-5f}});
            return microsoftOp(b, "BiasGelu", {normed, b.initializer("gelu_bias", bias)}, {});
        }, true);
        QCOMPARE(agreesWithCpu(m, {2, 5, 12}), (std::vector<std::string>{"vulkan:layernorm", "vulkan:binary-gelu"}));
    }

    void everyDispatchedNodeReportsATimestampPair() {
        const Tensor w = seeded({16, 3, 3, 3}, 14);
        const Model m = graphOf({1, 3, 16, 16}, [&](GraphBuilder& b, ValueId x) {
            const ValueId c = b.op("Relu", {b.op("Conv", {x, b.initializer("w", w)}, {{"pads", {1, 1, 1, 1}}})});
            return b.op("Flatten", {b.op("GlobalAveragePool", {c})});
        });
        auto plan = vulkan_->compile(m, {});
        Collect observer;
        plan->run({{"x", seeded({1, 3, 16, 16}, 15)}}, &observer);
        QCOMPARE(observer.events.size(), size_t(4));
        for (size_t i = 0; i < observer.events.size(); ++i) {
            const NodeEvent& e = observer.events[i];
            QCOMPARE(e.node, plan->nodes()[i].node);
            QCOMPARE(e.track, 1000);  // the GPU queue, not a CPU thread
            QVERIFY(e.endNs >= e.beginNs);
            QVERIFY(e.bytesWritten > 0);
            if (i > 0) QVERIFY(e.beginNs >= observer.events[i - 1].beginNs);
        }
        QCOMPARE(observer.events[0].bytesWritten, uint64_t(16 * 16 * 16 * 4));
        plan->run({{"x", seeded({1, 3, 16, 16}, 15)}});  // without an observer: no events
        QCOMPARE(observer.events.size(), size_t(4));
    }

    void opsWithoutAShaderFallBackToTheCpuWithTheirTransfers() {
        const Model m = graphOf({2, 3, 8}, [&](GraphBuilder& b, ValueId x) {
            return b.op("Sigmoid", {b.op("LpNormalization", {b.op("Relu", {x})})});
        });
        const auto kernels = agreesWithCpu(m, {2, 3, 8});
        QCOMPARE(kernels.size(), size_t(3));
        QCOMPARE(kernels[0], std::string("vulkan:unary"));
        QVERIFY2(kernels[1].rfind("cpu-fallback:LpNormalization", 0) == 0, kernels[1].c_str());
        // 192 bytes down for its input, 192 bytes up for its output
        QVERIFY2(kernels[1].find("(transfer 384 B)") != std::string::npos, kernels[1].c_str());
        QCOMPARE(kernels[2], std::string("vulkan:unary"));
    }

    void concatTransposeAndReshapeMove() {
        const Tensor y = seeded({2, 5, 4}, 16);
        const Model m = graphOf({2, 3, 4}, [&](GraphBuilder& b, ValueId x) {
            const ValueId c = b.op("Concat", {x, b.initializer("y", y)}, {{"axis", int64_t(1)}});
            const ValueId t = b.op("Transpose", {c}, {{"perm", {2, 0, 1}}});
            return b.op("Reshape", {t, b.initializer("shape", Tensor::int64s({2}, {4, 16}))});
        });
        // The transpose's output dies at the Reshape: the reshape is a view of its bytes, no copy.
        QCOMPARE(agreesWithCpu(m, {2, 3, 4}),
                 (std::vector<std::string>{"vulkan:concat", "vulkan:transpose", "vulkan:view"}));
        // Two reshapes of one value: the first copies (the value lives on), the second is a view.
        const Model twice = graphOf({2, 3, 4}, [&](GraphBuilder& b, ValueId x) {
            const ValueId r = b.op("Relu", {x}), shape = b.initializer("shape", Tensor::int64s({2}, {4, 6}));
            const ValueId first = b.op("Reshape", {r, shape});
            return b.op("Add", {first, b.op("Reshape", {r, shape})});
        });
        QCOMPARE(agreesWithCpu(twice, {2, 3, 4}),
                 (std::vector<std::string>{"vulkan:unary", "vulkan:copy", "vulkan:view", "vulkan:binary"}));
    }
};

QTEST_GUILESS_MAIN(TestVulkanBackend)
#include "tst_vulkan_backend.moc"
