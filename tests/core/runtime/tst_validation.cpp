// Bad models are refused before planning, in one sentence naming the node and the attribute:
// through the CPU backend's compile and through `graphlens run` (the loader). Plans and inputs too
// large for the memory are refused before allocating; sizes that overflow 64 bits give a sentence.
// One regression test per defect class found by scripts/mutate_models.py.
#include "core/graph/builder.h"
#include "core/onnx/exporter.h"
#include "core/onnx/loader.h"
#include "core/passes/pass_manager.h"
#include "core/passes/pass_registry.h"
#include "core/runtime/backend.h"
#include "core/runtime/executor.h"
#include "core/runtime/op_validation.h"
#include "core/runtime/resource_limits.h"
#include "support/cli_process.h"

#include <QElapsedTimer>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <functional>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

const std::string kSample = GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx";

std::string compileError(const Model& model, const CompileOptions& options = {}) {
    try {
        makeCpuBackend()->compile(model, options);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "no error";
}

Tensor floats(std::vector<int64_t> dims) {
    const int64_t n = checkedElementCount(dims).value();
    return Tensor::floats(std::move(dims), std::vector<float>(size_t(n), 0.5f));
}

/// x [1, 4, 8, 8] -> Conv 'conv1' (4 -> 4 channels, 3x3) with `attrs` -> y.
Model convModel(const Attributes& attrs) {
    GraphBuilder b;
    const ValueId x = b.input("x", DType::Float, Shape{1, 4, 8, 8});
    const ValueId w = b.initializer("w", floats({4, 4, 3, 3}));
    b.output(b.op("Conv", {x, w}, attrs, "conv1"));
    return b.model(17);
}

/// x [1, 4, 8, 8] -> `op` 'pool1' with `attrs` -> y.
Model poolModel(const std::string& op, const Attributes& attrs) {
    GraphBuilder b;
    const ValueId x = b.input("x", DType::Float, Shape{1, 4, 8, 8});
    b.output(b.op(op, {x}, attrs, "pool1"));
    return b.model(17);
}

Model unaryModel(const std::string& op, Shape shape, const Attributes& attrs) {
    GraphBuilder b;
    const ValueId x = b.input("x", DType::Float, std::move(shape));
    b.output(b.op(op, {x}, attrs, "node1"));
    return b.model(17);
}

Model splitModel(std::vector<int64_t> sizes) {
    GraphBuilder b;
    const ValueId x = b.input("x", DType::Float, Shape{1, 6});
    const ValueId split = b.initializer("split", Tensor::int64s({int64_t(sizes.size())}, sizes));
    for (ValueId out : b.ops("Split", {x, split}, int(sizes.size()), {{"axis", int64_t(1)}}, "split1")) b.output(out);
    return b.model(17);
}

/// x [5, 2, 3] -> LSTM/GRU/RNN 'rnn1' with W [dirs, gates * 4, 3], R [dirs, gates * rHidden, rHidden] and `attrs`.
Model recurrentModel(const std::string& op, const Attributes& attrs, int64_t dirs = 1, int64_t rHidden = 4) {
    const int64_t gates = op == "LSTM" ? 4 : op == "GRU" ? 3 : 1;
    GraphBuilder b;
    const ValueId x = b.input("x", DType::Float, Shape{5, 2, 3});
    const ValueId w = b.initializer("w", floats({dirs, gates * 4, 3}));
    const ValueId r = b.initializer("r", floats({dirs, gates * rHidden, rHidden}));
    for (ValueId out : b.ops(op, {x, w, r}, 2, attrs, "rnn1")) b.output(out);
    return b.model(14);
}

struct BadCase {
    const char* name;
    std::function<Model()> model;
    const char* sentence;
};

std::vector<BadCase> badCases() {
    using A = Attributes;
    return {
        {"conv zero stride", [] { return convModel(A{{"strides", {1, 0}}}); },
         "node 'conv1' (Conv): strides[1] is 0; strides must be positive"},
        {"conv zero dilation", [] { return convModel(A{{"dilations", {0, 1}}}); },
         "node 'conv1' (Conv): dilations[0] is 0; dilations must be positive"},
        {"conv zero group", [] { return convModel(A{{"group", int64_t(0)}}); },
         "node 'conv1' (Conv): group is 0; group must be positive"},
        {"conv kernel_shape 0", [] { return convModel(A{{"kernel_shape", {0, 3}}}); },
         "node 'conv1' (Conv): kernel_shape[0] is 0; kernel_shape must be positive"},
        {"conv negative pads", [] { return convModel(A{{"pads", {0, -1, 0, 0}}}); },
         "node 'conv1' (Conv): pads[1] is -1; pads must not be negative"},
        {"conv huge dilation", [] { return convModel(A{{"dilations", {int64_t(1) << 40, 1}}}); },
         "node 'conv1' (Conv): dilations[0] is 1099511627776; dilations above 2147483647 are not supported"},
        {"maxpool zero stride", [] { return poolModel("MaxPool", A{{"kernel_shape", {2, 2}}, {"strides", {0, 1}}}); },
         "node 'pool1' (MaxPool): strides[0] is 0; strides must be positive"},
        {"maxpool zero dilation", [] { return poolModel("MaxPool", A{{"kernel_shape", {2, 2}}, {"dilations", {1, 0}}}); },
         "node 'pool1' (MaxPool): dilations[1] is 0; dilations must be positive"},
        {"maxpool kernel_shape 0", [] { return poolModel("MaxPool", A{{"kernel_shape", {2, 0}}}); },
         "node 'pool1' (MaxPool): kernel_shape[1] is 0; kernel_shape must be positive"},
        {"maxpool negative pads", [] { return poolModel("MaxPool", A{{"kernel_shape", {2, 2}}, {"pads", {-2, 0, 0, 0}}}); },
         "node 'pool1' (MaxPool): pads[0] is -2; pads must not be negative"},
        {"averagepool zero stride", [] { return poolModel("AveragePool", A{{"kernel_shape", {2, 2}}, {"strides", {2, 0}}}); },
         "node 'pool1' (AveragePool): strides[1] is 0; strides must be positive"},
        {"averagepool kernel_shape 0", [] { return poolModel("AveragePool", A{{"kernel_shape", {0, 2}}}); },
         "node 'pool1' (AveragePool): kernel_shape[0] is 0; kernel_shape must be positive"},
        {"averagepool negative pads", [] { return poolModel("AveragePool", A{{"kernel_shape", {2, 2}}, {"pads", {0, 0, 0, -1}}}); },
         "node 'pool1' (AveragePool): pads[3] is -1; pads must not be negative"},
        {"averagepool window past the input", [] { return poolModel("AveragePool", A{{"kernel_shape", {9, 2}}}); },
         "node 'pool1' (AveragePool): the window of spatial axis 0 spans 9 but the padded input has 8"},
        {"transpose repeated axis", [] { return unaryModel("Transpose", Shape{2, 3, 4}, A{{"perm", {0, 0, 1}}}); },
         "node 'node1' (Transpose): perm names axis 0 twice; perm must be a permutation of 0..2"},
        {"transpose axis out of range", [] { return unaryModel("Transpose", Shape{2, 3, 4}, A{{"perm", {0, 1, 5}}}); },
         "node 'node1' (Transpose): perm[2] is 5; perm must be a permutation of 0..2"},
        {"transpose short perm", [] { return unaryModel("Transpose", Shape{2, 3, 4}, A{{"perm", {1, 0}}}); },
         "node 'node1' (Transpose): perm has 2 values but the input has rank 3"},
        {"softmax bad axis", [] { return unaryModel("Softmax", Shape{2, 3}, A{{"axis", int64_t(4)}}); },
         "node 'node1' (Softmax): axis is 4; it must be in [-2, 1] for rank 2"},
        {"flatten bad axis", [] { return unaryModel("Flatten", Shape{2, 3}, A{{"axis", int64_t(-3)}}); },
         "node 'node1' (Flatten): axis is -3; it must be in [-2, 2] for rank 2"},
        {"split sizes not summing", [] { return splitModel({2, 2}); },
         "node 'split1' (Split): the split sizes sum to 4 but axis 1 has size 6"},
        {"split negative size", [] { return splitModel({7, -1}); },
         "node 'split1' (Split): split[1] is -1; split sizes must not be negative"},
        {"lstm hidden_size 0", [] { return recurrentModel("LSTM", A{{"hidden_size", int64_t(0)}}); },
         "node 'rnn1' (LSTM): hidden_size is 0; it must be positive"},
        {"gru bad direction", [] { return recurrentModel("GRU", A{{"hidden_size", int64_t(4)}, {"direction", "sideways"}}); },
         "node 'rnn1' (GRU): direction is 'sideways'; it must be forward, reverse or bidirectional"},
        {"rnn bad layout", [] { return recurrentModel("RNN", A{{"hidden_size", int64_t(4)}, {"layout", int64_t(2)}}); },
         "node 'rnn1' (RNN): layout is 2; it must be 0 or 1"},
        {"lstm hidden_size not W's", [] { return recurrentModel("LSTM", A{{"hidden_size", int64_t(5)}}); },
         "node 'rnn1' (LSTM): W gives a hidden size of 4 but hidden_size is 5"},
        {"lstm W and R disagree", [] { return recurrentModel("LSTM", A{}, 1, 2); },
         "node 'rnn1' (LSTM): R gives a hidden size of 2 but W gives 4"},
        {"bidirectional gru with one direction of weights", [] { return recurrentModel("GRU", A{{"direction", "bidirectional"}}); },
         "node 'rnn1' (GRU): W's first dim is 1 but direction bidirectional needs 2"},
        {"lstm unknown activation", [] { return recurrentModel("LSTM", A{{"activations", std::vector<std::string>{"Sigmoid", "Tanh", "Swish"}}}); },
         "node 'rnn1' (LSTM): activations names 'Swish', which is not an activation LSTM, GRU and RNN know"},
        {"depthtospace blocksize 0", [] { return unaryModel("DepthToSpace", Shape{1, 8, 2, 2}, A{{"blocksize", int64_t(0)}}); },
         "node 'node1' (DepthToSpace): blocksize is 0; blocksize must be positive"},
    };
}

/// A float graph x [dims] -> Relu -> Relu -> y: the arena holds the first Relu's output.
Model reluChain(std::vector<int64_t> dims) {
    GraphBuilder b;
    const ValueId x = b.input("x", DType::Float, Shape::ofSizes(dims));
    b.output(b.op("Relu", {b.op("Relu", {x}, {}, "relu1")}, {}, "relu2"));
    return b.model(17);
}

} // namespace

