// The preparation step both backends plan from (prepare.h), the claim each backend makes per node
// with its reason (PlannedNode::device and why), error kinds, and the graph invariants the pass
// manager enforces.
#include "core/graph/builder.h"
#include "core/onnx/loader.h"
#include "core/onnx/shape_inference.h"
#include "core/passes/pass_manager.h"
#include "core/passes/pass_registry.h"
#include "core/passes/rewriter.h"
#include "core/runtime/backend.h"
#include "core/runtime/backend_registry.h"
#include "core/runtime/errors.h"
#include "core/runtime/executor.h"
#include "core/runtime/prepare.h"
#include "core/runtime/tensor_compare.h"
#include "support/graph_test_access.h"
#include "support/seeded_tensor.h"

#include <QtTest>

#include <algorithm>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

/// x [batch, seq, 8] reshaped to [-1, 2, Cast(Shape(x)[2] / 2)] and then Relu: ONNX's data
/// propagation stops at Div and Cast, so only folding the shape arithmetic makes the Reshape's
/// output (and the Relu's) static.
Model reshapeBySizeArithmetic() {
    GraphBuilder b;
    const ValueId x = b.input("x", DType::Float, Shape({Dim("batch"), Dim("seq"), Dim(8)}));
    const ValueId shape = b.op("Shape", {x});
    const ValueId last = b.op("Gather", {shape, b.constant(Tensor::int64s({}, {2}))});
    const ValueId half = b.op("Div", {last, b.constant(Tensor::int64s({}, {2}))});
    const ValueId cast = b.op("Cast", {half}, {{"to", int64_t(DType::Int64)}});
    const ValueId dim = b.op("Unsqueeze", {cast, b.constant(Tensor::int64s({1}, {0}))});
    const ValueId target = b.op("Concat", {b.constant(Tensor::int64s({2}, {-1, 2})), dim}, {{"axis", int64_t(0)}});
    b.output(b.op("Relu", {b.op("Reshape", {x, target})}));
    return b.model(17);
}

const std::map<std::string, std::vector<int64_t>> kConcreteInput{{"x", {2, 5, 8}}};

std::vector<std::string> opsOf(const Graph& g) {
    std::vector<std::string> ops;
    for (NodeId id : g.topologicalOrder()) ops.push_back(g.node(id).opType);
    return ops;
}

/// The kind of the error `action` throws; fails the test when it throws none.
std::optional<ErrorKind> kindThrownBy(const std::function<void()>& action, std::string* message = nullptr) {
    try {
        action();
    } catch (const std::exception& e) {
        if (message) *message = e.what();
        return errorKindOf(e);
    }
    return std::nullopt;
}

/// A pass that edits the graph and never commits the edit.
class ForgetsToCommit final : public Pass {
public:
    std::string id() const override { return "test-forgets-to-commit"; }
    std::string title() const override { return "test"; }
    std::string explanation() const override { return "test"; }
    void run(Rewriter& rw, PassContext&) override {
        const NodeId relu = rw.graph().topologicalOrder().back();
        rw.setAttribute(relu, "unused", Attribute(int64_t(1)));
    }
};

} // namespace

class TestPrepare : public QObject {
    Q_OBJECT

private slots:
    void inferenceAloneLeavesTheReshapeOpen() {
        Model m = reshapeBySizeArithmetic();
        inferShapesForInputs(m, kConcreteInput);
        const Graph& g = m.graph;
        const ValueId reshaped = g.node(*g.findNode(g.node(g.topologicalOrder().back()).name)).input(0);
        QVERIFY2(!g.value(reshaped).shape.isStatic(), g.value(reshaped).shape.toString().c_str());
    }

    void foldingMakesEveryShapeStatic() {
        const PreparedModel p = prepareModel(reshapeBySizeArithmetic(), kConcreteInput);
        QVERIFY2(p.shapesStatic(), p.openShapes.c_str());
        QCOMPARE(opsOf(p.model.graph), (std::vector<std::string>{"Reshape", "Relu"}));
        const Graph& g = p.model.graph;
        const Value& out = g.value(g.outputs()[0]);
        QCOMPARE(*out.shape.sizes(), (std::vector<int64_t>{10, 2, 4}));
        QVERIFY(std::any_of(p.steps.begin(), p.steps.end(), [](const std::string& s) { return s.rfind("folded ", 0) == 0; }));
    }

