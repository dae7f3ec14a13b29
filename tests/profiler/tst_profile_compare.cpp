// Before vs after through provenance: a MatMul+Relu fused by the rewriter, an Identity bypassed
// and a node with no original; the fold rule (split by the original nodes' FLOPs, equal parts
// without any), groups and their speedups, sums that match each side's total, the summary
// figures; and the same on sample_cnn profiled before and after the default passes.
#include "core/graph/builder.h"
#include "core/onnx/loader.h"
#include "core/passes/pass_manager.h"
#include "core/passes/pass_registry.h"
#include "core/passes/rewriter.h"
#include "profiler/flops.h"
#include "profiler/profile_compare.h"

#include <QtTest>

#include <cmath>
#include <numeric>

using namespace graphlens;

namespace {

/// x[4,8] -> MatMul(w[8,16]) "mm" -> Relu "relu" -> Identity "id" -> Sigmoid "sig", all [4,16].
struct Chain {
    Graph graph;
    NodeId mm = kNoId, relu = kNoId, id = kNoId, sig = kNoId;
};

Chain chain() {
    GraphBuilder b;
    Chain c;
    ValueId v = b.op("MatMul", {b.input("x", DType::Float, Shape::ofSizes({4, 8})),
                                b.initializer("w", Tensor::allocate(DType::Float, {8, 16}))}, {}, "mm");
    c.mm = b.lastNode();
    std::vector<ValueId> values{v};
    for (auto [op, name, node] : {std::tuple{"Relu", "relu", &c.relu}, {"Identity", "id", &c.id}, {"Sigmoid", "sig", &c.sig}}) {
        v = b.op(op, {v}, {}, name);
        *node = b.lastNode();
        values.push_back(v);
    }
    for (ValueId value : values) {
        b.graph().value(value).dtype = DType::Float;
        b.graph().value(value).shape = Shape::ofSizes({4, 16});
    }
    b.output(v);
    c.graph = b.graph();
    return c;
}

/// The chain optimized by hand through the rewriter: mm+relu -> FusedMatMul "fused", id
/// bypassed, and a node "extra" added from nothing.
struct Optimized {
    Graph graph;
    NodeId fused = kNoId, extra = kNoId;
};

Optimized optimize(const Chain& c) {
    Optimized o{c.graph};
    PassResult result;
    Rewriter rewriter(o.graph, result);
    const std::vector<ValueId> inputs = o.graph.node(c.mm).inputs();
    o.fused = rewriter.replaceNodes({c.mm, c.relu}, "FusedMatMul", inputs, {}, "com.microsoft");
    rewriter.bypassNode(c.id, 0);  // checked by rewriterProvenanceIsWhatTheFoldReads
    o.extra = rewriter.addNode("Shape", {o.graph.node(o.fused).input(0)}, {"extra"}, {}, {}, "extra");
    rewriter.commit("test", "fused by hand");
    return o;
}

NodeProfile profiled(const Graph& g, NodeId node, double medianMs) {
    NodeProfile p;
    p.node = node;
    p.name = displayName(g.node(node));
    p.op = opLabel(g.node(node));
    p.ms.median = medianMs;
    return p;
}

ProfileResult result(std::vector<NodeProfile> nodes, double runMs, uint64_t arena) {
    ProfileResult r;
    r.nodes = std::move(nodes);
    r.nodeMedianSumMs = sumOfMedians(r.nodes);
    r.runMs.median = runMs;
    r.memory.arenaBytes = arena;
    return r;
}

double sumOf(const std::vector<OriginCost>& rows, double OriginCost::*field) {
    return std::accumulate(rows.begin(), rows.end(), 0.0, [field](double s, const OriginCost& r) { return s + r.*field; });
}

} // namespace

class TestProfileCompare : public QObject {
    Q_OBJECT
    Chain chain_ = chain();
    Optimized after_ = optimize(chain_);

private slots:
    void rewriterProvenanceIsWhatTheFoldReads() {
        QCOMPARE(after_.graph.node(after_.fused).provenance, (std::vector<NodeId>{chain_.mm, chain_.relu}));
        QCOMPARE(after_.graph.node(after_.extra).provenance, std::vector<NodeId>{after_.extra});
        QVERIFY(!after_.graph.hasNode(chain_.id));
        QCOMPARE(nodeFlops(chain_.graph, chain_.graph.node(chain_.mm)), std::optional<int64_t>(2 * 4 * 8 * 16));
        QCOMPARE(nodeFlops(chain_.graph, chain_.graph.node(chain_.relu)), std::optional<int64_t>(4 * 16));
    }

    void fusedTimeIsSplitByTheOriginalFlops() {
        const auto folded = foldOntoOrigins(chain_.graph, after_.graph, {profiled(after_.graph, after_.fused, 3.4)});
        QCOMPARE(folded.size(), size_t(2));
        QCOMPARE(folded.at(chain_.mm), 3.4 * 1024 / 1088);
        QCOMPARE(folded.at(chain_.relu), 3.4 * 64 / 1088);
    }

    void withoutFlopsTheTimeIsSplitEqually() {
        Graph g = after_.graph;
        g.node(after_.extra).provenance = {chain_.id, 999};  // Identity counts 0 FLOPs, 999 is no node
        const auto folded = foldOntoOrigins(chain_.graph, g, {profiled(g, after_.extra, 0.5)});
        QCOMPARE(folded.at(chain_.id), 0.25);
        QCOMPARE(folded.at(NodeId(999)), 0.25);
    }

