// The elementwise reference kernels: broadcasting, integer division and modulo signs, Pow with
// mixed types, Clip across opsets, Cast to and from strings, Where, and error sentences.
#include "core/graph/builder.h"
#include "core/runtime/executor.h"
#include "core/runtime/kernel.h"

#include "support/kernel_harness.h"

#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

Tensor int32s(std::vector<int64_t> dims, const std::vector<int32_t>& v) {
    return Tensor::fromVector(DType::Int32, std::move(dims), v);
}

} // namespace

class TestReferenceElementwise : public QObject {
    Q_OBJECT
private slots:
    void addBroadcastsARowOverAMatrix() {
        const Tensor a = Tensor::floats({2, 3}, {1, 2, 3, 4, 5, 6});
        const Tensor b = Tensor::floats({3}, {10, 20, 30});
        const Tensor y = runKernel("Add", {&a, &b});
        QCOMPARE(y.dims(), (std::vector<int64_t>{2, 3}));
        QCOMPARE(values<float>(y), (std::vector<float>{11, 22, 33, 14, 25, 36}));
    }

    void integerDivTruncatesAndModFollowsPythonSigns() {
        const Tensor a = int32s({4}, {7, -7, 7, -7});
        const Tensor b = int32s({4}, {2, 2, -2, -2});
        QCOMPARE(values<int32_t>(runKernel("Div", {&a, &b})), (std::vector<int32_t>{3, -3, -3, 3}));
        QCOMPARE(values<int32_t>(runKernel("Mod", {&a, &b})), (std::vector<int32_t>{1, 1, -1, -1}));
        QCOMPARE(values<int32_t>(runKernel("Mod", {&a, &b}, {{"fmod", 1}})), (std::vector<int32_t>{1, -1, 1, -1}));
    }

    void powKeepsTheBaseTypeWithAnIntegerExponent() {
        const Tensor base = Tensor::floats({3}, {2, 3, 4});
        const Tensor exponent = Tensor::int64s({3}, {3, 2, -1});
        const Tensor y = runKernel("Pow", {&base, &exponent});
        QCOMPARE(y.dtype(), DType::Float);
        QCOMPARE(values<float>(y), (std::vector<float>{8, 9, 0.25f}));
    }

    void clipReadsAttributesBeforeOpset11AndInputsAfter() {
        const Tensor x = Tensor::floats({4}, {-3, -1, 1, 3});
        QCOMPARE(values<float>(runKernel("Clip", {&x}, {{"min", -2.0f}, {"max", 2.0f}}, 6)),
                 (std::vector<float>{-2, -1, 1, 2}));
        const Tensor lo = Tensor::scalar(0);
        QCOMPARE(values<float>(runKernel("Clip", {&x, &lo}, {}, 13)), (std::vector<float>{0, 0, 1, 3}));
        QCOMPARE(values<float>(runKernel("Clip", {&x, nullptr, &lo}, {}, 13)), (std::vector<float>{-3, -1, 0, 0}));
    }

    void roundGoesHalfToEven() {
        const Tensor x = Tensor::floats({5}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f});
        QCOMPARE(values<float>(runKernel("Round", {&x})), (std::vector<float>{0, 2, 2, -0.0f, -2}));
    }

    void castFormatsFloatsAsShortestTextAndParsesThemBack() {
        const Tensor x = Tensor::floats({3}, {0.1f, 2.0f, 1e-5f});
        const Tensor s = runKernel("Cast", {&x}, {{"to", int64_t(DType::String)}});
        QCOMPARE(s.strings(), (std::vector<std::string>{"0.1", "2.0", "1e-05"}));
        const Tensor text = Tensor::fromStrings({3}, {"1.5", "-INF", "NaN"});
        const Tensor f = runKernel("Cast", {&text}, {{"to", int64_t(DType::Float)}});
        QCOMPARE(f.span<float>()[0], 1.5f);
        QVERIFY(std::isinf(f.span<float>()[1]) && f.span<float>()[1] < 0);
        QVERIFY(std::isnan(f.span<float>()[2]));
    }

    void castToIntegerTruncatesAndSaturates() {
        const Tensor x = Tensor::floats({4}, {2.7f, -2.7f, 1e10f, 300});
        QCOMPARE(values<int32_t>(runKernel("Cast", {&x}, {{"to", int64_t(DType::Int32)}})),
                 (std::vector<int32_t>{2, -2, 2147483647, 300}));
    }

    void geluUsesErfAndFastGeluAddsTheBias() {
        const Tensor x = Tensor::floats({2}, {1, -1});
        const Tensor gelu = runKernel("Gelu", {&x}, {}, 17, "com.microsoft");
        QVERIFY(std::fabs(gelu.span<float>()[0] - 0.8413447f) < 1e-6f);
        QVERIFY(std::fabs(gelu.span<float>()[1] + 0.1586553f) < 1e-6f);
        const Tensor bias = Tensor::floats({1}, {1});
        const Tensor fast = runKernel("FastGelu", {&x, &bias}, {}, 17, "com.microsoft");
        QVERIFY(std::fabs(fast.span<float>()[0] - 1.9545977f) < 1e-5f);
        QCOMPARE(fast.span<float>()[1], 0.0f);
    }

    void greaterFeedsWhereInAGraph() {
        GraphBuilder b;
        ValueId x = b.input("x", DType::Float, {2, 2});
        ValueId zero = b.initializer("zero", Tensor::floats({1}, {0}));
        ValueId positive = b.op("Greater", {x, zero});
        b.output(b.op("Where", {positive, x, zero}));
        const auto out = runReference(b.graph(), 17, {{"x", Tensor::floats({2, 2}, {-1, 2, 3, -4})}});
        QCOMPARE(values<float>(out.at(0)), (std::vector<float>{0, 2, 3, 0}));
    }

    void mismatchedTypesAreRejectedWithOneSentence() {
        const Tensor a = Tensor::floats({1}, {1});
        const Tensor b = Tensor::int64s({1}, {1});
        try {
            runKernel("Add", {&a, &b});
            QFAIL("Add accepted float and int64");
        } catch (const KernelError& e) {
            QCOMPARE(std::string(e.what()), std::string("Add needs inputs of one element type, got float and int64"));
        }
    }

    void integerDivisionByZeroIsAnError() {
        const Tensor a = int32s({1}, {1});
        const Tensor b = int32s({1}, {0});
        QVERIFY_THROWS_EXCEPTION(KernelError, runKernel("Div", {&a, &b}));
    }

    void unbroadcastableShapesAreAnError() {
        const Tensor a = Tensor::floats({2}, {1, 2});
        const Tensor b = Tensor::floats({3}, {1, 2, 3});
        QVERIFY_THROWS_EXCEPTION(KernelError, runKernel("Mul", {&a, &b}));
    }
};

QTEST_APPLESS_MAIN(TestReferenceElementwise)
#include "tst_reference_elementwise.moc"
