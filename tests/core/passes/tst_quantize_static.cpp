// quantize-int8: static int8 quantization in ONNX Runtime's QDQ format, checked on
// x -> Conv(+bias) -> Relu -> Flatten -> Gemm(transB, +bias) -> y: the Q/DQ nodes it writes,
// the int8 weights and int32 biases against their formulas, the output against the float model
// within a bound derived from the quantization steps, calibration from .pb folders (the exact
// scale and zero point a known range gives), the one-sentence errors, the split of a FusedConv,
// a FusedGemm and a FusedMatMul, a Clip (ReLU6) folded into the int8 convolution before it (or kept float where
// its range does not imply it) and the CPU plan's int8 kernels.
#include "core/graph/builder.h"
#include "core/onnx/tensor_file.h"
#include "core/passes/calibration.h"
#include "core/runtime/backend.h"
#include "core/runtime/cpu/qdq_fusion.h"
#include "core/runtime/tensor_compare.h"
#include "support/pass_harness.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <tuple>
#include <fstream>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

constexpr int64_t kC = 3, kM = 4, kH = 8, kN = 5, kK = kM * kH * kH;

/// x [1, 3, 8, 8] -> Conv(4x3x3x3, bias, pads 1) -> Relu -> Flatten -> Gemm(transB, W [5, 256], bias) -> y
Model convReluGemm() {
    GraphBuilder b;
    auto x = b.input("x", DType::Float, {1, kC, kH, kH});
    auto c = b.op("Conv", {x, b.initializer("conv.w", seeded({kM, kC, 3, 3}, 1, -0.5f, 0.5f)), b.initializer("conv.b", seeded({kM}, 2, -0.2f, 0.2f))},
                  {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}, "conv");
    auto r = b.op("Relu", {c}, {}, "relu");
    auto f = b.op("Flatten", {r}, {}, "flatten");
    b.output(b.op("Gemm", {f, b.initializer("fc.w", seeded({kN, kK}, 3, -0.1f, 0.1f)), b.initializer("fc.b", seeded({kN}, 4, -0.2f, 0.2f))},
                  {{"transB", int64_t(1)}}, "fc"));
    return withShapes(b.model(13));
}

/// One calibration input set: x (of `dims`) uniform in [lo, hi], with both ends present.
InputSet inputSpanning(float lo, float hi, uint64_t seed, std::vector<int64_t> dims = {1, kC, kH, kH}) {
    Tensor x = seeded(std::move(dims), seed, lo, hi);
    x.mutableSpan<float>()[0] = lo;
    x.mutableSpan<float>()[1] = hi;
    return {{"x", x}};
}

/// The node reading value `v` as input `input` of a node of `opType`.
const Node& consumerOf(const Graph& g, ValueId v, const std::string& opType) {
    for (const Use& u : g.value(v).uses())
        if (g.node(u.node).opType == opType) return g.node(u.node);
    throw std::runtime_error("no " + opType + " reads " + g.value(v).name);
}

/// The DequantizeLinear producing input `index` of the node named `name`.
const Node& dequantizerOf(const Graph& g, const std::string& name, size_t index) {
    const Node& n = g.node(*g.findNode(name));
    const Node& dq = g.node(g.value(n.input(index)).producer());
    if (dq.opType != "DequantizeLinear") throw std::runtime_error("input " + std::to_string(index) + " of " + name + " is no DequantizeLinear");
    return dq;
}

/// Scale and zero point of the QuantizeLinear that quantizes graph value `name`.
std::pair<float, int> activationParamsOf(const Graph& g, const std::string& name) {
    const auto v = g.findValue(name);
    if (!v) throw std::runtime_error("no value " + name);
    const Node& q = consumerOf(g, *v, "QuantizeLinear");
    return {g.constantValue(q.input(1))->span<float>()[0], int(g.constantValue(q.input(2))->span<uint8_t>()[0])};
}

PassResult quantize(Model& m, PassContext context = {}) {
    context.opset = m.opsetVersion();
    context.failIfNotConverged = true;
    auto passes = makePipeline("quantize-int8");
    PassResult r = runPass(*passes.front(), m, context);
    if (const auto problems = m.graph.validate(); !problems.empty()) throw std::runtime_error(problems.front());
    return r;
}

/// quantize-int8 calibrated on the one input set `feeds`.
PassResult quantizeOn(Model& m, const InputSet& feeds) {
    PassContext context;
    context.calibration.inputSets = {feeds};
    return quantize(m, context);
}

float maxAbs(std::span<const float> v) {
    float m = 0;
    for (float x : v) m = std::max(m, std::fabs(x));
    return m;
}


/// x [1, 3, 8, 8] -> Conv c1 (8x3x3x3, bias + `shift`, pads 1) -> Clip(0, 6) -> Conv c2 (4x8x1x1) -> y,
/// opset 13 (the Clip's bounds as inputs). c1's outputs pass both bounds for x in [-1, 1] and
/// shift 0; a shift of -100 makes them all negative, so the Clip's output is all zero.
Model convClipConv(float shift) {
    GraphBuilder b;
    auto x = b.input("x", DType::Float, {1, kC, kH, kH});
    Tensor bias = seeded({8}, 2, -0.5f, 0.5f);
    for (float& v : bias.mutableSpan<float>()) v += shift;
    auto c = b.op("Conv", {x, b.initializer("c1.w", seeded({8, kC, 3, 3}, 1, -1.f, 1.f)), b.initializer("c1.b", bias)},
                  {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}, "c1");
    auto r = b.op("Clip", {c, b.initializer("lo", Tensor::scalar(0.f)), b.initializer("hi", Tensor::scalar(6.f))}, {}, "relu6");
    b.output(b.op("Conv", {r, b.initializer("c2.w", seeded({4, 8, 1, 1}, 3, -0.5f, 0.5f))}, {}, "c2"));
    return withShapes(b.model(13));
}

/// The largest error of sum_k w[n, k] x_k (+ bias) over the rows n of `w` (rows of `k` values)
/// when each x_k errs by up to `e` and lies in [-xmax, xmax], each weight of row n is int8 with
/// step s_w[n] and the bias int32 in units of s_x * s_w[n]: sum_k |w_nk| e + s_w[n] / 2 * k
/// (xmax + e) + s_x s_w[n] / 2.
double productErrorBound(const Tensor& w, int64_t k, const Tensor& weightScales, double e, double xmax, double sx) {
    double bound = 0;
    const auto values = w.span<float>();
    for (int64_t n = 0; n < w.numel() / k; ++n) {
        const double s = weightScales.span<float>()[size_t(n)];
        double wsum = 0;
        for (float v : values.subspan(size_t(n * k), size_t(k))) wsum += std::fabs(v);
        bound = std::max(bound, wsum * e + s / 2 * double(k) * (xmax + e) + sx * s / 2);
    }
    return bound;
}

