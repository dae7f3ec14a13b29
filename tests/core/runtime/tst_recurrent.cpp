// LSTM, GRU and RNN: the reference kernel on tiny cases worked out by hand (weights chosen so the
// gates are sigmoid(0) = 1/2, sigmoid(ln 3) = 3/4, tanh(k ln 2) = (4^k - 1) / (4^k + 1), or exact
// Relu sums), and the CPU backend's cpu:lstm / cpu:gru / cpu:rnn kernels against the reference on
// every combination of direction, layout, sequence_lens shorter than the sequence, initial states,
// and the per-op attributes (peepholes, input_forget, clip, linear_before_reset, activations with
// alphas), within 1e-4 relative + 1e-5 absolute: float gates (vectorized exp and tanh, which
// differ between the AVX2 and AVX-512 paths) against a double reference, carried over the steps.
#include "core/graph/builder.h"
#include "core/runtime/backend.h"
#include "core/runtime/tensor_compare.h"
#include "support/kernel_harness.h"
#include "support/seeded_tensor.h"

#include <QtTest>

#include <cmath>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

using Feeds = std::map<std::string, Tensor>;

Tensor f32(Dims dims, std::vector<float> v) { return Tensor::floats(std::move(dims), std::move(v)); }

void expectValues(const Tensor& t, const Dims& dims, const std::vector<double>& expected, const char* what) {
    QCOMPARE(t.dims(), dims);
    const auto got = values<float>(t);
    QCOMPARE(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i)
        QVERIFY2(std::fabs(double(got[i]) - expected[i]) <= 1e-6 * (1.0 + std::fabs(expected[i])),
                 (std::string(what) + " value " + std::to_string(i) + ": " + std::to_string(got[i]) + " != " +
                  std::to_string(expected[i])).c_str());
}

double tanhOfLn2Times(double k) { return (std::pow(4.0, k) - 1.0) / (std::pow(4.0, k) + 1.0); }

/// One case of the differential test: op, attributes, and which optional inputs it feeds.
struct Case {
    std::string op;
    std::string direction;
    int64_t layout = 0;
    bool lengths = false, initial = false, bias = true;
    Attributes extra;
    bool peepholes = false;
    bool weightsFed = false;  ///< W and R fed at run time (packed at each run) instead of initializers
};

/// A model of one recurrent node with seeded inputs: X, sequence_lens and the initial states fed
/// at run time, W, R, B, P as initializers; every output a graph output.
std::pair<Model, Feeds> recurrentModel(const Case& c, int64_t seq, int64_t batch, int64_t input, int64_t hidden,
                                       unsigned seed) {
    const int64_t gates = c.op == "LSTM" ? 4 : c.op == "GRU" ? 3 : 1;
    const int64_t dirs = c.direction == "bidirectional" ? 2 : 1;
    GraphBuilder b;
    Feeds feeds;
    auto feed = [&](const std::string& name, Tensor t) {
        const ValueId v = b.input(name, t.dtype(), Shape::ofSizes(t.dims()));
        feeds[name] = std::move(t);
        return v;
    };
    const Dims xDims = c.layout == 0 ? Dims{seq, batch, input} : Dims{batch, seq, input};
    const Dims stateDims = c.layout == 0 ? Dims{dirs, batch, hidden} : Dims{batch, dirs, hidden};
    std::vector<ValueId> in{feed("x", seeded(xDims, seed, -2.f, 2.f)),
                            c.weightsFed ? feed("w", seeded({dirs, gates * hidden, input}, seed + 1, -0.6f, 0.6f))
                                         : b.initializer("w", seeded({dirs, gates * hidden, input}, seed + 1, -0.6f, 0.6f)),
                            c.weightsFed ? feed("r", seeded({dirs, gates * hidden, hidden}, seed + 2, -0.6f, 0.6f))
                                         : b.initializer("r", seeded({dirs, gates * hidden, hidden}, seed + 2, -0.6f, 0.6f)),
                            c.bias ? b.initializer("b", seeded({dirs, 2 * gates * hidden}, seed + 3, -0.5f, 0.5f)) : kNoId};
    if (c.lengths) {
        std::vector<int32_t> l(size_t(batch), 0);
        for (int64_t n = 0; n < batch; ++n) l[size_t(n)] = int32_t(n % 3 == 0 ? seq : n % 3 == 1 ? seq / 2 : 1);
        Tensor lens = Tensor::allocate(DType::Int32, {batch});
        std::copy(l.begin(), l.end(), lens.mutableSpan<int32_t>().begin());
        in.push_back(feed("lens", lens));
    } else {
        in.push_back(kNoId);
    }
    in.push_back(c.initial ? feed("h0", seeded(stateDims, seed + 4)) : kNoId);
    if (c.op == "LSTM") {
        in.push_back(c.initial ? feed("c0", seeded(stateDims, seed + 5)) : kNoId);
        in.push_back(c.peepholes ? b.initializer("p", seeded({dirs, 3 * hidden}, seed + 6, -0.5f, 0.5f)) : kNoId);
    }
    while (!in.empty() && in.back() == kNoId) in.pop_back();
    Attributes attrs = c.extra;
    attrs.set("hidden_size", hidden);
    attrs.set("direction", c.direction);
    attrs.set("layout", c.layout);
    for (ValueId out : b.ops(c.op, in, c.op == "LSTM" ? 3 : 2, attrs, "rnn")) b.output(out);
    return {b.model(14), feeds};
}

