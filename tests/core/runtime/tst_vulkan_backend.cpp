// The Vulkan backend against the CPU backend on small graphs (Conv + Relu, FusedConv with a
// residual, depthwise Conv, Gemm, batched MatMul, broadcast Add, pools, Softmax, LayerNorm), the
// per-node timestamps it reports, and CPU fallbacks with their transfers in the plan. Skips where
// there is no Vulkan device (or the build has no Vulkan backend).
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

ValueId microsoftOp(GraphBuilder& b, const std::string& op, std::vector<ValueId> inputs, Attributes a) {
    const ValueId y = b.op(op, std::move(inputs), std::move(a));
    b.graph().node(b.lastNode()).domain = "com.microsoft";
    return y;
}

} // namespace

class TestVulkanBackend : public QObject {
    Q_OBJECT

    std::unique_ptr<Backend> vulkan_;
    std::string problem_;

    /// Runs `m` on Vulkan and on the CPU with the same input; fails unless they agree within 1e-4
    /// relative. Returns the Vulkan plan's kernel names.
    std::vector<std::string> agreesWithCpu(const Model& m, const std::vector<int64_t>& dims, unsigned seed = 1) {
        const std::map<std::string, Tensor> feeds{{"x", seeded(dims, seed)}};
        const Tensor want = makeCpuBackend()->compile(m, {})->run(feeds).at(0);
        auto plan = vulkan_->compile(m, {});
        for (int run = 0; run < 2; ++run) {  // the second run reuses the recorded command buffers
            const Tensor got = plan->run(feeds).at(0);
            const TensorComparison c = compareTensors(got, want, 1e-4, 1e-5);
            if (!c.matches) {
                QTest::qFail(c.mismatch.c_str(), __FILE__, __LINE__);
                return {};
            }
        }
        std::vector<std::string> kernels;
        for (const PlannedNode& n : plan->nodes()) kernels.push_back(n.kernel);
        return kernels;
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

    void convReluRunsAsImplicitGemm() {
        const Tensor w = seeded({32, 8, 3, 3}, 2), bias = seeded({32}, 3);
        const Model m = graphOf({2, 8, 15, 15}, [&](GraphBuilder& b, ValueId x) {
            return b.op("Relu", {b.op("Conv", {x, b.initializer("w", w), b.initializer("b", bias)},
                                      {{"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}})});
        });
        const auto kernels = agreesWithCpu(m, {2, 8, 15, 15});
        QCOMPARE(kernels, (std::vector<std::string>{"vulkan:conv-gemm", "vulkan:unary"}));
        qputenv("GRAPHLENS_VULKAN_ROWS", "1");  // the register-blocked variant for CPU devices
        const auto rows = agreesWithCpu(m, {2, 8, 15, 15});
        qunsetenv("GRAPHLENS_VULKAN_ROWS");
        QCOMPARE(rows, (std::vector<std::string>{"vulkan:conv-rows", "vulkan:unary"}));
    }

    void fusedConvAddsBiasResidualAndActivation() {
        const Tensor w = seeded({70, 16, 3, 3}, 4), bias = seeded({70}, 5), z = seeded({1, 70, 9, 9}, 6);
        const Model m = graphOf({1, 16, 9, 9}, [&](GraphBuilder& b, ValueId x) {
            return microsoftOp(b, "FusedConv", {x, b.initializer("w", w), b.initializer("b", bias), b.initializer("z", z)},
                               {{"pads", {1, 1, 1, 1}}, {"activation", std::string("LeakyRelu")},
                                {"activation_params", std::vector<float>{0.2f}}});
        }, true);
        QCOMPARE(agreesWithCpu(m, {1, 16, 9, 9}), (std::vector<std::string>{"vulkan:conv-gemm"}));
    }

    void depthwiseConvRunsDirect() {
        const Tensor w = seeded({12, 1, 3, 3}, 7);
        const Model m = graphOf({1, 12, 10, 10}, [&](GraphBuilder& b, ValueId x) {
            return b.op("Conv", {x, b.initializer("w", w)}, {{"pads", {1, 1, 1, 1}}, {"group", int64_t(12)}});
        });
        QCOMPARE(agreesWithCpu(m, {1, 12, 10, 10}), (std::vector<std::string>{"vulkan:conv-direct"}));
    }

    void gemmWithTransposeAndBroadcastBias() {
        const Tensor w = seeded({100, 70}, 8), c = seeded({100}, 9);
        const Model m = graphOf({5, 70}, [&](GraphBuilder& b, ValueId x) {
            return b.op("Gemm", {x, b.initializer("w", w), b.initializer("c", c)},
                        {{"transB", int64_t(1)}, {"alpha", 0.5f}, {"beta", 2.0f}});
        });
        QCOMPARE(agreesWithCpu(m, {5, 70}), (std::vector<std::string>{"vulkan:matmul"}));
        qputenv("GRAPHLENS_VULKAN_ROWS", "1");
        const auto rows = agreesWithCpu(m, {5, 70});
        qunsetenv("GRAPHLENS_VULKAN_ROWS");
        QCOMPARE(rows, (std::vector<std::string>{"vulkan:matmul-rows"}));
    }

    void batchedMatMulBroadcastsBatches() {
        const Tensor w = seeded({2, 1, 70, 9}, 10);
        const Model m = graphOf({2, 3, 5, 70}, [&](GraphBuilder& b, ValueId x) {
            return b.op("MatMul", {x, b.initializer("w", w)});
        });
        QCOMPARE(agreesWithCpu(m, {2, 3, 5, 70}), (std::vector<std::string>{"vulkan:matmul"}));
        qputenv("GRAPHLENS_VULKAN_ROWS", "1");
        const auto rows = agreesWithCpu(m, {2, 3, 5, 70});
        qunsetenv("GRAPHLENS_VULKAN_ROWS");
        QCOMPARE(rows, (std::vector<std::string>{"vulkan:matmul-rows"}));
    }

    void addBroadcastsLikeNumpy() {
        const Tensor y = seeded({3, 1, 5}, 11);
        const Model m = graphOf({2, 3, 4, 5}, [&](GraphBuilder& b, ValueId x) {
            return b.op("Mul", {b.op("Add", {x, b.initializer("y", y)}), b.initializer("s", Tensor::scalar(3.0f))});
        });
        QCOMPARE(agreesWithCpu(m, {2, 3, 4, 5}), (std::vector<std::string>{"vulkan:binary", "vulkan:binary"}));
    }

    void poolsMatchTheCpu() {
        const Model m = graphOf({2, 4, 11, 11}, [&](GraphBuilder& b, ValueId x) {
            const ValueId mx = b.op("MaxPool", {x}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}});
            const ValueId av = b.op("AveragePool", {mx}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}},
                                                          {"count_include_pad", int64_t(1)}});
            const ValueId ex = b.op("AveragePool", {av}, {{"kernel_shape", {2, 2}}, {"pads", {1, 1, 0, 0}}});
            return b.op("GlobalAveragePool", {ex});
        });
        QCOMPARE(agreesWithCpu(m, {2, 4, 11, 11}),
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
            const ValueId repeats = b.initializer("repeats", Tensor::int64s({3}, {1, 2, 1}));
            return b.op("Sigmoid", {b.op("Tile", {b.op("Relu", {x}), repeats})});
        });
        const auto kernels = agreesWithCpu(m, {2, 3, 8});
        QCOMPARE(kernels.size(), size_t(3));
        QCOMPARE(kernels[0], std::string("vulkan:unary"));
        QVERIFY2(kernels[1].rfind("cpu-fallback:Tile", 0) == 0, kernels[1].c_str());
        // 192 bytes down for its input, 384 bytes up for its output
        QVERIFY2(kernels[1].find("(transfer 576 B)") != std::string::npos, kernels[1].c_str());
        QCOMPARE(kernels[2], std::string("vulkan:unary"));
    }

    void concatTransposeAndReshapeMove() {
        const Tensor y = seeded({2, 5, 4}, 16);
        const Model m = graphOf({2, 3, 4}, [&](GraphBuilder& b, ValueId x) {
            const ValueId c = b.op("Concat", {x, b.initializer("y", y)}, {{"axis", int64_t(1)}});
            const ValueId t = b.op("Transpose", {c}, {{"perm", {2, 0, 1}}});
            return b.op("Reshape", {t, b.initializer("shape", Tensor::int64s({2}, {4, 16}))});
        });
        QCOMPARE(agreesWithCpu(m, {2, 3, 4}),
                 (std::vector<std::string>{"vulkan:concat", "vulkan:transpose", "vulkan:copy"}));
    }
};

QTEST_GUILESS_MAIN(TestVulkanBackend)
#include "tst_vulkan_backend.moc"
