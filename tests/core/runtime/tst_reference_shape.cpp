// The shape-family reference kernels: Reshape's 0 and -1, string tensors moved like any other,
// numpy-style Slice clamping with negative steps, uneven Split, Pad modes and cropping, index ops
// with negative indices, scatter reductions, Unique's four outputs, and error sentences.
#include "core/graph/builder.h"
#include "core/runtime/executor.h"
#include "core/runtime/kernel.h"

#include "support/kernel_harness.h"

#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

class TestReferenceShape : public QObject {
    Q_OBJECT
private slots:
    void reshapeCopiesZerosAndInfersMinusOne() {
        const Tensor x = iota({2, 3, 4});
        const Tensor shape = Tensor::int64s({3}, {0, -1, 2});
        const Tensor y = runKernel("Reshape", {&x, &shape});
        QCOMPARE(y.dims(), (Dims{2, 6, 2}));
        QCOMPARE(values<float>(y), values<float>(x));
        const Tensor empty = Tensor::allocate(DType::Float, {0, 3});
        const Tensor zeroShape = Tensor::int64s({2}, {3, 0});
        QCOMPARE(runKernel("Reshape", {&empty, &zeroShape}, {{"allowzero", 1}}).dims(), (Dims{3, 0}));
    }

    void transposeDefaultReversesTheAxesOfAStringTensor() {
        const Tensor x = Tensor::fromStrings({2, 3}, {"a", "b", "c", "d", "e", "f"});
        const Tensor y = runKernel("Transpose", {&x});
        QCOMPARE(y.dims(), (Dims{3, 2}));
        QCOMPARE(y.strings(), (std::vector<std::string>{"a", "d", "b", "e", "c", "f"}));
    }

    void concatJoinsStringsAlongTheLastAxis() {
        const Tensor a = Tensor::fromStrings({2, 1}, {"a", "b"});
        const Tensor b = Tensor::fromStrings({2, 2}, {"c", "d", "e", "f"});
        const Tensor y = runKernel("Concat", {&a, &b}, {{"axis", -1}});
        QCOMPARE(y.strings(), (std::vector<std::string>{"a", "c", "d", "b", "e", "f"}));
    }

    void sliceClampsLikeNumpyWithNegativeSteps() {
        const Tensor x = iota({2, 5});
        const Tensor starts = Tensor::int64s({2}, {100, -1});
        const Tensor ends = Tensor::int64s({2}, {-100, -1000});
        const Tensor axes = Tensor::int64s({2}, {1, 0});
        const Tensor steps = Tensor::int64s({2}, {-2, -1});
        const Tensor y = runKernel("Slice", {&x, &starts, &ends, &axes, &steps});
        QCOMPARE(y.dims(), (Dims{2, 3}));
        QCOMPARE(values<float>(y), (Floats{9, 7, 5, 4, 2, 0}));
        const Tensor old = runKernel("Slice", {&x}, {{"starts", {1}}, {"ends", {3}}, {"axes", {1}}}, 9);
        QCOMPARE(values<float>(old), (Floats{1, 2, 6, 7}));
    }

    void splitGivesTheLastPartTheRemainderAndReadsTheSplitInput() {
        const Tensor x = iota({5});
        const auto parts = runKernelAll("Split", {&x}, {{"num_outputs", 2}}, 18, 2);
        QCOMPARE(values<float>(parts[0]), (Floats{0, 1, 2}));
        QCOMPARE(values<float>(parts[1]), (Floats{3, 4}));
        const Tensor sizes = Tensor::int64s({2}, {1, 4});
        const auto byInput = runKernelAll("Split", {&x, &sizes}, {}, 13, 2);
        QCOMPARE(byInput[1].dims(), (Dims{4}));
        const auto byAttribute = runKernelAll("Split", {&x}, {{"split", {4, 1}}}, 11, 2);
        QCOMPARE(values<float>(byAttribute[1]), (Floats{4}));
    }

    void padReflectsRepeatsEdgesAndCropsWithNegativePads() {
        const Tensor x = iota({3});
        const Tensor pads = Tensor::int64s({2}, {2, 1});
        QCOMPARE(values<float>(runKernel("Pad", {&x, &pads}, {{"mode", "reflect"}})), (Floats{2, 1, 0, 1, 2, 1}));
        QCOMPARE(values<float>(runKernel("Pad", {&x, &pads}, {{"mode", "edge"}})), (Floats{0, 0, 0, 1, 2, 2}));
        const Tensor crop = Tensor::int64s({2}, {-1, 2});
        const Tensor value = Tensor::scalar(7);
        QCOMPARE(values<float>(runKernel("Pad", {&x, &crop, &value})), (Floats{1, 2, 7, 7}));
        QCOMPARE(values<float>(runKernel("Pad", {&x}, {{"pads", {1, 0}}, {"value", 5.0f}}, 2)), (Floats{5, 0, 1, 2}));
    }

