// Loading ONNX: the sample model, inferred shapes, typed tensor fields, unknown domains,
// sub-graphs with outer-scope references, and external data.
#include "core/graph/large_buffer.h"
#include "core/onnx/exporter.h"
#include "core/onnx/loader.h"
#include "core/onnx/onnx_error.h"
#include "support/proto_fixtures.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstring>

using namespace graphlens;
using namespace graphlens::testing;

namespace {
const QString kSample = QStringLiteral(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");
}

class TestLoader : public QObject {
    Q_OBJECT
private slots:
    void sampleModelLoadsWithEveryNodeAndInitializer() {
        const Model m = loadModel(kSample.toStdString());
        QCOMPARE(m.irVersion, int64_t(7));
        QCOMPARE(m.opsetVersion(), int64_t(13));
        QCOMPARE(m.graph.nodeCount(), size_t(23));
        QCOMPARE(m.graph.initializers().size(), size_t(22));
        QCOMPARE(m.graph.inputs().size(), size_t(1));
        QVERIFY2(m.warnings.empty(), m.warnings.empty() ? "" : m.warnings[0].c_str());
        const Value& input = m.graph.value(m.graph.inputs()[0]);
        QCOMPARE(input.shape, Shape({1, 3, 32, 32}));
        int constants = 0;
        for (NodeId id : m.graph.nodeIds()) constants += m.graph.node(id).opType == "Constant";
        QCOMPARE(constants, 3);
    }

    void shapeInferenceFillsIntermediateValues() {
        const Model m = loadModel(kSample.toStdString());
        const Graph& g = m.graph;
        const Node& conv = g.node(*g.findNode("/stem/conv/Conv"));
        const Value& out = g.value(conv.output(0));
        QCOMPARE(out.dtype, DType::Float);
        QCOMPARE(out.shape, Shape({1, 16, 32, 32}));
        QVERIFY(!out.declaredInFile);  // inferred, not read from value_info
        const Value& logits = g.value(g.outputs()[0]);
        QCOMPARE(logits.shape, Shape({1, 10}));
    }

    void shapesComputedFromScalarConstantsAreInferredAtLoad() {
        // As PyTorch writes a Reshape's shape: scalar Constants, each unsqueezed, concatenated.
        // libonnx alone leaves such a Reshape's (and an Expand's) output rank unknown.
        onnx::ModelProto p = emptyModel(13);
        auto& g = *p.mutable_graph();
        addInput(g, "x", {2, 8});
        addInput(g, "b", {4, 1});
        auto constant = [&](const std::string& name, std::vector<int64_t> dims, std::vector<int64_t> values) {
            auto* value = addNode(g, "Constant", {}, {name}, name).add_attribute();
            value->set_name("value");
            value->set_type(onnx::AttributeProto::TENSOR);
            auto* t = value->mutable_t();
            t->set_data_type(onnx::TensorProto::INT64);
            for (int64_t d : dims) t->add_dims(d);
            for (int64_t v : values) t->add_int64_data(v);
        };
        constant("minus_one", {1}, {-1});
        constant("four", {}, {4});
        constant("axis0", {1}, {0});
        addNode(g, "Unsqueeze", {"four", "axis0"}, {"four_1d"}, "unsqueeze");
        auto alongAxis0 = [](onnx::NodeProto& concat) {
            auto* axis = concat.add_attribute();
            axis->set_name("axis");
            axis->set_type(onnx::AttributeProto::INT);
            axis->set_i(0);
        };
        alongAxis0(addNode(g, "Concat", {"minus_one", "four_1d"}, {"shape"}, "concat"));
        addNode(g, "Reshape", {"x", "shape"}, {"y"}, "reshape");
        alongAxis0(addNode(g, "Concat", {"four_1d", "four_1d"}, {"wide"}, "concat_wide"));
        addNode(g, "Expand", {"b", "wide"}, {"z"}, "expand");
        auto* y = g.add_output();
        y->set_name("y");
        y->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
        auto* z = g.add_output();
        z->set_name("z");
        z->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
        // An empty integer initializer is read as no values (UBSan: its raw data has no bytes).
        auto* none = g.add_initializer();
        none->set_name("none");
        none->set_data_type(onnx::TensorProto::INT64);
        none->add_dims(0);
        none->set_raw_data(std::string());
        const Model m = loadModelFromBytes(p.SerializeAsString());
        QCOMPARE(m.graph.value(*m.graph.findValue("y")).shape, Shape({4, 4}));
        QCOMPARE(m.graph.value(*m.graph.findValue("z")).shape, Shape({4, 4}));
        // The model itself is as the file has it: the Reshape still reads the Concat's output.
        QCOMPARE(m.graph.value(m.graph.node(*m.graph.findNode("reshape")).input(1)).name, std::string("shape"));
        QCOMPARE(m.graph.initializers().size(), size_t(1));  // "none" only
    }

