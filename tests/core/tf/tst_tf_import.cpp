// TensorFlow import: the fixtures of tests/fixtures/tf (TF.js GraphModels and a frozen GraphDef
// written without TensorFlow, expected outputs from numpy) import to exact op counts and run to
// numpy's outputs; names, origins, SAME padding and quantized weights come through; bad files are
// refused with one sentence.
#include "core/import/open_model.h"
#include "core/onnx/tensor_file.h"
#include "core/passes/pass_manager.h"
#include "core/passes/pass_registry.h"
#include "core/runtime/backend.h"
#include "core/runtime/backend_registry.h"
#include "core/runtime/tensor_compare.h"
#include "core/tf/tf_error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>

using namespace graphlens;
namespace fs = std::filesystem;

namespace {

const fs::path kCases = GRAPHLENS_SOURCE_DIR "/tests/fixtures/tf/cases";

fs::path modelOf(const std::string& name) {
    const fs::path dir = kCases / name;
    return fs::exists(dir / "model.json") ? dir / "model.json" : dir / "model.pb";
}

std::string opCounts(const Graph& g) {
    std::map<std::string, int> counts;
    for (NodeId n : g.nodeIds()) ++counts[(g.node(n).domain.empty() ? "" : g.node(n).domain + ":") + g.node(n).opType];
    std::string text;
    for (const auto& [op, count] : counts) text += (text.empty() ? "" : " ") + op + "=" + std::to_string(count);
    return text;
}

const Node* nodeNamed(const Graph& g, const std::string& name) {
    auto id = g.findNode(name);
    return id ? &g.node(*id) : nullptr;
}

void writeText(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

/// The message openModel throws for `path`; empty when it loads.
std::string loadError(const fs::path& path) {
    try {
        openModel(path);
    } catch (const std::exception& e) {  // OnnxError, or ValidationError for a node the kernels refuse
        return e.what();
    }
    return {};
}

/// A TF.js model.json: one Placeholder x [2], a Const w (dtype `dtype`, 2 values) from shard
/// `shard`, and y = x * w, or the nodes given.
std::string tfjsJson(const std::string& dtype = "float32", const std::string& shard = "w.bin",
                     const std::string& extraNode = {}, const std::string& quantization = {}) {
    return R"({"format": "graph-model", "modelTopology": {"node": [
      {"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"}, "shape": {"shape": {"dim": [{"size": "2"}]}}}},
      {"name": "w", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"}, "value": {"tensor": {"dtype": "DT_FLOAT", "tensorShape": {"dim": [{"size": "2"}]}}}}},
      {"name": "y", "op": "Mul", "input": ["x", "w"], "attr": {"T": {"type": "DT_FLOAT"}}})" +
           extraNode + R"(]},
      "weightsManifest": [{"paths": [")" + shard + R"("], "weights": [{"name": "w", "shape": [2], "dtype": ")" + dtype +
           "\"" + quantization + "}]}]}";
}

} // namespace

class TestTfImport : public QObject {
    Q_OBJECT

private slots:
    void importsToExactOpCounts_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("ops");
        // Convolutions stay channels-first between each other: one Transpose for the input, one
        // per output that TensorFlow's consumers read in NHWC.
        QTest::newRow("conv_same_odd") << "tfjs_conv_same_odd" << "Conv=2 Relu=1 Transpose=2";
        QTest::newRow("conv_chain") << "tfjs_conv_chain" << "Add=2 Clip=1 Conv=2 MaxPool=1 ReduceMean=1 Transpose=1";
        QTest::newRow("fused_variants") << "tfjs_fused_variants"
                                        << "Add=1 AveragePool=1 BatchNormalization=1 Clip=1 Conv=3 LeakyRelu=1 Relu=1 Transpose=2";
        QTest::newRow("quantized") << "tfjs_quantized" << "Add=1 Conv=1 MatMul=1 Relu=1 Reshape=1 Transpose=2";
        QTest::newRow("resize") << "tfjs_resize" << "Concat=1 DepthToSpace=1 Resize=5 Transpose=8";
        QTest::newRow("shapes") << "tfjs_shapes"
                                << "Cast=3 Concat=1 Expand=1 Gather=1 Mul=1 Pad=1 Reshape=1 Shape=1 Slice=7 Split=2 "
                                   "Squeeze=6 Tile=1 Transpose=1 Unsqueeze=5";
        QTest::newRow("math") << "tfjs_math"
                              << "Abs=1 ArgMax=1 Cast=2 Div=2 Elu=1 Exp=1 Greater=1 Identity=1 Max=1 Min=1 Mod=2 Mul=1 Neg=1 PRelu=1 "
                                 "Reciprocal=1 ReduceMax=1 ReduceSum=1 Reshape=1 Sigmoid=1 Softmax=1 Sqrt=1 Sub=3 "
                                 "Sum=1 Tanh=1 TopK=1 Where=1";
        // SpaceToBatchND -> depthwise conv -> BatchToSpaceND is one dilated Conv.
        QTest::newRow("atrous_sparse") << "tfjs_atrous_sparse" << "Conv=1 Expand=2 ScatterND=1 Shape=1 Slice=1 Transpose=2";
        // NonMaxSuppressionV3/V5 on a batch of one: the box index column gathered and cast to int32.
        QTest::newRow("nms") << "tfjs_nms" << "Cast=3 Gather=3 NonMaxSuppression=2 Reshape=6 Size=1 Unsqueeze=4";
        QTest::newRow("graphdef") << "pb_graphdef" << "Add=1 ConvTranspose=1 Identity=1 MatMul=3 Range=1 Reshape=1 Transpose=3";
    }
    void importsToExactOpCounts() {
        QFETCH(QString, name);
        QFETCH(QString, ops);
        const Model model = openModel(modelOf(name.toStdString()));
        QCOMPARE(QString::fromStdString(opCounts(model.graph)), ops);
        QVERIFY(model.graph.validate().empty());
        // Every initializer is read: a Const only a converter used (a filter permuted to OIHW) is
        // not left behind to double the weights of an export.
        for (ValueId v : model.graph.initializers())
            QVERIFY2(!model.graph.value(v).uses().empty() || model.graph.isGraphOutput(v), model.graph.value(v).name.c_str());
    }

    void outputsEqualNumpys_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("reference");
        for (const auto& entry : fs::directory_iterator(kCases)) {
            const std::string name = entry.path().filename().string();
            QTest::newRow((name + " cpu").c_str()) << QString::fromStdString(name) << false;
            QTest::newRow((name + " reference").c_str()) << QString::fromStdString(name) << true;
        }
    }
    void outputsEqualNumpys() {
        QFETCH(QString, name);
        QFETCH(bool, reference);
        const Model model = openModel(modelOf(name.toStdString()));
        const fs::path data = kCases / name.toStdString() / "test_data_set_0";
        std::map<std::string, Tensor> feeds;
        for (size_t k = 0; k < model.graph.inputs().size(); ++k)
            feeds[model.graph.value(model.graph.inputs()[k]).name] = readTensorFile(data / ("input_" + std::to_string(k) + ".pb"));
        CompileOptions options;
        options.threads = 1;
        options.referenceOnly = reference;
        const std::vector<Tensor> outputs = makeBackend("cpu")->compile(model, options)->run(feeds);
        QCOMPARE(outputs.size(), model.graph.outputs().size());
        for (size_t k = 0; k < outputs.size(); ++k) {
            std::string expectedName;
            const Tensor expected = readTensorFile(data / ("output_" + std::to_string(k) + ".pb"), &expectedName);
            QCOMPARE(model.graph.value(model.graph.outputs()[k]).name, expectedName);
            const TensorComparison c = compareTensors(outputs[k], expected, 1e-5, 1e-5);
            QVERIFY2(c.matches, (expectedName + ": " + c.mismatch).c_str());
        }
    }

    void keepsTensorFlowNamesAndOrigins() {
        const Model model = openModel(modelOf("tfjs_fused_variants"));
        const Graph& g = model.graph;
        QCOMPARE(g.value(g.inputs().at(0)).name, std::string("x"));
        QCOMPARE(g.value(g.outputs().at(0)).name, std::string("avg"));
        // _FusedConv2D 'bnconv' (FusedBatchNorm + LeakyRelu) expands to Conv -> BatchNormalization ->
        // LeakyRelu; the last keeps the TF name, all share one origin and show the TF op.
        const Node* last = nodeNamed(g, "bnconv");
        const Node* conv = nodeNamed(g, "bnconv#Conv");
        const Node* bn = nodeNamed(g, "bnconv#BatchNormalization");
        QVERIFY(last && conv && bn);
        QCOMPARE(last->opType, std::string("LeakyRelu"));
        QCOMPARE(last->attributes.getFloat("alpha", 0), 0.1f);
        QCOMPARE(bn->attributes.getFloat("epsilon", 0), 0.001f);
        QCOMPARE(conv->provenance, last->provenance);
        QCOMPARE(bn->provenance, last->provenance);
        QCOMPARE(conv->docString, std::string("tf_op: _FusedConv2D"));
        // EXPLICIT padding [[1,2],[2,0]] on H and W becomes ONNX pads [h0, w0, h1, w1].
        QCOMPARE(conv->attributes.getInts("pads"), (std::vector<int64_t>{1, 2, 2, 0}));
        const Node* dconv = nodeNamed(g, "dconv#Conv");
        QVERIFY(dconv);
        QCOMPARE(dconv->attributes.getInt("group", 0), int64_t(4));
        QCOMPARE(dconv->attributes.getInts("dilations"), (std::vector<int64_t>{2, 2}));
        QCOMPARE(model.metadata.back(), (std::pair<std::string, std::string>{"format", "TF.js graph-model"}));
    }

    void samePaddingBecomesExplicitPads() {
        const Model model = openModel(modelOf("tfjs_conv_same_odd"));
        // 7x7, 3x3 kernel, stride 2: out 4, total (4-1)*2+3-7 = 2 -> 1 before, 1 after.
        const Node* conv = nodeNamed(model.graph, "conv#Conv");
        QVERIFY(conv);
        QVERIFY(!conv->attributes.has("auto_pad"));
        QCOMPARE(conv->attributes.getInts("pads"), (std::vector<int64_t>{1, 1, 1, 1}));
        // 4x4, 2x2 kernel, stride 1: total 1 -> the odd pixel after, as TensorFlow pads.
        const Node* conv2 = nodeNamed(model.graph, "conv2");
        QVERIFY(conv2);
        QCOMPARE(conv2->attributes.getInts("pads"), (std::vector<int64_t>{0, 0, 1, 1}));
        QCOMPARE(model.graph.value(conv2->output(0)).shape, (Shape{1, 2, 4, 4}));
    }

    void quantizedWeightsDecodeToTheirValues_data() {
        QTest::addColumn<QString>("quantization");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<float>("first");
        QTest::addColumn<float>("second");
        QTest::newRow("uint8") << R"(, "quantization": {"dtype": "uint8", "scale": 0.5, "min": -1, "original_dtype": "float32"})"
                               << QByteArray("\x00\xff", 2) << -1.0f << 126.5f;
        QTest::newRow("uint16") << R"(, "quantization": {"dtype": "uint16", "scale": 0.25, "min": 2})"
                                << QByteArray("\x01\x00\xff\xff", 4) << 2.25f << 16385.75f;
        QTest::newRow("float16") << R"(, "quantization": {"dtype": "float16", "original_dtype": "float32"})"
                                 << QByteArray("\x00\x3c\x00\xc0", 4) << 1.0f << -2.0f;
        QTest::newRow("float32") << QString() << QByteArray("\x00\x00\xc0\x3f\x00\x00\x20\xc1", 8) << 1.5f << -10.0f;
    }
    void quantizedWeightsDecodeToTheirValues() {
        QFETCH(QString, quantization);
        QFETCH(QByteArray, bytes);
        QFETCH(float, first);
        QFETCH(float, second);
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        writeText(root / "model.json", tfjsJson("float32", "w.bin", {}, quantization.toStdString()));
        writeText(root / "w.bin", bytes.toStdString());
        const Model model = openModel(root / "model.json");
        const Tensor* w = model.graph.constantValue(*model.graph.findValue("w"));
        QVERIFY(w);
        QCOMPARE(w->dtype(), DType::Float);
        QCOMPARE(w->span<float>()[0], first);
        QCOMPARE(w->span<float>()[1], second);
    }

    void badInputGivesOneSentence_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QByteArray>("shard");
        QTest::addColumn<QString>("expected");
        const QByteArray eight(8, '\0');
        QTest::newRow("malformed JSON") << R"({"format": "graph-model", "modelTopology": {"node": [)" << eight
                                        << "'model.json' is not a valid TF.js model.json";
        QTest::newRow("missing shard") << QString::fromStdString(tfjsJson("float32", "absent.bin")) << eight
                                       << "the weight shard 'absent.bin' of 'model.json' does not exist in the model's folder";
        QTest::newRow("short shard") << QString::fromStdString(tfjsJson()) << QByteArray(5, '\0')
                                     << "the weight 'w' of 'model.json' needs 8 bytes at offset 0 of its weight shards, "
                                        "which hold only 5 bytes";
        QTest::newRow("unknown dtype") << QString::fromStdString(tfjsJson("float64")) << eight
                                       << "the weight 'w' of 'model.json' has the unknown dtype 'float64'";
        QTest::newRow("shard path up") << QString::fromStdString(tfjsJson("float32", "../w.bin")) << eight
                                       << "the weight shard path '../w.bin' in 'model.json' points outside the model's folder";
        QTest::newRow("shard path absolute") << QString::fromStdString(tfjsJson("float32", "/etc/passwd")) << eight
                                             << "the weight shard path '/etc/passwd' in 'model.json' points outside the model's folder";
        QTest::newRow("unsupported op")
            << QString::fromStdString(tfjsJson("float32", "w.bin", R"(, {"name": "bar", "op": "Foo", "input": ["y"]})")) << eight
            << "unsupported TensorFlow op 'Foo' at node 'bar'";
        QTest::newRow("dangling input")
            << QString::fromStdString(tfjsJson("float32", "w.bin", R"(, {"name": "z", "op": "Relu", "input": ["nowhere:1"]})"))
            << eight << "the TensorFlow node 'z' (Relu) reads 'nowhere:1', which no node of 'model.json' produces";
        QTest::newRow("layers model") << R"({"format": "layers-model", "modelTopology": {}})" << eight
                                      << "'model.json' is a TF.js layers model (Keras), which GraphLens does not open yet; "
                                         "convert it to a graph model";
    }
    void badInputGivesOneSentence() {
        QFETCH(QString, json);
        QFETCH(QByteArray, shard);
        QFETCH(QString, expected);
        QTemporaryDir parent;
        const fs::path root = fs::path(parent.path().toStdString()) / "model";
        fs::create_directory(root);
        writeText(root / "model.json", json.toStdString());
        writeText(root / "w.bin", shard.toStdString());
        writeText(fs::path(parent.path().toStdString()) / "w.bin", std::string(8, '\0'));  // what '..' would reach
        const std::string message = loadError(root / "model.json");
        QVERIFY2(message.find('\n') == std::string::npos, message.c_str());
        QVERIFY2(message.rfind(expected.toStdString(), 0) == 0, message.c_str());
    }