/// The one node of `opType`.
const Node& onlyNode(const Graph& g, const std::string& opType) {
    const Node* found = nullptr;
    for (NodeId id : g.topologicalOrder())
        if (g.node(id).opType == opType) {
            if (found) throw std::runtime_error("more than one " + opType);
            found = &g.node(id);
        }
    if (!found) throw std::runtime_error("no " + opType);
    return *found;
}

/// The node producing input `index` of `n`.
const Node& producerOfInput(const Graph& g, const Node& n, size_t index) { return g.node(g.value(n.input(index)).producer()); }

/// x [rows, 64] -> MatMul(W [64, 8], every weight in [0.5, 1]) -> y, shapes inferred.
Model productOfOnes(int64_t rows) {
    GraphBuilder b;
    auto x = b.input("x", DType::Float, {rows, 64});
    b.output(b.op("MatMul", {x, b.initializer("w", seeded({64, 8}, 1, 0.5f, 1.f))}, {}, "mm"));
    return withShapes(b.model(13));
}

int countKernels(const Model& m, const std::string& kernel) {
    int count = 0;
    const auto plan = makeCpuBackend()->compile(m, {});
    for (const PlannedNode& p : plan->nodes()) count += p.kernel.find(kernel) != std::string::npos;
    return count;
}
} // namespace

class TestQuantizeStatic : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    std::filesystem::path folder(const QString& name) {
        const std::filesystem::path p = dir_.filePath(name).toStdString();
        std::filesystem::create_directories(p);
        return p;
    }