std::string describe(const Case& c) {
    return c.op + " " + c.direction + " layout " + std::to_string(c.layout) + (c.lengths ? " lens" : "") +
           (c.initial ? " initial" : "") + (c.peepholes ? " peepholes" : "") + (c.bias ? "" : " no-bias");
}

void checkAgainstReference(const Case& c, int64_t seq, int64_t batch, int64_t input, int64_t hidden, unsigned seed,
                           double rtol = 1e-4, double atol = 1e-5) {
    const auto [model, feeds] = recurrentModel(c, seq, batch, input, hidden, seed);
    CompileOptions reference;
    reference.referenceOnly = true;
    const auto expected = makeCpuBackend()->compile(model, reference)->run(feeds);
    auto plan = makeCpuBackend()->compile(model, {});
    const std::string kernel = c.op == "LSTM" ? "cpu:lstm" : c.op == "GRU" ? "cpu:gru" : "cpu:rnn";
    QVERIFY2(plan->nodes().at(0).kernel == kernel, (describe(c) + " ran on " + plan->nodes().at(0).kernel).c_str());
    const auto got = plan->run(feeds);
    QCOMPARE(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
        QCOMPARE(got[i].dims(), expected[i].dims());
        const TensorComparison cmp = compareTensors(got[i], expected[i], rtol, atol);
        QVERIFY2(cmp.matches, (describe(c) + ", output " + std::to_string(i) + ": " + cmp.mismatch).c_str());
    }
}

} // namespace

class TestRecurrent : public QObject {
    Q_OBJECT
private slots:
    void lstmStepsWorkedOutByHand() {
        // X = [1, 0] (seq 2, batch 1, input 1), hidden 1, W (iofc) = [0, ln 3, 0, ln 2], R = 0,
        // initial c = 0.4. Step 1: i = f = 1/2, o = 3/4, c~ = tanh(ln 2) = 0.6,
        // C1 = 0.5 * 0.4 + 0.5 * 0.6 = 0.5, H1 = 0.75 tanh(0.5). Step 2 (x = 0): i = f = o = 1/2,
        // c~ = 0, C2 = 0.25, H2 = 0.5 tanh(0.25).
        const Tensor x = f32({2, 1, 1}, {1.f, 0.f});
        const Tensor w = f32({1, 4, 1}, {0.f, float(std::log(3.0)), 0.f, float(std::log(2.0))});
        const Tensor r = f32({1, 4, 1}, {0.f, 0.f, 0.f, 0.f});
        const Tensor h0 = f32({1, 1, 1}, {0.f}), c0 = f32({1, 1, 1}, {0.4f});
        const auto out = runKernelAll("LSTM", {&x, &w, &r, nullptr, nullptr, &h0, &c0}, {{"hidden_size", int64_t(1)}}, 14, 3);
        const double h1 = 0.75 * std::tanh(0.5), h2 = 0.5 * std::tanh(0.25);
        expectValues(out.at(0), {2, 1, 1, 1}, {h1, h2}, "Y");
        expectValues(out.at(1), {1, 1, 1}, {h2}, "Y_h");
        expectValues(out.at(2), {1, 1, 1}, {0.25}, "Y_c");

        // input_forget: f = 1 - i = 1/2 as well, so the same values; a peephole on i of ln 3 / 0.4
        // makes step 1's i = sigmoid(ln 3) = 3/4, f = 1/4: C1 = 0.25 * 0.4 + 0.75 * 0.6 = 0.55.
        const Tensor p = f32({1, 3}, {float(std::log(3.0) / 0.4), 0.f, 0.f});
        const auto coupled = runKernelAll("LSTM", {&x, &w, &r, nullptr, nullptr, &h0, &c0, &p},
                                          {{"hidden_size", int64_t(1)}, {"input_forget", int64_t(1)}}, 14, 3);
        // Step 2: i = sigmoid(ln 3 * 0.55 / 0.4), f = 1 - i, c~ = 0, C2 = f * 0.55, o = 1/2.
        const double i2 = 1.0 / (1.0 + std::pow(3.0, -0.55 / 0.4)), c2 = (1.0 - i2) * 0.55;
        expectValues(coupled.at(0), {2, 1, 1, 1}, {0.75 * std::tanh(0.55), 0.5 * std::tanh(c2)}, "Y");
        expectValues(coupled.at(2), {1, 1, 1}, {c2}, "Y_c");
    }

