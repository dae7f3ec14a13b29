// The canonical op key: "" and "ai.onnx" are one domain, normalized once at load, so a model
// whose nodes say "ai.onnx" loads, runs and exports like one that says nothing, every registry
// keys on (domain, op), and messages spell ops one way ("Op", "domain:Op").
#include "core/graph/builder.h"
#include "core/onnx/exporter.h"
#include "core/onnx/loader.h"
#include "core/runtime/backend_registry.h"
#include "core/runtime/cpu/cpu_kernel.h"
#include "core/runtime/executor.h"
#include "support/proto_fixtures.h"

#include <QtTest>

#include <algorithm>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

/// Relu then LeakyRelu (alpha from the schema default), every node and the opset import in the
/// "ai.onnx" spelling of the default domain.
onnx::ModelProto aiOnnxSpelledModel() {
    onnx::ModelProto m = emptyModel(17);
    m.mutable_opset_import(0)->set_domain("ai.onnx");
    auto& g = *m.mutable_graph();
    addInput(g, "x", {4});
    addNode(g, "Neg", {"x"}, {"n"}, "neg").set_domain("ai.onnx");
    addNode(g, "LeakyRelu", {"n"}, {"y"}, "leaky").set_domain("ai.onnx");
    addOutput(g, "y", {4});
    return m;
}

bool contains(const std::vector<OpKey>& keys, const OpKey& key) {
    return std::find(keys.begin(), keys.end(), key) != keys.end();
}

} // namespace

class TestOpKey : public QObject {
    Q_OBJECT
private slots:
    void defaultDomainHasOneSpelling() {
        QCOMPARE(OpKey("ai.onnx", "Relu"), OpKey("", "Relu"));
        QCOMPARE(OpKey("ai.onnx", "Relu").domain, std::string());
        QCOMPARE(OpKey("ai.onnx", "Relu").toString(), std::string("Relu"));
        QCOMPARE(OpKey("com.microsoft", "FusedConv").toString(), std::string("com.microsoft:FusedConv"));
        QVERIFY(OpKey("", "Relu") != OpKey("com.microsoft", "Relu"));
        QVERIFY(isDefaultDomain("ai.onnx") && isDefaultDomain("") && !isDefaultDomain("com.microsoft"));
    }

    void aiOnnxModelLoadsAsTheDefaultDomainAndRuns() {
        const Model m = loadModelFromBytes(aiOnnxSpelledModel().SerializeAsString());
        QCOMPARE(m.opsets.at(0).domain, std::string());
        QCOMPARE(m.opsetVersion(), int64_t(17));
        QCOMPARE(m.opsetVersion("ai.onnx"), int64_t(17));
        for (NodeId id : m.graph.nodeIds()) QCOMPARE(m.graph.node(id).domain, std::string());
        const std::vector<Tensor> out = makeBackend("cpu")->compile(m, {})->run({{"x", Tensor::floats({4}, {-2, -1, 1, 3})}});
        const std::vector<float> want{2, 1, -0.01f, -0.03f};  // LeakyRelu's schema alpha 0.01
        const auto got = out.at(0).span<float>();
        QCOMPARE(std::vector<float>(got.begin(), got.end()), want);
        // Exported with ONNX's own spelling of the default domain: no domain field at all.
        onnx::ModelProto back;
        modelToProto(m, back);
        for (const auto& n : back.graph().node()) QVERIFY(!n.has_domain() || n.domain().empty());
    }

    void builtNodesAreCanonicalToo() {
        Graph g;
        const ValueId x = g.addValue("x");
        const NodeId relu = g.addNode("Relu", {x}, {"y"}, {}, "relu", "ai.onnx");
        QCOMPARE(g.node(relu).domain, std::string());
        QCOMPARE(OpKey::of(g.node(relu)), OpKey("", "Relu"));
    }

    void registriesKeyOnDomainAndOp() {
        const std::vector<OpKey> cpu = cpuKernels().ops();
        QVERIFY(contains(cpu, OpKey("com.microsoft", "FusedConv")));
        QVERIFY(!contains(cpu, OpKey("", "FusedConv")));  // not an ONNX op
        QVERIFY(contains(cpu, OpKey("", "Conv")));
        QVERIFY(!contains(cpu, OpKey("com.microsoft", "Conv")));
        QVERIFY(contains(cpu, OpKey("", "Gelu")) && contains(cpu, OpKey("com.microsoft", "Gelu")));
        QVERIFY(std::is_sorted(cpu.begin(), cpu.end()));
        const std::vector<OpKey> reference = referenceKernels().ops();
        QVERIFY(contains(reference, OpKey("com.microsoft", "QuickGelu")));
        QVERIFY(referenceKernels().find("ai.onnx", "Relu") == referenceKernels().find(OpKey("", "Relu")));
        QVERIFY(referenceKernels().find(OpKey("", "QuickGelu")) == nullptr);
    }

    void messagesSpellOpsOneWay() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, {2});
        const ValueId y = b.op("NoSuchOp", {x});
        Graph& g = b.graph();
        g.node(g.value(y).producer()).domain = "ai.onnx";  // as if set by hand, past the loader
        const ValueId z = g.node(g.addNode("Mystery", {y}, {"z"}, {}, "m", "com.example")).output(0);
        b.output(z);
        const GraphExecutor executor(g, referenceKernels(), 17, 1);
        const std::vector<OpKey> missing = executor.unsupportedOps();
        QCOMPARE(joinOpNames(missing), std::string("NoSuchOp, com.example:Mystery"));
        QCOMPARE(joinOpNames(opsWithoutVulkanShader(g)).find("ai.onnx"), std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestOpKey)
#include "tst_op_key.moc"
