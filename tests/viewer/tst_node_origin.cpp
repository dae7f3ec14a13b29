// Provenance for the window: which nodes of one snapshot a node of another came from, and the
// inspector's "fused from" facts (rewrite sentences, original nodes, BatchNorm fold numbers)
// on the sample model stepped through the default pipeline.
#include "core/onnx/loader.h"
#include "core/passes/pass_manager.h"
#include "core/passes/pass_registry.h"
#include "viewer/node_origin.h"

#include <QtTest>

using namespace graphlens;

namespace {

/// The sample model with the default pipeline applied pass by pass up to and including `lastPass`.
struct Stepped {
    Model original;
    std::vector<Model> snapshots;  ///< after each pass
    std::vector<PassResult> results;

    explicit Stepped(const std::string& lastPass)
        : original(loadModel(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx")) {
        Model model = original;
        for (const auto& pass : makePipeline("default")) {
            PassContext context = contextFor(model);
            results.push_back(runPass(*pass, model, context));
            snapshots.push_back(model);
            if (pass->id() == lastPass) break;
        }
    }
    std::vector<const PassResult*> applied() const {
        std::vector<const PassResult*> out;
        for (const PassResult& r : results) out.push_back(&r);
        return out;
    }
    const Graph& last() const { return snapshots.back().graph; }
    const Graph& beforeLast() const { return snapshots.at(snapshots.size() - 2).graph; }
};

/// Names and op types, "name:Op".
QStringList described(const Graph& graph, const std::vector<NodeId>& nodes) {
    QStringList out;
    for (NodeId id : nodes) out << QString::fromStdString(graph.node(id).name + ":" + graph.node(id).opType);
    return out;
}

QStringList described(const std::vector<NodeRef>& nodes) {
    QStringList out;
    for (const NodeRef& n : nodes) out << QString::fromStdString(n.name + ":" + n.opType);
    return out;
}

/// The node named `name`; throws (failing the test) when there is none.
const Node& named(const Graph& graph, const char* name) {
    const auto id = graph.findNode(name);
    if (!id) throw std::runtime_error(std::string("no node named ") + name);
    return graph.node(*id);
}

QString g5(float v) { return QString::number(double(v), 'g', 5); }

} // namespace

class TestNodeOrigin : public QObject {
    Q_OBJECT
private slots:
    void foldedConvComesFromConvAndBatchNorm() {
        const Stepped s("fold-batchnorm");
        const Node& folded = named(s.last(), "/stem/conv/Conv");  // a fused node keeps the Conv's name
        QCOMPARE(folded.opType, std::string("Conv"));
        const NodeOrigin origin = nodeOrigin(s.original.graph, s.applied(), folded);
        QCOMPARE(origin.rewrites.size(), size_t(1));
        QVERIFY(QString::fromStdString(origin.rewrites[0]).startsWith("folded BatchNormalization"));
        QCOMPARE(described(origin.sources), QStringList({"/stem/conv/Conv:Conv", "/stem/bn/BatchNormalization:BatchNormalization"}));
        QCOMPARE(origin.batchNorms.size(), size_t(1));
        const BatchNormFold& fold = origin.batchNorms[0];
        QCOMPARE(fold.channels, size_t(16));
        QCOMPARE(fold.first.size(), size_t(4));
        QCOMPARE(fold.epsilon, 1e-5f);
        // stem.bn channel 0, from the model file: gamma 0.70752, var 1.3712, beta 0.0055411, mean -0.017215.
        const ChannelFold& c0 = fold.first[0];
        QCOMPARE(g5(c0.gamma), QString("0.70752"));
        QCOMPARE(g5(c0.var), QString("1.3712"));
        QCOMPARE(g5(c0.k), QString("0.60421"));
        QCOMPARE(g5(c0.b), QString("0.015943"));
        QCOMPARE(g5(fold.first[1].k), QString("1.3267"));
        QCOMPARE(g5(fold.first[1].b), QString("-0.1853"));
        // The pass computed the same numbers for its sentence.
        QVERIFY(QString::fromStdString(origin.rewrites[0]).contains("channel 0: k = 0.70752 / sqrt(1.3712 + 1e-05) = 0.60421"));
    }

    void fusedConvListsEveryRewriteOldestFirst() {
        const Stepped s("fuse-conv-activation");
        const Node& fused = named(s.last(), "/stem/conv/Conv");
        QCOMPARE(fused.opType, std::string("FusedConv"));
        const NodeOrigin origin = nodeOrigin(s.original.graph, s.applied(), fused);
        QCOMPARE(origin.rewrites.size(), size_t(2));
        QVERIFY(QString::fromStdString(origin.rewrites[0]).startsWith("folded BatchNormalization"));
        QVERIFY(QString::fromStdString(origin.rewrites[1]).contains("Relu"));
        QCOMPARE(described(origin.sources), QStringList({"/stem/conv/Conv:Conv", "/stem/bn/BatchNormalization:BatchNormalization",
                                                         "/stem/relu/Relu:Relu"}));
        QCOMPARE(origin.batchNorms.size(), size_t(1));
    }

    void untouchedNodeHasNoOrigin() {
        const Stepped s("fuse-conv-activation");
        const Node& pool = named(s.last(), "/head/pool/GlobalAveragePool");
        const NodeOrigin origin = nodeOrigin(s.original.graph, s.applied(), pool);
        QVERIFY(origin.rewrites.empty());
        QVERIFY(origin.sources.empty());
    }

    void provenanceIndexFindsRelativesBothWays() {
        const Stepped s("fuse-conv-activation");
        const Graph& before = s.beforeLast();
        const Graph& after = s.last();
        const ProvenanceIndex beforeIndex(before), afterIndex(after);
        const Node& fused = named(after, "/stem/conv/Conv");
        QCOMPARE(described(before, beforeIndex.nodesFrom(fused.provenance)),
                 QStringList({"/stem/conv/Conv:Conv", "/stem/relu/Relu:Relu"}));
        const Node& relu = named(before, "/stem/relu/Relu");
        QCOMPARE(described(after, afterIndex.nodesFrom(relu.provenance)), QStringList({"/stem/conv/Conv:FusedConv"}));
        QVERIFY(afterIndex.nodesFrom(std::vector<NodeId>{12345}).empty());
    }
};

QTEST_APPLESS_MAIN(TestNodeOrigin)
#include "tst_node_origin.moc"