    void gruStepWorkedOutByHand() {
        // X = 1, hidden 1, initial h = 0.5, W (zrh) = [0, ln 3, ln 2 / 4], R = [0, 0, 2 ln 2],
        // Rbh = ln 2. z = 1/2, r = 3/4.
        // linear_before_reset = 0: h~ = tanh(ln2/4 + (0.75 * 0.5) 2 ln 2 + ln 2) = tanh(2 ln 2) = 15/17.
        // linear_before_reset = 1: h~ = tanh(ln2/4 + 0.75 (2 ln 2 * 0.5 + ln 2)) = tanh(1.75 ln 2).
        // H = (1 - z) h~ + z * 0.5.
        const double ln2 = std::log(2.0);
        const Tensor x = f32({1, 1, 1}, {1.f});
        const Tensor w = f32({1, 3, 1}, {0.f, float(std::log(3.0)), float(ln2 / 4)});
        const Tensor r = f32({1, 3, 1}, {0.f, 0.f, float(2 * ln2)});
        const Tensor b = f32({1, 6}, {0.f, 0.f, 0.f, 0.f, 0.f, float(ln2)});
        const Tensor h0 = f32({1, 1, 1}, {0.5f});
        const auto plain = runKernelAll("GRU", {&x, &w, &r, &b, nullptr, &h0}, {{"hidden_size", int64_t(1)}}, 14, 2);
        expectValues(plain.at(1), {1, 1, 1}, {0.5 * 15.0 / 17.0 + 0.25}, "Y_h");
        const auto linear = runKernelAll("GRU", {&x, &w, &r, &b, nullptr, &h0},
                                         {{"hidden_size", int64_t(1)}, {"linear_before_reset", int64_t(1)}}, 14, 2);
        expectValues(linear.at(1), {1, 1, 1}, {0.5 * tanhOfLn2Times(1.75) + 0.25}, "Y_h");
    }

    void rnnStepsWorkedOutByHand() {
        // Relu RNN, hidden 1, W = 2, R = 0.5, Wb = 1, Rb = -0.5; batch 2 with lengths 3 and 1.
        // Row 0, X = [1, -1, 3]: H = relu(2 + 0.5) = 2.5, relu(-2 + 1.25 + 0.5) = 0, relu(6 + 0.5) = 6.5.
        // Row 1, X = [1, (5, 5 unread)]: H = 2.5, then zeros in Y.
        // Reverse, row 0 runs 3, -1, 1: 6.5, relu(-2 + 3.25 + 0.5) = 1.75, relu(2 + 0.875 + 0.5) = 3.375,
        // stored at the steps' own positions.
        const Tensor x = f32({3, 2, 1}, {1.f, 1.f, -1.f, 5.f, 3.f, 5.f});
        const Tensor w = f32({1, 1, 1}, {2.f}), r = f32({1, 1, 1}, {0.5f}), b = f32({1, 2}, {1.f, -0.5f});
        Tensor lens = Tensor::allocate(DType::Int32, {2});
        lens.mutableSpan<int32_t>()[0] = 3;
        lens.mutableSpan<int32_t>()[1] = 1;
        const Attributes relu{{"hidden_size", int64_t(1)}, {"activations", std::vector<std::string>{"Relu"}}};
        const auto forward = runKernelAll("RNN", {&x, &w, &r, &b, &lens}, relu, 14, 2);
        expectValues(forward.at(0), {3, 1, 2, 1}, {2.5, 2.5, 0.0, 0.0, 6.5, 0.0}, "Y");
        expectValues(forward.at(1), {1, 2, 1}, {6.5, 2.5}, "Y_h");
        Attributes reverse = relu;
        reverse.set("direction", "reverse");
        const auto backward = runKernelAll("RNN", {&x, &w, &r, &b, &lens}, reverse, 14, 2);
        expectValues(backward.at(0), {3, 1, 2, 1}, {3.375, 2.5, 1.75, 0.0, 6.5, 0.0}, "Y");
        expectValues(backward.at(1), {1, 2, 1}, {3.375, 2.5}, "Y_h");
        // layout 1: X [batch, seq, input], Y [batch, seq, dirs, hidden].
        const Tensor xb = f32({2, 3, 1}, {1.f, -1.f, 3.f, 1.f, 5.f, 5.f});
        Attributes batchwise = relu;
        batchwise.set("layout", int64_t(1));
        const auto rows = runKernelAll("RNN", {&xb, &w, &r, &b, &lens}, batchwise, 14, 2);
        expectValues(rows.at(0), {2, 3, 1, 1}, {2.5, 0.0, 6.5, 2.5, 0.0, 0.0}, "Y");
        expectValues(rows.at(1), {2, 1, 1}, {6.5, 2.5}, "Y_h");
    }