    void gatherWrapsNegativeIndicesAndRejectsOutOfRangeOnes() {
        const Tensor x = iota({3, 2});
        const Tensor indices = Tensor::int64s({2}, {-1, 0});
        QCOMPARE(values<float>(runKernel("Gather", {&x, &indices})), (Floats{4, 5, 0, 1}));
        const Tensor bad = Tensor::int64s({1}, {3});
        try {
            runKernel("Gather", {&x, &bad});
            QFAIL("an out-of-range index was accepted");
        } catch (const KernelError& e) {
            QCOMPARE(std::string(e.what()), std::string("the index 3 is out of range for a dimension of 3"));
        }
    }

    void gatherNDHonoursBatchDims() {
        const Tensor x = iota({2, 2, 2});
        const Tensor indices = Tensor::int64s({2, 1}, {1, 0});
        const Tensor y = runKernel("GatherND", {&x, &indices}, {{"batch_dims", 1}});
        QCOMPARE(y.dims(), (Dims{2, 2}));
        QCOMPARE(values<float>(y), (Floats{2, 3, 4, 5}));
    }

    void scattersAddUpDuplicateIndices() {
        const Tensor data = Tensor::floats({4}, {1, 1, 1, 1});
        const Tensor indices = Tensor::int64s({3}, {1, 1, -1});
        const Tensor updates = Tensor::floats({3}, {2, 3, 4});
        QCOMPARE(values<float>(runKernel("ScatterElements", {&data, &indices, &updates}, {{"reduction", "add"}})),
                 (Floats{1, 6, 1, 5}));
        const Tensor tuples = Tensor::int64s({2, 1}, {0, 0});
        const Tensor rows = Tensor::floats({2}, {3, 5});
        QCOMPARE(values<float>(runKernel("ScatterND", {&data, &tuples, &rows}, {{"reduction", "mul"}})),
                 (Floats{15, 1, 1, 1}));
    }

    void uniqueReturnsSortedValuesFirstIndicesInverseAndCounts() {
        const Tensor x = Tensor::floats({6}, {2, 1, 1, 3, 4, 3});
        const auto out = runKernelAll("Unique", {&x}, {}, 11, 4);
        QCOMPARE(values<float>(out[0]), (Floats{1, 2, 3, 4}));
        QCOMPARE(values<int64_t>(out[1]), (Ints{1, 0, 3, 4}));
        QCOMPARE(values<int64_t>(out[2]), (Ints{1, 0, 0, 2, 3, 2}));
        QCOMPARE(values<int64_t>(out[3]), (Ints{2, 1, 2, 1}));
    }

    void squeezeReadsAxesFromTheAttributeBeforeOpset13() {
        const Tensor x = iota({1, 3, 1});
        QCOMPARE(runKernel("Squeeze", {&x}, {{"axes", {0}}}, 11).dims(), (Dims{3, 1}));
        const Tensor axes = Tensor::int64s({1}, {-1});
        QCOMPARE(runKernel("Squeeze", {&x, &axes}, {}, 13).dims(), (Dims{1, 3}));
        QCOMPARE(runKernel("Squeeze", {&x}, {}, 13).dims(), (Dims{3}));
        try {
            runKernel("Squeeze", {&x}, {{"axes", {1}}}, 11);
            QFAIL("squeezing an axis of size 3 was accepted");
        } catch (const KernelError& e) {
            QCOMPARE(std::string(e.what()), std::string("cannot squeeze the axis 1 of size 3"));
        }
    }

