// Sequence and optional values (Tensor::sequence, Tensor::optional) and their reference kernels:
// split and concatenated back, inserted, erased and read by position (negative ones too),
// SequenceMap over two sequences on the executor, a Loop growing a sequence in place (and values
// others hold left as they were), optionals with and without a value, the
// sentences out-of-range positions and mismatched tensors get, and a sequence graph compiled
// by the CPU backend (its reference kernels run the sequence ops), whose output compares
// element by element. The ONNX backend cases (tests/conformance) cover the file formats.
#include "core/graph/builder.h"
#include "core/onnx/onnx_error.h"
#include "core/onnx/tensor_file.h"
#include "core/onnx/tensor_proto.h"
#include "core/passes/pass_manager.h"
#include "core/passes/pass_registry.h"
#include "core/runtime/backend.h"
#include "core/runtime/executor.h"
#include "core/runtime/kernel.h"
#include "core/runtime/tensor_compare.h"

#include "support/kernel_harness.h"
#include "support/pass_harness.h"

#include <QTemporaryDir>
#include <QtTest>

#include <onnx/onnx_pb.h>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

/// The sentence of the KernelError `op` throws on `inputs`; empty when it throws none.
std::string errorOf(const std::string& op, std::vector<const Tensor*> inputs, Attributes attributes = {}) {
    try {
        runKernel(op, std::move(inputs), std::move(attributes));
    } catch (const KernelError& e) {
        return e.what();
    }
    return {};
}

Tensor seqOf(std::vector<Tensor> elements) {
    const DType type = elements.empty() ? DType::Float : elements[0].dtype();
    return Tensor::sequence(type, std::move(elements));
}

} // namespace

class TestReferenceSequence : public QObject {
    Q_OBJECT
private slots:
    void splitToSequenceAndConcatFromSequenceRoundTrip() {
        const Tensor x = iota({2, 5});
        const Tensor split = Tensor::int64s({2}, {2, 3});
        const Tensor s = runKernel("SplitToSequence", {&x, &split}, {{"axis", 1}});
        QVERIFY(s.isSequence());
        QCOMPARE(s.dtype(), DType::Float);
        QCOMPARE(s.elements().size(), size_t(2));
        QCOMPARE(s.elements()[0].dims(), (Dims{2, 2}));
        QCOMPARE(values<float>(s.elements()[0]), (Floats{0, 1, 5, 6}));
        QCOMPARE(values<float>(s.elements()[1]), (Floats{2, 3, 4, 7, 8, 9}));
        QCOMPARE(values<int64_t>(runKernel("SequenceLength", {&s})), (Ints{2}));
        const Tensor back = runKernel("ConcatFromSequence", {&s}, {{"axis", 1}});
        QVERIFY(back.contentEquals(x));
        // A scalar split: chunks of that size, the last one shorter.
        const Tensor three = Tensor::int64s({}, {3});
        const Tensor chunks = runKernel("SplitToSequence", {&x, &three}, {{"axis", -1}});
        QCOMPARE(chunks.elements().size(), size_t(2));
        QCOMPARE(chunks.elements()[1].dims(), (Dims{2, 2}));
        QCOMPARE(values<float>(chunks.elements()[1]), (Floats{3, 4, 8, 9}));
    }

    void splitWithoutSizesDropsTheAxisAndNewAxisStacksItBack() {
        const Tensor x = iota({3, 2});
        const Tensor rows = runKernel("SplitToSequence", {&x}, {{"axis", 0}, {"keepdims", 0}});
        QCOMPARE(rows.elements().size(), size_t(3));
        QCOMPARE(rows.elements()[2].dims(), (Dims{2}));
        QCOMPARE(values<float>(rows.elements()[2]), (Floats{4, 5}));
        QVERIFY(runKernel("ConcatFromSequence", {&rows}, {{"axis", 0}, {"new_axis", 1}}).contentEquals(x));
        // Stacked along a new last axis: the transpose.
        const Tensor columns = runKernel("ConcatFromSequence", {&rows}, {{"axis", -1}, {"new_axis", 1}});
        QCOMPARE(columns.dims(), (Dims{2, 3}));
        QCOMPARE(values<float>(columns), (Floats{0, 2, 4, 1, 3, 5}));
    }