    void cpuKernelsMatchTheReference() {
        unsigned seed = 900;
        int cases = 0;
        for (const char* op : {"LSTM", "GRU", "RNN"})
            for (const char* direction : {"forward", "reverse", "bidirectional"})
                for (int64_t layout : {0, 1})
                    for (int variant = 0; variant < 4; ++variant) {
                        Case c{op, direction, layout, (variant & 1) != 0, (variant & 2) != 0, variant != 1, {}, false};
                        checkAgainstReference(c, 7, 4, 5, 6, seed += 10);
                        ++cases;
                    }
        QCOMPARE(cases, 72);
    }

    void cpuKernelsMatchTheReferenceOnEveryAttribute() {
        using Names = std::vector<std::string>;
        using FloatList = std::vector<float>;
        const std::vector<Case> cases = {
            {"LSTM", "bidirectional", 0, true, true, true, {}, true},
            {"LSTM", "reverse", 1, true, true, true, {{"input_forget", int64_t(1)}}, true},
            {"LSTM", "forward", 0, false, true, true, {{"clip", 0.7f}}, true},
            {"LSTM", "bidirectional", 1, true, false, true,
             {{"activations", Names{"HardSigmoid", "LeakyRelu", "ScaledTanh", "Sigmoid", "Softsign", "Elu"}},
              {"activation_alpha", FloatList{0.3f, 0.05f, 1.5f, 0.8f}},
              {"activation_beta", FloatList{0.4f, 0.7f}}}, false},
            {"GRU", "bidirectional", 0, true, true, true, {{"linear_before_reset", int64_t(1)}}, false},
            {"GRU", "reverse", 1, true, true, true, {{"linear_before_reset", int64_t(1)}, {"clip", 0.5f}}, false},
            {"GRU", "forward", 0, false, true, true,
             {{"activations", Names{"Affine", "ThresholdedRelu"}}, {"activation_alpha", FloatList{0.5f, 0.2f}},
              {"activation_beta", FloatList{0.1f}}}, false},
            {"RNN", "bidirectional", 1, true, true, true, {{"activations", Names{"Relu", "Softplus"}}}, false},
            {"RNN", "forward", 0, true, false, false, {{"activations", Names{"Sigmoid"}}, {"clip", 1.f}}, false},
        };
        unsigned seed = 2000;
        for (const Case& c : cases) checkAgainstReference(c, 9, 5, 3, 7, seed += 10);
        // Larger shapes: the projection on sgemm, the vectorized gates' tails, 5+ batch rows on sgemm.
        // Float sums of 37 + 67 terms carried over 20 steps against double ones (sgemm's AVX2 and
        // AVX-512 paths round differently): 1e-4 relative + 1e-5 absolute.
        checkAgainstReference({"LSTM", "bidirectional", 0, true, true, true, {}, true}, 20, 3, 37, 67, 3000, 1e-4, 1e-5);
        checkAgainstReference({"GRU", "bidirectional", 1, true, true, true, {}, false}, 20, 3, 37, 67, 3010, 1e-4, 1e-5);
        // W and R fed at run time: packed at each run, not at plan time (small and large projections).
        checkAgainstReference({"LSTM", "bidirectional", 0, true, true, true, {}, true, true}, 9, 5, 3, 7, 3020);
        checkAgainstReference({"GRU", "forward", 1, false, true, true, {}, false, true}, 20, 6, 37, 67, 3030, 1e-4, 1e-5);
    }
};

QTEST_GUILESS_MAIN(TestRecurrent)
#include "tst_recurrent.moc"
