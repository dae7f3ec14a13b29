// Group summaries on the sample model: node and op counts, the parameters the group's nodes read
// (initializers and Constant nodes, each once) and FLOPs, against figures computed from the file
// with the onnx Python package.
#include "core/onnx/loader.h"
#include "viewer/group_summary.h"

#include <QtTest>

using namespace graphlens;

namespace {

const Graph& sample() {
    static const Model model = loadModel(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");
    return model.graph;
}

using OpCounts = std::vector<std::pair<std::string, int>>;

} // namespace

class TestGroupSummary : public QObject {
    Q_OBJECT
private slots:
    void blockCountsItsNodesOpsParametersAndFlops() {
        const ScopeTree scopes(sample());
        const GroupSummary block = summarizeGroup(sample(), scopes, scopes.findGroup("/block1"));
        QCOMPARE(block.name, std::string("block1"));
        QCOMPARE(block.path, std::string("/block1"));
        QCOMPARE(block.nodes, size_t(7));
        QCOMPARE(block.subgroups, size_t(0));
        // Most frequent first, ties by name.
        QCOMPARE(block.ops, OpCounts({{"BatchNormalization", 2}, {"Conv", 2}, {"Relu", 2}, {"Add", 1}}));
        // Two 16×16×3×3 weights and two BatchNorms' four 16-vectors.
        QCOMPARE(block.parameterTensors, size_t(10));
        QCOMPARE(block.parameters, int64_t(4736));
        QCOMPARE(block.parameterBytes, int64_t(18944));
        QCOMPARE(block.flops, int64_t(9437184));  // 2 × (2 · 16·32·32 · 16·3·3)
    }

    void constantNodesCountAsParametersOfTheGroup() {
        const ScopeTree scopes(sample());
        const GroupSummary head = summarizeGroup(sample(), scopes, scopes.findGroup("/head"));
        QCOMPARE(head.nodes, size_t(6));  // its two Constant nodes are drawn as parameters
        QCOMPARE(head.ops, OpCounts({{"Dropout", 1}, {"Flatten", 1}, {"Gemm", 1}, {"GlobalAveragePool", 1},
                                     {"Identity", 1}, {"Reshape", 1}}));
        // Dropout's ratio, Reshape's shape [1, 32], the Gemm's 10×32 weight and 10 biases.
        QCOMPARE(head.parameterTensors, size_t(4));
        QCOMPARE(head.parameters, int64_t(333));
        QCOMPARE(head.parameterBytes, int64_t(1340));
        QCOMPARE(head.flops, int64_t(650));  // 2 · 10 · 32 + 10
    }
};

QTEST_APPLESS_MAIN(TestGroupSummary)
#include "tst_group_summary.moc"