    void initializersViewTheParsedBytesWithoutCopies() {
        const Model m = loadModel(kSample.toStdString());
        const Tensor& w = *m.graph.value(*m.graph.findValue("stem.conv.weight")).initializer;
        QCOMPARE(w.dims(), (std::vector<int64_t>{16, 3, 3, 3}));
        QCOMPARE(w.byteSize(), size_t(16 * 27 * 4));
        const Model copy = m;  // a snapshot of the whole model shares every weight
        QVERIFY(copy.graph.value(*copy.graph.findValue("stem.conv.weight")).initializer->sharesStorageWith(w));
    }

    void largeInitializersAreViewedInTheFileWithTheBytesProtobufWouldRead() {
        // From 64 KiB up, raw data is read into a buffer of its own instead of parsed into a string;
        // the values must be the ones protobuf reads, including where raw_data appears twice (the
        // last one wins) and where a tensor has none.
        onnx::ModelProto p = emptyModel();
        auto& g = *p.mutable_graph();
        addInput(g, "x", {4, 256});
        std::string weights(256 * 128 * sizeof(float), '\0');
        for (size_t i = 0; i < 256 * 128; ++i) {
            const float v = float(i % 1000) * 0.125f - 3.f;
            std::memcpy(weights.data() + i * sizeof v, &v, sizeof v);
        }
        auto* w = g.add_initializer();
        w->set_name("w");
        w->set_data_type(onnx::TensorProto::FLOAT);
        for (int64_t d : {256, 128}) w->add_dims(d);
        w->set_raw_data(std::string(8, 'x'));  // overridden by the field after it
        w->mutable_unknown_fields()->AddLengthDelimited(9, weights);  // a second raw_data, written last
        auto* v = g.add_initializer();
        v->set_name("v");
        v->set_data_type(onnx::TensorProto::FLOAT);
        for (int64_t d : {256, 128}) v->add_dims(d);
        for (size_t i = 0; i < 256 * 128; ++i) v->add_float_data(float(i));  // typed, not raw
        addFloatInitializer(g, "b", {128}, {});
        g.mutable_initializer(2)->set_raw_data(std::string(128 * sizeof(float), '\0'));
        addNode(g, "MatMul", {"x", "w"}, {"h"});
        addNode(g, "Add", {"h", "v"}, {"hv"});
        addNode(g, "Add", {"hv", "b"}, {"y"});
        addOutput(g, "y", {4, 128});
        QTemporaryDir dir;
        const QString path = dir.filePath("big.onnx");
        writeModel(path, p);

        const Model fromFile = loadModel(path.toStdString());
        onnx::ModelProto parsed;
        QVERIFY(parsed.ParseFromString(p.SerializeAsString()));
        QVERIFY(parsed.graph().initializer(0).raw_data() == weights);  // what protobuf reads
        const Model fromBytes = loadModelFromBytes(p.SerializeAsString());  // copied, then split alike
        QVERIFY2(fromFile.warnings.empty(), fromFile.warnings.empty() ? "" : fromFile.warnings[0].c_str());
        for (const char* name : {"w", "v", "b"}) {
            const Tensor& a = *fromFile.graph.value(*fromFile.graph.findValue(name)).initializer;
            const Tensor& b = *fromBytes.graph.value(*fromBytes.graph.findValue(name)).initializer;
            QVERIFY2(a.contentEquals(b), name);
        }
        const Tensor& loaded = *fromFile.graph.value(*fromFile.graph.findValue("w")).initializer;
        QVERIFY(std::memcmp(loaded.data(), weights.data(), weights.size()) == 0);
        QCOMPARE(fromFile.graph.value(*fromFile.graph.findValue("y")).shape, Shape({4, 128}));

        // A lifted raw data of the wrong size is refused in the same sentence as a parsed one.
        w->mutable_unknown_fields()->Clear();
        w->set_raw_data(weights.substr(0, weights.size() - 4));
        writeModel(path, p);
        for (auto load : {+[](const QString& file, const std::string&) { return loadModel(file.toStdString()); },
                          +[](const QString&, const std::string& bytes) { return loadModelFromBytes(bytes); }}) {
            try {
                load(path, p.SerializeAsString());
                QFAIL("a raw data 4 bytes short must be refused");
            } catch (const OnnxError& e) {
                QCOMPARE(std::string(e.what()), std::string("initializer 'w' holds 131068 bytes but its shape [256,128] "
                                                             "of type float needs 131072"));
            }
        }
    }