    void shapeUnsqueezeAndExpandRunAsAGraph() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, {3});
        const ValueId axes = b.constant(Tensor::int64s({1}, {0}));
        const ValueId row = b.op("Unsqueeze", {x, axes});
        const ValueId target = b.constant(Tensor::int64s({2}, {2, 1}));
        b.output(b.op("Expand", {row, target}));
        const auto out = runReference(b.graph(), 13, {{"x", Tensor::floats({3}, {1, 2, 3})}});
        QCOMPARE(out.at(0).dims(), (Dims{2, 3}));
        QCOMPARE(values<float>(out.at(0)), (Floats{1, 2, 3, 1, 2, 3}));
    }

    // Tile and Expand copy whole runs and double blocks in place; each output element must still
    // be the input element its position names (position modulo the input's dims).
    void tileAndExpandPutEveryInputElementWhereItsPositionSays() {
        const auto expected = [](const Tensor& in, const Dims& inDims, const Dims& outDims) {
            Floats out;
            const int64_t count = checkedElementCount(outDims).value();
            for (int64_t linear = 0; linear < count; ++linear) {
                int64_t rest = linear, source = 0, stride = 1;
                for (size_t d = outDims.size(); d-- > 0;) {
                    source += (rest % outDims[d]) % inDims[d] * stride;
                    rest /= outDims[d];
                    stride *= inDims[d];
                }
                out.push_back(in.span<float>()[size_t(source)]);
            }
            return out;
        };
        const std::vector<std::pair<Dims, Ints>> tiles = {
            {{2, 3, 1}, {2, 1, 3}}, {{1}, {7}}, {{4}, {1}}, {{1, 1}, {3, 5}}, {{2, 1, 2, 3}, {1, 4, 2, 2}}, {{3, 2}, {0, 2}}};
        for (const auto& [dims, repeats] : tiles) {
            const Tensor x = iota(dims);
            const Tensor r = Tensor::int64s({int64_t(repeats.size())}, repeats);
            const Tensor out = runKernel("Tile", {&x, &r});
            Dims outDims;
            for (size_t d = 0; d < dims.size(); ++d) outDims.push_back(dims[d] * repeats[d]);
            QCOMPARE(out.dims(), outDims);
            QCOMPARE(values<float>(out), expected(x, dims, outDims));
        }
        const Tensor column = iota({3, 1});
        const Tensor shape = Tensor::int64s({3}, {2, 1, 4});
        const Tensor expanded = runKernel("Expand", {&column, &shape});
        QCOMPARE(expanded.dims(), (Dims{2, 3, 4}));
        QCOMPARE(values<float>(expanded), expected(column, {1, 3, 1}, {2, 3, 4}));
        const Tensor scalar = Tensor::scalar(2.5f);
        const Tensor none = Tensor::int64s({0}, {});
        QCOMPARE(values<float>(runKernel("Tile", {&scalar, &none})), (Floats{2.5f}));
        const Tensor words = Tensor::fromStrings({2}, {"a", "b"});
        const Tensor twice = Tensor::int64s({1}, {2});
        QCOMPARE(runKernel("Tile", {&words, &twice}).strings(), (std::vector<std::string>{"a", "b", "a", "b"}));
    }

    // Empty tensors with huge leading dims ([2^62, 2, 0]) are moved without walking their rows.
    void emptyTensorsWithHugeLeadingDimsMoveAtOnce() {
        const int64_t huge = int64_t(1) << 62;
        const Tensor x = Tensor::allocate(DType::Float, {huge, 2, 0});
        const Tensor twice = runKernel("Concat", {&x, &x}, {{"axis", int64_t(1)}});
        QCOMPARE(twice.dims(), (Dims{huge, 4, 0}));
        const Tensor index = Tensor::int64s({3}, {1, 0, -1});
        QCOMPARE(runKernel("Gather", {&x, &index}, {{"axis", int64_t(1)}}).dims(), (Dims{huge, 3, 0}));
        const Tensor outOfRange = Tensor::int64s({1}, {2});
        QVERIFY_THROWS_EXCEPTION(KernelError, runKernel("Gather", {&x, &outOfRange}, {{"axis", int64_t(1)}}));
        const auto halves = runKernelAll("Split", {&x}, {{"axis", int64_t(1)}}, 13, 2);
        QCOMPARE(halves.at(1).dims(), (Dims{huge, 1, 0}));
        const Tensor keep = Tensor::fromVector(DType::Bool, {2}, std::vector<uint8_t>{0, 1});
        QCOMPARE(runKernel("Compress", {&x, &keep}, {{"axis", int64_t(1)}}).dims(), (Dims{huge, 1, 0}));
        QCOMPARE(runKernel("Unique", {&x}, {{"axis", int64_t(1)}}).dims(), (Dims{huge, 1, 0}));
    }
};

QTEST_APPLESS_MAIN(TestReferenceShape)
#include "tst_reference_shape.moc"
