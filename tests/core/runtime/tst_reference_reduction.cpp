// The reduction-family reference kernels: exact integer reductions, empty-set identities,
// noop_with_empty_axes, stable LogSumExp, ArgMax ties, old and new Softmax axes, TopK ties,
// CumSum flags, Einsum equations, LayerNormalization's statistics, losses with ignore_index,
// Det, and the error sentences for bad inputs.
#include "core/graph/builder.h"
#include "core/runtime/executor.h"
#include "core/runtime/kernel.h"

#include "support/kernel_harness.h"

#include <QtTest>

#include <cmath>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

/// The KernelError sentence `op` throws, or "" when it does not throw.
QString errorOf(const std::string& op, std::vector<const Tensor*> inputs, Attributes attributes = {},
                int64_t opset = 17) {
    try {
        runKernelAll(op, std::move(inputs), std::move(attributes), opset);
    } catch (const KernelError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}


} // namespace

class TestReferenceReduction : public QObject {
    Q_OBJECT
private slots:
    void reduceSumIsExactForLargeInt64sAndReadsAxesFromAnInput() {
        const Tensor x = Tensor::int64s({2, 2}, {(int64_t(1) << 60) + 1, 1, 2, 3});
        const Tensor axes = Tensor::int64s({1}, {-1});
        const Tensor y = runKernel("ReduceSum", {&x, &axes}, {{"keepdims", 0}}, 13);
        QCOMPARE(y.dims(), (Dims{2}));
        QCOMPARE(values<int64_t>(y), (Ints{(int64_t(1) << 60) + 2, 5}));
    }

    void emptyAxesReduceEverythingUnlessNoop() {
        const Tensor x = iota({2, 3});
        const Tensor none = Tensor::int64s({0}, {});
        QCOMPARE(values<float>(runKernel("ReduceSum", {&x, &none}, {}, 13)), (Floats{15}));
        QCOMPARE(runKernel("ReduceSum", {&x, &none}, {}, 13).dims(), (Dims{1, 1}));
        const Tensor same = runKernel("ReduceSum", {&x, &none}, {{"noop_with_empty_axes", 1}}, 13);
        QVERIFY(same.sharesStorageWith(x));
        QCOMPARE(values<float>(runKernel("ReduceMean", {&x}, {{"axes", Ints{0}}})), (Floats{1.5f, 2.5f, 3.5f}));
    }

    void emptySetReductionsGiveTheirIdentity() {
        const Tensor x = Tensor::allocate(DType::Float, {2, 0});
        const Attributes axis1{{"axes", Ints{1}}, {"keepdims", 0}};
        QCOMPARE(values<float>(runKernel("ReduceProd", {&x}, axis1)), (Floats{1, 1}));
        QCOMPARE(values<float>(runKernel("ReduceSumSquare", {&x}, axis1)), (Floats{0, 0}));
        const float inf = std::numeric_limits<float>::infinity();
        QCOMPARE(values<float>(runKernel("ReduceMax", {&x}, axis1)), (Floats{-inf, -inf}));
        QCOMPARE(values<float>(runKernel("ReduceLogSumExp", {&x}, axis1)), (Floats{-inf, -inf}));
    }

    void logSumExpDoesNotOverflow() {
        const Tensor x = Tensor::floats({2}, {1000, 1000});
        const Tensor y = runKernel("ReduceLogSumExp", {&x}, {{"keepdims", 0}});
        QCOMPARE(y.dims(), Dims{});
        QCOMPARE(values<float>(y)[0], float(1000 + std::log(2.0)));
    }

    void argMaxTiesTakeTheFirstOrLastIndex() {
        const Tensor x = Tensor::floats({2, 3}, {1, 5, 5, 7, 2, 7});
        QCOMPARE(values<int64_t>(runKernel("ArgMax", {&x}, {{"axis", 1}, {"keepdims", 0}})), (Ints{1, 0}));
        const Tensor last = runKernel("ArgMax", {&x}, {{"axis", 1}, {"select_last_index", 1}});
        QCOMPARE(last.dims(), (Dims{2, 1}));
        QCOMPARE(values<int64_t>(last), (Ints{2, 2}));
        QCOMPARE(values<int64_t>(runKernel("ArgMin", {&x}, {})), (Ints{0, 1, 0}));
    }