    /// Raw data lies at whatever offset the file gives it; kernels read elements in place, so
    /// every large weight is read to a 64-byte boundary, with its values (UBSan saw misaligned
    /// float loads in the LSTM kernel of a fixture).
    void largeInitializersAreAlignedForTheKernels() {
        onnx::ModelProto p = emptyModel();
        auto& g = *p.mutable_graph();
        addInput(g, "x", {1, 128});
        std::vector<std::string> names{"a", "bb", "ccc", "dddd"};  // shift each raw data by a byte
        std::string previous = "x";
        for (size_t k = 0; k < names.size(); ++k) {
            std::vector<float> values(128 * 128);
            for (size_t i = 0; i < values.size(); ++i) values[i] = float((i + k) % 97) * 0.01f;
            auto* w = g.add_initializer();
            w->set_name(names[k]);
            w->set_data_type(onnx::TensorProto::FLOAT);
            for (int64_t d : {128, 128}) w->add_dims(d);
            w->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
            addNode(g, "MatMul", {previous, names[k]}, {"h" + names[k]});
            previous = "h" + names[k];
        }
        addOutput(g, previous, {1, 128});
        QTemporaryDir dir;
        const QString path = dir.filePath("aligned.onnx");
        writeModel(path, p);
        const Model m = loadModel(path.toStdString());
        for (size_t k = 0; k < names.size(); ++k) {
            const Tensor& t = *m.graph.value(*m.graph.findValue(names[k])).initializer;
            QVERIFY2(reinterpret_cast<uintptr_t>(t.data()) % 64 == 0, names[k].c_str());
            QVERIFY(std::memcmp(t.data(), p.graph().initializer(int(k)).raw_data().data(), t.byteSize()) == 0);
            // Each has storage of its own, which the model alone holds until it is copied.
            QCOMPARE(exclusivelyHeldBytes(t, 1), const_cast<std::byte*>(t.data()));
        }
        const Model copy = m;
        for (const std::string& name : names)
            QVERIFY(!exclusivelyHeldBytes(*m.graph.value(*m.graph.findValue(name)).initializer, 1));
    }

