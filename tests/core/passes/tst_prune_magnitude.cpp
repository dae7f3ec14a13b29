// prune-magnitude: the smallest-magnitude share of each weight tensor becomes zero, exactly that
// many and exactly the smallest; the notes report sparsity and error; a second run changes nothing.
#include "core/graph/builder.h"
#include "support/pass_harness.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

Model network() {
    GraphBuilder b;
    auto x = b.input("x", DType::Float, {1, 4, 6, 6});
    auto c = b.op("Conv", {x, b.initializer("conv.w", seeded({8, 4, 3, 3}, 1, -0.3f, 0.3f))}, {}, "conv");  // 288 values
    auto f = b.op("Flatten", {b.op("GlobalAveragePool", {c})});
    b.output(b.op("MatMul", {f, b.initializer("fc.w", seeded({8, 10}, 2, -0.3f, 0.3f))}, {}, "fc"));  // 80 values
    return withShapes(b.model(13));
}

const Tensor& weightOf(const Graph& g, const std::string& node) {
    return *g.constantValue(g.node(*g.findNode(node)).input(1));
}

VerifyOptions lossyTolerance() {
    VerifyOptions v;
    v.rtol = 0.5;
    v.atol = 0.5;
    return v;
}

} // namespace

class TestPruneMagnitude : public QObject {
    Q_OBJECT
private slots:
    void zeroesTheSmallestHalfOfEachTensor() {
        Model m = network();
        const Tensor before = weightOf(m.graph, "conv");
        const CheckedPass out = runPassChecked(m, "prune-magnitude", {}, lossyTolerance());
        QCOMPARE(out.result.counter("numPruned"), int64_t(2));
        const auto w = before.span<float>(), pruned = weightOf(m.graph, "conv").span<float>();
        QCOMPARE(std::count(pruned.begin(), pruned.end(), 0.f), std::ptrdiff_t(144));
        QCOMPARE(std::count(weightOf(m.graph, "fc").span<float>().begin(), weightOf(m.graph, "fc").span<float>().end(), 0.f),
                 std::ptrdiff_t(40));
        float largestPruned = 0, smallestKept = 1;
        for (size_t i = 0; i < w.size(); ++i) {
            if (pruned[i] == 0) largestPruned = std::max(largestPruned, std::fabs(w[i]));
            else {
                QCOMPARE(pruned[i], w[i]);  // kept weights are unchanged
                smallestKept = std::min(smallestKept, std::fabs(w[i]));
            }
        }
        QVERIFY(largestPruned <= smallestKept);
        QCOMPARE(out.result.notes.size(), size_t(1));
        QVERIFY(out.result.notes[0].find("to 50% zeros (target 50% per tensor)") != std::string::npos);
        QVERIFY(out.result.notes[0].find("relative weight error") != std::string::npos);
        QCOMPARE(countOps(m.graph, "Conv"), 1);
        QVERIFY(out.verification.passed);
        QVERIFY(out.verification.maxAbsError > 0);
    }

    void takesItsSparsityFromTheContextAndSecondRunsChangeNothing() {
        Model m = network();
        PassContext context;
        context.pruneSparsity = 0.25;
        runPassChecked(m, "prune-magnitude", context, lossyTolerance());
        const auto fc = weightOf(m.graph, "fc").span<float>();
        QCOMPARE(std::count(fc.begin(), fc.end(), 0.f), std::ptrdiff_t(20));
        const CheckedPass again = runPassChecked(m, "prune-magnitude", context);
        QCOMPARE(again.result.rewrites.size(), size_t(0));
        QVERIFY(declinedWith(again.result, "already has 25% zeros"));
        QCOMPARE(again.verification.maxAbsError, 0.0);
    }

    void declinesSharedWeights() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 16});
        auto w = b.initializer("tied", seeded({16, 16}, 3, -0.3f, 0.3f));
        b.output(b.op("MatMul", {b.op("MatMul", {x, w}), w}));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "prune-magnitude");
        QCOMPARE(out.result.rewrites.size(), size_t(0));
        QVERIFY(declinedWith(out.result, "is read by other nodes too"));
    }
};

QTEST_GUILESS_MAIN(TestPruneMagnitude)
#include "tst_prune_magnitude.moc"
