// The activation memory planner on hand-made lifetimes with known optimal answers.
#include "core/runtime/memory_planner.h"

#include <QtTest>

using namespace graphlens;

class TestMemoryPlanner : public QObject {
    Q_OBJECT
private slots:
    void chainReusesTheBufferOfTheDeadTensor() {
        // A -> B -> C: A is dead when C is made, so C takes A's place.
        const MemoryPlan p = planMemory({{64, 0, 1}, {64, 1, 2}, {64, 2, 3}});
        QCOMPARE(p.arenaBytes, uint64_t(128));
        QCOMPARE(p.naiveBytes, uint64_t(192));
        QCOMPARE(p.lowerBoundBytes, uint64_t(128));
        QCOMPARE(p.offsets[0], p.offsets[2]);
        QVERIFY(p.offsets[0] != p.offsets[1]);
        QCOMPARE(p.liveBytes, (std::vector<uint64_t>{64, 128, 128, 64}));
    }

    void largestFirstReachesTheLowerBound() {
        const MemoryPlan p = planMemory({{256, 0, 1}, {128, 1, 2}, {192, 2, 3}});
        QCOMPARE(p.lowerBoundBytes, uint64_t(384));
        QCOMPARE(p.arenaBytes, uint64_t(384));
        QCOMPARE(p.offsets[0], p.offsets[2]);  // the 192-byte tensor reuses the 256-byte slot
    }

    void smallestFittingGapIsChosen() {
        // Long-lived 128 and 64 byte tensors leave two holes (192 and 64 bytes) once the
        // short-lived ones die; a 64-byte tensor made later belongs in the 64-byte hole.
        const MemoryPlan p = planMemory({{192, 0, 0}, {128, 0, 9}, {64, 0, 0}, {64, 0, 9}, {64, 5, 6}});
        QCOMPARE(p.offsets[0], uint64_t(0));
        QCOMPARE(p.offsets[1], uint64_t(192));
        QCOMPARE(p.offsets[2], uint64_t(320));
        QCOMPARE(p.offsets[3], uint64_t(384));
        QCOMPARE(p.offsets[4], uint64_t(320));
        QCOMPARE(p.arenaBytes, uint64_t(448));
    }

    void elementwiseOpWritesOverADyingInput() {
        TensorLifetime x{64, 0, 1};
        TensorLifetime relu{64, 1, 2, /*inPlaceOf=*/0};
        const MemoryPlan p = planMemory({x, relu});
        QCOMPARE(p.inPlaceCount, 1);
        QCOMPARE(p.offsets[0], p.offsets[1]);
        QCOMPARE(p.arenaBytes, uint64_t(64));
        QCOMPARE(p.lowerBoundBytes, uint64_t(64));
        QCOMPARE(p.naiveBytes, uint64_t(128));
    }

    void inPlaceIsRefusedWhenTheInputLivesOn() {
        TensorLifetime x{64, 0, 2};  // read again at step 2
        TensorLifetime relu{64, 1, 2, 0};
        const MemoryPlan p = planMemory({x, relu});
        QCOMPARE(p.inPlaceCount, 0);
        QVERIFY(p.offsets[0] != p.offsets[1]);
        QCOMPARE(p.arenaBytes, uint64_t(128));
    }

    void inPlaceIsRefusedForABiggerOutputOrASecondTaker() {
        const MemoryPlan bigger = planMemory({{64, 0, 1}, {128, 1, 2, 0}});
        QCOMPARE(bigger.inPlaceCount, 0);
        const MemoryPlan twice = planMemory({{64, 0, 1}, {64, 1, 2, 0}, {64, 1, 3, 0}});
        QCOMPARE(twice.inPlaceCount, 1);
        QVERIFY(twice.offsets[1] != twice.offsets[2]);
    }

    void sizesAreRoundedToTheAlignment() {
        const MemoryPlan p = planMemory({{1, 0, 0}, {65, 0, 0}}, 64);
        QCOMPARE(p.naiveBytes, uint64_t(64 + 128));
        QCOMPARE(p.arenaBytes, uint64_t(192));
        QVERIFY(p.offsets[0] % 64 == 0 && p.offsets[1] % 64 == 0);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, planMemory({{1, 0, 0}}, 48));
    }

    void emptyPlanIsEmpty() {
        const MemoryPlan p = planMemory({});
        QCOMPARE(p.arenaBytes, uint64_t(0));
        QVERIFY(p.offsets.empty());
    }
};

QTEST_APPLESS_MAIN(TestMemoryPlanner)
#include "tst_memory_planner.moc"