    void cpuPlansThePreparedGraphWithOptimizedKernels() {
        auto plan = makeCpuBackend()->compile(reshapeBySizeArithmetic(), {0, kConcreteInput});
        QCOMPARE(plan->nodes().size(), size_t(2));
        for (const PlannedNode& n : plan->nodes()) {
            QCOMPARE(n.device, std::string("cpu"));
            QVERIFY2(n.kernel != "reference" && n.why.empty(), (n.kernel + ": " + n.why).c_str());
        }
        const Tensor x = seeded({2, 5, 8}, 3);
        const Tensor y = plan->run({{"x", x}}).at(0);
        QCOMPARE(y.dims(), (std::vector<int64_t>{10, 2, 4}));
        for (size_t i = 0; i < x.span<float>().size(); ++i) QCOMPARE(y.span<float>()[i], std::max(0.0f, x.span<float>()[i]));
    }

    void vulkanPlansAModelOnlyFoldingMakesStatic() {
        std::unique_ptr<Backend> vulkan;
        try {
            vulkan = makeBackend("vulkan");
        } catch (const ExecutionError& e) {
            QCOMPARE(e.kind(), ErrorKind::NoDevice);
            QSKIP(e.what());
        }
        const Model m = reshapeBySizeArithmetic();
        auto plan = vulkan->compile(m, {0, kConcreteInput});
        for (const PlannedNode& n : plan->nodes()) QCOMPARE(n.device, std::string("vulkan"));
        const std::map<std::string, Tensor> feeds{{"x", seeded({2, 5, 8}, 4)}};
        const Tensor want = makeCpuBackend()->compile(m, {0, kConcreteInput})->run(feeds).at(0);
        const TensorComparison c = compareTensors(plan->run(feeds).at(0), want, 0, 0);
        QVERIFY2(c.matches, c.mismatch.c_str());
    }

    void vulkanRefusesShapesKnownOnlyAtRunTimeWithTheirKind() {
        std::unique_ptr<Backend> vulkan;
        try {
            vulkan = makeBackend("vulkan");
        } catch (const ExecutionError& e) {
            QSKIP(e.what());
        }
        std::string message;
        const Model m = reshapeBySizeArithmetic();  // no input sizes given: batch and seq stay open
        QCOMPARE(kindThrownBy([&] { vulkan->compile(m, {}); }, &message), std::optional(ErrorKind::DynamicShapes));
        QVERIFY2(message.rfind("the vulkan backend needs static shapes; the output '", 0) == 0 &&
                     message.find("(Reshape) has the shape") != std::string::npos &&
                     message.find("until the model runs") != std::string::npos,
                 message.c_str());
    }

