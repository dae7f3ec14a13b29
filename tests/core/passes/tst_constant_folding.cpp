// fold-constants: constant chains become initializers under their own names; random ops,
// sub-graphs, other domains, DequantizeLinear and results over the size cap stay.
#include "core/graph/builder.h"
#include "core/graph/large_buffer.h"
#include "core/onnx/exporter.h"
#include "core/onnx/loader.h"
#include "core/passes/constant_folding.h"
#include "support/kernel_harness.h"
#include "support/pass_harness.h"
#include "support/proto_fixtures.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

/// Runs pass `id` once without numeric verification (for graphs the runtime cannot run).
PassResult runUnverified(Model& model, const std::string& id, PassContext context = {}) {
    auto passes = makePipeline(id);
    return runPass(*passes.front(), model, context);
}

std::vector<float> floatsOf(const Tensor& t) {
    auto s = t.span<float>();
    return {s.begin(), s.end()};
}

/// x[4,128] -> MatMul(x, Transpose(w)) -> y, w [160,128] in raw data large enough (80 KiB) for
/// the loader to read it into a buffer of its own; with `secondReader`, w is also read by a Mul.
/// A [160,128] float weight named `name` whose values `shift` tells apart.
void addWeight(onnx::GraphProto& g, const std::string& name, std::vector<int64_t> dims, float shift) {
    std::string raw(160 * 128 * sizeof(float), '\0');
    for (size_t i = 0; i < 160 * 128; ++i) {
        const float v = float(i % 977) * 0.25f - 100.f + shift;
        std::memcpy(raw.data() + i * sizeof v, &v, sizeof v);
    }
    auto* w = g.add_initializer();
    w->set_name(name);
    w->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) w->add_dims(d);
    w->set_raw_data(raw);
}

/// y = x + Transpose(w), w [160,128] (an Add: a matrix product would read w transposed itself,
/// and fold-constants leaves it that Transpose); with `secondReader` a Mul reads w too; with
/// `secondLayer` y2 = x2 + Transpose(w2), w2 [128,160]: a weight of w's byte size.
onnx::ModelProto transposedWeightModel(bool secondReader, bool secondLayer = false) {
    onnx::ModelProto p = emptyModel();
    auto& g = *p.mutable_graph();
    addInput(g, "x", {128, 160});
    addWeight(g, "w", {160, 128}, 0.f);
    addNode(g, "Transpose", {"w"}, {"wt"}, "wt");
    addNode(g, "Add", {"x", "wt"}, {"y"}, "add");
    addOutput(g, "y", {128, 160});
    if (secondReader) {
        addInput(g, "z", {160, 128});
        addNode(g, "Mul", {"w", "z"}, {"wz"}, "mul");
        addOutput(g, "wz", {160, 128});
    }
    if (secondLayer) {
        addWeight(g, "w2", {128, 160}, 7.f);
        addNode(g, "Transpose", {"w2"}, {"w2t"}, "w2t");
        addInput(g, "x2", {160, 128});
        addNode(g, "Add", {"x2", "w2t"}, {"y2"}, "add2");
        addOutput(g, "y2", {160, 128});
    }
    return p;
}

/// Initializer `k` of `p` ([160,128] or [128,160]) transposed, as the reference would store it.
std::vector<float> transposedWeight(const onnx::ModelProto& p, int k = 0) {
    const auto& init = p.graph().initializer(k);
    const std::string& raw = init.raw_data();
    const size_t rows = size_t(init.dims(0)), cols = size_t(init.dims(1));
    std::vector<float> out(rows * cols);
    for (size_t r = 0; r < cols; ++r)
        for (size_t c = 0; c < rows; ++c) std::memcpy(&out[r * rows + c], raw.data() + (c * cols + r) * 4, 4);
    return out;
}

} // namespace

