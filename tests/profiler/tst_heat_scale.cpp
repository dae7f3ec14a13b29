// Heat scales: linear and log positions, the color ramp's stops, legend ticks.
#include "profiler/heat_scale.h"

#include <QtTest>

using namespace graphlens;

class TestHeatScale : public QObject {
    Q_OBJECT
private slots:
    void linearPositionsAreClamped() {
        const HeatScale s(2, 12, HeatScaleKind::Linear);
        QCOMPARE(s.position(2), 0.0);
        QCOMPARE(s.position(7), 0.5);
        QCOMPARE(s.position(12), 1.0);
        QCOMPARE(s.position(-5), 0.0);
        QCOMPARE(s.position(100), 1.0);
    }
    void logPositionsCountDecades() {
        const HeatScale s(0.01, 100, HeatScaleKind::Log);
        QCOMPARE(s.position(1), 0.5);
        QCOMPARE(s.position(0.1), 0.25);
        QCOMPARE(s.position(0), 0.0);
        QCOMPARE(HeatScale(0, 50, HeatScaleKind::Log).low(), 0.005);  // a log scale starts above 0
    }
    void spanningTakesTheExtremes() {
        const HeatScale linear = HeatScale::spanning({3, 0, 9}, HeatScaleKind::Linear);
        QCOMPARE(linear.low(), 0.0);
        QCOMPARE(linear.high(), 9.0);
        QCOMPARE(HeatScale::spanning({3, 0, 9}, HeatScaleKind::Log).low(), 3.0);
    }
    void speedupRampDivergesAtOne() {
        QCOMPARE(speedupColor(1), (Rgb{247, 247, 247}));
        QCOMPARE(speedupColor(4), (Rgb{26, 152, 80}));
        QCOMPARE(speedupColor(0.25), (Rgb{215, 48, 39}));
        QCOMPARE(speedupColor(2), (Rgb{137, 200, 164}));  // half way (log2) to the green end
        QCOMPARE(speedupColor(100), speedupColor(4));
        QCOMPARE(speedupColor(INFINITY), speedupColor(4));  // removed: as fast as it gets
        QCOMPARE(speedupColor(0), speedupColor(0.25));      // new: all cost
    }
    void darkTextOnLightFillsLightTextOnDark() {
        QCOMPARE(relativeLuminance({255, 255, 255}), 1.0);
        QCOMPARE(relativeLuminance({0, 0, 0}), 0.0);
        QVERIFY(prefersDarkText(heatColor(0)));     // light yellow
        QVERIFY(prefersDarkText(heatColor(0.5)));   // orange
        QVERIFY(!prefersDarkText(heatColor(1)));    // dark red
        QVERIFY(!prefersDarkText({40, 40, 44}));
        QVERIFY(prefersDarkText(speedupColor(1)));
        // The switch sits where both contrasts are equal: luminance about 0.179.
        QVERIFY(prefersDarkText({118, 118, 118}) && !prefersDarkText({116, 116, 116}));
    }
    void rampHitsItsStops() {
        QCOMPARE(heatColor(0), (Rgb{255, 255, 204}));
        QCOMPARE(heatColor(0.5), (Rgb{253, 141, 60}));
        QCOMPARE(heatColor(1), (Rgb{128, 0, 38}));
        QCOMPARE(heatColor(0.125), (Rgb{255, 236, 161}));  // half way between the first two stops
        QCOMPARE(heatColor(2), heatColor(1));
        QCOMPARE(hexColor(heatColor(1)), std::string("#800026"));
        QCOMPARE(HeatScale(0, 10, HeatScaleKind::Linear).color(10), heatColor(1));
    }
    void ticksAreRoundNumbers() {
        QCOMPARE(HeatScale(0, 10, HeatScaleKind::Linear).ticks(6), (std::vector<double>{0, 2, 4, 6, 8, 10}));
        QCOMPARE(HeatScale(0.3, 2.9, HeatScaleKind::Linear).ticks(6), (std::vector<double>{0.5, 1, 1.5, 2, 2.5}));
        QCOMPARE(HeatScale(0.01, 100, HeatScaleKind::Log).ticks(), (std::vector<double>{0.01, 0.1, 1, 10, 100}));
        QCOMPARE(HeatScale(2, 5, HeatScaleKind::Log).ticks(), (std::vector<double>{2, 5}));
    }
};

QTEST_APPLESS_MAIN(TestHeatScale)
#include "tst_heat_scale.moc"
