// The CPU backend's plans: optimized kernels agree with the reference kernels, the arena plan
// holds, concrete input shapes are re-inferred, and bad feeds or ops get one sentence.
#include "core/graph/builder.h"
#include "core/onnx/loader.h"
#include "core/runtime/backend.h"
#include "core/runtime/executor.h"
#include "core/runtime/tensor_compare.h"
#include "support/seeded_tensor.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

const std::string kSample = GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx";

std::string errorOf(const std::function<void()>& action) {
    try {
        action();
    } catch (const ExecutionError& e) {
        return e.what();
    }
    return "no error";
}

} // namespace

class TestCpuBackend : public QObject {
    Q_OBJECT
private slots:
    void optimizedPlanMatchesTheReferenceKernels() {
        const Model m = loadModel(kSample);
        const std::map<std::string, Tensor> feeds{{"input", seeded({1, 3, 32, 32}, 7)}};
        CompileOptions reference;
        reference.referenceOnly = true;
        const auto expected = makeCpuBackend()->compile(m, reference)->run(feeds);
        auto plan = makeCpuBackend()->compile(m, {});
        int optimized = 0;
        for (const PlannedNode& n : plan->nodes()) optimized += n.kernel != "reference";
        // 4 Conv, 4 BatchNorm, 4 Relu, Add, Mul, pool, Gemm, Flatten, Reshape, and the 3 Constant nodes,
        // whose tensors their readers read directly (Dropout and Identity run on the reference kernels)
        QCOMPARE(optimized, 21);
        for (int run = 0; run < 2; ++run) {  // a second run reuses the arena
            const auto got = plan->run(feeds);
            const TensorComparison c = compareTensors(got[0], expected[0], 1e-4, 1e-5);
            QVERIFY2(c.matches, c.mismatch.c_str());
        }
    }

