// The comparison engine: exact per-node errors on constructed graphs, matching of a renamed copy,
// the structural diff of BatchNorm folding, provenance through a save, CPU against Vulkan, pass
// bisection, and the memory the comparison holds.
#include "core/compare/compare.h"
#include "core/compare/provenance_map.h"
#include "core/graph/builder.h"
#include "core/onnx/exporter.h"
#include "core/onnx/loader.h"
#include "core/passes/pass_manager.h"
#include "core/passes/pass_registry.h"
#include "core/passes/rewriter.h"
#include "core/runtime/backend_registry.h"
#include "support/add_mul_model.h"
#include "support/perturb_conv_pass.h"
#include "support/pass_harness.h"

#include <onnx/onnx_pb.h>

#include <QtTest>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

using namespace graphlens;

namespace {

const std::string kSampleCnn = std::string(GRAPHLENS_SOURCE_DIR) + "/resources/models/sample_cnn.onnx";


std::map<std::string, Tensor> addMulFeeds() { return {{"x", Tensor::floats({4}, {1, 2, 3, 4})}}; }

double cosineOf(const std::vector<double>& a, const std::vector<double>& b) {
    double dot = 0, na = 0, nb = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        dot += a[i] * b[i];
        na += a[i] * a[i];
        nb += b[i] * b[i];
    }
    return dot / (std::sqrt(na) * std::sqrt(nb));
}

/// The model in `bytes` with every node and value renamed ("node<k>" for the k-th node of the
/// file, whose old name goes to `oldNames`) and its nodes stored in reverse order.
Model renamedCopy(const std::string& bytes, std::vector<std::string>* oldNames = nullptr) {
    onnx::ModelProto proto;
    if (!proto.ParseFromString(bytes)) throw std::runtime_error("cannot parse the model");
    std::map<std::string, std::string> names;
    const auto rename = [&](const std::string& name) {
        if (name.empty()) return name;
        auto [it, added] = names.emplace(name, "v" + std::to_string(names.size()));
        return it->second;
    };
    auto* g = proto.mutable_graph();
    for (auto& v : *g->mutable_input()) v.set_name(rename(v.name()));
    for (auto& v : *g->mutable_output()) v.set_name(rename(v.name()));
    for (auto& v : *g->mutable_value_info()) v.set_name(rename(v.name()));
    for (auto& t : *g->mutable_initializer()) t.set_name(rename(t.name()));
    int k = 0;
    for (auto& n : *g->mutable_node()) {
        if (oldNames) oldNames->push_back(n.name());
        n.set_name("node" + std::to_string(k++));
        for (auto& s : *n.mutable_input()) s = rename(s);
        for (auto& s : *n.mutable_output()) s = rename(s);
    }
    std::reverse(g->mutable_node()->begin(), g->mutable_node()->end());
    return loadModelFromBytes(proto.SerializeAsString());
}

std::string fileBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

Model reloaded(const Model& m) { return loadModelFromBytes(serializeModel(m)); }

Model withPasses(const Model& a, const std::string& spec) {
    Model b = a;
    PassContext context = contextFor(b);
    runPipeline(b, makePipeline(spec), context, {});
    return b;
}

std::set<std::string> names(const Graph& g, const std::vector<NodeId>& ids) {
    std::set<std::string> out;
    for (NodeId id : ids) out.insert(g.node(id).name);
    return out;
}

} // namespace

