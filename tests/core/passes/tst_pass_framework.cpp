// The pass framework: the rewriter's log and provenance, the greedy driver's fixed point and cap,
// pipelines by name, and numeric verification catching a deliberately broken pass.
#include "core/graph/builder.h"
#include "core/passes/pattern.h"
#include "core/passes/portable.h"
#include "support/pass_harness.h"

#include <QtTest>

#include <set>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

/// Test-only and wrong on purpose: turns every Relu into a Sigmoid.
class ReluToSigmoid final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override { return {"Relu"}; }
    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext&) const override {
        const std::string sentence = "turned " + rw.graph().node(root).name + " into a Sigmoid";
        rw.replaceNodes({root}, "Sigmoid", {rw.graph().node(root).input(0)}, {});
        rw.commit("broken", sentence);
        return true;
    }
};

class BrokenPass final : public PatternPass {
public:
    BrokenPass() { addPattern<ReluToSigmoid>(); }
    std::string id() const override { return "test-broken"; }
    std::string title() const override { return "Broken on purpose"; }
    std::string explanation() const override { return "Replaces Relu by Sigmoid, which is wrong."; }
};

/// Never converges: renames an attribute back and forth on every sweep.
class Flip final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override { return {"Relu"}; }
    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext&) const override {
        rw.setAttribute(root, "flip", int64_t(rw.graph().node(root).attributes.getInt("flip", 0) ^ 1));
        rw.commit("flip", "flipped");
        return true;
    }
};

class FlipPass final : public PatternPass {
public:
    FlipPass() { addPattern<Flip>(); }
    std::string id() const override { return "test-flip"; }
    std::string title() const override { return "Flip"; }
    std::string explanation() const override { return "Never done."; }
};

/// x -> Relu(r1) -> Identity(id1) -> Tanh(t) -> Relu(r2) -> y
Model chain() {
    GraphBuilder b;
    auto x = b.input("x", DType::Float, {2, 3});
    auto r1 = b.op("Relu", {x}, {}, "r1");
    auto i1 = b.op("Identity", {r1}, {}, "id1");
    b.output(b.op("Relu", {b.op("Tanh", {i1}, {}, "t")}, {}, "r2"));
    return withShapes(b.model());
}

} // namespace

class TestPassFramework : public QObject {
    Q_OBJECT
private slots:
    void replaceNodesKeepsOutputsAndUnitesProvenance() {
        Model m = chain();
        Graph& g = m.graph;
        const NodeId r1 = *g.findNode("r1"), id1 = *g.findNode("id1");
        const ValueId out = g.node(id1).output(0);
        PassResult result;
        Rewriter rw(g, result);
        const NodeId fused = rw.replaceNodes({r1, id1}, "Relu", {g.inputs()[0]}, {});
        rw.commit("test", "fused");
        QCOMPARE(g.node(fused).output(0), out);
        QCOMPARE(g.node(fused).name, std::string("id1"));
        QCOMPARE(g.node(fused).provenance, (std::vector<NodeId>{r1, id1}));
        QCOMPARE(result.rewrites.size(), size_t(1));
        QCOMPARE(result.rewrites[0].removed.size(), size_t(2));
        QCOMPARE(result.rewrites[0].added.size(), size_t(1));
        QVERIFY(!g.findValue("r1_out"));  // the value only the removed nodes used is gone
        QVERIFY(g.validate().empty());
    }