    /// From 16 MiB of weights up, a second thread reads them in pieces of 4 MiB while the loading
    /// thread imports the structure, which then takes pieces too: every byte lands in its place,
    /// and a model whose structure is refused fails with its sentence while the reads are under way.
    void largeWeightsAreReadWhileTheStructureIsImported() {
        onnx::ModelProto p = emptyModel();
        auto& g = *p.mutable_graph();
        constexpr int64_t kSide = 1100;  // 4.6 MiB each: two pieces apiece, 23 MiB in all
        addInput(g, "x", {1, kSide});
        std::string previous = "x";
        for (int k = 0; k < 5; ++k) {
            std::string raw(size_t(kSide * kSide) * sizeof(float), '\0');
            for (size_t i = 0; i < size_t(kSide * kSide); ++i) {
                const float v = float((i * 7 + size_t(k)) % 4099) * 0.5f;
                std::memcpy(raw.data() + i * sizeof v, &v, sizeof v);
            }
            auto* w = g.add_initializer();
            w->set_name("w" + std::to_string(k));
            w->set_data_type(onnx::TensorProto::FLOAT);
            for (int64_t d : {kSide, kSide}) w->add_dims(d);
            w->set_raw_data(raw);
            addNode(g, "MatMul", {previous, "w" + std::to_string(k)}, {"h" + std::to_string(k)});
            previous = "h" + std::to_string(k);
        }
        // A node longer than the 16 KiB the file is read ahead by, among the initializers' fields.
        auto& bias = addNode(g, "Constant", {}, {"bias"});
        auto* value = bias.add_attribute();
        value->set_name("value");
        value->set_type(onnx::AttributeProto::TENSOR);
        value->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
        value->mutable_t()->add_dims(4);
        value->mutable_t()->add_dims(kSide);  // 17.6 KB of float_data
        for (int64_t i = 0; i < 4 * kSide * 10; i += 10) value->mutable_t()->add_float_data(float(i) * 0.25f);
        addNode(g, "Add", {previous, "bias"}, {"y"});
        addOutput(g, "y", {4, kSide});
        QTemporaryDir dir;
        const QString path = dir.filePath("large.onnx");
        writeModel(path, p);
        const Model fromFile = loadModel(path.toStdString());
        const Model fromBytes = loadModelFromBytes(p.SerializeAsString());
        for (int k = 0; k < 5; ++k) {
            const std::string name = "w" + std::to_string(k);
            const std::string& raw = p.graph().initializer(k).raw_data();
            for (const Model* m : {&fromFile, &fromBytes}) {
                const Tensor& t = *m->graph.value(*m->graph.findValue(name)).initializer;
                QCOMPARE(t.byteSize(), raw.size());
                QVERIFY2(std::memcmp(t.data(), raw.data(), raw.size()) == 0, name.c_str());
            }
        }
        for (const Model* m : {&fromFile, &fromBytes}) {
            const Graph& graph = m->graph;
            const Tensor* constant = graph.node(graph.value(*graph.findValue("bias")).producer()).attributes.getTensor("value");
            QVERIFY(constant);
            const std::vector<double> values = constant->toDoubles();
            QCOMPARE(values.size(), size_t(4 * kSide));
            QCOMPARE(values[4 * kSide - 1], double(4 * kSide - 1) * 2.5);
        }

        addNode(g, "Relu", {"nowhere"}, {"r"});  // reads a value nothing defines
        writeModel(path, p);
        for (auto load : {+[](const QString& file, const std::string&) { return loadModel(file.toStdString()); },
                          +[](const QString&, const std::string& bytes) { return loadModelFromBytes(bytes); }}) {
            try {
                load(path, p.SerializeAsString());
                QFAIL("a node reading an undefined value must be refused");
            } catch (const OnnxError& e) {
                QVERIFY2(std::string(e.what()).find("'nowhere'") != std::string::npos, e.what());
            }
        }
    }

    void typedFieldsAreReadLikeRawData() {
        onnx::ModelProto p = emptyModel();
        auto& g = *p.mutable_graph();
        addInput(g, "x", {3});
        auto* f = g.add_initializer();
        f->set_name("f");
        f->set_data_type(onnx::TensorProto::FLOAT);
        f->add_dims(3);
        for (float v : {1.5f, -2.f, 4.f}) f->add_float_data(v);
        auto* h = g.add_initializer();
        h->set_name("h");
        h->set_data_type(onnx::TensorProto::FLOAT16);
        h->add_dims(2);
        h->add_int32_data(0x3c00);  // 1.0
        h->add_int32_data(0x4000);  // 2.0
        auto* i8 = g.add_initializer();
        i8->set_name("i8");
        i8->set_data_type(onnx::TensorProto::INT8);
        i8->add_dims(2);
        i8->add_int32_data(-3);
        i8->add_int32_data(100);
        addNode(g, "Add", {"x", "f"}, {"y"});
        addOutput(g, "y", {3});
        const Model m = loadModelFromBytes(p.SerializeAsString());
        auto tensor = [&](const char* name) { return *m.graph.value(*m.graph.findValue(name)).initializer; };
        QCOMPARE(tensor("f").toDoubles(), (std::vector<double>{1.5, -2, 4}));
        QCOMPARE(tensor("h").toDoubles(), (std::vector<double>{1, 2}));
        QCOMPARE(tensor("i8").toDoubles(), (std::vector<double>{-3, 100}));
        QCOMPARE(tensor("i8").byteSize(), size_t(2));
    }