    void softmaxFlattensBeforeOpset13AndUsesOneAxisAfter() {
        const Tensor x = Tensor::floats({2, 2}, {0, 0, 0, 0});
        QCOMPARE(values<float>(runKernel("Softmax", {&x}, {{"axis", 0}}, 11)), (Floats{0.25f, 0.25f, 0.25f, 0.25f}));
        QCOMPARE(values<float>(runKernel("Softmax", {&x}, {{"axis", 0}}, 13)), (Floats{0.5f, 0.5f, 0.5f, 0.5f}));
        const Tensor h = Tensor::floats({2, 3}, {3, 1, 3, 0, 2, 1});
        QCOMPARE(values<float>(runKernel("Hardmax", {&h}, {}, 13)), (Floats{1, 0, 0, 0, 1, 0}));
        const Tensor big = Tensor::floats({2}, {1000, 1000});
        QCOMPARE(values<float>(runKernel("LogSoftmax", {&big}, {}, 13))[0], float(-std::log(2.0)));
    }

    void topKKeepsTheLowerIndexFirstOnTies() {
        const Tensor x = Tensor::floats({5}, {3, 1, 3, 2, 1});
        const Tensor k = Tensor::int64s({1}, {3});
        auto out = runKernelAll("TopK", {&x, &k}, {}, 11, 2);
        QCOMPARE(values<float>(out[0]), (Floats{3, 3, 2}));
        QCOMPARE(values<int64_t>(out[1]), (Ints{0, 2, 3}));
        out = runKernelAll("TopK", {&x, &k}, {{"largest", 0}}, 11, 2);
        QCOMPARE(values<int64_t>(out[1]), (Ints{1, 4, 3}));
    }

    void cumSumExclusiveReverse() {
        const Tensor x = Tensor::int64s({2, 3}, {1, 2, 3, 4, 5, 6});
        const Tensor axis = Tensor::fromVector<int32_t>(DType::Int32, {}, {-1});
        QCOMPARE(values<int64_t>(runKernel("CumSum", {&x, &axis})), (Ints{1, 3, 6, 4, 9, 15}));
        QCOMPARE(values<int64_t>(runKernel("CumSum", {&x, &axis}, {{"exclusive", 1}, {"reverse", 1}})),
                 (Ints{5, 3, 0, 11, 6, 0}));
    }

    void einsumHandlesEllipsisDiagonalsAndImplicitOutputs() {
        const Tensor x = iota({2, 2, 2});
        const Tensor diag = runKernel("Einsum", {&x}, {{"equation", "...ii->...i"}});
        QCOMPARE(diag.dims(), (Dims{2, 2}));
        QCOMPARE(values<float>(diag), (Floats{0, 3, 4, 7}));
        const Tensor a = iota({2, 3}), b = iota({3, 2});
        const Tensor matmul = runKernel("Einsum", {&a, &b}, {{"equation", "ij, jk"}});
        QCOMPARE(values<float>(matmul), (Floats{10, 13, 28, 40}));
        QCOMPARE(values<float>(runKernel("Einsum", {&a}, {{"equation", "ij->ji"}})), (Floats{0, 3, 1, 4, 2, 5}));
        QCOMPARE(values<float>(runKernel("Einsum", {&a}, {{"equation", "ij->"}})), (Floats{15}));
    }

    void einsumRunsInAGraph() {
        GraphBuilder g;
        ValueId x = g.input("x", DType::Double, {3});
        ValueId y = g.input("y", DType::Double, {3});
        g.output(g.op("Einsum", {x, y}, {{"equation", "i,i"}}));
        const Tensor a = Tensor::fromVector<double>(DType::Double, {3}, {1, 2, 3});
        const auto out = runReference(g.graph(), 12, {{"x", a}, {"y", a}});
        QCOMPARE(values<double>(out.at(0)), (std::vector<double>{14}));
    }

    void layerNormalizationWritesMeanAndInverseStdDev() {
        const Tensor x = Tensor::floats({2, 2}, {1, 3, 0, 4});
        const Tensor scale = Tensor::floats({2}, {1, 1});
        const auto out = runKernelAll("LayerNormalization", {&x, &scale}, {{"epsilon", 0.0f}}, 17, 3);
        QCOMPARE(values<float>(out[0]), (Floats{-1, 1, -1, 1}));
        QCOMPARE(out[1].dims(), (Dims{2, 1}));
        QCOMPARE(values<float>(out[1]), (Floats{2, 2}));
        QCOMPARE(values<float>(out[2]), (Floats{1, 0.5f}));
    }