class TestCompare : public QObject {
    Q_OBJECT

private slots:
    void exactErrorsOnConstructedGraphs() {
        const Model a = testing::addMulModel(1.0f), b = testing::addMulModel(1.5f);
        CompareOptions options;
        options.feeds = addMulFeeds();
        const ComparisonReport r = compareModels(a, b, {}, options);
        QCOMPARE(r.matching.matches.size(), size_t(2));
        QVERIFY(r.matching.onlyA.empty() && r.matching.onlyB.empty());
        for (const NodeMatch& m : r.matching.matches) QCOMPARE(m.method, MatchMethod::Name);
        // The structural diff: the Add's constant moved by 0.5 (relative L2 0.5 / 1).
        QCOMPARE(r.changed.size(), size_t(1));
        QCOMPARE(a.graph.node(r.changed[0].a).name, std::string("add"));
        QCOMPARE(r.changed[0].weights.size(), size_t(1));
        QCOMPARE(r.changed[0].weights[0].input, 1);
        QCOMPARE(r.changed[0].weights[0].maxAbsDifference, 0.5);
        QCOMPARE(r.changed[0].weights[0].relativeL2, 0.5);
        // Add: [2,3,4,5] against [2.5,3.5,4.5,5.5]; Mul doubles both.
        QCOMPARE(r.nodes.size(), size_t(2));
        QCOMPARE(r.nodes[0].nameA, std::string("add"));
        QVERIFY(r.nodes[0].compared);
        QCOMPARE(r.nodes[0].error.maxAbsError, 0.5);
        QCOMPARE(r.nodes[0].error.maxRelError, 0.25);
        QCOMPARE(r.nodes[0].error.cosine, cosineOf({2, 3, 4, 5}, {2.5, 3.5, 4.5, 5.5}));
        QCOMPARE(r.nodes[1].nameB, std::string("mul"));
        QCOMPARE(r.nodes[1].error.maxAbsError, 1.0);
        QCOMPARE(r.nodes[1].error.maxRelError, 0.25);
        QCOMPARE(r.nodes[1].error.cosine, cosineOf({4, 6, 8, 10}, {5, 7, 9, 11}));
        QCOMPARE(r.firstDivergence, std::optional<size_t>(0));
        QCOMPARE(r.outputs.size(), size_t(1));
        QCOMPARE(r.outputs[0].error.maxAbsError, 1.0);
        QCOMPARE(r.firstDivergentOutput(), std::optional<size_t>(0));
        QCOMPARE(CompareOptions().tolerance, 1e-3);
        // Within a tolerance of 0.3 nothing diverges.
        options.tolerance = 0.3;
        QVERIFY(!compareModels(a, b, {}, options).firstDivergence);
        // A model against itself: every error exactly zero.
        CompareOptions sameOptions;
        sameOptions.feeds = addMulFeeds();
        const ComparisonReport same = compareModels(a, a, {}, sameOptions);
        QVERIFY(same.changed.empty());
        for (const NodeError& e : same.nodes) {
            QCOMPARE(e.error.maxAbsError, 0.0);
            QCOMPARE(e.error.cosine, 1.0);
        }
    }

    void relativeErrorUsesAFloorNearZero() {
        // |a| below a hundredth of the largest magnitude (4) is measured against 0.04.
        const TensorError e = measureError(Tensor::floats({3}, {0.0f, 4.0f, -2.0f}), Tensor::floats({3}, {0.02f, 4.0f, -2.002f}));
        QCOMPARE(e.maxAbsError, double(0.02f));
        QCOMPARE(e.maxRelError, double(0.02f) / (1e-2 * 4.0));
        QVERIFY(!measureError(Tensor::floats({2}, {1, 2}), Tensor::floats({3}, {1, 2, 3})).comparable());
        QCOMPARE(measureError(Tensor::floats({2}, {0, 0}), Tensor::floats({2}, {0, 0})).cosine, 1.0);
        QCOMPARE(measureError(Tensor::floats({2}, {0, 0}), Tensor::floats({2}, {1, 0})).cosine, 0.0);
    }

    void renamedCopyMatchesByStructure() {
        const Model a = loadModel(kSampleCnn);
        const Model b = renamedCopy(fileBytes(kSampleCnn));
        CompareOptions options;
        options.feeds = testing::seededFeeds(a.graph);
        const ComparisonReport r = compareModels(a, b, {}, options);
        QCOMPARE(r.matching.matches.size(), size_t(20));  // every node but the 3 Constants
        QVERIFY(r.matching.onlyA.empty());
        QVERIFY(r.matching.onlyB.empty());
        // node<k> is the k-th node of the file: the pairing is the right one, not just complete.
        std::vector<std::string> fileOrder;
        for (NodeId id : a.graph.nodeIds()) fileOrder.push_back(a.graph.node(id).name);
        for (const NodeMatch& m : r.matching.matches) {
            QCOMPARE(m.method, MatchMethod::Structure);
            const std::string& renamed = b.graph.node(m.b).name;
            QCOMPARE(fileOrder.at(std::stoul(renamed.substr(4))), a.graph.node(m.a).name);
        }
        QVERIFY(r.changed.empty());
        for (const NodeError& e : r.nodes) {
            QVERIFY2(e.compared, e.nameB.c_str());
            QCOMPARE(e.error.maxAbsError, 0.0);
        }
    }