    void unknownDomainsStayAsOpaqueNodes() {
        onnx::ModelProto p = reluModel();
        auto* op = p.add_opset_import();
        op->set_domain("com.example");
        op->set_version(1);
        auto& custom = addNode(*p.mutable_graph(), "FancyOp", {"y"}, {"z"}, "fancy");
        custom.set_domain("com.example");
        auto* attr = custom.add_attribute();
        attr->set_name("flavour");
        attr->set_type(onnx::AttributeProto::STRING);
        attr->set_s("vanilla");
        addOutput(*p.mutable_graph(), "z", {2, 3});
        const Model m = loadModelFromBytes(p.SerializeAsString());
        const Node& n = m.graph.node(*m.graph.findNode("fancy"));
        QCOMPARE(n.domain, std::string("com.example"));
        QCOMPARE(n.attributes.getString("flavour"), std::string("vanilla"));
        QCOMPARE(m.opsetVersion("com.example"), int64_t(1));
    }

    void subgraphsReadOuterValuesAsOuterScope() {
        onnx::ModelProto p = emptyModel();
        auto& g = *p.mutable_graph();
        addInput(g, "cond", {});
        g.mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::BOOL);
        addInput(g, "x", {2});
        addNode(g, "Relu", {"x"}, {"r"}, "relu");
        auto& ifNode = addNode(g, "If", {"cond"}, {"y"}, "if");
        for (const char* branchName : {"then_branch", "else_branch"}) {
            auto* a = ifNode.add_attribute();
            a->set_name(branchName);
            a->set_type(onnx::AttributeProto::GRAPH);
            auto* body = a->mutable_g();
            body->set_name(branchName);
            addNode(*body, std::string(branchName) == "then_branch" ? "Neg" : "Abs", {"r"}, {"out"});
            addOutput(*body, "out", {2});
        }
        addOutput(g, "y", {2});
        const Model m = loadModelFromBytes(p.SerializeAsString());
        QVERIFY2(m.warnings.empty(), m.warnings.empty() ? "" : m.warnings[0].c_str());
        const Node& n = m.graph.node(*m.graph.findNode("if"));
        const GraphPtr& then = n.attributes.find("then_branch")->get<GraphPtr>();
        QCOMPARE(then->nodeCount(), size_t(1));
        const Value& r = then->value(*then->findValue("r"));
        QVERIFY(r.outerScope);
        QVERIFY(then->validate().empty());
    }

    void irVersion3InitializersListedAsInputsHaveDefaults() {
        onnx::ModelProto p = reluModel();
        p.set_ir_version(3);
        auto& g = *p.mutable_graph();
        addInput(g, "bias", {2, 3});
        addFloatInitializer(g, "bias", {2, 3}, {1, 2, 3, 4, 5, 6});
        g.mutable_node(0)->set_op_type("Add");
        g.mutable_node(0)->add_input("bias");
        const Model m = loadModelFromBytes(p.SerializeAsString());
        const ValueId bias = *m.graph.findValue("bias");
        QVERIFY(m.graph.isGraphInput(bias));
        QVERIFY(m.graph.value(bias).initializer.has_value());
        QVERIFY(m.graph.constantValue(bias) == nullptr);  // an input may override it
    }

    void externalDataIsMappedFromTheModelsFolder() {
        QTemporaryDir dir;
        Model m = loadModel(kSample.toStdString());
        const QString path = dir.filePath("external.onnx");
        SaveOptions options;
        options.externalData = SaveOptions::ExternalData::Always;
        options.externalThresholdBytes = 256;
        saveModel(m, path.toStdString(), options);
        QVERIFY(QFileInfo::exists(dir.filePath("external.data")));
        const Model back = loadModel(path.toStdString());
        const Tensor& w = *back.graph.value(*back.graph.findValue("block1.conv1.weight")).initializer;
        QVERIFY(w.externalOrigin() != nullptr);
        QCOMPARE(w.externalOrigin()->location, std::string("external.data"));
        QCOMPARE(w.externalOrigin()->offset % 64, uint64_t(0));
        const Tensor& original = *m.graph.value(*m.graph.findValue("block1.conv1.weight")).initializer;
        QVERIFY(w.contentEquals(original));
        // small tensors stay inline
        const Tensor& bias = *back.graph.value(*back.graph.findValue("head.fc.bias")).initializer;
        QVERIFY(bias.externalOrigin() == nullptr);
        QVERIFY(back.warnings.empty());
    }
};

QTEST_APPLESS_MAIN(TestLoader)
#include "tst_loader.moc"
