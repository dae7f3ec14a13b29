// Node search on the sample model: pieces of names and op types (case-insensitive), regular
// expressions, an invalid expression's message, and nodes drawn as parameters left out.
#include "core/onnx/loader.h"
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
};

QTEST_APPLESS_MAIN(TestNodeSearch)
#include "tst_node_search.moc"
