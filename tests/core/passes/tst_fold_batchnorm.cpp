// fold-batchnorm: BatchNorm folded into Conv, ConvTranspose, Gemm and MatMul weights, the
// multiply-add it becomes elsewhere, and where it must stay.
#include "core/graph/builder.h"
#include "support/pass_harness.h"

#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

bool anySentenceHas(const PassResult& r, const std::string& phrase) {
    for (const Rewrite& w : r.rewrites)
        if (w.sentence.find(phrase) != std::string::npos) return true;
    return false;
}

} // namespace

class TestFoldBatchNorm : public QObject {
    Q_OBJECT
private slots:
    void foldsIntoConvAndShowsTheFirstChannel() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {1, 3, 8, 8});
        auto conv = b.op("Conv", {x, b.initializer("w1", seeded({2, 3, 3, 3}, 1))}, {{"pads", {1, 1, 1, 1}}}, "conv1");
        auto bn = b.op("BatchNormalization",
                       {conv, b.initializer("gamma", Tensor::floats({2}, {1.2f, 0.8f})),
                        b.initializer("beta", Tensor::floats({2}, {0.1f, -0.3f})),
                        b.initializer("mean", Tensor::floats({2}, {0.5f, 0.2f})),
                        b.initializer("var", Tensor::floats({2}, {0.09f, 1.5f}))},
                       {}, "bn1");
        auto conv2 = b.op("Conv", {b.op("Relu", {bn}), b.initializer("w2", seeded({4, 2, 1, 1}, 2)),
                                   b.initializer("b2", seeded({4}, 3))}, {}, "conv2");
        b.output(batchNorm(b, conv2, 4, "bn2", 10));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "fold-batchnorm");
        QCOMPARE(countOps(m.graph, "BatchNormalization"), 0);
        QCOMPARE(countOps(m.graph, "Conv"), 2);
        QCOMPARE(countOps(m.graph, "Mul") + countOps(m.graph, "Add"), 0);
        QCOMPARE(out.result.counter("numFolded"), int64_t(2));
        QVERIFY2(out.verification.passed, out.verification.failure.c_str());
        // The Conv without a bias got one, and keeps its name.
        QCOMPARE(m.graph.node(*m.graph.findNode("conv1")).inputs().size(), size_t(3));
        QVERIFY(!m.graph.findNode("bn1"));
        const std::string numbers = "channel 0: k = 1.2 / sqrt(0.09 + 1e-05) = 3.9998, b = 0.1 - 0.5 * 3.9998 = -1.8999";
        QVERIFY(anySentenceHas(out.result, "folded BatchNormalization 'bn1' into Conv 'conv1' (" + numbers + ")"));
        QCOMPARE(out.result.notes.size(), size_t(2));
        QVERIFY(out.result.notes[0].find(numbers) != std::string::npos);
        // The weights are new initializers; the old ones are gone.
        QVERIFY(!m.graph.findValue("w1"));
        QVERIFY(m.graph.findValue("w1_folded"));
    }

    void foldsIntoGemmMatMulAndGroupedConvTranspose() {
        GraphBuilder b;
        auto a = b.input("a", DType::Float, {3, 5});
        auto gemm = b.op("Gemm", {a, b.initializer("gb", seeded({4, 5}, 1)), b.initializer("gc", seeded({4}, 2))},
                         {{"transB", 1}, {"alpha", 0.5f}, {"beta", 2.0f}}, "gemm");
        auto mm = b.op("MatMul", {batchNorm(b, gemm, 4, "bn_gemm", 20), b.initializer("mb", seeded({4, 6}, 3))}, {}, "mm");
        b.output(batchNorm(b, mm, 6, "bn_mm", 30));
        auto x = b.input("x", DType::Float, {1, 4, 5, 5});
        auto ct = b.op("ConvTranspose", {x, b.initializer("ctw", seeded({4, 3, 3, 3}, 4)), b.initializer("ctb", seeded({6}, 5))},
                       {{"group", 2}, {"strides", {2, 2}}}, "deconv");
        b.output(batchNorm(b, ct, 6, "bn_ct", 40));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "fold-batchnorm");
        QCOMPARE(countOps(m.graph, "BatchNormalization"), 0);
        QCOMPARE(countOps(m.graph, "Gemm"), 2);  // the MatMul gained a bias: a Gemm
        QCOMPARE(countOps(m.graph, "MatMul"), 0);
        QCOMPARE(countOps(m.graph, "ConvTranspose"), 1);
        QCOMPARE(out.result.counter("numFolded"), int64_t(3));
        QVERIFY2(out.verification.passed, out.verification.failure.c_str());
        QCOMPARE(m.graph.node(*m.graph.findNode("gemm")).attributes.getFloat("beta", 0), 1.0f);
    }

    void neverChangesWeightsAnotherNodeReads() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {1, 2, 6, 6});
        auto w = b.initializer("shared_w", seeded({2, 2, 3, 3}, 1));
        auto c1 = b.op("Conv", {x, w}, {}, "conv_a");
        auto c2 = b.op("Conv", {x, w}, {}, "conv_b");
        b.output(batchNorm(b, c1, 2, "bn_a", 50));
        b.output(b.op("Relu", {c2}));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "fold-batchnorm");
        QCOMPARE(out.result.counter("numFolded"), int64_t(1));
        QVERIFY2(out.verification.passed, out.verification.failure.c_str());
        const Node& untouched = m.graph.node(*m.graph.findNode("conv_b"));
        QCOMPARE(m.graph.value(untouched.input(1)).name, std::string("shared_w"));
        QCOMPARE(m.graph.node(*m.graph.findNode("conv_a")).input(1) != untouched.input(1), true);
    }

    void becomesOneMultiplyAddWhereItCannotFold() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {1, 3, 4, 4});
        // After a Relu: nothing to fold into.
        auto r = b.op("Relu", {x}, {}, "relu");
        b.output(batchNorm(b, r, 3, "bn_relu", 60));
        // After a Conv whose output is also read elsewhere.
        auto c = b.op("Conv", {x, b.initializer("w", seeded({3, 3, 1, 1}, 2))}, {}, "conv");
        b.output(batchNorm(b, c, 3, "bn_conv", 70));
        b.output(b.op("Sigmoid", {c}, {}, "side"));
        // After a MatMul with a rank-3 input: BN's channel axis 1 is not the MatMul's last axis.
        auto t = b.input("t", DType::Float, {2, 3, 4});
        auto mm = b.op("MatMul", {t, b.initializer("mw", seeded({4, 4}, 3))}, {}, "mm3");
        b.output(batchNorm(b, mm, 3, "bn_mm", 80));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "fold-batchnorm");
        QCOMPARE(countOps(m.graph, "BatchNormalization"), 0);
        QCOMPARE(countOps(m.graph, "Mul"), 3);
        QCOMPARE(countOps(m.graph, "Add"), 3);
        QCOMPARE(out.result.counter("numMultiplyAdd"), int64_t(3));
        QVERIFY2(out.verification.passed, out.verification.failure.c_str());
        QVERIFY(anySentenceHas(out.result, "comes from Relu 'relu'"));
        QVERIFY(anySentenceHas(out.result, "the output of Conv 'conv' is read by 2 nodes"));
        QVERIFY(anySentenceHas(out.result, "are on axis 2"));
        // The constants broadcast along axis 1: [C, 1, 1] for NCHW, [C, 1] for the rank-3 MatMul output.
        const Node& add = m.graph.node(*m.graph.findNode("bn_relu"));
        QCOMPARE(m.graph.constantValue(add.input(1))->dims(), (std::vector<int64_t>{3, 1, 1}));
        QCOMPARE(m.graph.constantValue(m.graph.node(*m.graph.findNode("bn_mm")).input(1))->dims(),
                 (std::vector<int64_t>{3, 1}));
    }

    void keepsTrainingModeAndRuntimeStatistics() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 3, 4, 4});
        auto c = b.op("Conv", {x, b.initializer("w", seeded({3, 3, 1, 1}, 2))}, {}, "conv");
        auto train = b.ops("BatchNormalization",
                           {c, b.initializer("g", seeded({3}, 3, 0.5f, 1.5f)), b.initializer("be", seeded({3}, 4)),
                            b.initializer("mu", seeded({3}, 5)), b.initializer("v", seeded({3}, 6, 0.1f, 1.0f))},
                           3, {{"training_mode", 1}}, "bn_train")[0];
        auto mean = b.input("mean", DType::Float, {3});
        auto runtime = b.op("BatchNormalization", {train, b.initializer("g2", seeded({3}, 7, 0.5f, 1.5f)),
                                                    b.initializer("be2", seeded({3}, 8)), mean,
                                                    b.initializer("v2", seeded({3}, 9, 0.1f, 1.0f))},
                            {}, "bn_runtime");
        b.output(runtime);
        Model m = withShapes(b.model(15));
        const CheckedPass out = runPassChecked(m, "fold-batchnorm");
        QCOMPARE(countOps(m.graph, "BatchNormalization"), 2);
        QCOMPARE(out.result.rewrites.size(), size_t(0));
        QVERIFY(declinedWith(out.result, "kept: training-mode BatchNorm"));
        QVERIFY(declinedWith(out.result, "not all float32 constants"));
    }
};

QTEST_GUILESS_MAIN(TestFoldBatchNorm)
#include "tst_fold_batchnorm.moc"