    void softmaxCrossEntropyIgnoresTargetsAndAveragesByWeight() {
        const Tensor scores = Tensor::floats({2, 2}, {0, 0, 0, 0});
        const Tensor target = Tensor::int64s({2}, {1, 0});
        const Tensor weight = Tensor::floats({2}, {1, 3});
        const auto out = runKernelAll("SoftmaxCrossEntropyLoss", {&scores, &target, &weight},
                                      {{"reduction", "mean"}, {"ignore_index", 0}}, 13, 2);
        QCOMPARE(out[0].dims(), Dims{});
        QCOMPARE(values<float>(out[0])[0], float(std::log(2.0)));
        QCOMPARE(values<float>(out[1])[0], float(-std::log(2.0)));
        const Tensor logProb = Tensor::floats({2, 2}, {-1, -2, -3, -4});
        const Tensor nll = runKernel("NegativeLogLikelihoodLoss", {&logProb, &target, &weight}, {{"reduction", "sum"}}, 13);
        QCOMPARE(values<float>(nll)[0], 2.0f * 3 + 3.0f);
    }

    void detOfABatchOfMatrices() {
        const Tensor x = Tensor::floats({2, 2, 2}, {1, 2, 3, 4, 0, 1, 1, 0});
        const Tensor y = runKernel("Det", {&x}, {}, 11);
        QCOMPARE(y.dims(), (Dims{2}));
        QCOMPARE(values<float>(y), (Floats{-2, -1}));
    }

    void badInputsAreReportedInOneSentence() {
        const Tensor x = iota({2, 3});
        QCOMPARE(errorOf("ReduceMax", {&x}, {{"axes", Ints{1, -1}}}), QString("the axis -1 is listed twice"));
        QCOMPARE(errorOf("ReduceMin", {&x}, {{"axes", Ints{2}}}), QString("axis 2 is out of range for rank 2"));
        const Tensor k = Tensor::int64s({1}, {4});
        QCOMPARE(errorOf("TopK", {&x, &k}, {}, 11), QString("k = 4 is out of range for an axis of length 3"));
        const Tensor target = Tensor::int64s({2}, {0, 3});
        QCOMPARE(errorOf("NegativeLogLikelihoodLoss", {&x, &target}, {}, 13),
                 QString("the target 3 is out of range for 3 classes"));
        QCOMPARE(errorOf("Einsum", {&x}, {{"equation", "ijk"}}, 12),
                 QString("the Einsum term 0 does not match its input's rank 2"));
        const Tensor strings = Tensor::fromStrings({1}, {"a"});
        QCOMPARE(errorOf("ReduceSum", {&strings}), QString("ReduceSum does not support the element type string"));
    }

    // An empty tensor whose leading dims are huge ([2^62, 2, 0]) has nothing to loop over: the
    // kernels return its empty result at once instead of walking 2^62 empty rows (fuzz_run found
    // ArgMin doing so).
    void emptyTensorsWithHugeLeadingDimsReturnAtOnce() {
        const int64_t huge = int64_t(1) << 62;
        const Tensor x = Tensor::allocate(DType::Float, {huge, 2, 0});
        const Tensor picked = runKernel("ArgMin", {&x}, {{"axis", int64_t(1)}});
        QCOMPARE(picked.dims(), (Dims{huge, 1, 0}));
        const Tensor rows = Tensor::allocate(DType::Float, {huge, 0});
        const Tensor soft = runKernel("Softmax", {&rows}, {}, 11);  // flattened to 2-D before opset 13
        QCOMPARE(soft.dims(), (Dims{huge, 0}));
        QCOMPARE(runKernel("LogSoftmax", {&x}).dims(), (Dims{huge, 2, 0}));  // rows of nothing along the last axis
        const Tensor last = Tensor::int64s({}, {-1});
        QCOMPARE(runKernel("CumSum", {&x, &last}).dims(), (Dims{huge, 2, 0}));
        const Tensor none = Tensor::int64s({1}, {0});
        QCOMPARE(runKernelAll("TopK", {&x, &none}, {}, 13, 2).at(1).dims(), (Dims{huge, 2, 0}));
        const Tensor normed = runKernel("LpNormalization", {&x}, {{"axis", int64_t(1)}});
        QCOMPARE(normed.dims(), (Dims{huge, 2, 0}));
    }
};

QTEST_APPLESS_MAIN(TestReferenceReduction)
#include "tst_reference_reduction.moc"
