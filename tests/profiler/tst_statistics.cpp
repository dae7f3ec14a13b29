// SampleStats: min/median/max/mean of repeated measurements.
#include "profiler/statistics.h"

#include <QtTest>

using namespace graphlens;

class TestStatistics : public QObject {
    Q_OBJECT
private slots:
    void oddCountTakesTheMiddleSample() {
        const SampleStats s = summarizeSamples({5.0, 1.0, 3.0, 9.0, 2.0});
        QCOMPARE(s.min, 1.0);
        QCOMPARE(s.median, 3.0);
        QCOMPARE(s.max, 9.0);
        QCOMPARE(s.mean, 4.0);
        QCOMPARE(s.count, size_t(5));
    }
    void evenCountAveragesTheMiddlePair() {
        QCOMPARE(summarizeSamples({4.0, 1.0, 2.0, 10.0}).median, 3.0);
    }
    void emptyGivesZeros() {
        const SampleStats s = summarizeSamples({});
        QCOMPARE(s.count, size_t(0));
        QCOMPARE(s.median, 0.0);
    }
};

QTEST_APPLESS_MAIN(TestStatistics)
#include "tst_statistics.moc"