    /// A prepared kernel's input whose shape at run time is not the planned one (a kernel before
    /// it disagreeing with shape inference) is refused in one sentence, a rank apart too; the
    /// planned shape runs.
    void preparedKernelRefusesAnUnplannedInputShape() {
        struct Copy final : PreparedKernel {
            std::string name() const override { return "test:copy"; }
            void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
                std::memcpy(out[0].mutableData(), in[0]->data(), out[0].byteSize());
            }
        };
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape());  // rank unknown: any feed is taken
        const ValueId y = b.op("Identity", {x});
        const ValueId z = b.op("Relu", {y});
        for (ValueId v : {y, z}) {
            b.graph().value(v).dtype = DType::Float;
            b.graph().value(v).shape = Shape::ofSizes({2});  // what the plan was made for
        }
        b.output(z);
        GraphExecutor executor(b.graph(), referenceKernels(), 17, 1);
        executor.setPreparedKernel(b.lastNode(), std::make_unique<Copy>());
        QCOMPARE(executor.run({{"x", Tensor::floats({2}, {1, -2})}}).at(0).toDoubles(), (std::vector<double>{1, -2}));
        const std::string other = errorOf([&] { executor.run({{"x", Tensor::floats({3}, {1, 2, 3})}}); });
        QVERIFY2(other.ends_with(": input 0 has the shape [3] at run time but the plan was made for [2]"), other.c_str());
        const std::string rank = errorOf([&] { executor.run({{"x", Tensor::floats({2, 1}, {1, 2})}}); });
        QVERIFY2(rank.ends_with(": input 0 has the shape [2,1] at run time but the plan was made for [2]"), rank.c_str());
    }

    void aDeclaredTypeTheOpDoesNotComputeKeepsTheNodeOnItsReferenceKernel() {
        // Transpose of int64 whose output the file declares float (fuzz_run found it: the
        // prepared kernel wrote 8-byte elements into a buffer sized for 4-byte ones). The op's
        // schema gives input and output one type, so the plan leaves the node to the reference
        // kernel, says why, and the result is the int64 the op computes.
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Int64, Shape::ofSizes({2, 3, 4}));
        const ValueId y = b.op("Transpose", {x}, {}, "t");
        b.output(y, DType::Float, Shape::ofSizes({4, 3, 2}));
        const Model m = b.model(13);
        const auto plan = makeCpuBackend()->compile(m, {});
        QCOMPARE(plan->nodes().at(0).kernel, std::string("reference"));
        QVERIFY2(plan->nodes().at(0).why.find("is declared float but computes int64, the type of its input 'x'") !=
                     std::string::npos, plan->nodes().at(0).why.c_str());
        std::vector<int64_t> values(24);
        for (size_t i = 0; i < values.size(); ++i) values[i] = int64_t(i);
        const Tensor out = plan->run({{"x", Tensor::int64s({2, 3, 4}, values)}}).at(0);
        QCOMPARE(out.dtype(), DType::Int64);
        QCOMPARE(out.dims(), (std::vector<int64_t>{4, 3, 2}));
        QCOMPARE(out.toDoubles().at(1), 12.0);  // y[0][0][1] = x[1][0][0]
    }

    void aNodeWithMoreOutputsThanItsSchemaGivesKeepsItsReferenceKernel() {
        // A file's Transpose without outputs reached the prepared kernel, which read output 0's
        // shape (fuzz_run, UBSan). Counts outside the schema's range leave the node to the
        // reference kernel, which says what is wrong when it runs.
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({2, 3}));
        const auto outs = b.ops("Relu", {x}, 2, {}, "relu");
        for (ValueId v : outs) b.output(v, DType::Float, Shape::ofSizes({2, 3}));
        const auto plan = makeCpuBackend()->compile(b.model(13), {});
        QCOMPARE(plan->nodes().at(0).kernel, std::string("reference"));
        QVERIFY2(plan->nodes().at(0).why.ends_with("it has 2 outputs where its ONNX schema gives 1"), plan->nodes().at(0).why.c_str());
    }

    /// A plan left to choose its threads runs a model of small nodes on one (node_threads.h) and
    /// says so, with the outputs of a plan given two threads; a count given is kept, and a model
    /// with a larger node keeps every core.
    void smallModelsRunOnOneThread() {
        const Model m = loadModel(kSample);
        const std::map<std::string, Tensor> feeds{{"input", seeded({1, 3, 32, 32}, 7)}};
        auto chosen = makeCpuBackend()->compile(m, {});
        const auto oneThread = [](const Plan& plan) {
            return std::count_if(plan.preparation().begin(), plan.preparation().end(), [](const std::string& line) {
                return line.rfind("runs on one thread: each of its ", 0) == 0;
            });
        };
        QCOMPARE(oneThread(*chosen), 1);
        CompileOptions two;
        two.threads = 2;
        auto given = makeCpuBackend()->compile(m, two);
        QCOMPARE(oneThread(*given), 0);
        const TensorComparison c = compareTensors(chosen->run(feeds)[0], given->run(feeds)[0], 0, 0);
        QVERIFY2(c.matches, c.mismatch.c_str());

        GraphBuilder b;  // 64x512 by 512x256: 8M multiply-adds
        ValueId x = b.input("x", DType::Float, Shape::ofSizes({64, 512}));
        b.output(b.op("MatMul", {x, b.initializer("w", seeded({512, 256}, 3))}));
        auto large = makeCpuBackend()->compile(b.model(13), {});
        QCOMPARE(oneThread(*large), 0);
    }

    void arenaPlanIsConsistent() {
        const Model m = loadModel(kSample);
        CompileOptions unfused;  // BatchNorm and Relu on kernels of their own, not fused into the Convs
        unfused.fuseKernels = false;
        auto plan = makeCpuBackend()->compile(m, unfused);
        const MemoryPlan& p = plan->memoryPlan();
        QVERIFY(p.lowerBoundBytes <= p.arenaBytes);
        QVERIFY(p.arenaBytes < p.naiveBytes);
        QVERIFY(p.inPlaceCount >= 4);  // BatchNorm and Relu write over their dying inputs
        // the largest activation is 16x32x32 floats; two of them are alive around each conv
        QVERIFY(p.arenaBytes >= 2 * 16 * 32 * 32 * 4);
    }

    void concreteInputShapesAreInferredThroughTheGraph() {
        GraphBuilder b;
        ValueId x = b.input("x", DType::Float, std::vector<Dim>{Dim("batch"), Dim(4)});
        ValueId w = b.initializer("w", Tensor::floats({4, 2}, {1, 0, 0, 1, 1, 0, 0, 1}));
        b.output(b.op("Relu", {b.op("MatMul", {x, w})}));
        Model m = b.model(13);
        CompileOptions options;
        options.inputShapes["x"] = {3, 4};
        auto plan = makeCpuBackend()->compile(m, options);
        const Tensor in = Tensor::floats({3, 4}, {1, 2, 3, 4, -1, -2, -3, -4, 1, -1, 1, -1});
        const auto out = plan->run({{"x", in}});
        QCOMPARE(out[0].dims(), (std::vector<int64_t>{3, 2}));
        QCOMPARE(out[0].toDoubles(), (std::vector<double>{4, 6, 0, 0, 2, 0}));
        QVERIFY(plan->nodes()[0].kernel != "reference");  // static after inference: oneDNN matmul
    }

    void layoutKernelsCopyExactlyWhatTheReferenceDoes() {
        GraphBuilder b;
        ValueId x = b.input("x", DType::Float, {2, 3, 4, 5});
        ValueId t = b.op("Transpose", {x}, {{"perm", {0, 2, 3, 1}}});  // [2,4,5,3]
        ValueId starts = b.initializer("starts", Tensor::int64s({2}, {1, -2}));
        ValueId ends = b.initializer("ends", Tensor::int64s({2}, {3, 100}));
        ValueId axes = b.initializer("axes", Tensor::int64s({2}, {1, 3}));
        b.output(b.op("Slice", {t, starts, ends, axes}));  // [2,2,5,2]
        const Model m = b.model(13);
        const std::map<std::string, Tensor> feeds{{"x", seeded({2, 3, 4, 5}, 3)}};
        CompileOptions reference;
        reference.referenceOnly = true;
        const auto expected = makeCpuBackend()->compile(m, reference)->run(feeds);
        auto plan = makeCpuBackend()->compile(m, {});
        QCOMPARE(plan->nodes()[0].kernel, std::string("cpu:transpose"));
        QCOMPARE(plan->nodes()[1].kernel, std::string("cpu:slice"));
        const auto got = plan->run(feeds);
        QCOMPARE(got[0].dims(), (std::vector<int64_t>{2, 2, 5, 2}));
        QVERIFY(got[0].contentEquals(expected[0]));
    }

    /// Perms that move the input's contiguous axis away from the end take the tiled path; every
    /// element size and ragged tile edges (17 and 33 against 16 x 16 tiles) copy exactly what the reference does.
    void transposeKernelMatchesTheReferenceForEveryPerm_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<QList<qint64>>("perm");
        const QList<qint64> perms[] = {{0, 1, 3, 2}, {3, 2, 1, 0}, {0, 3, 1, 2}, {2, 0, 3, 1}, {1, 0, 2, 3}};
        const std::pair<const char*, DType> types[] = {
            {"float", DType::Float}, {"int64", DType::Int64}, {"uint8", DType::UInt8}, {"float16", DType::Float16}};
        for (const auto& [name, type] : types)
            for (const QList<qint64>& perm : perms) {
                QString label = QString("%1 perm").arg(name);
                for (qint64 p : perm) label += QString(" %1").arg(p);
                QTest::newRow(qPrintable(label)) << int(type) << perm;
            }
    }
    void transposeKernelMatchesTheReferenceForEveryPerm() {
        QFETCH(int, type);
        QFETCH(QList<qint64>, perm);
        const std::vector<int64_t> dims{3, 5, 17, 33};
        const DType dtype = DType(type);
        Tensor x = Tensor::allocate(dtype, dims);
        auto* bytes = reinterpret_cast<unsigned char*>(x.mutableData());
        for (size_t i = 0; i < x.byteSize(); ++i) bytes[i] = static_cast<unsigned char>((i * 131 + 7) % 251);
        GraphBuilder b;
        const ValueId in = b.input("x", dtype, Shape::ofSizes(dims));
        b.output(b.op("Transpose", {in}, {{"perm", std::vector<int64_t>(perm.begin(), perm.end())}}));
        const Model m = b.model(13);
        const std::map<std::string, Tensor> feeds{{"x", x}};
        CompileOptions reference;
        reference.referenceOnly = true;
        const auto expected = makeCpuBackend()->compile(m, reference)->run(feeds);
        auto plan = makeCpuBackend()->compile(m, {});
        QCOMPARE(plan->nodes()[0].kernel, std::string("cpu:transpose"));
        const auto got = plan->run(feeds);
        QCOMPARE(got[0].dims(), expected[0].dims());
        QVERIFY(got[0].contentEquals(expected[0]));
    }

    void padKernelMatchesTheReference() {
        for (float value : {0.f, 2.5f}) {
            GraphBuilder b;
            ValueId x = b.input("x", DType::Float, {1, 3, 4, 5});
            ValueId pads = b.initializer("pads", Tensor::int64s({8}, {0, 1, 2, 0, 0, 2, 1, 3}));
            ValueId fill = b.initializer("value", Tensor::scalar(value));
            b.output(b.op("Pad", {x, pads, fill}));
            const Model m = b.model(13);
            const std::map<std::string, Tensor> feeds{{"x", seeded({1, 3, 4, 5}, 9)}};
            CompileOptions reference;
            reference.referenceOnly = true;
            const auto expected = makeCpuBackend()->compile(m, reference)->run(feeds);
            auto plan = makeCpuBackend()->compile(m, {});
            QCOMPARE(plan->nodes()[0].kernel, std::string("cpu:pad"));
            const auto got = plan->run(feeds);
            QCOMPARE(got[0].dims(), (std::vector<int64_t>{1, 6, 7, 8}));
            QVERIFY(got[0].contentEquals(expected[0]));
        }
    }

    void decomposedLayerNormRunsOnOptimizedKernels() {
        // ReduceMean, Sub, Pow 2, Add eps, Sqrt, Div: LayerNorm as opset-14 exports write it.
        GraphBuilder b;
        ValueId x = b.input("x", DType::Float, {2, 5, 16});
        ValueId mean = b.op("ReduceMean", {x}, {{"axes", {-1}}});
        ValueId centered = b.op("Sub", {x, mean});
        ValueId squared = b.op("Pow", {centered, b.initializer("two", Tensor::scalar(2.f))});
        ValueId variance = b.op("ReduceMean", {squared}, {{"axes", {-1}}});
        ValueId deviation = b.op("Sqrt", {b.op("Add", {variance, b.initializer("eps", Tensor::scalar(1e-5f))})});
        ValueId y = b.op("Div", {centered, deviation});
        b.output(b.op("Abs", {b.op("Neg", {b.op("Reciprocal", {y})})}));
        const Model m = b.model(14);
        const std::map<std::string, Tensor> feeds{{"x", seeded({2, 5, 16}, 4)}};
        CompileOptions reference;
        reference.referenceOnly = true;
        const auto expected = makeCpuBackend()->compile(m, reference)->run(feeds);
        auto plan = makeCpuBackend()->compile(m, {});
        for (const PlannedNode& node : plan->nodes()) QVERIFY2(node.kernel != "reference", node.kernel.c_str());
        const auto got = plan->run(feeds);
        const TensorComparison c = compareTensors(got[0], expected[0], 1e-5, 1e-6);
        QVERIFY2(c.matches, c.mismatch.c_str());
    }

    void concatKernelMatchesTheReference() {
        GraphBuilder b;
        ValueId x = b.input("x", DType::Float, {2, 3, 4});
        ValueId y = b.input("y", DType::Float, {2, 1, 4});
        ValueId c = b.initializer("c", Tensor::floats({2, 2, 4}, std::vector<float>(16, 7.f)));
        b.output(b.op("Concat", {x, y, c}, {{"axis", -2}}));
        const Model m = b.model(13);
        const std::map<std::string, Tensor> feeds{{"x", seeded({2, 3, 4}, 1)}, {"y", seeded({2, 1, 4}, 2)}};
        CompileOptions reference;
        reference.referenceOnly = true;
        const auto expected = makeCpuBackend()->compile(m, reference)->run(feeds);
        auto plan = makeCpuBackend()->compile(m, {});
        QCOMPARE(plan->nodes()[0].kernel, std::string("cpu:concat"));
        const auto got = plan->run(feeds);
        QCOMPARE(got[0].dims(), (std::vector<int64_t>{2, 6, 4}));
        QVERIFY(got[0].contentEquals(expected[0]));
    }

    void shapeComputationsAreFoldedAtPlanTime() {
        // Reshape to [batch, -1] through Shape -> Gather -> Unsqueeze -> Concat, as PyTorch exports it.
        GraphBuilder b;
        ValueId x = b.input("x", DType::Float, {2, 3, 4});
        ValueId shape = b.op("Shape", {x});
        ValueId batch = b.op("Gather", {shape, b.initializer("zero", Tensor::int64s({}, {0}))}, {{"axis", 0}});
        ValueId batch1 = b.op("Unsqueeze", {batch, b.initializer("axis0", Tensor::int64s({1}, {0}))});
        ValueId target = b.op("Concat", {batch1, b.initializer("minus1", Tensor::int64s({1}, {-1}))}, {{"axis", 0}});
        b.output(b.op("Relu", {b.op("Reshape", {x, target})}));
        auto plan = makeCpuBackend()->compile(b.model(13), {});
        QCOMPARE(plan->nodes().size(), size_t(2));  // Reshape and Relu are left
        QCOMPARE(plan->nodes()[1].kernel, std::string("cpu:activation"));  // its shape is static now
        const auto out = plan->run({{"x", seeded({2, 3, 4}, 5)}});
        QCOMPARE(out[0].dims(), (std::vector<int64_t>{2, 12}));
    }

    void vectorizedMathStaysWithinItsErrorBounds() {
        // Erf, Sigmoid and Softmax use polynomial exp/erf; compare with libm over a wide range.
        constexpr int64_t n = 16001;
        std::vector<float> xs(n);
        for (int64_t i = 0; i < n; ++i) xs[size_t(i)] = -8.f + 16.f * float(i) / float(n - 1);
        GraphBuilder b;
        ValueId x = b.input("x", DType::Float, {1, n});
        b.output(b.op("Erf", {x}));
        b.output(b.op("Sigmoid", {x}));
        b.output(b.op("Softmax", {x}, {{"axis", -1}}));
        auto plan = makeCpuBackend()->compile(b.model(13), {});
        for (const PlannedNode& node : plan->nodes()) QVERIFY(node.kernel != "reference");
        const auto out = plan->run({{"x", Tensor::floats({1, n}, xs)}});
        double sum = 0;
        for (float v : xs) sum += std::exp(double(v) - 8.0);
        double worstErf = 0, worstSigmoid = 0, worstSoftmax = 0;
        for (int64_t i = 0; i < n; ++i) {
            const double v = xs[size_t(i)];
            worstErf = std::max(worstErf, std::fabs(out[0].span<float>()[size_t(i)] - std::erf(v)));
            const double sigmoid = 1.0 / (1.0 + std::exp(-v));
            worstSigmoid = std::max(worstSigmoid, std::fabs(out[1].span<float>()[size_t(i)] - sigmoid) / sigmoid);
            const double softmax = std::exp(v - 8.0) / sum;
            worstSoftmax = std::max(worstSoftmax, std::fabs(out[2].span<float>()[size_t(i)] - softmax) / softmax);
        }
        QVERIFY2(worstErf < 4e-7, qPrintable(QString::number(worstErf)));
        QVERIFY2(worstSigmoid < 1e-6, qPrintable(QString::number(worstSigmoid)));
        QVERIFY2(worstSoftmax < 1e-5, qPrintable(QString::number(worstSoftmax)));
    }

    void badFeedsAndUnsupportedOpsSayWhatIsWrong() {
        const Model m = loadModel(kSample);
        auto plan = makeCpuBackend()->compile(m, {});
        QCOMPARE(errorOf([&] { plan->run({}); }), std::string("the model input 'input' was not given"));
        QCOMPARE(errorOf([&] { plan->run({{"input", Tensor::int64s({1}, {1})}}); }),
                 std::string("the input 'input' is int64 but the model expects float"));
        QCOMPARE(errorOf([&] { plan->run({{"input", seeded({1, 3, 16, 16}, 1)}}); }),
                 std::string("the input 'input' has the shape [1,3,16,16] but the model expects [1,3,32,32]"));
        GraphBuilder b;
        b.output(b.op("Frobnicate", {b.input("x", DType::Float, {2})}));
        QCOMPARE(errorOf([&] { makeCpuBackend()->compile(b.model(), {}); }),
                 std::string("the cpu backend does not support these ops of the model: Frobnicate"));
    }
};

QTEST_APPLESS_MAIN(TestCpuBackend)
#include "tst_cpu_backend.moc"
