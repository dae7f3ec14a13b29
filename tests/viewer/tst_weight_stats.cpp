// Weight statistics for the inspector: exact count, zeros, range, mean, population standard
// deviation and histogram bins, for float and integer tensors, non-finite values and a tensor
// whose values are all equal.
#include "viewer/weight_stats.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace graphlens;

class TestWeightStats : public QObject {
    Q_OBJECT
private slots:
    void floatTensorStatistics() {
        const auto s = weightStats(Tensor::floats({2, 4}, {0, 0, 1, 2, 3, -2, 0, 4}), 6);
        QVERIFY(s);
        QCOMPARE(s->count, int64_t(8));
        QCOMPARE(s->zeros, int64_t(3));
        QCOMPARE(s->sparsity(), 0.375);
        QCOMPARE(s->min, -2.0);
        QCOMPARE(s->max, 4.0);
        QCOMPARE(s->mean, 1.0);
        QCOMPARE(s->std, std::sqrt(3.25));  // squared deviations 26 over 8 values
        // Bins of width 1 from -2: [-2,-1) [-1,0) [0,1) [1,2) [2,3) [3,4]; the last takes max.
        QCOMPARE(s->histogram, (std::vector<int64_t>{1, 0, 3, 1, 1, 2}));
    }

    void defaultsToThirtyTwoBins() {
        const auto s = weightStats(Tensor::floats({3}, {0, 1, 2}));
        QVERIFY(s);
        QCOMPARE(s->histogram.size(), size_t(32));
        QCOMPARE(s->histogram[0], int64_t(1));
        QCOMPARE(s->histogram[16], int64_t(1));  // 1 sits at 16/32 of [0, 2]
        QCOMPARE(s->histogram[31], int64_t(1));
    }

    void integerTensorStatistics() {
        const auto s = weightStats(Tensor::fromVector<int8_t>(DType::Int8, {4}, {-1, 1, 0, 127}), 4);
        QVERIFY(s);
        QCOMPARE(s->count, int64_t(4));
        QCOMPARE(s->zeros, int64_t(1));
        QCOMPARE(s->min, -1.0);
        QCOMPARE(s->max, 127.0);
        QCOMPARE(s->mean, 31.75);
        QCOMPARE(s->histogram, (std::vector<int64_t>{3, 0, 0, 1}));
    }

    void nonFiniteValuesAreCountedApart() {
        const float inf = std::numeric_limits<float>::infinity();
        const auto s = weightStats(Tensor::floats({4}, {1, std::nanf(""), 3, inf}), 2);
        QVERIFY(s);
        QCOMPARE(s->count, int64_t(4));
        QCOMPARE(s->nonFinite, int64_t(2));
        QCOMPARE(s->min, 1.0);
        QCOMPARE(s->max, 3.0);
        QCOMPARE(s->mean, 2.0);
        QCOMPARE(s->std, 1.0);
        QCOMPARE(s->histogram, (std::vector<int64_t>{1, 1}));
    }

    void equalValuesFillTheFirstBin() {
        const auto s = weightStats(Tensor::floats({3}, {5, 5, 5}), 4);
        QVERIFY(s);
        QCOMPARE(s->std, 0.0);
        QCOMPARE(s->histogram, (std::vector<int64_t>{3, 0, 0, 0}));
    }

    void stringsAndEmptyTensorsHaveNoStatistics() {
        QVERIFY(!weightStats(Tensor::fromStrings({1}, {"a"})));
        QVERIFY(!weightStats(Tensor::floats({0}, {})));
    }
};

QTEST_APPLESS_MAIN(TestWeightStats)
#include "tst_weight_stats.moc"