    void dequantizesConstantWeightsForEveryBackend() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({2, 3}));
        const ValueId q = b.initializer("wq", Tensor::fromVector<int8_t>(DType::Int8, {3, 2}, std::vector<int8_t>{-4, 2, 0, 8, 12, -6}));
        const ValueId w = b.op("DequantizeLinear", {q, b.initializer("s", Tensor::floats({}, {0.5f})),
                                                    b.initializer("z", Tensor::fromVector<int8_t>(DType::Int8, {}, std::vector<int8_t>{2}))});
        b.output(b.op("MatMul", {x, w}));
        const PreparedModel p = prepareModel(b.model(17), {});
        QCOMPARE(opsOf(p.model.graph), (std::vector<std::string>{"MatMul"}));
        const Graph& g = p.model.graph;
        const Tensor* weights = g.constantValue(g.node(g.topologicalOrder()[0]).input(1));
        QVERIFY(weights);
        QCOMPARE(weights->toDoubles(), (std::vector<double>{-3, 0, -1, 3, 5, -4}));  // (q - 2) * 0.5
        QCOMPARE(p.steps.back(), std::string("dequantized 1 int8 weights"));
    }

    void cpuSaysWhyANodeRunsOnTheReferenceKernel() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({4}));
        b.output(b.op("Relu", {x}));
        CompileOptions reference;
        reference.referenceOnly = true;
        auto plan = makeCpuBackend()->compile(b.model(17), reference);
        QCOMPARE(plan->nodes().at(0).kernel, std::string("reference"));
        QCOMPARE(plan->nodes().at(0).why, std::string("reference kernels were asked for"));

        GraphBuilder u;  // an op the optimized kernels do not cover
        const ValueId v = u.input("x", DType::Float, Shape::ofSizes({4}));
        u.output(u.op("Det", {u.op("Reshape", {v, u.constant(Tensor::int64s({2}, {2, 2}))})}));
        auto det = makeCpuBackend()->compile(u.model(17), {});
        QCOMPARE(det->nodes().back().kernel, std::string("reference"));
        QCOMPARE(det->nodes().back().why, std::string("no optimized CPU kernel for Det"));
    }

    void cpuNamesShapesKnownOnlyAtRunTimePerNode() {
        // No sizes given: every node runs, on the reference kernels, and each says why.
        auto plan = makeCpuBackend()->compile(reshapeBySizeArithmetic(), {});
        const PlannedNode& relu = plan->nodes().back();
        QCOMPARE(relu.kernel, std::string("reference"));
        QVERIFY2(relu.why.rfind("its shapes are known only when the model runs: ", 0) == 0, relu.why.c_str());
        const Tensor y = plan->run({{"x", seeded({3, 2, 8}, 5)}}).at(0);
        QCOMPARE(y.dims(), (std::vector<int64_t>{6, 2, 4}));
    }

    void errorsCarryTheirKind() {
        QCOMPARE(kindThrownBy([] { makeBackend("gpu"); }), std::optional(ErrorKind::UnknownBackend));

        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({4}));
        b.output(b.op("NoSuchOp", {x}));
        std::string message;
        QCOMPARE(kindThrownBy([&] { makeCpuBackend()->compile(b.model(17), {}); }, &message),
                 std::optional(ErrorKind::UnsupportedOp));
        QVERIFY2(message.find("NoSuchOp") != std::string::npos, message.c_str());

        GraphBuilder r;
        const ValueId y = r.input("x", DType::Float, Shape::ofSizes({4}));
        r.output(r.op("Relu", {y}));
        auto plan = makeCpuBackend()->compile(r.model(17), {});
        QCOMPARE(kindThrownBy([&] { plan->run({}); }), std::optional(ErrorKind::BadFeeds));
        QCOMPARE(kindThrownBy([&] { plan->run({{"x", seeded({5}, 1)}}); }), std::optional(ErrorKind::BadFeeds));

        GraphBuilder c;
        const ValueId image = c.input("x", DType::Float, Shape::ofSizes({1, 1, 4, 4}));
        c.output(c.op("Conv", {image, c.initializer("w", Tensor::floats({1, 1, 1, 1}, {1}))},
                      {{"strides", std::vector<int64_t>{0, 1}}}));
        QCOMPARE(kindThrownBy([&] { prepareModel(c.model(17), {}); }, &message), std::optional(ErrorKind::InvalidModel));
        QVERIFY2(message.find("strides") != std::string::npos, message.c_str());
    }

    void aPassThatLeavesAnEditUncommittedFails() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({4}));
        b.output(b.op("Relu", {x}));
        Model m = b.model(17);
        PassContext context = contextFor(m);
        ForgetsToCommit pass;
        try {
            runPass(pass, m, context);
            QFAIL("runPass accepted a pass with uncommitted changes");
        } catch (const PassError& e) {
            QCOMPARE(std::string(e.what()),
                     std::string("the pass 'test-forgets-to-commit' left changes it did not commit to a rewrite"));
        }
    }

    void everyDefaultPassLeavesConsistentUseLists() {
        // What Debug builds check after every pass, checked here in any build on the fixtures.
        for (const char* family : {"sample_cnn", "mobilenet_v3_block", "ocr_decoder", "transformer_encoder"}) {
            Model m = loadModel(std::string(GRAPHLENS_SOURCE_DIR "/tests/fixtures/models/") + family + "/model.onnx");
            PassContext context = contextFor(m);
            for (const auto& pass : makePipeline("default")) {
                runPass(*pass, m, context);
                const auto problems = m.graph.validate();
                QVERIFY2(problems.empty(), (std::string(family) + " after " + pass->id() + ": " +
                                            (problems.empty() ? "" : problems.front())).c_str());
            }
        }
    }

    void validateFindsUseListsThatDisagree() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({4}));
        b.output(b.op("Relu", {x}, {}, "relu"));
        Graph g = b.model(17).graph;
        QVERIFY(g.validate().empty());
        GraphTestAccess::uses(g.value(x)).clear();
        const auto problems = g.validate();
        QCOMPARE(problems.size(), size_t(1));
        QCOMPARE(problems[0], std::string("node 'relu' reads 'x' as input 0 but the value does not list that use"));
    }
};

QTEST_GUILESS_MAIN(TestPrepare)
#include "tst_prepare.moc"
