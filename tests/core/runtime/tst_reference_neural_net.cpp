// The neural-net-family reference kernels: padded, strided and depthwise Conv, ConvTranspose's
// SAME_UPPER split, MaxPool Indices in both storage orders, AveragePool padding counts, Gemm and
// MatMul broadcasting, quantization rounding, Resize modes, Dropout, NonMaxSuppression, and
// error sentences.
#include "core/graph/builder.h"
#include "core/runtime/executor.h"
#include "core/runtime/kernel.h"

#include "support/kernel_harness.h"

#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

QString errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const KernelError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestReferenceNeuralNet : public QObject {
    Q_OBJECT
private slots:
    void convPadsStridesAndAddsTheBias() {
        const Tensor x = iota({1, 1, 3, 3});
        const Tensor w = Tensor::floats({1, 1, 2, 2}, {1, 1, 1, 1});
        const Tensor b = Tensor::floats({1}, {10});
        const Tensor y = runKernel("Conv", {&x, &w, &b}, {{"pads", {1, 1, 0, 0}}, {"strides", {2, 2}}});
        QCOMPARE(y.dims(), (Dims{1, 1, 2, 2}));
        // windows: {0}, {1,2}, {3,6}, {4,5,7,8}
        QCOMPARE(values<float>(y), (Floats{10, 13, 19, 34}));
    }

    void depthwiseConvKeepsChannelsApartAndTakesTheKernelFromW() {
        const Tensor x = iota({1, 2, 1, 3});
        const Tensor w = Tensor::floats({2, 1, 1, 2}, {1, 0, 0, 2});
        const Tensor y = runKernel("Conv", {&x, &w}, {{"group", 2}});
        QCOMPARE(y.dims(), (Dims{1, 2, 1, 2}));
        QCOMPARE(values<float>(y), (Floats{0, 1, 8, 10}));
    }

    void convTransposeSameUpperPutsTheOddPadAtTheEnd() {
        const Tensor x = Tensor::floats({1, 1, 3}, {0, 1, 2});
        const Tensor w = Tensor::floats({1, 1, 3}, {1, 1, 1});
        const Tensor y = runKernel("ConvTranspose", {&x, &w}, {{"auto_pad", "SAME_UPPER"}, {"strides", {2}}});
        QCOMPARE(y.dims(), (Dims{1, 1, 6}));
        QCOMPARE(values<float>(y), (Floats{0, 0, 1, 1, 3, 2}));
    }

    void maxPoolIndicesFollowTheStorageOrder() {
        const Tensor x = Tensor::floats({1, 1, 2, 2}, {1, 4, 3, 2});
        for (int64_t order : {0, 1}) {
            const auto outs = runKernelAll("MaxPool", {&x}, {{"kernel_shape", {2, 2}}, {"storage_order", order}}, 12, 2);
            QCOMPARE(values<float>(outs[0]), Floats{4});
            // 4 sits at row 0, column 1: row-major index 1, column-major index 2
            QCOMPARE(values<int64_t>(outs[1]), std::vector<int64_t>{order == 0 ? 1 : 2});
        }
    }

    void averagePoolCountsPadsOnlyWhenAsked() {
        const Tensor x = Tensor::floats({1, 1, 1, 2}, {2, 4});
        const Attributes base{{"kernel_shape", {1, 2}}, {"pads", {0, 1, 0, 0}}};
        QCOMPARE(values<float>(runKernel("AveragePool", {&x}, base)), (Floats{2, 3}));
        Attributes counting = base;
        counting.set("count_include_pad", 1);
        QCOMPARE(values<float>(runKernel("AveragePool", {&x}, counting)), (Floats{1, 3}));
    }

    void gemmTransposesAndBroadcastsC() {
        const Tensor a = Tensor::floats({1, 2}, {1, 2});
        const Tensor b = Tensor::floats({2, 2}, {1, 2, 3, 4});  // transposed: [[1,3],[2,4]]
        const Tensor c = Tensor::floats({1}, {1});
        const Tensor y = runKernel("Gemm", {&a, &b, &c}, {{"transB", 1}, {"alpha", 2.0}, {"beta", 3.0}});
        QCOMPARE(y.dims(), (Dims{1, 2}));
        QCOMPARE(values<float>(y), (Floats{2 * 5 + 3, 2 * 11 + 3}));
    }

    void matMulPromotesAVectorAndBroadcastsBatches() {
        const Tensor a = Tensor::floats({2}, {1, 2});
        const Tensor b = iota({3, 2, 2});
        const Tensor y = runKernel("MatMul", {&a, &b});
        QCOMPARE(y.dims(), (Dims{3, 2}));
        QCOMPARE(values<float>(y), (Floats{4, 7, 16, 19, 28, 31}));
    }

    void quantizeRoundsHalfToEvenAndSaturates() {
        const Tensor x = Tensor::floats({4}, {0.5f, 1.5f, -3.0f, 1000.0f});
        const Tensor scale = Tensor::scalar(1.0f);
        const Tensor zero = Tensor::fromVector<int8_t>(DType::Int8, {}, {1});
        const Tensor y = runKernel("QuantizeLinear", {&x, &scale, &zero});
        QCOMPARE(y.dtype(), DType::Int8);
        QCOMPARE(values<int8_t>(y), (std::vector<int8_t>{1, 3, -2, 127}));
        const Tensor q = Tensor::fromVector<uint8_t>(DType::UInt8, {2, 2}, {1, 2, 3, 4});
        const Tensor scales = Tensor::floats({2}, {1.0f, 0.5f});
        QCOMPARE(values<float>(runKernel("DequantizeLinear", {&q, &scales}, {{"axis", 0}})), (Floats{1, 2, 1.5f, 2}));
    }

    void resizeNearestAndLinearFollowTheCoordinateModes() {
        const Tensor x = Tensor::floats({1, 1, 1, 2}, {1, 2});
        const Tensor scales = Tensor::floats({4}, {1, 1, 1, 2});
        const Tensor y = runKernel("Resize", {&x, nullptr, &scales}, {{"mode", "nearest"}}, 13);
        QCOMPARE(values<float>(y), (Floats{1, 1, 2, 2}));
        const Tensor linear = runKernel("Resize", {&x, nullptr, &scales}, {{"mode", "linear"}}, 13);
        QCOMPARE(values<float>(linear), (Floats{1, 1.25f, 1.75f, 2}));
        const Tensor aligned = runKernel("Resize", {&x, nullptr, &scales},
                                         {{"mode", "linear"}, {"coordinate_transformation_mode", "align_corners"}}, 13);
        QCOMPARE(values<float>(aligned)[1], 1.0f + 1.0f / 3.0f);
        // opset 18: sizes for the last two axes only, shrunk to keep the aspect ratio
        const Tensor wide = iota({1, 1, 2, 4});
        const Tensor sizes = Tensor::int64s({2}, {4, 4});
        const Tensor kept = runKernel("Resize", {&wide, nullptr, nullptr, &sizes},
                                      {{"axes", {2, 3}}, {"keep_aspect_ratio_policy", "not_larger"}}, 18);
        QCOMPARE(kept.dims(), (Dims{1, 1, 2, 4}));
        QCOMPARE(values<float>(kept), values<float>(wide));
    }

    void dropoutIsIdentityInInferenceWithAnAllTrueMask() {
        const Tensor x = iota({2, 3});
        const auto outs = runKernelAll("Dropout", {&x}, {}, 13, 2);
        QVERIFY(outs[0].sharesStorageWith(x));
        QCOMPARE(outs[1].dtype(), DType::Bool);
        QCOMPARE(values<uint8_t>(outs[1]), std::vector<uint8_t>(6, 1));
        const Tensor ratio = Tensor::scalar(0.0f);
        const Tensor training = Tensor::fromVector<uint8_t>(DType::Bool, {}, {1});
        QCOMPARE(values<float>(runKernel("Dropout", {&x, &ratio, &training}, {{"seed", 0}}, 13)), values<float>(x));
    }

    void nonMaxSuppressionDropsOverlapsAndKeepsScoreOrder() {
        const Tensor boxes = Tensor::floats({1, 3, 4}, {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 2, 1, 3});
        const Tensor scores = Tensor::floats({1, 1, 3}, {0.8f, 0.9f, 0.3f});
        const Tensor maxBoxes = Tensor::int64s({1}, {3});
        const Tensor iou = Tensor::floats({1}, {0.5f});
        const Tensor y = runKernel("NonMaxSuppression", {&boxes, &scores, &maxBoxes, &iou});
        QCOMPARE(y.dims(), (Dims{2, 3}));
        QCOMPARE(values<int64_t>(y), (std::vector<int64_t>{0, 0, 1, 0, 0, 2}));
    }

    void badShapesAreRefusedWithASentence() {
        const Tensor x = iota({1, 3, 4, 4});
        const Tensor w = iota({2, 2, 3, 3});
        QCOMPARE(errorOf([&] { runKernel("Conv", {&x, &w}); }),
                 QString("the weights [2,2,3,3] do not fit the input [1,3,4,4] with group 1"));
        const Tensor a = iota({2, 3});
        QCOMPARE(errorOf([&] { runKernel("MatMul", {&a, &a}); }),
                 QString("the inner dimensions of [2,3] and [2,3] differ"));
        QCOMPARE(errorOf([&] { runKernel("MaxPool", {&x}, {{"kernel_shape", {9, 9}}}); }),
                 QString("the kernel is larger than the padded input"));
    }

    void malformedInputsGiveKernelErrorsNotCrashes() {
        const std::vector<std::string> ops{"Conv", "ConvInteger", "QLinearConv", "ConvTranspose", "MaxPool",
                                           "AveragePool", "LpPool", "GlobalAveragePool", "GlobalMaxPool",
                                           "GlobalLpPool", "MaxUnpool", "Gemm", "MatMul", "MatMulInteger",
                                           "QLinearMatMul", "QuantizeLinear", "DequantizeLinear",
                                           "DynamicQuantizeLinear", "Resize", "Upsample", "Dropout", "RoiAlign",
                                           "NonMaxSuppression", "GridSample"};
        const Tensor scalar = Tensor::scalar(2.0f);
        const Tensor vector = iota({5});
        const Tensor image = iota({1, 2, 3, 3});
        const Tensor empty = Tensor::allocate(DType::Float, {0, 2, 0, 3});
        const Tensor indices = Tensor::int64s({1, 2, 3, 3}, std::vector<int64_t>(18, 1000));
        const std::vector<std::vector<const Tensor*>> inputSets{
            {&scalar}, {&vector, &vector}, {&image, &vector, &scalar}, {&image, &image, &image, &image},
            {&empty, &empty}, {&image, &indices, &vector}, {&image, &scalar, &scalar, &scalar, &scalar, &scalar, &scalar, &scalar}};
        const Attributes bad{{"kernel_shape", {4, 4}}, {"strides", {0, 1}}, {"pads", {1}}, {"axis", 7}};
        for (const std::string& op : ops)
            for (const auto& inputs : inputSets)
                for (const Attributes& attrs : {Attributes{}, bad}) {
                    try {
                        runKernelAll(op, inputs, attrs, 13, 3);
                    } catch (const KernelError&) {
                    }
                }
    }

    void convRunsInAGraph() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, {1, 1, 2, 2});
        const ValueId w = b.initializer("w", Tensor::floats({1, 1, 1, 1}, {3}));
        b.output(b.op("GlobalAveragePool", {b.op("Conv", {x, w})}));
        const auto outs = runReference(b.graph(), 17, {{"x", iota({1, 1, 2, 2})}});
        QCOMPARE(outs.at(0).dims(), (Dims{1, 1, 1, 1}));
        QCOMPARE(values<float>(outs.at(0)), Floats{4.5f});
    }

    // A window far wider than its input visits only the taps inside it (a 3 x 2^20 kernel over
    // 5 x 6 once took 90 million steps): each SAME_UPPER output averages its rows' full width.
    void windowsWiderThanTheInputVisitOnlyTheTapsInside() {
        const Tensor x = iota({1, 1, 5, 6});
        const Tensor y = runKernel("AveragePool", {&x}, {{"kernel_shape", std::vector<int64_t>{3, 1 << 20}},
                                                        {"auto_pad", std::string("SAME_UPPER")}});
        QCOMPARE(y.dims(), (Dims{1, 1, 5, 6}));
        const auto rowMean = [](int64_t first, int64_t last) {  // rows [first, last] of iota, all 6 columns
            return float((first + last) * 6 / 2.0 + 2.5);
        };
        // SAME_UPPER: total padding 2 rows, one before; the window of row r covers rows r-1..r+1.
        for (int64_t r = 0; r < 5; ++r)
            for (int64_t c = 0; c < 6; ++c)
                QCOMPARE(y.span<float>()[size_t(r * 6 + c)], rowMean(std::max<int64_t>(r - 1, 0), std::min<int64_t>(r + 1, 4)));
    }
};

QTEST_APPLESS_MAIN(TestReferenceNeuralNet)
#include "tst_reference_neural_net.moc"
