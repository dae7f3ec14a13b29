// Writing ONNX: round trips keep nodes, initializers, inputs and outputs; writes are atomic.
#include "core/graph/builder.h"
#include "core/onnx/exporter.h"
#include "core/onnx/loader.h"
#include "core/onnx/onnx_error.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

using namespace graphlens;

namespace {

const QString kSample = QStringLiteral(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");

/// Everything a round trip must keep, node by node and tensor by tensor.
void compareModels(const Model& a, const Model& b) {
    const Graph& ga = a.graph;
    const Graph& gb = b.graph;
    QCOMPARE(gb.nodeCount(), ga.nodeCount());
    const auto orderA = ga.topologicalOrder();
    const auto orderB = gb.topologicalOrder();
    for (size_t i = 0; i < orderA.size(); ++i) {
        const Node& na = ga.node(orderA[i]);
        const Node& nb = gb.node(orderB[i]);
        QCOMPARE(nb.name, na.name);
        QCOMPARE(nb.opType, na.opType);
        QCOMPARE(nb.domain, na.domain);
        QCOMPARE(nb.attributes.size(), na.attributes.size());
        QCOMPARE(nb.inputs().size(), na.inputs().size());
        for (size_t k = 0; k < na.inputs().size(); ++k) {
            QCOMPARE(nb.input(k) == kNoId, na.input(k) == kNoId);
            if (na.input(k) != kNoId) QCOMPARE(gb.value(nb.input(k)).name, ga.value(na.input(k)).name);
        }
    }
    QCOMPARE(gb.initializers().size(), ga.initializers().size());
    for (ValueId v : ga.initializers()) {
        const Value& va = ga.value(v);
        const auto vb = gb.findValue(va.name);
        QVERIFY(vb.has_value());
        QVERIFY(gb.value(*vb).initializer->contentEquals(*va.initializer));
    }
    QCOMPARE(gb.inputs().size(), ga.inputs().size());
    QCOMPARE(gb.outputs().size(), ga.outputs().size());
    for (size_t i = 0; i < ga.outputs().size(); ++i) {
        QCOMPARE(gb.value(gb.outputs()[i]).name, ga.value(ga.outputs()[i]).name);
        QCOMPARE(gb.value(gb.outputs()[i]).shape, ga.value(ga.outputs()[i]).shape);
    }
    QCOMPARE(b.opsets, a.opsets);
    QCOMPARE(b.irVersion, a.irVersion);
    QCOMPARE(b.producerName, a.producerName);
}

} // namespace

class TestExporter : public QObject {
    Q_OBJECT
private slots:
    void sampleModelRoundTripsThroughAFile() {
        QTemporaryDir dir;
        const Model m = loadModel(kSample.toStdString());
        const QString out = dir.filePath("copy.onnx");
        saveModel(m, out.toStdString());
        compareModels(m, loadModel(out.toStdString()));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"copy.onnx"});
        onnx::ModelProto proto;
        modelToProto(m, proto);
        onnx::checker::check_model(proto);  // throws if the checker rejects it
    }

    void builderModelWithEveryAttributeKindRoundTrips() {
        GraphBuilder b;
        ValueId x = b.input("x", DType::Float, std::vector<Dim>{Dim("batch"), Dim(4)});
        ValueId k = b.constant(Tensor::floats({4}, {1, 2, 3, 4}), "k");
        ValueId y = b.op("Add", {x, k}, {}, "add");
        ValueId s = b.op("Clip", {y, kNoId, kNoId}, {}, "clip");  // omitted optional inputs
        GraphBuilder body("body");
        body.output(body.op("Identity", {body.input("i", DType::Float, {4})}));
        b.output(b.op("Custom", {s},
                      {{"f", 0.25}, {"i", 3}, {"s", "text"}, {"fs", std::vector<float>{1.f, 2.f}}, {"is", {5, 6}},
                       {"ss", std::vector<std::string>{"a", "b"}},
                       {"t", Tensor::int64s({2}, {7, 8})},
                       {"g", GraphPtr(std::make_shared<Graph>(body.graph()))}},
                      "custom"),
                 DType::Float, std::vector<Dim>{Dim("batch"), Dim(4)});
        b.graph().node(b.lastNode()).domain = "com.example";
        Model m = b.model(17);
        m.opsets.push_back({"com.example", 1});
        m.metadata = {{"author", "tests"}};
        const Model back = loadModelFromBytes(serializeModel(m));
        compareModels(m, back);
        const Node& custom = back.graph.node(*back.graph.findNode("custom"));
        QCOMPARE(custom.attributes.getFloat("f", 0), 0.25f);
        QCOMPARE(custom.attributes.getInts("is"), (std::vector<int64_t>{5, 6}));
        QCOMPARE(custom.attributes.find("ss")->get<std::vector<std::string>>()[1], std::string("b"));
        QCOMPARE(custom.attributes.getTensor("t")->toDoubles(), (std::vector<double>{7, 8}));
        QCOMPARE(custom.attributes.find("g")->get<GraphPtr>()->nodeCount(), size_t(1));
        const Node& clip = back.graph.node(*back.graph.findNode("clip"));
        QCOMPARE(clip.inputs(), (std::vector<ValueId>{clip.input(0), kNoId, kNoId}));
        QCOMPARE(back.metadata, m.metadata);
        QCOMPARE(back.graph.value(back.graph.inputs()[0]).shape.toString(), std::string("[batch,4]"));
    }

    void unnamedValuesGetGeneratedNames() {
        Graph g;
        ValueId x = g.addInput("x", DType::Float, {2});
        ValueId hidden = g.addValue("");
        ValueId y = g.addValue("y");
        g.addNodeProducing("Relu", {x}, {hidden}, {}, "a");
        g.addNodeProducing("Neg", {hidden}, {y}, {}, "b");
        g.addOutput(y);
        Model m;
        m.graph = g;
        const Model back = loadModelFromBytes(serializeModel(m));
        const Node& neg = back.graph.node(*back.graph.findNode("b"));
        QCOMPARE(back.graph.value(neg.input(0)).name, std::string("graphlens_value_1"));
    }

    void failedWriteLeavesNothingBehindAndSaysWhy() {
        QTemporaryDir dir;
        const Model m = loadModel(kSample.toStdString());
        const QString missing = dir.filePath("no/such/folder/out.onnx");
        try {
            saveModel(m, missing.toStdString());
            QFAIL("writing into a missing folder must fail");
        } catch (const OnnxError& e) {
            QVERIFY2(std::string(e.what()).starts_with("cannot write '"), e.what());
        }
        QVERIFY(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).isEmpty());
    }

    void overwritingReplacesTheFileWhole() {
        QTemporaryDir dir;
        const QString out = dir.filePath("model.onnx");
        QFile f(out);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(1 << 20, 'x'));  // an old, larger file
        f.close();
        const Model m = loadModel(kSample.toStdString());
        saveModel(m, out.toStdString());
        QCOMPARE(QFileInfo(out).size(), qint64(serializeModel(m).size()));
    }

    void aFileHoldsProtobufsOwnBytesWithTheWeightsStreamedFromTheTensors() {
        // saveModel writes the main graph's raw data straight from the tensors; the bytes must be
        // the ones protobuf writes with the data inside the message (serializeModel).
        GraphBuilder b;
        ValueId x = b.input("x", DType::Float, {64, 300});
        std::vector<float> big(300 * 256);
        for (size_t i = 0; i < big.size(); ++i) big[i] = float(i) * 0.5f - 7.f;
        ValueId w = b.initializer("w", Tensor::floats({300, 256}, big));        // 300 KB, written directly
        ValueId bias = b.initializer("bias", Tensor::floats({256}, std::vector<float>(256, 0.25f)));
        ValueId none = b.initializer("empty", Tensor::floats({0, 256}, {}));
        ValueId labels = b.initializer("labels", Tensor::fromStrings({2}, {"cat", "dog"}));
        ValueId y = b.op("Add", {b.op("MatMul", {x, w}), b.op("Add", {bias, none})}, {}, "add");
        b.output(y, DType::Float, {64, 256});
        b.output(b.op("Identity", {labels}), DType::String, {2});
        GraphBuilder body("body");
        body.output(body.op("Identity", {body.initializer("inner", Tensor::floats({2}, {1, 2}))}));
        ValueId chosen = b.op("If", {b.initializer("cond", Tensor::fromVector(DType::Bool, {}, std::vector<uint8_t>{1}))},
                              {{"then_branch", GraphPtr(std::make_shared<Graph>(body.graph()))},
                               {"else_branch", GraphPtr(std::make_shared<Graph>(body.graph()))}}, "if");
        b.output(chosen, DType::Float, {2});
        Model m = b.model(17);
        m.producerName = "tests";
        m.docString = "a model written in parts";
        m.metadata = {{"author", "tests"}};
        const std::string expected = serializeModel(m);
        for (bool waitForDisk : {true, false}) {  // fsync, or rename without waiting
            QTemporaryDir dir;
            const QString out = dir.filePath("parts.onnx");
            SaveOptions options;
            options.waitForDisk = waitForDisk;
            saveModel(m, out.toStdString(), options);
            QFile f(out);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray written = f.readAll();
            QCOMPARE(size_t(written.size()), expected.size());
            QVERIFY(written == QByteArray::fromStdString(expected));
            QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"parts.onnx"});
            compareModels(m, loadModel(out.toStdString()));
        }
    }

    void inferredShapesAreWrittenOnlyWhenAsked() {
        const Model m = loadModel(kSample.toStdString());
        onnx::ModelProto plain, withShapes;
        modelToProto(m, plain);
        SaveOptions options;
        options.writeInferredShapes = true;
        modelToProto(m, withShapes, options);
        QCOMPARE(plain.graph().value_info_size(), 0);  // the sample declares none
        QVERIFY(withShapes.graph().value_info_size() >= 20);
    }
};

QTEST_APPLESS_MAIN(TestExporter)
#include "tst_exporter.moc"
