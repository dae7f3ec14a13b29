// Node search on the sample model: pieces of names and op types (case-insensitive), regular
// expressions, an invalid expression's message, and nodes drawn as parameters left out; both
// sides of a split view searched at once.
#include "core/onnx/loader.h"
#include "core/passes/pass_manager.h"
#include "core/passes/pass_registry.h"
#include "viewer/node_search.h"

#include <QtTest>

using namespace graphlens;

namespace {

const Graph& sample() {
    static const Model model = loadModel(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");
    return model.graph;
}

QStringList names(const NodeSearch& found) {
    QStringList out;
    for (NodeId id : found.nodes) out << QString::fromStdString(sample().node(id).name);
    return out;
}

} // namespace

class TestNodeSearch : public QObject {
    Q_OBJECT
private slots:
    void plainTextMatchesNamesAndOpTypes() {
        QCOMPARE(names(searchNodes(sample(), "conv", false)),
                 QStringList({"/stem/conv/Conv", "/block1/conv1/Conv", "/block1/conv2/Conv", "/down/conv/Conv"}));
        QCOMPARE(searchNodes(sample(), "batchnormalization", false).nodes.size(), size_t(4));
        QCOMPARE(names(searchNodes(sample(), "Gemm", false)), QStringList({"/head/fc/Gemm"}));
    }

    void regexMatchesNamesAndOpTypes() {
        QCOMPARE(searchNodes(sample(), "^/block1/", true).nodes.size(), size_t(7));
        QCOMPARE(searchNodes(sample(), "^(Relu|Add)$", true).nodes.size(), size_t(5));  // op types
        QCOMPARE(searchNodes(sample(), "^/block1/", false).nodes.size(), size_t(0));    // plain: no '^'
    }

    void invalidRegexSaysWhy() {
        const NodeSearch found = searchNodes(sample(), "conv(", true);
        QVERIFY(found.nodes.empty());
        QVERIFY(found.error.startsWith("Invalid regular expression at position 5"));
    }

    void parametersAndEmptyQueriesFindNothing() {
        QCOMPARE(searchNodes(sample(), "Constant", false).nodes.size(), size_t(0));  // three Constant nodes
        QCOMPARE(searchNodes(sample(), "", false).nodes.size(), size_t(0));
    }

    void bothSidesAreSearchedAndTagged() {
        // After: the sample with its BatchNorms folded into the Convs before them.
        Model folded = loadModel(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");
        PassContext context = contextFor(folded);
        runPass(*makePipeline("fold-batchnorm").front(), folded, context);
        const SplitSearch found = searchBothSides(sample(), folded.graph, "^/block1/(bn|conv)", true);
        QCOMPARE(found.beforeCount, size_t(4));
        QCOMPARE(found.afterCount, size_t(2));
        QStringList hits;
        for (const SearchHit& hit : found.hits) {
            const Graph& graph = hit.side == SearchSide::Before ? sample() : folded.graph;
            hits << sideName(hit.side) + " " + QString::fromStdString(graph.node(hit.node).name);
        }
        QCOMPARE(hits, QStringList({"before /block1/conv1/Conv", "before /block1/bn1/BatchNormalization",
                                    "before /block1/conv2/Conv", "before /block1/bn2/BatchNormalization",
                                    "after /block1/conv1/Conv", "after /block1/conv2/Conv"}));
    }

    void oneGraphOnBothSidesIsListedOnce() {
        const SplitSearch found = searchBothSides(sample(), sample(), "relu", false);
        QCOMPARE(found.hits.size(), size_t(4));
        QCOMPARE(found.beforeCount, size_t(4));
        QCOMPARE(found.afterCount, size_t(4));
        for (const SearchHit& hit : found.hits) QCOMPARE(hit.side, SearchSide::Both);
        QVERIFY(searchBothSides(sample(), sample(), "conv(", true).error.startsWith("Invalid regular expression"));
    }
};

QTEST_APPLESS_MAIN(TestNodeSearch)
#include "tst_node_search.moc"