    void constructInsertEraseAndAtByPosition() {
        const Tensor a = Tensor::floats({1}, {1}), b = Tensor::floats({2}, {2, 3}), c = Tensor::floats({}, {4});
        Tensor s = runKernel("SequenceConstruct", {&a, &b});
        const Tensor front = Tensor::int64s({}, {-2});  // before element 0 of two
        s = runKernel("SequenceInsert", {&s, &c, &front});
        QCOMPARE(s.elements().size(), size_t(3));
        QVERIFY(s.elements()[0].contentEquals(c));
        const Tensor last = Tensor::int64s({}, {-1});
        QVERIFY(runKernel("SequenceAt", {&s, &last}).contentEquals(b));
        const Tensor one = Tensor::int64s({}, {1});
        s = runKernel("SequenceErase", {&s, &one});
        QVERIFY(s.contentEquals(seqOf({c, b})));
        s = runKernel("SequenceErase", {&s});  // the last one by default
        QVERIFY(s.contentEquals(seqOf({c})));
        const Tensor empty = runKernel("SequenceEmpty", {}, {{"dtype", int64_t(7)}});
        QVERIFY(empty.isSequence() && !empty.empty());
        QCOMPARE(empty.dtype(), DType::Int64);
        QCOMPARE(values<int64_t>(runKernel("SequenceLength", {&empty})), (Ints{0}));
    }

