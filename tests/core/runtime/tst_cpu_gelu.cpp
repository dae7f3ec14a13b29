// The CPU kernels of the GELU family (com.microsoft Gelu, BiasGelu, FastGelu, QuickGelu) and
// HardSwish run natively, one kernel per node, and agree with the reference kernels within 1e-5
// over [-8, 8], with and without a bias along the last axis.
#include "core/graph/builder.h"
#include "core/runtime/backend.h"
#include "core/runtime/executor.h"
#include "support/seeded_tensor.h"

#include <QtTest>

#include <cmath>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

constexpr int64_t kRows = 3, kWidth = 2001;

/// A ramp over [-8, 8] in every row, shifted a little per row.
Tensor ramp() {
    Tensor t = Tensor::allocate(DType::Float, {kRows, kWidth});
    auto v = t.mutableSpan<float>();
    for (int64_t r = 0; r < kRows; ++r)
        for (int64_t i = 0; i < kWidth; ++i) v[size_t(r * kWidth + i)] = -8.f + 16.f * float(i) / float(kWidth - 1) + 0.01f * float(r);
    return t;
}

/// One node of `op` (domain com.microsoft unless HardSwish) reading x (and the bias).
Model oneNode(const std::string& op, bool bias, Attributes attributes = {}) {
    GraphBuilder b;
    auto x = b.input("x", DType::Float, {kRows, kWidth});
    std::vector<ValueId> inputs{x};
    if (bias) inputs.push_back(b.initializer("bias", seeded({kWidth}, 3, -0.5f, 0.5f)));
    auto y = b.op(op, inputs, std::move(attributes), "node");
    if (op != "HardSwish") b.graph().node(b.lastNode()).domain = "com.microsoft";
    b.output(y, DType::Float, {kRows, kWidth});
    Model m = b.model(17);
    if (op != "HardSwish") m.opsets.push_back({"com.microsoft", 1});
    return m;
}

/// Largest |optimized - reference| of `m` on the ramp; fails when the plan is not one CPU kernel.
double worstError(const Model& m, const std::string& kernel) {
    const std::map<std::string, Tensor> feeds{{"x", ramp()}};
    CompileOptions reference;
    reference.referenceOnly = true;
    const Tensor expected = makeCpuBackend()->compile(m, reference)->run(feeds).at(0);
    auto plan = makeCpuBackend()->compile(m, {});
    if (plan->nodes().size() != 1 || plan->nodes()[0].kernel != kernel) return INFINITY;
    const Tensor got = plan->run(feeds).at(0);
    double worst = 0;
    for (int64_t i = 0; i < got.numel(); ++i)
        worst = std::max(worst, double(std::fabs(got.span<float>()[size_t(i)] - expected.span<float>()[size_t(i)])));
    return worst;
}

} // namespace

class TestCpuGelu : public QObject {
    Q_OBJECT
private slots:
    void geluFamilyMatchesTheReference_data() {
        QTest::addColumn<QString>("op");
        QTest::addColumn<bool>("bias");
        QTest::addColumn<float>("alpha");
        QTest::newRow("Gelu") << "Gelu" << false << 0.f;
        QTest::newRow("BiasGelu") << "BiasGelu" << true << 0.f;
        QTest::newRow("FastGelu") << "FastGelu" << false << 0.f;
        QTest::newRow("FastGelu with bias") << "FastGelu" << true << 0.f;
        QTest::newRow("QuickGelu alpha 1") << "QuickGelu" << false << 1.f;
        QTest::newRow("QuickGelu alpha 1.702") << "QuickGelu" << false << 1.702f;
    }

    void geluFamilyMatchesTheReference() {
        QFETCH(QString, op);
        QFETCH(bool, bias);
        QFETCH(float, alpha);
        Attributes attributes;
        if (alpha != 0) attributes.set("alpha", alpha);
        const double worst = worstError(oneNode(op.toStdString(), bias, attributes), "cpu:gelu");
        QVERIFY2(worst < 1e-5, qPrintable(op + ": " + QString::number(worst)));
    }

    void hardSwishRunsNatively() {
        const double worst = worstError(oneNode("HardSwish", false), "cpu:activation");
        QVERIFY2(worst < 1e-6, qPrintable(QString::number(worst)));
    }

    void geluKernelComputesErfWithinItsBound() {
        // Gelu(x) = x * (1 + erf(x / sqrt(2))) / 2: the kernel's erf, seen through Gelu, against libm
        const Model m = oneNode("Gelu", false);
        auto plan = makeCpuBackend()->compile(m, {});
        const Tensor x = ramp();
        const Tensor y = plan->run({{"x", x}}).at(0);
        double worst = 0;
        for (int64_t i = 0; i < x.numel(); ++i) {
            const double v = x.span<float>()[size_t(i)];
            if (std::fabs(v) < 0.5) continue;  // erf = 2 (gelu / x) - 1 loses digits near 0
            const double erf = 2.0 * y.span<float>()[size_t(i)] / v - 1.0;
            worst = std::max(worst, std::fabs(erf - std::erf(v / std::sqrt(2.0))));
        }
        QVERIFY2(worst < 1e-6, qPrintable(QString::number(worst)));
    }
};

QTEST_GUILESS_MAIN(TestCpuGelu)
#include "tst_cpu_gelu.moc"