    void renamedCopyWithoutNoOpsMatchesByStructure() {
        // Another exporter's file: every name different, no Dropout, Identity or no-op Mul and Reshape.
        const Model a = loadModel(kSampleCnn);
        Model cleaned = a;
        PassContext context = contextFor(cleaned);
        const PipelineReport pipeline = runPipeline(cleaned, makePipeline("eliminate-noops"), context, {});
        std::set<std::string> removed;
        for (const Rewrite& w : pipeline.passes[0].result.rewrites)
            for (const NodeRef& r : w.removed) removed.insert(r.name);
        QCOMPARE(removed.size(), size_t(4));
        std::vector<std::string> oldNames;
        const Model b = renamedCopy(serializeModel(cleaned), &oldNames);
        CompareOptions options;
        options.feeds = testing::seededFeeds(a.graph);
        const ComparisonReport r = compareModels(a, b, {}, options);
        QCOMPARE(names(a.graph, r.matching.onlyA), removed);
        QVERIFY(r.matching.onlyB.empty());
        QCOMPARE(r.matching.matches.size(), size_t(20 - 4));
        for (const NodeMatch& m : r.matching.matches) {
            QCOMPARE(m.method, MatchMethod::Structure);
            QCOMPARE(oldNames.at(std::stoul(b.graph.node(m.b).name.substr(4))), a.graph.node(m.a).name);
        }
        for (const NodeError& e : r.nodes) QCOMPARE(e.error.maxAbsError, 0.0);
    }

    void batchNormFoldIsAStructuralDiff() {
        const Model a = loadModel(kSampleCnn);
        const Model folded = withPasses(a, "fold-batchnorm");
        const std::set<std::string> batchNorms{"/stem/bn/BatchNormalization", "/block1/bn1/BatchNormalization",
                                               "/block1/bn2/BatchNormalization", "/down/bn/BatchNormalization"};
        const std::set<std::string> convs{"/stem/conv/Conv", "/block1/conv1/Conv", "/block1/conv2/Conv", "/down/conv/Conv"};
        CompareOptions options;
        options.feeds = testing::seededFeeds(a.graph);
        Model recorded = folded;
        recordProvenance(recorded, a.graph);
        // Saved without provenance (names), with it (metadata), and in memory (Node::provenance).
        const Model saved = reloaded(folded), savedWithProvenance = reloaded(recorded);
        QVERIFY(provenanceFromMetadata(saved, a.graph).empty());
        const ProvenanceMap fromFile = provenanceFromMetadata(savedWithProvenance, a.graph);
        QCOMPARE(fromFile.size(), size_t(19));  // 23 nodes, 4 BatchNormalizations folded away
        const std::vector<std::pair<const Model*, ProvenanceMap>> cases{
            {&saved, {}}, {&savedWithProvenance, fromFile}, {&folded, provenanceBetween(a.graph, folded.graph)}};
        for (const auto& [b, provenance] : cases) {
            const ComparisonReport r = compareModels(a, *b, provenance, options);
            QCOMPARE(names(a.graph, r.matching.onlyA), batchNorms);
            QCOMPARE(names(a.graph, r.matching.foldedA), batchNorms);  // each inside its Conv's group
            QVERIFY(r.matching.onlyB.empty());
            std::set<std::string> changed;
            for (const NodeChange& c : r.changed) {
                changed.insert(a.graph.node(c.a).name);
                QVERIFY(c.opChange.empty());
                QVERIFY(!c.weights.empty());
                QCOMPARE(c.weights[0].input, 1);  // the kernel, scaled by gamma / sqrt(var + eps)
                QVERIFY(c.weights[0].maxAbsDifference > 0);
                QCOMPARE(c.weights.back().shapeChange, std::string("added"));  // the bias the fold made
            }
            QCOMPARE(changed, convs);
            // Each folded Conv is compared with its BatchNormalization's output: the group's boundary.
            for (const NodeError& e : r.nodes) {
                const NodeMatch& m = r.matching.matches[e.match];
                if (convs.count(b->graph.node(m.b).name)) QVERIFY2(batchNorms.count(e.nameA), e.nameA.c_str());
                QVERIFY(e.compared);
                QVERIFY2(e.error.maxRelError < 1e-3, e.nameB.c_str());
            }
            QVERIFY(!r.firstDivergence);
        }
        for (const auto& [node, from] : fromFile) QCOMPARE(from, provenanceBetween(a.graph, folded.graph).at(folded.graph.findNode(savedWithProvenance.graph.node(node).name).value()));
    }