    void groupsSpeedupsAndSums() {
        const ProfileResult before = result({profiled(chain_.graph, chain_.mm, 4), profiled(chain_.graph, chain_.relu, 1),
                                             profiled(chain_.graph, chain_.id, 0.5), profiled(chain_.graph, chain_.sig, 2)},
                                            8.0, 4096);
        const ProfileResult after = result({profiled(after_.graph, after_.fused, 3), profiled(after_.graph, chain_.sig, 1),
                                            profiled(after_.graph, after_.extra, 0.5)},
                                           5.0, 2048);
        const ProfileComparison c = compareProfiles(chain_.graph, chain_.graph, before, after_.graph, after);
        QCOMPARE(c.groups.size(), size_t(4));  // {mm, relu}, {id}, {sig}, {extra}
        QCOMPARE(c.groups[0].origins, (std::vector<NodeId>{chain_.mm, chain_.relu}));
        QCOMPARE(c.groups[0].beforeNodes, (std::vector<NodeId>{chain_.mm, chain_.relu}));
        QCOMPARE(c.groups[0].afterNodes, std::vector<NodeId>{after_.fused});
        QCOMPARE(c.groups[0].afterLabels, std::vector<std::string>{"relu (com.microsoft:FusedMatMul)"});
        QCOMPARE(c.groups[0].speedup(), 5.0 / 3.0);
        QVERIFY(std::isinf(c.groups[1].speedup()));  // the Identity costs nothing now
        QCOMPARE(speedupText(c.groups[1].speedup()), std::string("removed"));
        QCOMPARE(c.groups[2].speedup(), 2.0);
        QCOMPARE(speedupText(c.groups[2].speedup()), std::string("2.00x"));
        QCOMPARE(c.groups[3].speedup(), 0.0);
        QCOMPARE(speedupText(c.groups[3].speedup()), std::string("new"));
        QCOMPARE(c.groupOfBefore.at(chain_.relu), size_t(0));
        QCOMPARE(c.groupOfAfter.at(after_.fused), size_t(0));
        QCOMPARE(c.groupOfAfter.at(after_.extra), size_t(3));

        QCOMPARE(c.origins.size(), size_t(5));
        const std::vector<std::string> names{"mm", "relu", "id", "sig", "extra"};
        for (size_t i = 0; i < names.size(); ++i) QCOMPARE(c.origins[i].name, names[i]);
        QCOMPARE(c.origins[0].afterMs, 3.0 * 1024 / 1088);
        QCOMPARE(c.origins[2].afterMs, 0.0);
        QCOMPARE(c.origins[4].beforeMs, 0.0);
        // Each side's folded times add up to its sum of node medians.
        QCOMPARE(sumOf(c.origins, &OriginCost::beforeMs), 7.5);
        QCOMPARE(sumOf(c.origins, &OriginCost::afterMs), 4.5);
        QCOMPARE(c.afterNodeSumMs, 4.5);
        QCOMPARE(c.speedup(), 8.0 / 5.0);
        QCOMPARE(c.beforeArenaBytes, uint64_t(4096));
        QCOMPARE(c.afterArenaBytes, uint64_t(2048));
    }

    void sampleBeforeAndAfterTheDefaultPasses() {
        const Model original = loadModel(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");
        Model optimized = original;
        PassContext context = contextFor(optimized);
        runPipeline(optimized, makePipeline("default"), context, {});
        const std::map<std::string, Tensor> feeds{{"input", Tensor::allocate(DType::Float, {1, 3, 32, 32})}};
        CompileOptions options;
        options.threads = 1;
        auto profile = [&](const Model& m) {
            auto plan = makeCpuBackend()->compile(m, options);
            return profilePlan(*plan, graphWithShapes(m, {}), feeds, {1, 3});
        };
        const ProfileResult before = profile(original), after = profile(optimized);
        QVERIFY(after.nodes.size() < before.nodes.size());
        const Graph shaped = graphWithShapes(original, {});
        const ProfileComparison c = compareProfiles(shaped, original.graph, before, optimized.graph, after);
        QCOMPARE(c.groupOfBefore.size(), before.nodes.size());
        QCOMPARE(c.groupOfAfter.size(), after.nodes.size());
        QCOMPARE(sumOf(c.origins, &OriginCost::afterMs), after.nodeMedianSumMs);
        QCOMPARE(sumOf(c.origins, &OriginCost::beforeMs), before.nodeMedianSumMs);
        double groupAfter = 0;
        size_t fusedGroups = 0;
        for (const CostGroup& g : c.groups) {
            groupAfter += g.afterMs;
            fusedGroups += g.origins.size() > 1 && !g.afterNodes.empty();
        }
        QCOMPARE(groupAfter, after.nodeMedianSumMs);
        QVERIFY(fusedGroups > 0);  // the stem's Conv+BatchNorm+Relu at least
        for (const OriginCost& row : c.origins) QVERIFY2(original.graph.hasNode(row.origin), row.name.c_str());
        QCOMPARE(c.speedup(), before.runMs.median / after.runMs.median);
        QCOMPARE(c.beforeArenaBytes, before.memory.arenaBytes);
        QCOMPARE(c.afterArenaBytes, after.memory.arenaBytes);
    }
};

QTEST_GUILESS_MAIN(TestProfileCompare)
#include "tst_profile_compare.moc"