    /// GraphDefs the fuzz_tf target made (fuzz/regressions/fuzz_tf/): each crashed the importer or
    /// libonnx's inference behind it, or asked for 8 GiB; now each is refused in one sentence.
    void fuzzedGraphDefsAreRefused_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("expected");
        QTest::newRow("4-D op of a 1-D tensor") << "resize_bilinear_of_1d_constant.pb"
                                                << "needs a 4-D input, but its input 0 ('size') has rank 1";
        QTest::newRow("NaN slice bound") << "strided_slice_nan_bound.pb" << "needs input 3 ('ss_masks/strides') to hold integers, but it holds NaN";
        QTest::newRow("string indices") << "sparse_to_dense_of_string_indices.pb"
                                        << "needs input 0 ('sparse_indices') to hold integers, but it holds string values";
        QTest::newRow("splat constant of 8 GiB") << "const_splat_of_8_gib.pb" << "would take 8192 MiB, more than the 2048 MiB";
        QTest::newRow("convolution with a stride of 0") << "conv_with_zero_stride.pb" << "node 'conv2' (Conv): strides[0] is 0; strides must be positive";
        QTest::newRow("Unpack into -3 outputs") << "unpack_num_negative.pb" << "has num -3; it must be between 1 and 65536";
        // The transposed convolution computes its sizes at import, before validation: a stride of 0
        // divided by zero there.
        QTest::newRow("transposed convolution with a stride of 0")
            << "conv_backprop_input_with_zero_stride.pb"
            << "node 'deconv' (Conv2DBackpropInput) has strides of 0 on a spatial axis; strides must be from 1 to 2147483647";
        QTest::newRow("dilated convolution with string crops")
            << "atrous_conv_with_string_crops.pb"
            << "node 'dw' (DepthwiseConv2dNative) is followed by a BatchToSpaceND whose crops are not 4 numbers";
        QTest::newRow("Concat axis of -7 in NCHW") << "concat_of_nchw_inputs_axis_minus_7.pb"
                                                   << "node 'concat' (Concat): axis is -7; it must be in [-4, 3] for rank 4";
        QTest::newRow("MatMul of a string weight") << "matmul_of_string_weight.pb"
                                                   << "node 'matmul' (MatMul) needs numeric constant weights, but one holds string values";
    }
    void fuzzedGraphDefsAreRefused() {
        QFETCH(QString, file);
        QFETCH(QString, expected);
        const std::string message = loadError(fs::path(GRAPHLENS_SOURCE_DIR "/fuzz/regressions/fuzz_tf") / file.toStdString());
        QVERIFY2(message.find('\n') == std::string::npos, message.c_str());
        QVERIFY2(message.find(expected.toStdString()) != std::string::npos, message.c_str());
    }

    void symlinkedShardOutsideTheFolderIsRefused() {
        QTemporaryDir parent;
        const fs::path root = fs::path(parent.path().toStdString()) / "model";
        fs::create_directory(root);
        writeText(fs::path(parent.path().toStdString()) / "secret.bin", std::string(8, '\0'));
        fs::create_symlink("../secret.bin", root / "w.bin");
        writeText(root / "model.json", tfjsJson());
        QCOMPARE(loadError(root / "model.json"),
                 std::string("the weight shard path 'w.bin' in 'model.json' points outside the model's folder"));
    }

    void controlFlowIsDrawnButNotRun() {
        // A TF1 while loop: Enter -> Merge <- NextIteration (the back edge), Switch, Exit; a Shape
        // reads the loop's untyped result (libonnx 1.12's data propagation crashed there).
        const std::string json = R"({"format": "graph-model", "modelTopology": {"node": [
          {"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"}, "shape": {"shape": {"dim": [{"size": "3"}]}}}},
          {"name": "enter", "op": "Enter", "input": ["x"]},
          {"name": "merge", "op": "Merge", "input": ["enter", "next"]},
          {"name": "cond", "op": "LoopCond", "input": ["merge"]},
          {"name": "switch", "op": "Switch", "input": ["merge", "cond"]},
          {"name": "body", "op": "Relu", "input": ["switch:1"], "attr": {"T": {"type": "DT_FLOAT"}}},
          {"name": "next", "op": "NextIteration", "input": ["body"]},
          {"name": "exit", "op": "Exit", "input": ["switch"]},
          {"name": "shape", "op": "Shape", "input": ["exit"], "attr": {"out_type": {"type": "DT_INT32"}}}]},
          "weightsManifest": []})";
        QTemporaryDir dir;
        const fs::path path = fs::path(dir.path().toStdString()) / "loop.json";
        writeText(path, json);
        const Model model = openModel(path);
        const Graph& g = model.graph;
        QCOMPARE(QString::fromStdString(opCounts(g)),
                 QString("Cast=1 Relu=1 Shape=1 ai.graphlens.tf:Enter=1 ai.graphlens.tf:Exit=1 ai.graphlens.tf:LoopCond=1 "
                         "ai.graphlens.tf:Merge=1 ai.graphlens.tf:NextIteration=1 ai.graphlens.tf:Switch=1"));
        QCOMPARE(g.topologicalOrder().size(), g.nodeCount());  // the back edge is not drawn
        QCOMPARE(g.node(*g.findNode("switch")).outputs().size(), size_t(2));
        QCOMPARE(g.node(*g.findNode("merge")).inputs().size(), size_t(1));
        try {
            makeBackend("cpu")->compile(model, {});
            QFAIL("the cpu backend compiled TensorFlow control flow");
        } catch (const std::exception& e) {
            const std::string message = e.what();
            QVERIFY2(message.find("ai.graphlens.tf:Merge") != std::string::npos, message.c_str());
            QVERIFY(message.find('\n') == std::string::npos);
        }
    }

    void formatsAreSniffedByContent() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const fs::path sample = GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx";
        fs::copy_file(sample, root / "onnx_named.pb");
        QCOMPARE(sniffModelFormat(root / "onnx_named.pb"), ModelFormat::Onnx);
        QVERIFY(openModel(root / "onnx_named.pb").graph.nodeCount() > 0);
        QCOMPARE(sniffModelFormat(modelOf("pb_graphdef")), ModelFormat::TfGraphDef);
        QCOMPARE(sniffModelFormat(modelOf("tfjs_math")), ModelFormat::TfjsGraphModel);
        writeText(root / "m.tflite", std::string("\x1c\0\0\0TFL3\0\0\0\0", 12));
        QCOMPARE(loadError(root / "m.tflite"), std::string("the file is a TFLite flatbuffer, which GraphLens does not open yet"));
        writeText(root / "m.h5", std::string("\x89HDF\r\n\x1a\n\0\0", 10));
        QCOMPARE(sniffModelFormat(root / "m.h5"), ModelFormat::Keras);
    }

    void defaultPassesFuseTheExpandedOps() {
        // The fused TF ops come in expanded (Conv, Add, activation); the default passes fuse them
        // back: the residual Add and the activations into com.microsoft FusedConv.
        Model model = openModel(modelOf("tfjs_fused_variants"));
        PassContext context = contextFor(model);
        const PipelineReport report = runPipeline(model, makePipeline("default"), context, {});
        QVERIFY2(report.failure.empty(), report.failure.c_str());
        QCOMPARE(QString::fromStdString(opCounts(model.graph)),
                 QString("AveragePool=1 Transpose=2 com.microsoft:FusedConv=3"));
    }
};

QTEST_GUILESS_MAIN(TestTfImport)
#include "tst_tf_import.moc"