    void quantizedWeightsLeaveTheirDequantizationOnlyInB() {
        const Model a = loadModel(kSampleCnn);
        const Model b = withPasses(a, "quantize-int8-weights");
        size_t dequantizers = 0;
        for (NodeId id : b.graph.nodeIds()) dequantizers += b.graph.node(id).opType == "DequantizeLinear";
        QVERIFY(dequantizers > 0);
        CompareOptions options;
        options.feeds = testing::seededFeeds(a.graph);
        const ComparisonReport r = compareModels(a, b, provenanceBetween(a.graph, b.graph), options);
        QCOMPARE(r.matching.matches.size(), size_t(20));
        QVERIFY(r.matching.onlyA.empty());
        QCOMPARE(r.matching.onlyB.size(), dequantizers);
        for (NodeId id : r.matching.onlyB) QCOMPARE(b.graph.node(id).opType, std::string("DequantizeLinear"));
        // Each quantized Conv now reads its DequantizeLinear: a changed weight input.
        QCOMPARE(r.changed.size(), dequantizers);
        for (const NodeError& e : r.nodes) {
            QVERIFY(e.compared);
            QVERIFY(e.error.cosine > 0.999);
        }
        QVERIFY(r.firstDivergence);  // int8 weights move results by about 1e-2
        QCOMPARE(r.nodes[*r.firstDivergence].op, std::string("Conv"));
    }

    void rowsReshapeBeforeAGemmIsOnlyInB() {
        // matmul-add-to-gemm on a [1, S, K] MatMul + Add: Reshape to rows (provenance: the MatMul),
        // Gemm and Reshape back (both: the MatMul and the Add). The first is new; the Gemm is the
        // MatMul, compared with the Add's output (same elements); the Reshape back is the Add.
        const Model a = loadModel(std::string(GRAPHLENS_SOURCE_DIR) + "/tests/fixtures/models/transformer_encoder/model.onnx");
        const Model b = withPasses(a, "default");
        CompareOptions options;
        options.feeds = testing::seededFeeds(a.graph);
        const ComparisonReport r = compareModels(a, b, provenanceBetween(a.graph, b.graph), options);
        QCOMPARE(names(b.graph, r.matching.onlyB), (std::set<std::string>{"/qkv/MatMul/to_rows", "/proj/MatMul/to_rows", "/fc2/MatMul/to_rows"}));
        size_t gemms = 0;
        for (const NodeMatch& m : r.matching.matches) {
            QCOMPARE(m.method, MatchMethod::Provenance);
            if (b.graph.node(m.b).opType != "Gemm") continue;
            ++gemms;
            QCOMPARE(a.graph.node(m.a).opType, std::string("MatMul"));
            QCOMPARE(a.graph.node(m.boundaryA).opType, std::string("Add"));
        }
        QCOMPARE(gemms, size_t(3));
        for (const NodeError& e : r.nodes) QVERIFY2(e.compared && e.error.maxRelError < 1e-4, e.nameB.c_str());
        QVERIFY(!r.firstDivergence);
    }

    void cpuAgainstVulkan() {
        std::unique_ptr<Backend> vulkan;
        try {
            vulkan = makeBackend("vulkan");
        } catch (const std::exception& e) {
            QSKIP(e.what());
        }
        const Model a = loadModel(kSampleCnn);
        CompareOptions options;
        options.feeds = testing::seededFeeds(a.graph);
        options.backendB = "vulkan";
        ProvenanceMap same;
        for (NodeId id : a.graph.nodeIds()) same[id] = {id};
        const ComparisonReport r = compareModels(a, a, same, options);  // default tolerance 1e-3
        QCOMPARE(r.nodes.size(), size_t(20));
        for (const NodeError& e : r.nodes) {
            QCOMPARE(r.matching.matches[e.match].method, MatchMethod::Provenance);
            QVERIFY2(e.compared, e.nameB.c_str());
            // Float sums in another order: a few units in the last place, near-zero elements relative
            // to a hundredth of the tensor's largest magnitude.
            QVERIFY2(e.error.maxRelError < 1e-3, (e.nameB + " " + std::to_string(e.error.maxRelError)).c_str());
            QVERIFY2(e.error.maxAbsError < 1e-4, (e.nameB + " " + std::to_string(e.error.maxAbsError)).c_str());
            QVERIFY(e.error.cosine > 0.99999);
        }
        QVERIFY(!r.firstDivergence);
        QCOMPARE(r.outputs.size(), size_t(1));
        // Vulkan's values come back together at the end of its run, so B runs first and the CPU's
        // are compared as they are computed: the comparison never holds both sides' tensors.
        QVERIFY2(r.peakBytes < r.intermediateBytes, (std::to_string(r.peakBytes) + " " + std::to_string(r.intermediateBytes)).c_str());
    }