    void bypassMovesAGraphOutputToTheProducer() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {4});
        auto r = b.op("Relu", {x}, {}, "relu");
        b.output(b.op("Identity", {r}, {}, "id"));
        Model m = b.model();
        const std::string outName = m.graph.value(m.graph.outputs()[0]).name;
        PassResult result;
        Rewriter rw(m.graph, result);
        QVERIFY(rw.bypassNode(*m.graph.findNode("id"), 0));
        rw.commit("test", "bypassed");
        QCOMPARE(m.graph.nodeCount(), size_t(1));
        QCOMPARE(m.graph.value(m.graph.outputs()[0]).name, outName);
        QCOMPARE(m.graph.value(m.graph.outputs()[0]).producer(), *m.graph.findNode("relu"));
    }

    void bypassRefusesWhenOutputAndInputAreBothInterface() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {4});
        b.output(b.op("Identity", {x}, {}, "id"));
        Model m = b.model();
        PassResult result;
        Rewriter rw(m.graph, result);
        std::string why;
        QVERIFY(!rw.bypassNode(*m.graph.findNode("id"), 0, &why));
        QVERIFY(why.find("graph output") != std::string::npos);
        QCOMPARE(m.graph.nodeCount(), size_t(1));
    }

    void greedyDriverStopsAtTheCap() {
        Model m = chain();
        PassContext context;
        context.maxIterations = 5;
        FlipPass pass;
        PassResult r = runPass(pass, m, context);
        QVERIFY(!r.converged);
        QCOMPARE(r.rewrites.size(), size_t(10));  // two Relu nodes, five sweeps
        context.failIfNotConverged = true;
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, runPass(pass, m, context));
    }

    void pipelinesByName() {
        QVERIFY(makePipeline("none").empty());
        const auto all = makeAllPasses();
        const auto def = makePipeline("default");
        QVERIFY(!def.empty());
        QVERIFY(def.size() <= all.size());
        for (const auto& p : def) QVERIFY(!p->lossy());
        const auto two = makePipeline("remove-dead-nodes, eliminate-noops,remove-dead-nodes");
        QCOMPARE(two.size(), size_t(3));
        QCOMPARE(two[0]->id(), std::string("remove-dead-nodes"));
        QCOMPARE(two[1]->id(), std::string("eliminate-noops"));
        const size_t lossless = size_t(std::count_if(all.begin(), all.end(), [](const auto& p) { return !p->lossy(); }));
        QCOMPARE(def.size(), lossless);
        QCOMPARE(all.size(), lossless + 3);  // prune-magnitude, quantize-int8 and quantize-int8-weights
        const auto extended = makePipeline("default,quantize-int8-weights");
        QCOMPARE(extended.size(), lossless + 1);
        QCOMPARE(extended.front()->id(), def.front()->id());
        QCOMPARE(extended.back()->id(), std::string("quantize-int8-weights"));
        QCOMPARE(makePipeline("all").size(), all.size());
        try {
            makePipeline("eliminate-noops,fold-everything");
            QFAIL("an unknown pass id was accepted");
        } catch (const PassError& e) {
            QVERIFY(std::string(e.what()).find("unknown pass 'fold-everything'") != std::string::npos);
            QVERIFY(std::string(e.what()).find("eliminate-noops") != std::string::npos);
        }
    }

    void everyPassExplainsItself() {
        std::set<std::string> ids;
        for (const auto& p : makeAllPasses()) {
            QVERIFY2(ids.insert(p->id()).second, p->id().c_str());
            QVERIFY2(p->title().size() > 5, p->id().c_str());
            QVERIFY2(p->explanation().size() > 120, p->id().c_str());
        }
    }

    void verifyCatchesABrokenPassAndNamesItsRewrite() {
        Model m = chain();
        std::vector<std::unique_ptr<Pass>> passes;
        passes.push_back(std::move(makePipeline("eliminate-noops").front()));
        passes.push_back(std::make_unique<BrokenPass>());
        PipelineOptions options;
        options.verify = true;
        options.feeds = seededFeeds(m.graph);
        PassContext context;
        const PipelineReport report = runPipeline(m, passes, context, options);
        QCOMPARE(report.passes.size(), size_t(2));
        QVERIFY(report.passes[0].verification->passed);
        QCOMPARE(report.passes[0].verification->maxAbsError, 0.0);
        QVERIFY(!report.passes[1].verification->passed);
        QVERIFY(report.passes[1].verification->maxAbsError > 0.1);
        QVERIFY2(report.failure.find("pass 'test-broken' breaks the tolerance") != std::string::npos, report.failure.c_str());
        QVERIFY2(report.failure.find("turned r1 into a Sigmoid") != std::string::npos, report.failure.c_str());
    }

    void skipFailingUndoesTheBrokenPass() {
        Model m = chain();
        std::vector<std::unique_ptr<Pass>> passes;
        passes.push_back(std::make_unique<BrokenPass>());
        passes.push_back(std::move(makePipeline("eliminate-noops").front()));
        PipelineOptions options;
        options.verify = true;
        options.skipFailing = true;
        options.feeds = seededFeeds(m.graph);
        PassContext context;
        const PipelineReport report = runPipeline(m, passes, context, options);
        QVERIFY(report.failure.empty());
        QVERIFY(report.passes[0].reverted);
        QCOMPARE(countOps(m.graph, "Sigmoid"), 0);
        QCOMPARE(countOps(m.graph, "Relu"), 2);
        QCOMPARE(countOps(m.graph, "Identity"), 0);
    }

    void loweringForOnnxRuntimeKeepsWhatItRuns() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {1, 2, 4, 4});
        auto w = b.initializer("w", Tensor::floats({2, 2, 1, 1}, {1, 0, 0, 1}));
        b.output(b.op("Conv", {b.op("Conv", {x, w}, {}, "conv"), w}, {}, "conv2"));
        Model m = withShapes(b.model());
        m.graph.node(*m.graph.findNode("conv")).opType = "FusedConv";
        m.graph.node(*m.graph.findNode("conv")).domain = "com.microsoft";
        m.graph.node(*m.graph.findNode("conv")).attributes.set("activation", "Relu");
        m.graph.node(*m.graph.findNode("conv2")).opType = "FusedConv";
        m.graph.node(*m.graph.findNode("conv2")).domain = "com.microsoft";
        m.graph.node(*m.graph.findNode("conv2")).attributes.set("activation", "HardSwish");
        m.opsets.push_back({"com.microsoft", 1});
        Model forOrt = m;
        QCOMPARE(lowerFusedOps(forOrt, Lowering::ForOnnxRuntime), size_t(1));
        QCOMPARE(countOps(forOrt.graph, "FusedConv"), 1);
        QCOMPARE(countOps(forOrt.graph, "HardSwish"), 1);
        QCOMPARE(forOrt.opsetVersion("com.microsoft"), int64_t(1));
        Model portable = m;
        QCOMPARE(lowerFusedOps(portable, Lowering::StandardOnly), size_t(2));
        QCOMPARE(countOps(portable.graph, "FusedConv"), 0);
        QCOMPARE(countOps(portable.graph, "Conv"), 2);
        QCOMPARE(countOps(portable.graph, "Relu"), 1);
        QCOMPARE(portable.opsetVersion("com.microsoft"), int64_t(0));
        QVERIFY(portable.graph.validate().empty());
        // Same numbers before and after lowering.
        NumericChecker checker(seededFeeds(m.graph), {});
        checker.setBaseline(m);
        const VerifyReport v = checker.check(portable);
        QVERIFY2(v.passed, v.failure.c_str());
        QCOMPARE(v.outputsCompared, size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestPassFramework)
#include "tst_pass_framework.moc"