class TestValidation : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    QString save(const Model& m, const QString& name) {
        const QString path = dir_.filePath(name);
        saveModel(m, path.toStdString());
        return path;
    }

private slots:
    void badAttributesAreRefusedByCompile_data() {
        QTest::addColumn<int>("index");
        const auto cases = badCases();
        for (size_t i = 0; i < cases.size(); ++i) QTest::newRow(cases[i].name) << int(i);
    }
    void badAttributesAreRefusedByCompile() {
        QFETCH(int, index);
        const BadCase c = badCases()[size_t(index)];
        QCOMPARE(QString::fromStdString(compileError(c.model())), QString(c.sentence));
    }

    void badAttributesAreRefusedByRun_data() { badAttributesAreRefusedByCompile_data(); }
    void badAttributesAreRefusedByRun() {
        QFETCH(int, index);
        const BadCase c = badCases()[size_t(index)];
        const QString path = save(c.model(), QString("bad_%1.onnx").arg(index));
        const CliResult r = runGraphlens({"run", path});
        QCOMPARE(QString(r.err), "graphlens: cannot load '" + path + "': " + c.sentence + "\n");
        QCOMPARE(r.status, 1);
    }

    void validModelsPass() {
        const Model m = loadModel(kSample);
        validateGraph(m.graph, m.opsetVersion());
        QCOMPARE(QString::fromStdString(compileError(convModel({{"strides", {2, 1}}, {"pads", {1, 1, 1, 1}}}))), QString("no error"));
        QCOMPARE(QString::fromStdString(compileError(splitModel({2, 4}))), QString("no error"));
        QCOMPARE(QString::fromStdString(compileError(unaryModel("Flatten", Shape{2, 3}, {{"axis", int64_t(2)}}))), QString("no error"));
    }

    void infoAndOptimizeRefuseABadModelWithTheSentence() {
        const QString path = save(convModel({{"strides", {1, 0}}}), "stride0.onnx");
        const QByteArray sentence = "node 'conv1' (Conv): strides[1] is 0; strides must be positive";
        verifyOneLineError(runGraphlens({"info", path}), sentence);
        const CliResult r = runGraphlens({"optimize", path, "-o", dir_.filePath("out.onnx"), "--passes", "all", "--verify"});
        verifyOneLineError(r, sentence);
    }

    void hugeInputIsRefusedByCompileBeforeAllocating() {
        QElapsedTimer timer;
        timer.start();
        const std::string error = compileError(reluChain({1 << 20, 1 << 20}));
        // 2^40 floats: 4.4 TB in the arena for relu1's output; no weights.
        const QRegularExpression sentence(
            "^the plan needs 4\\.4 TB \\(arena 4\\.4 TB \\+ weights 0 bytes\\) but [0-9.]+ [KMGT]B are available$");
        QVERIFY2(sentence.match(QString::fromStdString(error)).hasMatch(), error.c_str());
        QVERIFY(timer.elapsed() < 10000);  // a generous bound: it allocates nothing
    }

    void hugeInputIsRefusedByRun() {
        const QString path = save(reluChain({1 << 20, 1 << 20}), "huge.onnx");
        QElapsedTimer timer;
        timer.start();
        const CliResult r = runGraphlens({"run", path});
        verifyOneLineError(r, "the random inputs need 4.4 TB but ");
        QVERIFY2(r.err.contains(" are available"), r.err.constData());
        QVERIFY(timer.elapsed() < 10000);
    }

    void maxMemoryLimitsThePlan() {
        CompileOptions options;
        options.maxMemory = 100000;
        const std::string error = compileError(loadModel(kSample), options);
        // The weights: the Convs' with the BatchNorms folded in, and the tensors of the 3 Constant nodes
        // (the plan's initializers).
        const QRegularExpression sentence(
            "^the plan needs [0-9.]+ KB \\(arena [0-9.]+ KB \\+ weights 40\\.3 KB\\) but the memory limit is 100\\.0 KB$");
        QVERIFY2(sentence.match(QString::fromStdString(error)).hasMatch(), error.c_str());
        const CliResult r = runGraphlens({"run", QString::fromStdString(kSample), "--max-memory", "100000"});
        verifyOneLineError(r, "the memory limit is 100.0 KB");
        QVERIFY2(r.err.contains("graphlens: the plan needs "), r.err.constData());
        QCOMPARE(runGraphlens({"run", QString::fromStdString(kSample), "--max-memory", "64M"}).status, 0);
        verifyOneLineError(runGraphlens({"run", QString::fromStdString(kSample), "--max-memory", "lots"}),
                           "--max-memory takes a positive number of bytes");
    }

    // A Tile whose repeats are an input is sized only as it runs: under --max-memory, an output
    // larger than the limit is refused there, before a byte of it is written.
    void maxMemoryLimitsTensorsSizedByInputValues() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape{1, 1});
        const ValueId repeats = b.input("repeats", DType::Int64, Shape{2});
        b.output(b.op("Tile", {x, repeats}, {}, "tile1"));
        CompileOptions options;
        options.maxMemory = 64 << 20;
        const auto plan = makeCpuBackend()->compile(b.model(17), options);
        const std::map<std::string, Tensor> small = {{"x", floats({1, 1})}, {"repeats", Tensor::int64s({2}, {3, 2})}};
        QCOMPARE(plan->run(small).at(0).dims(), (std::vector<int64_t>{3, 2}));
        try {
            plan->run({{"x", floats({1, 1})}, {"repeats", Tensor::int64s({2}, {20000, 20000})}});
            QFAIL("a 1.6 GB output ran under a 64 MB limit");
        } catch (const ExecutionError& e) {
            QCOMPARE(e.kind(), ErrorKind::ResourceLimit);
            QCOMPARE(QString(e.what()),
                     QString("node 'tile1' (Tile): the output [20000,20000] needs 1.6 GB but the memory limit is 67.1 MB"));
        }
    }

    void sizesThatOverflowGiveASentence() {
        const std::string error = compileError(reluChain({int64_t(1) << 40, int64_t(1) << 40}));
        QCOMPARE(QString::fromStdString(error),
                 QString("node 'relu1' (Relu): its output 'relu1_out' of shape [1099511627776,1099511627776] has more "
                         "bytes than 64 bits can count"));
        QVERIFY(!checkedTensorBytes(DType::Float, {int64_t(1) << 31, int64_t(1) << 31}));  // 2^64 bytes
        QCOMPARE(checkedTensorBytes(DType::Float, {int64_t(1) << 30, int64_t(1) << 30}).value(), uint64_t(1) << 62);
        QVERIFY(!checkedTensorBytes(DType::Float, {int64_t(1) << 32, int64_t(1) << 31}));
        QCOMPARE(checkedTensorBytes(DType::Float, {1000, 1000}).value(), uint64_t(4000000));
        QCOMPARE(formatBytes(41200000000), std::string("41.2 GB"));
        QCOMPARE(formatBytes(512), std::string("512 bytes"));
    }

    void zeroBatchRunsOnTheReferenceKernels() {
        // The optimized BatchNormalization divided by batch x channels: SIGFPE on a zero batch.
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape{0, 4, 8, 8});
        std::vector<ValueId> params{x};
        for (const char* name : {"scale", "bias", "mean", "var"}) params.push_back(b.initializer(name, floats({4})));
        b.output(b.op("BatchNormalization", params, {}, "bn"));
        auto plan = makeCpuBackend()->compile(b.model(17), {});
        QCOMPARE(plan->nodes().at(0).kernel, std::string("reference"));
        const auto out = plan->run({{"x", Tensor::allocate(DType::Float, {0, 4, 8, 8})}});
        QCOMPARE(out.at(0).dims(), (std::vector<int64_t>{0, 4, 8, 8}));
    }

    void declaredShapesThatDisagreeAreInferredAfresh() {
        // A graph output declared [1,1,20,24] that computes [1,1,118,24]: the optimized Sigmoid
        // wrote 118 rows into a buffer of 20 (heap corruption, SIGABRT).
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape{1, 1, 118, 24});
        b.output(b.op("Sigmoid", {b.op("Relu", {x}, {}, "relu")}, {}, "sigmoid"), DType::Float, Shape{1, 1, 20, 24});
        const Model m = loadModel(save(b.model(17), "stale.onnx").toStdString());
        QCOMPARE(m.warnings.empty(), false);
        auto plan = makeCpuBackend()->compile(m, {});
        const auto out = plan->run({{"x", floats({1, 1, 118, 24})}});
        QCOMPARE(out.at(0).dims(), (std::vector<int64_t>{1, 1, 118, 24}));
        QVERIFY(std::abs(out.at(0).toDoubles().back() - 1.0 / (1.0 + std::exp(-0.5))) < 1e-6);
    }

    void staticDimsThatCannotBroadcastAreRefusedAtCompile() {
        // A mutated transformer (a 2^20-token input) ran its nodes on run-time shapes for minutes
        // before reaching the Add that could not broadcast.
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape{1, 8});
        b.output(b.op("Relu", {b.op("Add", {x, b.initializer("b", floats({3}))}, {}, "add")}, {}, "relu"));
        const std::string error = compileError(b.model(17));
        QVERIFY2(error.find("(op_type:Add, node name: add)") != std::string::npos, error.c_str());
        QVERIFY2(error.find("Incompatible dimensions") != std::string::npos, error.c_str());
    }

    void foldingDeclinesAHugeConstant() {
        // ConstantOfShape [65536, 65536] (16 GB of floats) from an 16-byte shape: folding declines.
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape{65536, 65536});
        const ValueId shape = b.initializer("shape", Tensor::int64s({2}, {65536, 65536}));
        const ValueId filled = b.op("ConstantOfShape", {shape}, {}, "fill");
        b.output(b.op("Add", {x, filled}, {}, "add"));
        Model m = b.model(17);
        auto passes = makePipeline("fold-constants");
        PassContext context = contextFor(m);
        const PassResult result = runPass(*passes.at(0), m, context);
        QCOMPARE(m.graph.findNode("fill").has_value(), true);
        bool declined = false;
        for (const Decline& d : result.declines)
            declined = declined || d.reason.rfind("kept: folding would store 17179869184 bytes", 0) == 0;
        QVERIFY(declined);
    }
};

QTEST_GUILESS_MAIN(TestValidation)
#include "tst_validation.moc"
