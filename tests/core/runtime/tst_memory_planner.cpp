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

    void concatInputsLiveInsideItsOutput() {
        // a (step 0) and b (step 1) are the two halves of c = Concat(a, b) (step 2), which lives
        // to step 4: one 128-byte buffer from step 0, a at its start and b at 64; the tensor made
        // at step 1 beside them and read at 2 goes elsewhere.
        TensorLifetime a{64, 0, 2}, b{64, 1, 2}, other{64, 1, 2}, c{128, 2, 4};
        a.partOf = 3, b.partOf = 3, b.offsetInOwner = 64;
        const MemoryPlan p = planMemory({a, b, other, c});
        QCOMPARE(p.partCount, 2);
        QCOMPARE(p.offsets[0], p.offsets[3]);
        QCOMPARE(p.offsets[1], p.offsets[3] + 64);
        QVERIFY(p.offsets[2] + 64 <= p.offsets[3] || p.offsets[2] >= p.offsets[3] + 128);
        QCOMPARE(p.arenaBytes, uint64_t(192));
        QCOMPARE(p.liveBytes, (std::vector<uint64_t>{128, 192, 192, 128, 128}));
    }

    void partsNestAndTakeNoInPlaceSharing() {
        // DenseNet's chain: c1 = Concat(x, f1), c2 = Concat(c1, f2); everything in c2's buffer.
        // A Relu of f1 that would take f1's buffer (its last reader) must not: f1 lives in c1.
        TensorLifetime x{64, 0, 1}, f1{64, 1, 2}, relu{64, 2, 3, /*inPlaceOf=*/1}, c1{128, 2, 4}, f2{64, 3, 4}, c2{192, 4, 5};
        x.partOf = 3, f1.partOf = 3, f1.offsetInOwner = 64;
        c1.partOf = 5, f2.partOf = 5, f2.offsetInOwner = 128;
        const MemoryPlan p = planMemory({x, f1, relu, c1, f2, c2});
        QCOMPARE(p.partCount, 4);
        QCOMPARE(p.inPlaceCount, 0);
        QCOMPARE(p.offsets[0], p.offsets[5]);
        QCOMPARE(p.offsets[1], p.offsets[5] + 64);
        QCOMPARE(p.offsets[3], p.offsets[5]);
        QCOMPARE(p.offsets[4], p.offsets[5] + 128);
        QVERIFY(p.offsets[2] >= p.offsets[5] + 192 || p.offsets[2] + 64 <= p.offsets[5]);
        QCOMPARE(p.arenaBytes, uint64_t(256));
    }

    void aPartThatDoesNotFitKeepsItsOwnBuffer() {
        TensorLifetime a{64, 0, 1}, c{96, 1, 2};
        a.partOf = 1, a.offsetInOwner = 64;  // 64 + 64 > 96
        const MemoryPlan p = planMemory({a, c});
        QCOMPARE(p.partCount, 0);
        QVERIFY(p.offsets[0] != p.offsets[1]);
    }

    void emptyPlanIsEmpty() {
        const MemoryPlan p = planMemory({});
        QCOMPARE(p.arenaBytes, uint64_t(0));
        QVERIFY(p.offsets.empty());
    }
};

QTEST_APPLESS_MAIN(TestMemoryPlanner)
#include "tst_memory_planner.moc"