private slots:
    void writesTheQdqFormat() {
        Model m = convReluGemm();
        const Model original = m;
        PassContext context;
        context.calibration.inputSets = {inputSpanning(-1, 1, 5)};
        const PassResult r = quantize(m, context);
        // Q/DQ pairs on x (Conv input), the Relu's output (Conv output) and the Flatten's output
        // (Gemm input); y is a graph output and stays float. Four more DequantizeLinear for the
        // two weights and the two biases.
        QCOMPARE(countOps(m.graph, "QuantizeLinear"), 3);
        QCOMPARE(countOps(m.graph, "DequantizeLinear"), 7);
        QCOMPARE(countOps(m.graph, "Conv"), 1);
        QCOMPARE(countOps(m.graph, "Gemm"), 1);
        QCOMPARE(r.counter("numQuantized"), int64_t(2));
        QCOMPARE(r.counter("numActivations"), int64_t(3));
        QVERIFY(m.graph.value(m.graph.outputs()[0]).producer() == *m.graph.findNode("fc"));
        for (const char* gone : {"conv.w", "conv.b", "fc.w", "fc.b"}) QVERIFY2(!m.graph.findValue(gone), gone);
        QVERIFY(r.lossy);

        struct Expected {
            const char* node;
            const char* weight;
            const char* bias;
            const char* input;
            int64_t channels;
        };
        for (const Expected& e : {Expected{"conv", "conv.w", "conv.b", "x", kM}, Expected{"fc", "fc.w", "fc.b", "flatten_out", kN}}) {
            const Tensor& w = *original.graph.constantValue(*original.graph.findValue(e.weight));
            const Tensor& b = *original.graph.constantValue(*original.graph.findValue(e.bias));
            const Node& wdq = dequantizerOf(m.graph, e.node, 1);
            QCOMPARE(wdq.attributes.getInt("axis", -1), int64_t(0));  // Conv, and Gemm with transB
            const Tensor& q = *m.graph.constantValue(wdq.input(0));
            const Tensor& s = *m.graph.constantValue(wdq.input(1));
            QCOMPARE(q.dtype(), DType::Int8);
            QCOMPARE(q.dims(), w.dims());
            QCOMPARE(s.numel(), e.channels);
            QCOMPARE(m.graph.constantValue(wdq.input(2))->dtype(), DType::Int8);
            // scale_k = max|W_k| / 127, q = round(W / scale_k)
            const int64_t per = w.numel() / e.channels;
            for (int64_t k = 0; k < e.channels; ++k) {
                const float scale = maxAbs(w.span<float>().subspan(size_t(k * per), size_t(per))) / 127.f;
                QCOMPARE(s.span<float>()[size_t(k)], scale);
                for (int64_t i = 0; i < per; ++i) {
                    const size_t at = size_t(k * per + i);
                    QCOMPARE(int(q.span<int8_t>()[at]), int(std::nearbyint(w.span<float>()[at] / scale)));
                }
            }
            // bias: int32 in units of input scale * weight scale, zero point 0
            const Node& bdq = dequantizerOf(m.graph, e.node, 2);
            const Tensor& bq = *m.graph.constantValue(bdq.input(0));
            const Tensor& bs = *m.graph.constantValue(bdq.input(1));
            QCOMPARE(bq.dtype(), DType::Int32);
            QCOMPARE(bq.numel(), e.channels);
            QCOMPARE(bdq.attributes.getInt("axis", -1), int64_t(0));
            QCOMPARE(m.graph.constantValue(bdq.input(2))->dtype(), DType::Int32);
            const float inputScale = activationParamsOf(m.graph, e.input).first;
            for (int64_t k = 0; k < e.channels; ++k) {
                const float unit = inputScale * s.span<float>()[size_t(k)];
                QCOMPARE(bs.span<float>()[size_t(k)], unit);
                QCOMPARE(bq.span<int32_t>()[size_t(k)], int32_t(std::nearbyint(b.span<float>()[size_t(k)] / unit)));
            }
        }
        // The Conv reads x through its pair; the Flatten reads the Relu's output through its pair.
        QCOMPARE(dequantizerOf(m.graph, "conv", 0).opType, std::string("DequantizeLinear"));
        QCOMPARE(dequantizerOf(m.graph, "flatten", 0).opType, std::string("DequantizeLinear"));
        // The report: the calibration source, each node's error, the outputs' error (and, on a
        // machine whose int8 products saturate, that they do and what avoids it).
        const bool saturates = int8ProductsSaturate();
        QCOMPARE(r.notes.size(), size_t(saturates ? 5 : 4));
        QVERIFY2(r.notes[0].find("calibrated on 1 input sets") != std::string::npos, r.notes[0].c_str());
        QCOMPARE(r.notes[2].find("saturating 16-bit sums") != std::string::npos, saturates);
        QVERIFY(r.notes.back().find("graph outputs on calibration input 1") != std::string::npos);
        int withError = 0;
        for (const Rewrite& w : r.rewrites) withError += w.sentence.find("its output on calibration input 1: max abs error") != std::string::npos;
        QCOMPARE(withError, 2);
    }

    void matMulAndGemmWithoutTransBQuantizeAlongTheirColumns() {
        // x [2, 16] -> MatMul(W [16, 8]) -> Relu -> Gemm(B [8, 4], no transB) -> y: both weights are
        // [K, N], so one scale per column N, axis 1.
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 16});
        auto mm = b.op("MatMul", {x, b.initializer("mm.w", seeded({16, 8}, 1, -0.5f, 0.5f))}, {}, "mm");
        auto r = b.op("Relu", {mm}, {}, "relu");
        b.output(b.op("Gemm", {r, b.initializer("gemm.w", seeded({8, 4}, 2, -0.5f, 0.5f))}, {}, "gemm"));
        Model m = withShapes(b.model(13));
        const Model original = m;
        quantize(m);
        QCOMPARE(countOps(m.graph, "QuantizeLinear"), 2);  // x and the Relu's output
        QCOMPARE(countOps(m.graph, "DequantizeLinear"), 4);
        for (const auto& [node, weight, columns] : {std::tuple{"mm", "mm.w", int64_t(8)}, std::tuple{"gemm", "gemm.w", int64_t(4)}}) {
            const Node& dq = dequantizerOf(m.graph, node, 1);
            QCOMPARE(dq.attributes.getInt("axis", -1), int64_t(1));
            const Tensor& s = *m.graph.constantValue(dq.input(1));
            const Tensor& q = *m.graph.constantValue(dq.input(0));
            QCOMPARE(s.numel(), columns);
            const Tensor& w = *original.graph.constantValue(*original.graph.findValue(weight));
            const int64_t rows = w.dims()[0];
            for (int64_t n = 0; n < columns; ++n) {
                float largest = 0;
                for (int64_t k = 0; k < rows; ++k) largest = std::max(largest, std::fabs(w.span<float>()[size_t(k * columns + n)]));
                QCOMPARE(s.span<float>()[size_t(n)], largest / 127.f);
                for (int64_t k = 0; k < rows; ++k)
                    QCOMPARE(int(q.span<int8_t>()[size_t(k * columns + n)]), int(std::nearbyint(w.span<float>()[size_t(k * columns + n)] / (largest / 127.f))));
            }
        }
    }

    void theOutputStaysWithinTheBoundOfItsQuantizationSteps() {
        // Each quantized value is off by at most half its step: x by e_x = s_x / 2, a weight of
        // channel k by s_w,k / 2, a bias by s_x * s_w,k / 2, an activation requantized by s / 2; a
        // Relu and a Flatten add nothing. A dot product sum_i w_i x_i then errs by at most
        // sum_i |w_i| e_x + s_w / 2 * sum_i (|x_i| + e_x) + s_x s_w / 2. The bound chains that
        // through Conv (27 terms), the Relu's and the Flatten's pairs, and the Gemm (256 terms),
        // with the sums taken over the actual weights and the largest |x| and |f|.
        Model m = convReluGemm();
        const Model original = m;
        const InputSet feeds = inputSpanning(-1, 1, 5);
        quantizeOn(m, feeds);
        CompileOptions reference;
        reference.referenceOnly = true;
        const Tensor expected = makeCpuBackend()->compile(original, reference)->run(feeds).at(0);
        const Tensor got = makeCpuBackend()->compile(m, reference)->run(feeds).at(0);
        const Tensor gotFast = makeCpuBackend()->compile(m, {})->run(feeds).at(0);  // the int8 kernels

        const Graph& g = original.graph;
        const auto half = [](float s) { return double(s) / 2; };
        const auto [sx, zx] = activationParamsOf(m.graph, "x");
        const auto [sr, zr] = activationParamsOf(m.graph, "relu_out");
        const auto [sf, zf] = activationParamsOf(m.graph, "flatten_out");
        const Tensor& cw = *g.constantValue(*g.findValue("conv.w"));
        const Tensor& fw = *g.constantValue(*g.findValue("fc.w"));
        const Tensor& cs = *m.graph.constantValue(dequantizerOf(m.graph, "conv", 1).input(1));
        const Tensor& fs = *m.graph.constantValue(dequantizerOf(m.graph, "fc", 1).input(1));
        double ec = 0;  // Conv output, 27 terms per output
        for (int64_t k = 0; k < kM; ++k) {
            const double s = cs.span<float>()[size_t(k)];
            double wsum = 0;
            for (float w : cw.span<float>().subspan(size_t(k * 27), 27)) wsum += std::fabs(w);
            ec = std::max(ec, wsum * half(sx) + s / 2 * 27 * (1 + half(sx)) + sx * s / 2);
        }
        const double ef = ec + half(sr) + half(sf);
        double fmax = 0;
        {
            CompileOptions probe;
            probe.referenceOnly = true;
            Model copy = original;
            copy.graph.setOutputs({*copy.graph.findValue("flatten_out")});
            fmax = maxAbs(makeCpuBackend()->compile(copy, probe)->run(feeds).at(0).span<float>());
        }
        double bound = 0;
        for (int64_t n = 0; n < kN; ++n) {
            const double s = fs.span<float>()[size_t(n)];
            double wsum = 0;
            for (float w : fw.span<float>().subspan(size_t(n * kK), size_t(kK))) wsum += std::fabs(w);
            bound = std::max(bound, wsum * ef + s / 2 * kK * (fmax + ef) + sf * s / 2);
        }
        const TensorComparison c = compareTensors(got, expected, 0, bound);
        QVERIFY2(c.matches, (c.mismatch + ", bound " + std::to_string(bound)).c_str());
        QVERIFY(c.maxAbsError > 0);  // lossy
        // The int8 kernels requantize the Conv's output once (round(acc * s_x s_w / s_r)) where
        // the float evaluation rounds the float sum: at most one more step of the Relu's output.
        // (Machines without VNNI sum u8 x s8 pairs into saturating 16-bit sums, which this does
        // not bound: measured 0.061 with ONEDNN_MAX_CPU_ISA=AVX2, 0.0073 with VNNI.)
        double wsumMax = 0;
        for (int64_t n = 0; n < kN; ++n) {
            double wsum = 0;
            for (float w : fw.span<float>().subspan(size_t(n * kK), size_t(kK))) wsum += std::fabs(w);
            wsumMax = std::max(wsumMax, wsum);
        }
        const double fastBound = bound + wsumMax * sr;
        const TensorComparison fast = compareTensors(gotFast, expected, 0, fastBound);
        QVERIFY2(fast.matches, (fast.mismatch + ", bound " + std::to_string(fastBound)).c_str());
        qInfo("output error %.3g (reference QDQ), %.3g (int8 kernels); derived bound %.3g, %.3g; |y| up to %.3g",
              c.maxAbsError, fast.maxAbsError, bound, fastBound, maxAbs(expected.span<float>()));
    }

    void theCpuPlanRunsTheConvolutionOnInt8Kernels() {
        Model m = convReluGemm();
        quantize(m);
        const auto plan = makeCpuBackend()->compile(m, {});
        int int8 = 0;
        for (const PlannedNode& p : plan->nodes()) int8 += p.kernel.find("qlinear_conv") != std::string::npos;
        QCOMPARE(int8, 1);
    }

    void withoutCalibrationItSaysItUsedRandomInputs() {
        Model m = convReluGemm();
        const PassResult r = quantize(m);
        QVERIFY2(r.notes[0].find("calibrated on 4 seeded random input sets (floats standard normal, integers in [0, 10), seed 0") != std::string::npos,
                 r.notes[0].c_str());
        Model again = convReluGemm();
        quantize(again);  // seeded: the same ranges again
        QCOMPARE(activationParamsOf(again.graph, "relu_out"), activationParamsOf(m.graph, "relu_out"));
    }

    void calibrationFoldersGiveTheirRanges() {
        // Two test_data_set_N folders: x spans [-1, 2] in one and [-0.5, 3] in the other, so
        // [-1, 3]: scale 4 / 255, zero point round(255 / 4) = 64.
        const auto root = folder("sets");
        std::filesystem::create_directories(root / "test_data_set_0");
        std::filesystem::create_directories(root / "test_data_set_1");
        writeTensorFile(root / "test_data_set_0" / "input_0.pb", inputSpanning(-1, 2, 11).at("x"), "x");
        writeTensorFile(root / "test_data_set_1" / "input_0.pb", inputSpanning(-0.5f, 3, 12).at("x"), "x");
        Model m = convReluGemm();
        PassContext context;
        context.calibration.inputSets = readCalibrationSets(root, m.graph);
        context.calibration.source = root.string();
        QCOMPARE(context.calibration.inputSets.size(), size_t(2));
        const PassResult r = quantize(m, context);
        QCOMPARE(activationParamsOf(m.graph, "x").first, float(4.0 / 255.0));
        QCOMPARE(activationParamsOf(m.graph, "x").second, 64);
        QVERIFY(r.notes[0].find("calibrated on 2 input sets from '" + root.string() + "'") != std::string::npos);
        // The Relu's output is never negative: zero point 0.
        QCOMPARE(activationParamsOf(m.graph, "relu_out").second, 0);

        // A flat folder of input_K.pb is one set; [0.5, 2] widens to [0, 2]: scale 2 / 255, zero point 0.
        const auto flat = folder("flat");
        writeTensorFile(flat / "input_0.pb", inputSpanning(0.5f, 2, 13).at("x"), "x");
        Model n = convReluGemm();
        context.calibration.inputSets = readCalibrationSets(flat, n.graph);
        quantize(n, context);
        QCOMPARE(activationParamsOf(n.graph, "x").first, float(2.0 / 255.0));
        QCOMPARE(activationParamsOf(n.graph, "x").second, 0);
    }

    void aBadCalibrationFolderGetsOneSentenceNamingTheFile() {
        const Model m = convReluGemm();
        const auto wrong = folder("wrong");
        writeTensorFile(wrong / "input_0.pb", seeded({1, 3, 4, 4}, 1), "x");
        const auto expectError = [&](const std::filesystem::path& dir, const std::string& sentence) {
            try {
                readCalibrationSets(dir, m.graph);
                QFAIL("a bad calibration folder was accepted");
            } catch (const std::runtime_error& e) {
                QCOMPARE(QString(e.what()), QString::fromStdString(sentence));
            }
        };
        expectError(wrong, "calibration file '" + (wrong / "input_0.pb").string() +
                               "' does not match the model's input 'x': it holds float [1,3,4,4], the input is float [1,3,8,8]");
        const auto empty = folder("empty");
        expectError(empty, "calibration folder '" + empty.string() + "' holds neither test_data_set_N folders nor input_K.pb files");
        const auto garbage = folder("garbage");
        {
            std::ofstream f(garbage / "input_0.pb");
            f << "not a tensor";
        }
        try {
            readCalibrationSets(garbage, m.graph);
            QFAIL("a file that is no TensorProto was accepted");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).rfind("calibration file '" + (garbage / "input_0.pb").string() +
                                                 "' is not a readable ONNX TensorProto: ", 0) == 0, e.what());
        }
    }

    void aFusedConvIsSplitBackIntoTheQdqPattern() {
        // default fuses conv -> add(z) -> relu into one FusedConv; quantize-int8 splits it again
        // so the CPU plan finds DequantizeLinear -> Conv -> QuantizeLinear and Add between pairs.
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {1, 4, 6, 6});
        auto c1 = b.op("Conv", {x, b.initializer("w1", seeded({4, 4, 3, 3}, 1, -0.3f, 0.3f))}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}, "c1");
        auto r1 = b.op("Relu", {c1}, {}, "r1");
        auto c2 = b.op("Conv", {r1, b.initializer("w2", seeded({4, 4, 3, 3}, 2, -0.3f, 0.3f)), b.initializer("b2", seeded({4}, 3))},
                       {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}, "c2");
        auto sum = b.op("Add", {c2, r1}, {}, "add");
        auto r2 = b.op("Relu", {sum}, {}, "r2");
        b.output(b.op("Conv", {r2, b.initializer("w3", seeded({2, 4, 1, 1}, 4))}, {}, "c3"));
        Model m = withShapes(b.model(13));
        PassContext context = contextFor(m);
        runPipeline(m, makePipeline("default"), context, {});
        QCOMPARE(countOps(m.graph, "FusedConv"), 2);  // c1 + r1, and c2 + add + r2
        const PassResult r = quantize(m);
        QCOMPARE(countOps(m.graph, "FusedConv"), 0);
        QCOMPARE(countOps(m.graph, "Conv"), 3);
        QCOMPARE(countOps(m.graph, "Add"), 1);
        QCOMPARE(countOps(m.graph, "Relu"), 2);
        QCOMPARE(r.counter("numQuantized"), int64_t(3));
        // pairs: x, r1 (c1's output after its Relu, c2's input), c2's output (read by the Add), r2
        QCOMPARE(countOps(m.graph, "QuantizeLinear"), 4);
        const auto plan = makeCpuBackend()->compile(m, {});
        int int8 = 0;
        for (const PlannedNode& p : plan->nodes()) int8 += p.kernel.find("qlinear") != std::string::npos;
        QVERIFY2(int8 >= 2, std::to_string(int8).c_str());
    }

    void reluSixFoldsIntoTheInt8ConvolutionItFollows() {
        // Conv -> Clip(0, 6) as it is, and as default leaves it (one FusedConv with activation Clip):
        // calibrated after the Clip, whose range [0, 6] then holds the whole u8 range, so the CPU
        // plan runs DequantizeLinear -> Conv -> Clip -> QuantizeLinear as one QLinearConv.
        for (const bool fused : {false, true}) {
            Model m = convClipConv(0);
            const Model original = m;
            if (fused) {
                PassContext context = contextFor(m);
                runPipeline(m, makePipeline("default"), context, {});
                QCOMPARE(countOps(m.graph, "FusedConv"), 1);
                QCOMPARE(countOps(m.graph, "Clip"), 0);
            }
            const InputSet feeds = inputSpanning(-1, 1, 5);
            const PassResult r = quantizeOn(m, feeds);
            QCOMPARE(countOps(m.graph, "FusedConv"), 0);
            QCOMPARE(countOps(m.graph, "Conv"), 2);
            QCOMPARE(countOps(m.graph, "Clip"), 1);
            // pairs on x and the Clip's output; DequantizeLinear for c1.w, c1.b and c2.w too
            QCOMPARE(countOps(m.graph, "QuantizeLinear"), 2);
            QCOMPARE(countOps(m.graph, "DequantizeLinear"), 5);
            QCOMPARE(r.counter("numQuantized"), int64_t(2));
            const bool noted = std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) {
                return n == "1 of 1 Clips after a quantized node are implied by their output's u8 range (the CPU plan "
                            "and ONNX Runtime fold them into the int8 node)";
            });
            QVERIFY(noted);
            const Node& clip = onlyNode(m.graph, "Clip");
            const std::string clipOut = m.graph.value(clip.output(0)).name;
            const std::string c1 = producerOfInput(m.graph, clip, 0).name;  // Conv -> Clip
            const auto [sr, zr] = activationParamsOf(m.graph, clipOut);
            QCOMPARE(zr, 0);
            QVERIFY2(sr * 255.f <= 6.f, std::to_string(sr * 255.f).c_str());
            QCOMPARE(countKernels(m, "qlinear_conv"), 1);  // c1 and its Clip; c2's output is the graph's, float

            // Against the float model: c1 errs by its product bound, the Clip adds nothing, its pair
            // half a step and the int8 kernel's requantization one more step; then c2's product.
            CompileOptions reference;
            reference.referenceOnly = true;
            const Tensor expected = makeCpuBackend()->compile(original, reference)->run(feeds).at(0);
            const Tensor got = makeCpuBackend()->compile(m, {})->run(feeds).at(0);
            const Graph& g = original.graph;
            const auto [sx, zx] = activationParamsOf(m.graph, "x");
            const double e1 = productErrorBound(*g.constantValue(*g.findValue("c1.w")), 27,
                                                *m.graph.constantValue(dequantizerOf(m.graph, c1, 1).input(1)), sx / 2.0, 1, sx);
            const double er = e1 + 1.5 * sr;
            const double bound = productErrorBound(*g.constantValue(*g.findValue("c2.w")), 8,
                                                   *m.graph.constantValue(dequantizerOf(m.graph, "c2", 1).input(1)), er, 6, 0);
            const TensorComparison c = compareTensors(got, expected, 0, bound);
            QVERIFY2(c.matches, (c.mismatch + ", bound " + std::to_string(bound)).c_str());
            QVERIFY(c.maxAbsError > 0);
        }
    }

    void aClipItsRangeDoesNotImplyStaysFloatBetweenPairs() {
        // c1's outputs are all negative: the Clip's output is all zero (scale 1), whose u8 range
        // [0, 255] leaves [0, 6]. c1's own output is quantized and the Clip runs in float.
        Model m = convClipConv(-100);
        const Model original = m;
        const InputSet feeds = inputSpanning(-1, 1, 5);
        const PassResult r = quantizeOn(m, feeds);
        QCOMPARE(countOps(m.graph, "Clip"), 1);
        QCOMPARE(countOps(m.graph, "QuantizeLinear"), 3);  // x, c1's output, the Clip's output
        QCOMPARE(countOps(m.graph, "DequantizeLinear"), 6);
        const Node& clip = m.graph.node(*m.graph.findNode("relu6"));
        QCOMPARE(m.graph.node(m.graph.value(clip.input(0)).producer()).opType, std::string("DequantizeLinear"));
        QVERIFY(std::find(r.notes.begin(), r.notes.end(),
                          "0 of 1 Clips after a quantized node are implied by their output's u8 range (the CPU plan and "
                          "ONNX Runtime fold them into the int8 node); 1 stay float after a quantized output") != r.notes.end());
        QCOMPARE(countKernels(m, "qlinear_conv"), 1);
        // Every Clip output is 0, so y is 0 in both models, exactly.
        const Tensor got = makeCpuBackend()->compile(m, {})->run(feeds).at(0);
        QCOMPARE(maxAbs(got.span<float>()), 0.f);
        QCOMPARE(maxAbs(makeCpuBackend()->compile(original, {})->run(feeds).at(0).span<float>()), 0.f);
    }

    void anActivationAfterAQuantizedConvIsQuantizedOnBothSides() {
        // x -> c1 -> HardSwish -> c2 -> x * Sigmoid(x) -> c3 -> HardSigmoid -> y (MobileNetV3's and
        // EfficientNet's activations); default fuses each into its convolution, the pass splits
        // them again, quantizes both sides of the HardSwish and the SiLU (the HardSigmoid's output
        // is the graph's, float), and the CPU plan runs those two as int8 lookup tables.
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {1, 4, 6, 6});
        const auto conv = [&](ValueId in, uint64_t seed, const std::string& name) {
            return b.op("Conv", {in, b.initializer(name + ".w", seeded({4, 4, 1, 1}, seed, -0.6f, 0.6f)),
                                 b.initializer(name + ".b", seeded({4}, seed + 1, -0.2f, 0.2f))}, {}, name);
        };
        auto h = b.op("HardSwish", {conv(x, 1, "c1")}, {}, "hswish");
        auto c2 = conv(h, 3, "c2");
        auto silu = b.op("Mul", {c2, b.op("Sigmoid", {c2}, {}, "gate")}, {}, "silu");
        b.output(b.op("HardSigmoid", {conv(silu, 5, "c3")}, {}, "hsigmoid"));
        Model m = withShapes(b.model(14));  // HardSwish: opset 14
        const Model original = m;
        PassContext defaults = contextFor(m);
        runPipeline(m, makePipeline("default"), defaults, {});
        QCOMPARE(countOps(m.graph, "FusedConv"), 3);
        const InputSet feeds{{"x", seeded({1, 4, 6, 6}, 7, -2.f, 2.f)}};
        const PassResult r = quantizeOn(m, feeds);
        QCOMPARE(countOps(m.graph, "FusedConv"), 0);
        QCOMPARE(countOps(m.graph, "Conv"), 3);
        QCOMPARE(r.counter("numQuantized"), int64_t(3));
        QCOMPARE(countOps(m.graph, "QuantizeLinear"), 6);  // x; c1, the HardSwish, c2, the SiLU, c3
        QVERIFY(std::find(r.notes.begin(), r.notes.end(),
                          "2 activations after a quantized node (HardSwish, Sigmoid, x * Sigmoid(x)...) quantized on both sides: "
                          "the CPU plan runs each as a 256-entry int8 lookup table") != r.notes.end());
        QCOMPARE(countKernels(m, "qlinear-lookup-table"), 2);
        QCOMPARE(countKernels(m, "qlinear_conv"), 3);
        // The int8 model stays near the float one: its output in [0, 1] within a few of c3's steps.
        const Tensor expected = makeCpuBackend()->compile(original, {})->run(feeds).at(0);
        const Tensor got = makeCpuBackend()->compile(m, {})->run(feeds).at(0);
        const TensorComparison c = compareTensors(got, expected, 0, 0.05);
        QVERIFY2(c.matches, c.mismatch.c_str());
        QVERIFY(c.maxAbsError > 0);
    }

    void aMaxPoolAfterAConcatSharesItsQuantizationSoTheCpuPlanRunsBothInt8() {
        // SqueezeNet's Fire module: x -> squeeze -> (left, right) -> Concat -> MaxPool -> conv -> pool. The
        // MaxPool's input (the Concat's float output) gets a pair too, and its output takes the
        // same scale and zero point, so the CPU plan pools the u8 codes and runs the Concat as
        // QLinearConcat: no float between the convolutions.
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {1, 4, 7, 7});
        const auto conv = [&](ValueId in, int64_t channels, int64_t out, uint64_t seed, const std::string& name) {
            return b.op("Relu", {b.op("Conv", {in, b.initializer(name + ".w", seeded({out, channels, 1, 1}, seed, -0.6f, 0.6f)),
                                               b.initializer(name + ".b", seeded({out}, seed + 1, -0.2f, 0.2f))}, {}, name)}, {},
                        name + "_relu");
        };
        const ValueId squeezed = conv(x, 4, 4, 1, "squeeze");
        Attributes axis;
        axis.set("axis", int64_t(1));
        const ValueId cat = b.op("Concat", {conv(squeezed, 4, 8, 3, "left"), conv(squeezed, 4, 8, 5, "right")}, axis, "concat");
        Attributes window;
        window.set("kernel_shape", std::vector<int64_t>{3, 3});
        window.set("strides", std::vector<int64_t>{2, 2});
        const ValueId pooled = b.op("MaxPool", {cat}, window, "pool");
        b.output(b.op("GlobalAveragePool", {b.op("Conv", {pooled, b.initializer("last.w", seeded({4, 16, 1, 1}, 7, -0.6f, 0.6f))}, {}, "last")}, {},
                      "head"));
        Model m = withShapes(b.model(17));
        const Model original = m;
        const InputSet feeds{{"x", seeded({1, 4, 7, 7}, 9, -2.f, 2.f)}};
        const PassResult r = quantizeOn(m, feeds);
        QCOMPARE(r.counter("numQuantized"), int64_t(4));
        // x, squeeze, left, right, the Concat's output, the MaxPool's output and the last conv's
        QCOMPARE(countOps(m.graph, "QuantizeLinear"), 7);
        const Node& pool = m.graph.node(*m.graph.findNode("pool"));
        const Node& dq = m.graph.node(m.graph.value(pool.input(0)).producer());
        const Node& q = m.graph.node(m.graph.value(pool.output(0)).uses().at(0).node);
        QCOMPARE(dq.opType, std::string("DequantizeLinear"));
        QCOMPARE(q.opType, std::string("QuantizeLinear"));
        QCOMPARE(m.graph.constantValue(q.input(1))->toDoubles(), m.graph.constantValue(dq.input(1))->toDoubles());
        QCOMPARE(m.graph.constantValue(q.input(2))->toDoubles(), m.graph.constantValue(dq.input(2))->toDoubles());
        QVERIFY(std::find(r.notes.begin(), r.notes.end(),
                          "1 MaxPool quantized on both sides with their input's scale and zero point: the CPU plan pools the u8 codes") !=
                r.notes.end());
        QCOMPARE(countKernels(m, "qlinear-concat[nhwc in,out]"), 1);
        QCOMPARE(countKernels(m, "onednn:pool[blocked in,out]"), 1);
        QCOMPARE(countKernels(m, "qlinear_conv"), 4);
        // Near the float model: its output within a few steps of the last convolution's input.
        const Tensor expected = makeCpuBackend()->compile(original, {})->run(feeds).at(0);
        const Tensor got = makeCpuBackend()->compile(m, {})->run(feeds).at(0);
        const TensorComparison c = compareTensors(got, expected, 0, 0.1);
        QVERIFY2(c.matches, c.mismatch.c_str());
        QVERIFY(c.maxAbsError > 0);
    }

    void aFusedGemmIsSplitSoItsGemmIsQuantized() {
        // x [2, 16] -> Gemm g1 (8x16, transB, bias) -> Tanh -> Gemm g2 (4x8, transB, bias) -> y; default
        // makes g1 and the Tanh one FusedGemm, which the pass splits again: g1 is int8 and the Tanh
        // runs in float between g1's pair and its own.
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 16});
        auto g1 = b.op("Gemm", {x, b.initializer("g1.w", seeded({8, 16}, 1, -0.5f, 0.5f)), b.initializer("g1.b", seeded({8}, 2))},
                       {{"transB", int64_t(1)}}, "g1");
        auto t = b.op("Tanh", {g1}, {}, "tanh");
        b.output(b.op("Gemm", {t, b.initializer("g2.w", seeded({4, 8}, 3, -0.5f, 0.5f)), b.initializer("g2.b", seeded({4}, 4))},
                      {{"transB", int64_t(1)}}, "g2"));
        Model m = withShapes(b.model(13));
        const Model original = m;
        PassContext defaults = contextFor(m);
        runPipeline(m, makePipeline("default"), defaults, {});
        QCOMPARE(countOps(m.graph, "FusedGemm"), 1);
        const InputSet feeds = inputSpanning(-1, 1, 5, {2, 16});
        const PassResult r = quantizeOn(m, feeds);
        QCOMPARE(countOps(m.graph, "FusedGemm"), 0);
        QCOMPARE(countOps(m.graph, "Gemm"), 2);
        QCOMPARE(countOps(m.graph, "Tanh"), 1);
        QCOMPARE(countOps(m.graph, "QuantizeLinear"), 3);  // x, g1's output, the Tanh's output
        QCOMPARE(countOps(m.graph, "DequantizeLinear"), 7);
        QCOMPARE(r.counter("numQuantized"), int64_t(2));
        const Node& tanh = onlyNode(m.graph, "Tanh");
        const Node& g1Quantize = producerOfInput(m.graph, producerOfInput(m.graph, tanh, 0), 0);
        QCOMPARE(g1Quantize.opType, std::string("QuantizeLinear"));
        const std::string g1Out = m.graph.value(g1Quantize.input(0)).name;
        const std::string g1Name = producerOfInput(m.graph, g1Quantize, 0).name;
        const std::string tanhOut = m.graph.value(tanh.output(0)).name;
        QCOMPARE(countKernels(m, "qgemm"), 2);  // g1 requantized, g2 to float

        // g1's product bound, its pair (half a step, one more for the int8 requantization), the
        // Tanh (1-Lipschitz), the Tanh's pair, then g2's product.
        const Tensor expected = makeCpuBackend()->compile(original, {})->run(feeds).at(0);
        const Tensor got = makeCpuBackend()->compile(m, {})->run(feeds).at(0);
        const Graph& g = original.graph;
        const auto [sx, zx] = activationParamsOf(m.graph, "x");
        const auto [sg, zg] = activationParamsOf(m.graph, g1Out);
        const auto [st, zt] = activationParamsOf(m.graph, tanhOut);
        const double e1 = productErrorBound(*g.constantValue(*g.findValue("g1.w")), 16,
                                            *m.graph.constantValue(dequantizerOf(m.graph, g1Name, 1).input(1)), sx / 2.0, 1, sx);
        const double et = e1 + 1.5 * sg + st / 2.0;
        const double bound = productErrorBound(*g.constantValue(*g.findValue("g2.w")), 8,
                                               *m.graph.constantValue(dequantizerOf(m.graph, "g2", 1).input(1)), et, 1, st);
        const TensorComparison c = compareTensors(got, expected, 0, bound);
        QVERIFY2(c.matches, (c.mismatch + ", bound " + std::to_string(bound)).c_str());
        QVERIFY(c.maxAbsError > 0);
    }

    void aFusedMatMulWithATransposedWeightIsSplitSoItsMatMulIsQuantized() {
        // x [2, 3, 16] -> com.microsoft FusedMatMul(W [8, 16], transB 1, alpha 0.5) -> y: what
        // fuse-matmul-scale leaves of a transformer's x * W^T. The pass stores 0.5 * W^T as [16, 8]
        // and quantizes the MatMul along its 8 columns; the plan runs it on int8 kernels.
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 3, 16});
        const Tensor w = seeded({8, 16}, 1, -0.5f, 0.5f);
        b.output(b.op("FusedMatMul", {x, b.initializer("w", w)}, {{"transB", int64_t(1)}, {"alpha", 0.5f}}, "mm"));
        b.graph().node(b.lastNode()).domain = "com.microsoft";
        Model m = b.model(13);
        m.opsets.push_back({"com.microsoft", 1});
        m = withShapes(std::move(m));
        const Model original = m;
        const InputSet feeds = inputSpanning(-1, 1, 5, {2, 3, 16});
        const PassResult r = quantizeOn(m, feeds);
        QCOMPARE(countOps(m.graph, "FusedMatMul"), 0);
        QCOMPARE(countOps(m.graph, "MatMul"), 1);
        QCOMPARE(r.counter("numQuantized"), int64_t(1));
        const Node& dq = dequantizerOf(m.graph, "mm", 1);
        QCOMPARE(dq.attributes.getInt("axis", -1), int64_t(1));
        const Tensor& q = *m.graph.constantValue(dq.input(0));
        const Tensor& scales = *m.graph.constantValue(dq.input(1));
        QCOMPARE(q.dims(), (std::vector<int64_t>{16, 8}));
        Tensor scaled = Tensor::allocate(DType::Float, {8, 16});  // 0.5 * W, rows of the 8 outputs
        for (int64_t n = 0; n < 8; ++n) {
            float largest = 0;
            for (int64_t k = 0; k < 16; ++k) {
                const float v = 0.5f * w.span<float>()[size_t(n * 16 + k)];
                scaled.mutableSpan<float>()[size_t(n * 16 + k)] = v;
                largest = std::max(largest, std::fabs(v));
            }
            QCOMPARE(scales.span<float>()[size_t(n)], largest / 127.f);
            for (int64_t k = 0; k < 16; ++k)
                QCOMPARE(int(q.span<int8_t>()[size_t(k * 8 + n)]),
                         int(std::nearbyint(scaled.span<float>()[size_t(n * 16 + k)] / (largest / 127.f))));
        }
        QCOMPARE(countKernels(m, "onednn:matmul_integer_to_float"), 1);
        // The bound holds for the written model as ONNX defines it (reference kernels). The int8
        // kernels meet it on VNNI machines; without VNNI, u8 x s8 pairs sum into saturating 16-bit
        // sums (off by 0.076 here with ONEDNN_MAX_CPU_ISA=AVX2), which no bound of the steps covers.
        CompileOptions reference;
        reference.referenceOnly = true;
        const Tensor expected = makeCpuBackend()->compile(original, reference)->run(feeds).at(0);
        const Tensor got = makeCpuBackend()->compile(m, reference)->run(feeds).at(0);
        const auto [sx, zx] = activationParamsOf(m.graph, "x");
        const double bound = productErrorBound(scaled, 16, scales, sx / 2.0, 1, sx);
        const TensorComparison c = compareTensors(got, expected, 0, bound);
        QVERIFY2(c.matches, (c.mismatch + ", bound " + std::to_string(bound)).c_str());
        QVERIFY(c.maxAbsError > 0);
    }

    void reduceRangeKeepsWeightsWithin63SoTheInt8KernelsComputeTheModelExactly() {
        // x [2, 64] -> MatMul(W [64, 8], every weight in [0.5, 1]) -> y, calibrated on x in
        // [-1, 1], then run on x = 1 everywhere: u8 code 255 times the largest weight codes, the
        // case where a pair of u8 x s8 products overflows a 16-bit sum (255 * 127 * 2 = 64770).
        // (Two rows: a product of one row runs on int8_gemv.h's exact kernel on such machines,
        // see aOneRowProductIsExactOnEveryMachine.)
        const Model original = productOfOnes(2);
        const Tensor w = seeded({64, 8}, 1, 0.5f, 1.f);  // its weights
        InputSet ones{{"x", Tensor::floats({2, 64}, std::vector<float>(128, 1.f))}};
        CompileOptions reference;
        reference.referenceOnly = true;

        auto quantized = [&](bool reduceRange) {
            Model m = original;
            PassContext context;
            context.calibration.inputSets = {inputSpanning(-1, 1, 5, {2, 64})};
            context.reduceRange = reduceRange;
            const PassResult r = quantize(m, context);
            return std::pair{m, r};
        };
        // The int8 kernels against the written model as ONNX defines it (reference kernels).
        auto kernelError = [&](const Model& m) {
            const Tensor exact = makeCpuBackend()->compile(m, reference)->run(ones).at(0);
            const Tensor got = makeCpuBackend()->compile(m, {})->run(ones).at(0);
            return compareTensors(got, exact, 0, 0).maxAbsError / maxAbs(exact.span<float>());
        };

        const auto [m, r] = quantized(true);
        QCOMPARE(r.counter("numQuantized"), int64_t(1));
        const Node& dq = dequantizerOf(m.graph, "mm", 1);
        const Tensor& q = *m.graph.constantValue(dq.input(0));
        const Tensor& scales = *m.graph.constantValue(dq.input(1));
        for (int64_t n = 0; n < 8; ++n) {
            float largest = 0;
            for (int64_t k = 0; k < 64; ++k) largest = std::max(largest, w.span<float>()[size_t(k * 8 + n)]);
            QCOMPARE(scales.span<float>()[size_t(n)], largest / 63.f);
            int top = 0;
            for (int64_t k = 0; k < 64; ++k) {
                const int code = q.span<int8_t>()[size_t(k * 8 + n)];
                QCOMPARE(code, int(std::nearbyint(w.span<float>()[size_t(k * 8 + n)] / (largest / 63.f))));
                top = std::max(top, code);
            }
            QCOMPARE(top, 63);
        }
        QVERIFY(std::any_of(r.rewrites.begin(), r.rewrites.end(), [](const Rewrite& rewrite) { return rewrite.sentence.find("'w' to int8 within [-63, 63] (8 scales") != std::string::npos; }));
        QVERIFY(std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) { return n.rfind("weights within [-63, 63] (--reduce-range)", 0) == 0; }));
        QCOMPARE(countKernels(m, "onednn:matmul_integer_to_float"), 1);
        // Integer sums are exact on every machine: only the float scaling rounds.
        const double reduced = kernelError(m);
        QVERIFY2(reduced < 1e-5, std::to_string(reduced).c_str());

        // Full-range weights: exact where the products do not saturate (VNNI), and off by far more
        // than any rounding where they do, which the pass's note says.
        const auto [full, fullReport] = quantized(false);
        const double error = kernelError(full);
        qInfo("int8 kernels against the model: relative error %.3g with --reduce-range, %.3g full range (%s)",
              reduced, error, int8ProductsSaturate() ? "saturating products" : "VNNI");
        if (int8ProductsSaturate()) QVERIFY2(error > 0.1, std::to_string(error).c_str());
        else QVERIFY2(error < 1e-5, std::to_string(error).c_str());
    }

    void aOneRowProductIsExactOnEveryMachine() {
        // The same product of one row (a classifier's last layer) with full-range weights: where
        // oneDNN's sums would saturate, int8_gemv.h's kernel runs it with exact sums, so the int8
        // kernels compute the written model (the float scaling alone rounds) on every machine.
        Model m = productOfOnes(1);
        PassContext context;
        context.calibration.inputSets = {inputSpanning(-1, 1, 5, {1, 64})};
        QCOMPARE(quantize(m, context).counter("numQuantized"), int64_t(1));
        const InputSet ones{{"x", Tensor::floats({1, 64}, std::vector<float>(64, 1.f))}};
        CompileOptions reference;
        reference.referenceOnly = true;
        const Tensor exact = makeCpuBackend()->compile(m, reference)->run(ones).at(0);
        const Tensor got = makeCpuBackend()->compile(m, {})->run(ones).at(0);
        QCOMPARE(countKernels(m, int8ProductsSaturate() ? "cpu:matmul_integer_to_float(gemv:avx2)" : "onednn:matmul_integer_to_float"), 1);
        const double error = compareTensors(got, exact, 0, 0).maxAbsError / maxAbs(exact.span<float>());
        QVERIFY2(error < 1e-5, std::to_string(error).c_str());
    }
};

QTEST_GUILESS_MAIN(TestQuantizeStatic)
#include "tst_quantize_static.moc"