class TestConstantFolding : public QObject {
    Q_OBJECT
private slots:
    void foldsAConstantChainIntoOneInitializer() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 3});
        auto w = b.initializer("w", Tensor::floats({3, 2}, {1, 2, 3, 4, 5, 6}));
        auto wt = b.op("Transpose", {w}, {{"perm", std::vector<int64_t>{1, 0}}}, "wt");
        auto scaled = b.op("Mul", {wt, b.constant(Tensor::scalar(2.0f), "two")}, {}, "scaled");
        b.output(b.op("Add", {x, scaled}, {}, "add"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "fold-constants");
        QCOMPARE(m.graph.nodeCount(), size_t(1));
        QCOMPARE(countOps(m.graph, "Add"), 1);
        QCOMPARE(out.result.counter("numFolded"), int64_t(2));
        QCOMPARE(out.result.counter("numConstantNodesRemoved"), int64_t(1));
        // The folded value keeps its name and id: the Add reads 'scaled', now an initializer.
        const ValueId folded = m.graph.node(m.graph.nodeIds()[0]).input(1);
        QCOMPARE(m.graph.value(folded).name, std::string("scaled_out"));
        QCOMPARE(floatsOf(*m.graph.constantValue(folded)), (std::vector<float>{2, 6, 10, 4, 8, 12}));
        QCOMPARE(m.graph.value(folded).shape, Shape({2, 3}));
        QVERIFY(!m.graph.findValue("w"));   // read only by the folded Transpose
        QVERIFY(!m.graph.findValue("wt_out"));  // folded into 'scaled_out'
        QCOMPARE(out.result.rewrites.size(), size_t(2));
        QCOMPARE(out.result.rewrites[0].sentence, std::string("folded Transpose 'wt' into the constant 'wt_out' (24 bytes)"));
        QVERIFY(out.verification.passed);
        QCOMPARE(out.verification.maxAbsError, 0.0);
    }

    void foldsIntoAGraphOutputKeepingItsName() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {4});
        b.output(b.op("Relu", {x}, {}, "relu"));
        b.output(b.op("Neg", {b.initializer("c", Tensor::floats({2}, {1, -2}))}, {}, "negated"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "fold-constants");
        QCOMPARE(m.graph.nodeCount(), size_t(1));
        QCOMPARE(m.graph.value(m.graph.outputs()[1]).name, std::string("negated_out"));
        QCOMPARE(floatsOf(*m.graph.value(m.graph.outputs()[1]).initializer), (std::vector<float>{-1, 2}));
        QVERIFY(out.verification.passed);
        QCOMPARE(out.verification.outputsCompared, size_t(2));
    }

    void leavesGraphInputsWithDefaultsAlone() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2});
        auto bias = b.initializer("bias", Tensor::floats({2}, {1, 2}));  // a default the caller may override
        b.graph().setInputs({x, bias});
        b.output(b.op("Add", {x, b.op("Neg", {bias}, {}, "neg")}, {}, "add"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "fold-constants");
        QCOMPARE(countOps(m.graph, "Neg"), 1);
        QCOMPARE(out.result.rewrites.size(), size_t(0));
        QVERIFY(out.verification.passed);
    }

    void foldsIntegerShapeArithmeticAndKeepsSharedConstants() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 3, 4});
        auto dims = b.constant(Tensor::int64s({2}, {2, 12}), "dims");
        auto shape = b.op("Concat", {b.op("Slice", {dims, b.initializer("s0", Tensor::int64s({1}, {0})),
                                                    b.initializer("s1", Tensor::int64s({1}, {1}))}, {}, "first"),
                                     b.initializer("rest", Tensor::int64s({1}, {-1}))},
                          {{"axis", int64_t(0)}}, "target");
        auto r = b.op("Reshape", {x, shape}, {}, "reshape");
        b.output(b.op("Relu", {r}, {}, "relu"));
        b.output(b.op("Cast", {dims}, {{"to", int64_t(DType::Float)}}, "dims_f"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "fold-constants");
        QCOMPARE(countOps(m.graph, "Slice") + countOps(m.graph, "Concat") + countOps(m.graph, "Cast"), 0);
        QCOMPARE(countOps(m.graph, "Reshape"), 1);
        QCOMPARE(countOps(m.graph, "Constant"), 0);  // its last reader, the Cast, was folded
        QCOMPARE(out.result.counter("numFolded"), int64_t(3));
        const Tensor* target = m.graph.constantValue(*m.graph.findValue("target_out"));
        QVERIFY(target);
        QCOMPARE(values<int64_t>(*target), (std::vector<int64_t>{2, -1}));
        QVERIFY(out.verification.passed);
    }

    void transposesAndConcatsFoldOnTheCpuKernelsToTheReferenceBytes() {
        // Transpose and Concat fold on the optimized CPU kernels (tiled, into huge-page storage);
        // the stored tensors must be the reference kernel's bytes, including where a shape the
        // graph states is wrong (the kernel then declines and the reference folds the node).
        GraphBuilder b;
        auto w = b.initializer("w", seeded({67, 45}, 3));
        auto wt = b.op("Transpose", {w}, {{"perm", std::vector<int64_t>{1, 0}}}, "wt");
        auto ids = b.initializer("ids", Tensor::int64s({3, 5, 7}, [] {
            std::vector<int64_t> v(105);
            for (size_t i = 0; i < v.size(); ++i) v[i] = int64_t(i) * 1000003 - 7;
            return v;
        }()));
        auto idsT = b.op("Transpose", {ids}, {{"perm", std::vector<int64_t>{2, 0, 1}}}, "ids_t");
        auto joined = b.op("Concat", {wt, b.initializer("extra", seeded({45, 5}, 4))}, {{"axis", int64_t(1)}}, "joined");
        auto misstated = b.op("Transpose", {b.initializer("m", seeded({6, 4}, 5))}, {}, "misstated");
        b.output(b.op("Add", {b.input("x", DType::Float, {45, 72}), joined}, {}, "add"));
        b.output(b.op("Add", {b.input("i", DType::Int64, {7, 3, 5}), idsT}, {}, "add_ids"));
        b.output(b.op("Add", {b.input("y", DType::Float, {4, 6}), misstated}, {}, "add_m"));
        b.output(wt);  // read by the Concat too, so it stays once that is folded
        Model m = withShapes(b.model());
        m.graph.value(*m.graph.findValue("misstated_out")).shape = Shape({2, 12});  // really [4, 6]
        std::map<std::string, Tensor> expected;
        for (const char* name : {"wt", "ids_t", "misstated"}) {
            const Node& n = m.graph.node(*m.graph.findNode(name));
            expected[name] = evaluateOnConstants(m.graph, n, 17).at(0);
        }
        const Model before = m;
        const PassResult result = runUnverified(m, "fold-constants");
        QCOMPARE(countOps(m.graph, "Transpose") + countOps(m.graph, "Concat"), 0);
        for (const auto& [name, want] : expected) {
            const Tensor* got = m.graph.constantValue(*m.graph.findValue(name + "_out"));
            QVERIFY2(got && got->contentEquals(want), name.c_str());
        }
        const Tensor* joinedNow = m.graph.constantValue(*m.graph.findValue("joined_out"));
        QVERIFY(joinedNow);
        QCOMPARE(joinedNow->dims(), (std::vector<int64_t>{45, 72}));
        const auto rows = joinedNow->span<float>();
        const auto wtRows = expected["wt"].span<float>();
        const auto extra = before.graph.constantValue(*before.graph.findValue("extra"))->span<float>();
        for (size_t r = 0; r < 45; ++r) {
            QVERIFY(std::equal(wtRows.begin() + std::ptrdiff_t(r * 67), wtRows.begin() + std::ptrdiff_t(r * 67 + 67),
                               rows.begin() + std::ptrdiff_t(r * 72)));
            QVERIFY(std::equal(extra.begin() + std::ptrdiff_t(r * 5), extra.begin() + std::ptrdiff_t(r * 5 + 5),
                               rows.begin() + std::ptrdiff_t(r * 72 + 67)));
        }
        QCOMPARE(result.counter("numFolded"), int64_t(4));
    }

    void declinesResultsOverTheSizeCapThatGrowTheModel() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {64, 64});
        auto w = b.initializer("w", iota({64, 64}));  // 16 KiB
        auto wt = b.op("Transpose", {w}, {{"perm", std::vector<int64_t>{1, 0}}}, "wt");
        auto big = b.op("Tile", {b.initializer("row", iota({1, 64})), b.initializer("reps", Tensor::int64s({2}, {64, 1}))},
                        {}, "tiled");
        b.output(b.op("Add", {b.op("Add", {x, wt}, {}, "add1"), big}, {}, "add2"));
        Model m = withShapes(b.model());
        PassContext context;
        context.foldSizeLimitBytes = 1024;
        const CheckedPass out = runPassChecked(m, "fold-constants", context);
        // The Transpose result (16 KiB) is over the cap but no bigger than its input: folded.
        QCOMPARE(countOps(m.graph, "Transpose"), 0);
        // The Tile makes 16 KiB out of 272 bytes: kept.
        QCOMPARE(countOps(m.graph, "Tile"), 1);
        QVERIFY(declinedWith(out.result, "more than the limit of 1024 bytes and more than its inputs' 272 bytes"));
        QVERIFY(out.verification.passed);
    }

    /// graphWithStaticShapes folds for the shapes it opens up only (foldShapesOnly): there, a
    /// weight's Transpose over the cap stays, while the shape arithmetic beside it still folds.
    void foldingForShapesOnlyLeavesLargeResultsAlone() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {64, 64});
        auto w = b.initializer("w", iota({64, 64}));  // 16 KiB
        auto wt = b.op("Transpose", {w}, {{"perm", std::vector<int64_t>{1, 0}}}, "wt");
        auto dims = b.op("Concat", {b.initializer("d0", Tensor::int64s({1}, {4096})), b.initializer("d1", Tensor::int64s({1}, {1}))},
                         {{"axis", int64_t(0)}}, "dims");
        b.output(b.op("Reshape", {b.op("Add", {x, wt}, {}, "add"), dims}, {}, "flat"));
        Model m = withShapes(b.model());
        PassContext context;
        context.foldSizeLimitBytes = 1024;
        context.foldShapesOnly = true;
        const CheckedPass out = runPassChecked(m, "fold-constants", context);
        QCOMPARE(countOps(m.graph, "Transpose"), 1);
        QCOMPARE(countOps(m.graph, "Concat"), 0);
        QCOMPARE(out.result.counter("numFolded"), int64_t(1));
        QVERIFY(declinedWith(out.result, "only shape computations are folded here, and its result would hold 16384 bytes, "
                                         "more than the limit of 1024 bytes"));
        QVERIFY(out.verification.passed);
    }

    void declinesRandomnessOtherDomainsAndDequantize() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 2});
        auto noise = b.op("RandomNormal", {}, {{"shape", std::vector<int64_t>{2, 2}}}, "noise");
        auto custom = b.op("Foo", {b.initializer("c", Tensor::floats({2, 2}, {1, 2, 3, 4}))}, {}, "custom");
        b.graph().node(b.lastNode()).domain = "ai.example";
        auto q = b.initializer("q", Tensor::fromVector<int8_t>(DType::Int8, {2, 2}, {1, 2, 3, 4}));
        auto dq = b.op("DequantizeLinear", {q, b.initializer("scale", Tensor::scalar(0.5f))}, {}, "dq");
        const ValueId words = b.initializer("words", Tensor::fromStrings({1}, {"A"}));
        auto strings = b.op("StringConcat", {words, words}, {}, "concat");
        b.output(b.op("Sum", {x, noise, custom, dq}, {}, "sum"));
        b.output(strings);
        Model m = b.model();
        const PassResult result = runUnverified(m, "fold-constants");
        QCOMPARE(m.graph.nodeCount(), size_t(5));
        QCOMPARE(result.rewrites.size(), size_t(0));
        QVERIFY(declinedWith(result, "RandomNormal draws random numbers"));
        QVERIFY(declinedWith(result, "the domain 'ai.example'"));
        QVERIFY(declinedWith(result, "quantized (QDQ)"));
        QVERIFY(declinedWith(result, "no reference kernel for StringConcat"));
    }

    void keepsNodesWithSubgraphs() {
        GraphBuilder thenB("then"), elseB("else");
        thenB.output(thenB.constant(Tensor::floats({2}, {1, 1})));
        elseB.output(elseB.constant(Tensor::floats({2}, {2, 2})));
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2});
        auto cond = b.initializer("cond", Tensor::fromVector<uint8_t>(DType::Bool, {}, {1}));
        auto chosen = b.op("If", {cond}, {{"then_branch", GraphPtr(std::make_shared<Graph>(thenB.graph()))},
                                          {"else_branch", GraphPtr(std::make_shared<Graph>(elseB.graph()))}}, "choose");
        b.output(b.op("Add", {x, chosen}, {}, "add"));
        Model m = b.model();
        const PassResult result = runUnverified(m, "fold-constants");
        QCOMPARE(countOps(m.graph, "If"), 1);
        QVERIFY(declinedWith(result, "sub-graph"));
    }

    /// A weight's Transpose that one matrix product alone reads stays for that product to read
    /// the weight transposed (fuse-matmul-scale: FusedMatMul, or a Gemm's transB): nothing of the
    /// weight is copied, and after the default pipeline no Transpose is left. One read by two
    /// nodes is folded.
    void leavesAWeightsTransposeToTheProductReadingIt() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 4, 6});
        auto w = b.initializer("w", seeded({5, 6}, 1));
        auto wt = b.op("Transpose", {w}, {{"perm", std::vector<int64_t>{1, 0}}}, "w_t");
        auto h = b.op("MatMul", {x, wt}, {}, "mm");  // FusedMatMul(x, w, transB = 1)
        auto v = b.initializer("v", seeded({3, 5}, 2));
        auto vt = b.op("Transpose", {v}, {}, "v_t");  // no perm: reversed axes, at rank 2 a swap
        auto y = b.op("Add", {b.op("MatMul", {h, vt}, {}, "mm2"), b.initializer("bias", seeded({3}, 3))}, {}, "add");
        b.output(y);  // MatMul + Add: one Gemm(rows, v, bias, transB = 1)
        auto u = b.initializer("u", seeded({3, 3}, 4));
        auto ut = b.op("Transpose", {u}, {}, "u_t");
        b.output(b.op("MatMul", {y, ut}, {}, "mm3"));
        b.output(b.op("Add", {ut, b.input("z", DType::Float, {3, 3})}, {}, "add_u"));  // u_t has two readers: folded
        Model m = withShapes(b.model());
        const Model original = m;
        const CheckedPass out = runPassChecked(m, "fold-constants");
        QVERIFY2(out.verification.passed, out.verification.failure.c_str());
        QCOMPARE(countOps(m.graph, "Transpose"), 2);
        QCOMPARE(out.result.counter("numFolded"), int64_t(1));
        QVERIFY(m.graph.constantValue(*m.graph.findValue("u_t_out")));
        QVERIFY(declinedWith(out.result, "kept: its one reader, MatMul 'mm', can read 'w' transposed where it is "
                                         "(transB = 1, which fuse-matmul-scale sets), so folding would copy its 120 bytes for nothing"));
        QVERIFY(declinedWith(out.result, "its one reader, MatMul 'mm2', can read 'v' transposed"));

        PassContext context = contextFor(m);
        for (const auto& pass : makePipeline("default")) runPass(*pass, m, context);
        QCOMPARE(countOps(m.graph, "Transpose"), 0);
        const Node& fused = firstOfType(m.graph, "FusedMatMul");
        QCOMPARE(m.graph.value(fused.input(1)).name, std::string("w"));
        QCOMPARE(fused.attributes.getInt("transB", 0), int64_t(1));
        const Node& gemm = firstOfType(m.graph, "Gemm");
        QCOMPARE(m.graph.value(gemm.input(1)).name, std::string("v"));
        QCOMPARE(gemm.attributes.getInt("transB", 0), int64_t(1));
        QVERIFY(m.graph.constantValue(*m.graph.findValue("w"))->sameAllocation(*original.graph.constantValue(*original.graph.findValue("w"))));
        NumericChecker checker(seededFeeds(original.graph), {});
        checker.setBaseline(original);
        const VerifyReport report = checker.check(m);
        QVERIFY2(report.passed, report.failure.c_str());
    }

    void foldsLoadedWeightsTransposesIntoEachOthersBytes() {
        // Weights the loader read, read by nothing but their Transposes: the first result of a
        // size takes fresh memory, and each later one of that size lands in the bytes of a weight
        // folded before it (no copy back, no more fresh memory). The results stay writable, and
        // the model written is byte for byte the one of an out-of-place fold.
        const onnx::ModelProto p = transposedWeightModel(false, true);
        Model m = loadModelFromBytes(p.SerializeAsString());
        const Tensor* w = m.graph.constantValue(*m.graph.findValue("w"));
        const Tensor* w2 = m.graph.constantValue(*m.graph.findValue("w2"));
        const std::byte* wBytes = w->data();
        const std::byte* w2Bytes = w2->data();
        QVERIFY(exclusivelyHeldBytes(*w, 1) && exclusivelyHeldBytes(*w2, 1));
        const PassResult result = runUnverified(m, "fold-constants");
        QCOMPARE(result.counter("numFolded"), int64_t(2));
        QVERIFY(!m.graph.findValue("w") && !m.graph.findValue("w2"));
        const Tensor* folded = m.graph.constantValue(*m.graph.findValue("wt"));
        const Tensor* folded2 = m.graph.constantValue(*m.graph.findValue("w2t"));
        QVERIFY(folded && folded2);
        QCOMPARE(folded->dims(), (std::vector<int64_t>{128, 160}));
        QCOMPARE(folded2->dims(), (std::vector<int64_t>{160, 128}));
        QVERIFY(folded->data() != wBytes && folded->data() != w2Bytes);  // the first: fresh
        QCOMPARE(folded2->data(), wBytes);  // the second: where w was
        QCOMPARE(floatsOf(*folded), transposedWeight(p, 0));
        QCOMPARE(floatsOf(*folded2), transposedWeight(p, 1));
        QVERIFY(exclusivelyHeldBytes(*folded, 1) && exclusivelyHeldBytes(*folded2, 1));

        // A snapshot of the model holds the weights too: they are transposed into new storage
        // and the snapshot keeps the weights' bytes.
        Model other = loadModelFromBytes(p.SerializeAsString());
        const Model snapshot = other;
        const PassResult again = runUnverified(other, "fold-constants");
        QCOMPARE(again.counter("numFolded"), int64_t(2));
        const Tensor* copied = other.graph.constantValue(*other.graph.findValue("wt"));
        const Tensor* kept = snapshot.graph.constantValue(*snapshot.graph.findValue("w"));
        QVERIFY(copied && kept);
        QVERIFY(copied->data() != kept->data());
        QCOMPARE(floatsOf(*copied), transposedWeight(p, 0));
        const std::string& raw = p.graph().initializer(0).raw_data();
        QVERIFY(std::memcmp(kept->data(), raw.data(), raw.size()) == 0);
        QVERIFY(serializeModel(m) == serializeModel(other));
    }

    void leavesAWeightReadElsewhereAsItWas() {
        // w is read by a Mul too: the Transpose's result goes to new storage, w keeps its bytes.
        const onnx::ModelProto p = transposedWeightModel(true);
        Model m = loadModelFromBytes(p.SerializeAsString());
        const PassResult result = runUnverified(m, "fold-constants");
        QCOMPARE(result.counter("numFolded"), int64_t(1));
        const Tensor* w = m.graph.constantValue(*m.graph.findValue("w"));
        const Tensor* folded = m.graph.constantValue(*m.graph.findValue("wt"));
        QVERIFY(w && folded);
        QVERIFY(folded->data() != w->data());
        QCOMPARE(floatsOf(*folded), transposedWeight(p));
        const std::string& raw = p.graph().initializer(0).raw_data();
        QCOMPARE(w->byteSize(), raw.size());
        QVERIFY(std::memcmp(w->data(), raw.data(), raw.size()) == 0);
        QCOMPARE(countOps(m.graph, "Mul"), 1);
    }

    void transposesAWeightInExternalDataIntoNewStorage() {
        // A weight kept in external data views a read-only mapping of its file: the fold never
        // writes over it, and the file keeps its bytes.
        const onnx::ModelProto p = transposedWeightModel(false);
        QTemporaryDir dir;
        const QString path = dir.filePath("external.onnx");
        SaveOptions options;
        options.externalData = SaveOptions::ExternalData::Always;
        options.externalThresholdBytes = 256;
        saveModel(loadModelFromBytes(p.SerializeAsString()), path.toStdString(), options);
        QFile data(dir.filePath("external.data"));
        QVERIFY(data.open(QIODevice::ReadOnly));
        const QByteArray before = data.readAll();
        data.close();
        Model m = loadModel(path.toStdString());
        const Tensor* w = m.graph.constantValue(*m.graph.findValue("w"));
        QVERIFY(w && w->externalOrigin());
        QVERIFY(!exclusivelyHeldBytes(*w, 1));
        const PassResult result = runUnverified(m, "fold-constants");
        QCOMPARE(result.counter("numFolded"), int64_t(1));
        QCOMPARE(floatsOf(*m.graph.constantValue(*m.graph.findValue("wt"))), transposedWeight(p));
        QVERIFY(data.open(QIODevice::ReadOnly));
        QVERIFY(data.readAll() == before);
    }
};

QTEST_GUILESS_MAIN(TestConstantFolding)
#include "tst_constant_folding.moc"