    void badPositionsAndMismatchedTensorsGetASentence() {
        const Tensor a = Tensor::floats({2}, {1, 2}), b = Tensor::floats({3}, {1, 2, 3});
        const Tensor s = seqOf({a, b});
        const Tensor two = Tensor::int64s({}, {2});
        QCOMPARE(errorOf("SequenceAt", {&s, &two}), std::string("the position 2 is outside [-2, 1] for a sequence of 2 elements"));
        const Tensor ints = Tensor::int64s({1}, {5});
        QCOMPARE(errorOf("SequenceInsert", {&s, &ints}), std::string("a tensor of int64 cannot join a sequence of float"));
        QCOMPARE(errorOf("ConcatFromSequence", {&s}, {{"axis", 0}, {"new_axis", 1}}),
                 std::string("the sequence's tensors [1,2] and [1,3] differ off the concatenation axis"));
        QCOMPARE(errorOf("SequenceAt", {&a, &two}), std::string("input 0 is not a sequence"));
        const Tensor none = Tensor::optional(DType::Float, std::nullopt);
        QCOMPARE(errorOf("OptionalGetElement", {&none}), std::string("OptionalGetElement of an optional that holds no value"));
        // A billion empty slices are refused before any is made.
        const Tensor huge = Tensor::allocate(DType::Float, {1'000'000'000, 0});
        QCOMPARE(errorOf("SplitToSequence", {&huge}),
                 std::string("SplitToSequence would make a sequence of 1000000000 tensors; at most 1048576 are allowed"));
    }

    void optionalsWithAndWithoutAValue() {
        const Tensor x = Tensor::floats({2}, {1, 2});
        const Tensor some = runKernel("Optional", {&x});
        QVERIFY(some.isOptional());
        QCOMPARE(values<uint8_t>(runKernel("OptionalHasElement", {&some})), (std::vector<uint8_t>{1}));
        QVERIFY(runKernel("OptionalGetElement", {&some}).contentEquals(x));
        const Tensor none = runKernel("Optional", {});
        QVERIFY(none.isOptional() && !none.empty() && none.elements().empty());
        QCOMPARE(values<uint8_t>(runKernel("OptionalHasElement", {&none})), (std::vector<uint8_t>{0}));
        QCOMPARE(values<uint8_t>(runKernel("OptionalHasElement", {nullptr}, {}, 18)), (std::vector<uint8_t>{0}));
        // Opset 18: a plain tensor is its own element.
        QVERIFY(runKernel("OptionalGetElement", {&x}, {}, 18).contentEquals(x));
        // Optionals compare by kind and value.
        QVERIFY(!compareTensors(none, some).matches);
        QCOMPARE(compareTensors(none, some).mismatch, std::string("no value instead of one"));
    }

    void valueFilesRoundTripSequencesAndOptionals() {
        // What `graphlens run --output-dir` writes and `--input` reads: SequenceProto and
        // OptionalProto files, read by the type the model declares.
        QTemporaryDir dir;
        onnx::TypeProto seqType;
        seqType.mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
        onnx::TypeProto optType;
        *optType.mutable_optional_type()->mutable_elem_type() = seqType;
        const Tensor s = seqOf({iota({2}), iota({1, 3})});
        const std::filesystem::path seqFile = dir.filePath("seq.pb").toStdString(), optFile = dir.filePath("opt.pb").toStdString();
        writeTensorFile(seqFile, s, "s");
        QVERIFY(readValueFile(seqFile, seqType.SerializeAsString()).contentEquals(s));
        const Tensor some = Tensor::optional(DType::Float, s), none = Tensor::optional(DType::Float, std::nullopt);
        writeTensorFile(optFile, some, "o");
        QVERIFY(readValueFile(optFile, optType.SerializeAsString()).contentEquals(some));
        writeTensorFile(optFile, none, "o");
        const Tensor back = readValueFile(optFile, optType.SerializeAsString());
        QVERIFY(back.isOptional() && back.elements().empty());
        // Nothing writes a sequence as if it were a tensor.
        try {
            onnx::TensorProto proto;
            tensorToProto(s, proto);
            QFAIL("a sequence was written as a tensor");
        } catch (const OnnxError& e) {
            QCOMPARE(std::string(e.what()), std::string("a sequence or an optional value cannot be written as a tensor"));
        }
    }

    void sequenceMapRunsItsBodyPerElementOnTheExecutor() {
        // y = SequenceMap(xs, ys) with body (a, b) -> Add(a, b): element-wise sums of two sequences.
        GraphBuilder body;
        const ValueId a = body.input("a", DType::Float, Shape::ofSizes({2}));
        const ValueId b = body.input("b", DType::Float, Shape::ofSizes({2}));
        body.output(body.op("Add", {a, b}, {}, "add"));
        GraphBuilder g;
        const ValueId xs = g.input("xs", DType::Undefined, Shape());
        const ValueId ys = g.input("ys", DType::Undefined, Shape());
        g.output(g.op("SequenceMap", {xs, ys}, {{"body", std::make_shared<Graph>(body.graph())}}, "map"));
        const Tensor x0 = Tensor::floats({2}, {1, 2}), x1 = Tensor::floats({2}, {3, 4});
        const Tensor y0 = Tensor::floats({2}, {10, 20}), y1 = Tensor::floats({2}, {30, 40});
        const std::vector<Tensor> out = runReference(g.graph(), 17, {{"xs", seqOf({x0, x1})}, {"ys", seqOf({y0, y1})}});
        const Tensor expected = seqOf({Tensor::floats({2}, {11, 22}), Tensor::floats({2}, {33, 44})});
        QVERIFY(out.at(0).contentEquals(expected));
        QVERIFY(compareTensors(out.at(0), expected).matches);
        const Tensor shorter = seqOf({y0});
        try {
            runReference(g.graph(), 17, {{"xs", seqOf({x0, x1})}, {"ys", shorter}});
            QFAIL("sequences of different lengths were mapped");
        } catch (const std::exception& e) {
            QVERIFY2(std::string(e.what()).find("the input sequences have different lengths") != std::string::npos, e.what());
        }
    }

    void releaseElementsMovesOnlyWhatNoOtherTensorHolds() {
        Tensor alone = seqOf({Tensor::floats({1}, {1}), Tensor::floats({1}, {2})});
        const Tensor* storage = alone.elements().data();
        const std::vector<Tensor> moved = std::move(alone).releaseElements();
        QCOMPARE(moved.data(), storage);
        QVERIFY(alone.empty());
        const Tensor kept = seqOf({Tensor::floats({1}, {1}), Tensor::floats({1}, {2})});
        Tensor shared = kept;
        std::vector<Tensor> copied = std::move(shared).releaseElements();
        QVERIFY(copied.data() != kept.elements().data());
        copied.pop_back();
        QCOMPARE(kept.elements().size(), size_t(2));
    }

    void aLoopGrowsASequenceByInsertionWithoutTouchingValuesOthersHold() {
        // Loop(n) { s = SequenceInsert(s, i) } then ConcatFromSequence(new_axis): 0 .. n-1. The
        // body takes the carried sequence as its last reader and appends in place; 40,000 steps
        // are 40,000 insertions (a copy per step made this 800 million tensor copies).
        GraphBuilder body("body");
        const ValueId i = body.input("i", DType::Int64, Shape::ofSizes({}));
        const ValueId cond = body.input("cond", DType::Bool, Shape::ofSizes({}));
        const ValueId sIn = body.input("s_in", DType::Undefined, Shape());
        body.output(cond);
        body.output(body.op("SequenceInsert", {sIn, i}, {}, "insert"));
        GraphBuilder g;
        const ValueId n = g.input("n", DType::Int64, Shape::ofSizes({}));
        const ValueId yes = g.initializer("yes", Tensor::fromVector<uint8_t>(DType::Bool, {}, {1}));
        const ValueId empty = g.op("SequenceEmpty", {}, {{"dtype", int64_t(7)}}, "empty");
        const ValueId grown = g.op("Loop", {n, yes, empty}, {{"body", std::make_shared<Graph>(body.graph())}}, "loop");
        g.output(g.op("ConcatFromSequence", {grown}, {{"axis", int64_t(0)}, {"new_axis", int64_t(1)}}, "stack"));
        constexpr int64_t steps = 40000;
        const std::vector<Tensor> out = runReference(g.graph(), 17, {{"n", Tensor::int64s({}, {steps})}});
        QCOMPARE(out.at(0).dims(), (Dims{steps}));
        const std::vector<int64_t> got = values<int64_t>(out.at(0));
        for (int64_t k = 0; k < steps; ++k)
            if (got[size_t(k)] != k) QFAIL(qPrintable(QString("element %1 is %2").arg(k).arg(got[size_t(k)])));

        // A sequence another node still reads, a graph output and a caller's feed keep their
        // elements: s is the graph output "before", and "after" = SequenceErase(SequenceInsert(s, t)).
        GraphBuilder h;
        const ValueId s = h.input("s", DType::Undefined, Shape());
        const ValueId t = h.input("t", DType::Float, Shape::ofSizes({1}));
        const ValueId copy = h.op("Identity", {s}, {}, "copy");
        const ValueId inserted = h.op("SequenceInsert", {copy, t}, {}, "insert");
        const ValueId length = h.op("SequenceLength", {copy}, {}, "length");
        h.output(copy);
        h.output(length);
        h.output(h.op("SequenceErase", {inserted}, {}, "erase_last"));
        const Tensor fed = seqOf({Tensor::floats({1}, {1}), Tensor::floats({1}, {2})});
        const std::vector<Tensor> r = runReference(h.graph(), 17, {{"s", fed}, {"t", Tensor::floats({1}, {3})}});
        QCOMPARE(fed.elements().size(), size_t(2));
        QVERIFY(r.at(0).contentEquals(fed));
        QCOMPARE(values<int64_t>(r.at(1)), (Ints{2}));
        QVERIFY(r.at(2).contentEquals(fed));
        GraphBuilder k;
        const ValueId fedIn = k.input("s", DType::Undefined, Shape());
        k.output(k.op("SequenceInsert", {fedIn, k.input("t", DType::Float, Shape::ofSizes({1}))}, {}, "insert"));
        const std::vector<Tensor> longer = runReference(k.graph(), 17, {{"s", fed}, {"t", Tensor::floats({1}, {3})}});
        QCOMPARE(longer.at(0).elements().size(), size_t(3));
        QCOMPARE(fed.elements().size(), size_t(2));
    }

    void theCpuBackendRunsASequenceGraphAndFoldingLeavesItsSequencesAlone() {
        // x [4, 3] -> SplitToSequence (rows) -> SequenceErase(position 0) -> ConcatFromSequence
        // (axis 0) -> Relu: the last three rows, on the CPU plan (reference kernels for the
        // sequence ops, the optimized one for Relu).
        GraphBuilder g;
        const ValueId x = g.input("x", DType::Float, Shape::ofSizes({4, 3}));
        const ValueId rows = g.op("SplitToSequence", {x}, {{"axis", int64_t(0)}}, "split");
        const ValueId zero = g.initializer("zero", Tensor::int64s({}, {0}));
        const ValueId rest = g.op("SequenceErase", {rows, zero}, {}, "erase");
        const ValueId joined = g.op("ConcatFromSequence", {rest}, {{"axis", int64_t(0)}}, "concat");
        g.output(g.op("Relu", {joined}, {}, "relu"));
        Model m = g.model(17);
        Tensor input = iota({4, 3});
        input.mutableSpan<float>()[4] = -5.f;
        const std::vector<Tensor> out = makeCpuBackend()->compile(m, {})->run({{"x", input}});
        QCOMPARE(out.at(0).dims(), (Dims{3, 3}));
        QCOMPARE(values<float>(out.at(0)), (Floats{3, 0, 5, 6, 7, 8, 9, 10, 11}));
        // A constant sequence is never folded into an initializer (none can hold one).
        GraphBuilder c;
        const ValueId k = c.initializer("k", Tensor::floats({2}, {1, 2}));
        const ValueId s = c.op("SequenceConstruct", {k, k}, {}, "construct");
        c.output(c.op("ConcatFromSequence", {s}, {{"axis", int64_t(0)}}, "concat"));
        Model folded = c.model(17);
        PassContext context;
        context.opset = 17;
        const PassResult r = runPass(*makePipeline("fold-constants").front(), folded, context);
        QCOMPARE(countOps(folded.graph, "SequenceConstruct"), 1);
        bool said = false;
        for (const auto& d : r.declines)
            said = said || d.reason.find("its result is a sequence or an optional, which no initializer can hold") != std::string::npos;
        QVERIFY(said);
    }
};

QTEST_GUILESS_MAIN(TestReferenceSequence)
#include "tst_reference_sequence.moc"