    void bisectNamesTheBrokenPass() {
        const Model a = loadModel(kSampleCnn);
        std::vector<std::unique_ptr<Pass>> passes = makePipeline("eliminate-noops,fold-batchnorm");
        passes.insert(passes.begin() + 1, std::make_unique<testing::PerturbConvWeight>());
        for (auto& pass : makePipeline("fuse-conv-activation")) passes.push_back(std::move(pass));
        CompareOptions options;
        options.feeds = testing::seededFeeds(a.graph);
        const BisectReport r = bisectPasses(a, passes, options);
        QCOMPARE(r.steps.size(), size_t(2));
        QVERIFY(r.steps[0].compared && !r.steps[0].diverged);  // Dropout and Identity removed: exact
        QCOMPARE(r.steps[0].maxRelError, 0.0);
        QCOMPARE(r.divergentStep, std::optional<size_t>(1));
        QCOMPARE(r.steps[1].passId, std::string("test-perturb-conv-weight"));
        QVERIFY(r.rewrite);
        QCOMPARE(r.rewrite->sentence, std::string("scaled the weight of /block1/conv2/Conv by 1.1"));
        QCOMPARE(r.nodesB, std::vector<std::string>{"/block1/conv2/Conv"});
        QCOMPARE(r.nodesA, std::vector<std::string>{"/block1/conv2/Conv"});
        QVERIFY(r.model.graph.findValue("perturbed"));  // the model after the broken pass
        QVERIFY(r.sentence.find("pass 'test-perturb-conv-weight'") == 0);
        // Without the broken pass the pipeline is clean.
        passes.erase(passes.begin() + 1);
        const BisectReport clean = bisectPasses(a, passes, options);
        QVERIFY(!clean.divergentStep);
        QCOMPARE(clean.steps.size(), size_t(3));
    }

    void peakBytesStayBelowEveryIntermediate() {
        const Model a = loadModel(kSampleCnn);
        const Model b = withPasses(a, "default");
        CompareOptions options;
        options.feeds = testing::seededFeeds(a.graph);
        const ProvenanceMap provenance = provenanceBetween(a.graph, b.graph);
        const ComparisonReport once = compareModels(a, b, provenance, options);
        QCOMPARE(once.rounds, 1);
        QVERIFY(once.peakBytes > 0);
        QVERIFY2(once.peakBytes < once.intermediateBytes,
                 (std::to_string(once.peakBytes) + " >= " + std::to_string(once.intermediateBytes)).c_str());
        // With a budget of 64 KiB (the largest activation is 32 KiB) the values come in rounds
        // and the errors are the same.
        options.memoryBudget = 64 * 1024;
        const ComparisonReport rounds = compareModels(a, b, provenance, options);
        QVERIFY(rounds.rounds > 1);
        QVERIFY(rounds.peakBytes < once.peakBytes);
        QCOMPARE(rounds.nodes.size(), once.nodes.size());
        for (size_t i = 0; i < once.nodes.size(); ++i) {
            QCOMPARE(rounds.nodes[i].compared, once.nodes[i].compared);
            QCOMPARE(rounds.nodes[i].error.maxAbsError, once.nodes[i].error.maxAbsError);
        }
    }

    void progressCancels() {
        CompareOptions options;
        options.feeds = addMulFeeds();
        int calls = 0;
        options.progress = [&](const std::string&, double) { return ++calls < 2; };
        QVERIFY_THROWS_EXCEPTION(CompareCancelled, compareModels(testing::addMulModel(1), testing::addMulModel(2), {}, options));
        QCOMPARE(calls, 2);
    }
};

QTEST_GUILESS_MAIN(TestCompare)
#include "tst_compare.moc"
