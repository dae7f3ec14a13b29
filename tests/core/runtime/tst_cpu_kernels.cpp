// The CPU backend's own vectorized kernels against the reference kernels, one model of one node at
// a time: general broadcasting arithmetic, comparisons and logic, Where, Cast, InstanceNorm,
// Resize, reductions over any axes, Gather, Expand, Tile, Split and Reshape. Every case checks
// that the plan chose the expected kernel, then compares: bit-exact for integer and bool outputs,
// within 1e-5 relative for floats. Shapes include broadcasts, negative axes and odd sizes.
#include "core/graph/builder.h"
#include "core/runtime/backend.h"
#include "core/runtime/executor.h"
#include "core/runtime/reference/ref_util.h"
#include "core/runtime/tensor_compare.h"
#include "support/seeded_tensor.h"

#include <QElapsedTimer>
#include <QtTest>

#include <cmath>
#include <functional>
#include <limits>
#include <random>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

using Dims = std::vector<int64_t>;
using Feeds = std::map<std::string, Tensor>;

/// Integers in [lo, hi] as `type` (int64, int32, uint8, bool); floats holding integers for Float.
Tensor randomInts(DType type, const Dims& dims, unsigned seed, int lo, int hi) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> uniform(lo, hi);
    Tensor t = Tensor::allocate(type, dims);
    for (int64_t i = 0; i < t.numel(); ++i) {
        const int v = uniform(rng);
        switch (type) {
        case DType::Int64: t.mutableSpan<int64_t>()[size_t(i)] = v; break;
        case DType::Int32: t.mutableSpan<int32_t>()[size_t(i)] = v; break;
        case DType::Float: t.mutableSpan<float>()[size_t(i)] = float(v); break;
        default: t.mutableSpan<uint8_t>()[size_t(i)] = uint8_t(v); break;
        }
    }
    return t;
}

/// An input of the test node: fed at run time, or an initializer (`constant`).
struct Input {
    Tensor value;
    bool constant = false;
};

/// A model of one `op` node over the inputs (named a, b, c, ...) and its feeds.
std::pair<Model, Feeds> singleNode(const std::string& op, const std::vector<Input>& inputs, Attributes attributes = {},
                                   int64_t opset = 17, int outputs = 1) {
    GraphBuilder b;
    Feeds feeds;
    std::vector<ValueId> ids;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const std::string name(1, char('a' + i));
        const Tensor& v = inputs[i].value;
        if (inputs[i].constant) {
            ids.push_back(b.initializer(name, v));
            continue;
        }
        ids.push_back(b.input(name, v.dtype(), Shape::ofSizes(v.dims())));
        feeds[name] = v;
    }
    for (ValueId out : b.ops(op, ids, outputs, std::move(attributes))) b.output(out);
    return {b.model(opset), feeds};
}

/// Runs the model on the reference kernels and on the CPU plan: node 0 must run on `kernel` and
/// every output must agree (exactly unless it is float).
void checkAgainstReference(const std::pair<Model, Feeds>& test, const std::string& kernel) {
    const auto& [model, feeds] = test;
    CompileOptions reference;
    reference.referenceOnly = true;
    const auto expected = makeCpuBackend()->compile(model, reference)->run(feeds);
    auto plan = makeCpuBackend()->compile(model, {});
    const std::string& chosen = plan->nodes().at(0).kernel;
    QVERIFY2(chosen == kernel, (model.graph.node(0).opType + " ran on " + chosen + ", not " + kernel).c_str());
    const auto got = plan->run(feeds);
    QCOMPARE(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
        QCOMPARE(got[i].dims(), expected[i].dims());
        QCOMPARE(got[i].dtype(), expected[i].dtype());
        if (got[i].dtype() != DType::Float && got[i].dtype() != DType::Double) {
            QVERIFY2(got[i].contentEquals(expected[i]), (model.graph.node(0).opType + ": values differ").c_str());
            continue;
        }
        const TensorComparison c = compareTensors(got[i], expected[i], 1e-5, 1e-6);
        QVERIFY2(c.matches, (model.graph.node(0).opType + ": " + c.mismatch).c_str());
    }
}

/// Shape pairs that no special case of elementwise.cpp takes: general broadcasting.
const std::vector<std::pair<Dims, Dims>> kBroadcasts = {
    {{2, 1, 7}, {1, 3, 1}},       // [B,1,S] * [1,H,1]
    {{1, 12, 64, 64}, {1, 12, 1, 64}},
    {{3, 1, 5}, {4, 1}},
    {{5}, {3, 1, 1}},
    {{2, 3, 1, 5}, {3, 4, 1}},
    {{1, 9, 1, 33}, {2, 1, 17, 1}},
};

/// The ONNX TensorProto code of a type, for Cast's `to`.
int64_t onnxCode(DType type) {
    switch (type) {
    case DType::Float: return 1;
    case DType::UInt8: return 2;
    case DType::Int8: return 3;
    case DType::Int32: return 6;
    case DType::Int64: return 7;
    case DType::Bool: return 9;
    case DType::Float16: return 10;
    case DType::Double: return 11;
    default: return 0;
    }
}

double seconds(const std::function<void()>& work, int repeats) {
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < repeats; ++i) work();
    return double(timer.nsecsElapsed()) * 1e-9 / repeats;
}

} // namespace

class TestCpuKernels : public QObject {
    Q_OBJECT
private slots:
    void broadcastArithmeticOnFloatsMatchesTheReference() {
        unsigned seed = 1;
        for (const auto& [da, db] : kBroadcasts)
            for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min"}) {
                const bool pow = std::string(op) == "Pow";
                const Tensor a = seeded(da, seed++, pow ? 0.1f : -1.f, 2.f);
                checkAgainstReference(singleNode(op, {{a}, {seeded(db, seed++)}}), "cpu:broadcast-arithmetic");
                checkAgainstReference(singleNode(op, {{seeded(db, seed++)}, {a, true}}), "cpu:broadcast-arithmetic");
            }
    }

    void broadcastArithmeticOnIntegersWrapsLikeTheReference() {
        unsigned seed = 100;
        for (DType type : {DType::Int64, DType::Int32})
            for (const auto& [da, db] : kBroadcasts)
                for (const char* op : {"Add", "Sub", "Mul", "Max", "Min"}) {
                    const Tensor a = randomInts(type, da, seed++, -1000, 1000);
                    checkAgainstReference(singleNode(op, {{a}, {randomInts(type, db, seed++, -9, 9)}}),
                                          "cpu:broadcast-arithmetic");
                }
        // same shapes and int64 overflow
        const Tensor big = Tensor::int64s({3}, {INT64_MAX, INT64_MIN, 7});
        checkAgainstReference(singleNode("Add", {{big}, {Tensor::int64s({3}, {1, -1, 2})}}), "cpu:broadcast-arithmetic");
        checkAgainstReference(singleNode("Div", {{big}, {Tensor::int64s({3}, {2, 3, 4})}}), "reference");
    }

    void comparisonsGiveTheReferenceBools() {
        unsigned seed = 200;
        for (const char* op : {"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"})
            for (DType type : {DType::Float, DType::Int64, DType::Int32})
                for (const auto& [da, db] : kBroadcasts) {
                    const Tensor a = randomInts(type, da, seed++, -3, 3);  // small values: many ties
                    checkAgainstReference(singleNode(op, {{a}, {randomInts(type, db, seed++, -3, 3)}}), "cpu:compare");
                }
        const Tensor nan = Tensor::floats({4}, {NAN, 1.f, -0.f, INFINITY});
        for (const char* op : {"Equal", "Less", "GreaterOrEqual"})
            checkAgainstReference(singleNode(op, {{nan}, {Tensor::floats({4}, {NAN, NAN, 0.f, INFINITY})}}), "cpu:compare");
    }

    void booleanLogicMatchesTheReference() {
        unsigned seed = 300;
        for (const char* op : {"And", "Or", "Xor"})
            for (const auto& [da, db] : kBroadcasts) {
                const Tensor a = randomInts(DType::Bool, da, seed++, 0, 1);
                checkAgainstReference(singleNode(op, {{a}, {randomInts(DType::Bool, db, seed++, 0, 1)}}), "cpu:logic");
            }
        for (const Dims& dims : {Dims{37}, Dims{3, 65, 333}})
            checkAgainstReference(singleNode("Not", {{randomInts(DType::Bool, dims, seed++, 0, 1)}}), "cpu:logic");
    }

    void wherePicksLikeTheReference() {
        unsigned seed = 400;
        const std::vector<std::array<Dims, 3>> shapes = {
            {Dims{2, 1, 7}, Dims{1, 3, 1}, Dims{7}},  {Dims{4, 33}, Dims{4, 33}, Dims{4, 33}},
            {Dims{1}, Dims{5, 3}, Dims{3}},           {Dims{2, 3, 1}, Dims{1}, Dims{1, 1, 9}},
            {Dims{64, 1, 64}, Dims{64, 64}, Dims{1}},
        };
        for (const auto& [dc, dx, dy] : shapes) {
            const Tensor c = randomInts(DType::Bool, dc, seed++, 0, 1);
            checkAgainstReference(singleNode("Where", {{c}, {seeded(dx, seed++)}, {seeded(dy, seed++)}}),
                                  "cpu:where");
            checkAgainstReference(
                singleNode("Where", {{c}, {randomInts(DType::Int64, dx, seed++, -9, 9)},
                                     {randomInts(DType::Int64, dy, seed++, -9, 9), true}}),
                "cpu:where");
            checkAgainstReference(singleNode("Where", {{c}, {randomInts(DType::Bool, dx, seed++, 0, 1)},
                                                       {randomInts(DType::Bool, dy, seed++, 0, 1)}}),
                                  "cpu:where");
        }
    }

    void castConvertsLikeTheReference() {
        std::vector<float> values = {0.f, -0.f, 0.5f, -0.5f, 1.99f, -1.99f, 127.f, 128.f, -129.f, 255.9f, 256.f, 3e9f,
                                     -3e9f, 1e20f, -1e20f, NAN, INFINITY, -INFINITY, 65504.f, 1e-8f, 70000.f};
        const Tensor random = seeded({2, 3, 5, 7}, 9, -300.f, 300.f);
        values.insert(values.end(), random.span<float>().begin(), random.span<float>().end());
        const auto n = int64_t(values.size());
        const Tensor floats = Tensor::floats({n}, values);
        for (DType to : {DType::Int64, DType::Int32, DType::Int8, DType::UInt8, DType::Bool, DType::Double,
                         DType::Float16, DType::Float}) {
            checkAgainstReference(singleNode("Cast", {{floats}}, {{"to", onnxCode(to)}}), "cpu:cast");
            if (to == DType::Float16) continue;
            const Tensor ints = randomInts(DType::Int64, {3, 67}, unsigned(onnxCode(to)), -100000, 100000);
            checkAgainstReference(singleNode("Cast", {{ints}}, {{"to", onnxCode(to)}}), "cpu:cast");
        }
        const Tensor many = seeded({300, 257}, 10, -1e5f, 1e5f);  // several threads
        checkAgainstReference(singleNode("Cast", {{many}}, {{"to", onnxCode(DType::Int32)}}), "cpu:cast");
        const Tensor bools = randomInts(DType::Bool, {41}, 3, 0, 1);
        checkAgainstReference(singleNode("Cast", {{bools}}, {{"to", onnxCode(DType::Float)}}), "cpu:cast");
        std::vector<uint16_t> halfBits;
        for (float v : values) halfBits.push_back(ref::floatToHalf(v));
        const Tensor halves = Tensor::fromVector(DType::Float16, {n}, halfBits);
        checkAgainstReference(singleNode("Cast", {{halves}}, {{"to", onnxCode(DType::Float)}}), "cpu:cast");
        checkAgainstReference(singleNode("CastLike", {{randomInts(DType::Int32, {5, 9}, 4, -50, 50)}, {floats, true}}),
                              "cpu:cast");
    }

    void instanceNormMatchesTheReference() {
        unsigned seed = 500;
        for (const Dims& dims : {Dims{2, 3, 5, 7}, Dims{1, 4, 33}, Dims{3, 2, 1, 1}, Dims{2, 16, 64, 64}}) {
            const Tensor scale = seeded({dims[1]}, seed++, 0.5f, 2.f), bias = seeded({dims[1]}, seed++);
            const Tensor x = seeded(dims, seed++, -3.f, 5.f);
            checkAgainstReference(singleNode("InstanceNormalization", {{x}, {scale, true}, {bias, true}}, {{"epsilon", 1e-3}}),
                                  "cpu:instance-norm");
            checkAgainstReference(singleNode("InstanceNormalization", {{x}, {scale}, {bias}}), "cpu:instance-norm");
        }
    }

    void resizeNearestAndLinearMatchTheReference() {
        const Tensor x = seeded({2, 3, 7, 9}, 600);
        const Tensor none = Tensor::allocate(DType::Float, {0});
        const std::vector<std::pair<std::string, std::string>> modes = {
            {"asymmetric", "floor"},        {"half_pixel", "round_prefer_floor"}, {"align_corners", "round_prefer_ceil"},
            {"pytorch_half_pixel", "ceil"}, {"tf_half_pixel_for_nn", "round_prefer_floor"}};
        for (const auto& [coordinates, nearest] : modes)
            for (const char* mode : {"nearest", "linear"})
                for (const std::vector<float>& scales : {std::vector<float>{1, 1, 2, 2}, {1, 1, 0.5f, 0.7f}, {1, 1, 1.5f, 3}}) {
                    const Attributes a{{"mode", mode}, {"coordinate_transformation_mode", coordinates}, {"nearest_mode", nearest}};
                    // tf_half_pixel_for_nn shifts every axis by half a pixel: linear then blends channels
                    const bool blendsChannels = coordinates == "tf_half_pixel_for_nn" && std::string(mode) == "linear";
                    const std::string kernel = blendsChannels ? "reference" : std::string("cpu:resize-") + mode;
                    const Tensor s = Tensor::floats({4}, scales);
                    checkAgainstReference(singleNode("Resize", {{x}, {none, true}, {s, true}}, a, 13), kernel);
                    const Tensor sizes = Tensor::int64s({4}, {2, 3, 5, 17});
                    checkAgainstReference(singleNode("Resize", {{x}, {none, true}, {none, true}, {sizes, true}}, a, 13),
                                          kernel);
                }
        const Tensor large = seeded({1, 8, 64, 61}, 601), twice = Tensor::floats({4}, {1, 1, 2, 2});
        for (const char* mode : {"nearest", "linear"})  // several threads
            checkAgainstReference(singleNode("Resize", {{large}, {none, true}, {twice, true}}, {{"mode", mode}}, 13),
                                  std::string("cpu:resize-") + mode);
        const Tensor scales = Tensor::floats({4}, {1, 1, 2, 3});
        checkAgainstReference(singleNode("Resize", {{x}, {scales, true}}, {{"mode", "linear"}}, 10), "cpu:resize-linear");
        checkAgainstReference(singleNode("Resize", {{x}, {none, true}, {scales, true}}, {{"mode", "cubic"}}, 13),
                              "reference");
    }

    void reductionsOverAnyAxesMatchTheReference() {
        const Tensor x = seeded({3, 5, 7, 9}, 700, 0.5f, 1.5f);  // positive: products stay representable
        const std::vector<std::vector<int64_t>> axesSets = {{1}, {0, 2}, {-1, -3}, {0, 1, 2, 3}, {}, {2, 3}, {0}};
        for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                               "ReduceSumSquare", "ReduceLogSum"})
            for (const auto& axes : axesSets)
                for (int64_t keep : {0, 1}) {
                    Attributes a{{"keepdims", keep}};
                    if (!axes.empty()) a.set("axes", axes);
                    checkAgainstReference(singleNode(op, {{x}}, a, std::string(op) == "ReduceSum" ? 12 : 13),
                                          "cpu:reduce");  // ReduceSum-13 takes its axes as an input
                    if (axes.empty()) continue;
                    const Tensor axesInput = Tensor::int64s({int64_t(axes.size())}, axes);
                    checkAgainstReference(singleNode(op, {{x}, {axesInput, true}}, {{"keepdims", keep}}, 18), "cpu:reduce");
                }
        const Tensor odd = seeded({1, 4099}, 701);
        checkAgainstReference(singleNode("ReduceMax", {{odd}}, {{"axes", {-1}}}, 13), "cpu:reduce");
        checkAgainstReference(singleNode("ReduceMean", {{seeded({257, 130}, 702)}}, {{"axes", {0}}}, 13), "cpu:reduce");
        // large enough for several threads: rows, and blocks of columns
        checkAgainstReference(singleNode("ReduceMax", {{seeded({300, 257}, 703)}}, {{"axes", {-1}}}, 13), "cpu:reduce");
        checkAgainstReference(singleNode("ReduceL2", {{seeded({16, 130, 1033}, 704)}}, {{"axes", {1}}}, 13), "cpu:reduce");
    }

    void gatherPicksLikeTheReference() {
        const Tensor data = seeded({5, 4, 3}, 800);
        const Tensor indices = Tensor::int64s({2, 3}, {0, -1, 2, 1, 1, -2});
        for (int64_t axis : {0, 1, 2, -1, -3}) {
            checkAgainstReference(singleNode("Gather", {{data}, {indices, true}}, {{"axis", axis}}), "cpu:gather");
            checkAgainstReference(singleNode("Gather", {{data}, {indices}}, {{"axis", axis}}), "cpu:gather");
        }
        const Tensor index32 = Tensor::fromVector(DType::Int32, {7}, std::vector<int32_t>{3, 0, -4, 2, 2, 1, -1});
        checkAgainstReference(singleNode("Gather", {{randomInts(DType::Int64, {4, 9}, 801, -50, 50)}, {index32}}), "cpu:gather");
        checkAgainstReference(singleNode("Gather", {{seeded({3, 5000}, 802)}, {randomInts(DType::Int64, {20000}, 803, -5000, 4999)}},
                                         {{"axis", 1}}),
                              "cpu:gather");
        const Tensor scalar = Tensor::int64s({}, {-2});
        checkAgainstReference(singleNode("Gather", {{data}, {scalar, true}}, {{"axis", 1}}), "cpu:gather");
    }

    void gatherRejectsAnIndexOutOfRange() {
        const auto [model, feeds] = singleNode("Gather", {{seeded({5, 4}, 804)}, {Tensor::int64s({2}, {1, 5})}});
        auto plan = makeCpuBackend()->compile(model, {});
        QCOMPARE(plan->nodes().at(0).kernel, std::string("cpu:gather"));
        QVERIFY_THROWS_EXCEPTION(ExecutionError, plan->run(feeds));
    }

    void expandTileSplitAndReshapeCopyLikeTheReference() {
        const Tensor x = seeded({3, 1}, 900);
        checkAgainstReference(singleNode("Expand", {{x}, {Tensor::int64s({3}, {2, 3, 5}), true}}), "cpu:expand");
        checkAgainstReference(singleNode("Expand", {{Tensor::int64s({1}, {7})}, {Tensor::int64s({2}, {5, 3}), true}}),
                              "cpu:expand");
        const Tensor bools = randomInts(DType::Bool, {1, 5, 1}, 901, 0, 1);
        checkAgainstReference(singleNode("Expand", {{bools}, {Tensor::int64s({3}, {2, 1, 3}), true}}), "cpu:expand");
        checkAgainstReference(singleNode("Tile", {{seeded({2, 3}, 902)}, {Tensor::int64s({2}, {2, 1}), true}}), "cpu:tile");
        checkAgainstReference(singleNode("Tile", {{randomInts(DType::Int32, {1, 3, 5}, 903, -9, 9)},
                                                  {Tensor::int64s({3}, {3, 2, 1}), true}}),
                              "cpu:tile");
        const Tensor y = seeded({2, 7, 3}, 904);
        checkAgainstReference(singleNode("Split", {{y}, {Tensor::int64s({2}, {2, 5}), true}}, {{"axis", 1}}, 13, 2), "cpu:split");
        checkAgainstReference(singleNode("Split", {{y}}, {{"axis", -1}}, 13, 3), "cpu:split");
        checkAgainstReference(singleNode("Split", {{y}}, {{"axis", -2}, {"split", {4, 0, 3}}}, 11, 3), "cpu:split");
        checkAgainstReference(singleNode("Reshape", {{y}, {Tensor::int64s({2}, {-1, 3}), true}}), "cpu:reshape");
        checkAgainstReference(singleNode("Unsqueeze", {{y}, {Tensor::int64s({1}, {-1}), true}}), "cpu:reshape");
    }

    /// Slice bounds may be any int64 (INT64_MAX means "to the end"): the copy kernel clamps them
    /// like the reference (fuzzing: UBSan saw a start of 2^63 - 1 converted through a double).
    void sliceBoundsAtTheInt64LimitsCopyLikeTheReference() {
        const Tensor x = seeded({5, 4}, 906);
        const int64_t big = INT64_MAX, small = INT64_MIN;
        const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> bounds{
            {{1}, {big}}, {{small}, {3}}, {{big}, {big}}, {{-2}, {small}}, {{small}, {big}}};
        for (const auto& [starts, ends] : bounds)
            checkAgainstReference(singleNode("Slice", {{x}, {Tensor::int64s({1}, starts), true}, {Tensor::int64s({1}, ends), true},
                                                       {Tensor::int64s({1}, {0}), true}}),
                                  "cpu:slice");
        const auto [model, feeds] = singleNode("Slice", {{x}, {Tensor::int64s({1}, {big}), true}, {Tensor::int64s({1}, {big}), true}});
        QCOMPARE(makeCpuBackend()->compile(model, {})->run(feeds).at(0).dims(), (Dims{0, 4}));
    }

    /// The vectorized exp behind Sigmoid, Erf and Softmax keeps NaN and saturates at the infinities
    /// (fuzzing: UBSan saw NaN converted to an integer inside it).
    void activationsKeepNaNAndSaturate() {
        const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
        const Tensor x = Tensor::floats({6}, {nan, -inf, inf, 0.f, -100.f, 100.f});
        const std::map<std::string, std::vector<float>> expected{
            {"Sigmoid", {nan, 0.f, 1.f, 0.5f, 0.f, 1.f}}, {"Erf", {nan, -1.f, 1.f, 0.f, -1.f, 1.f}}};
        for (const auto& [op, want] : expected) {
            const auto [model, feeds] = singleNode(op, {{x}});
            const Tensor y = makeCpuBackend()->compile(model, {})->run(feeds).at(0);
            for (size_t i = 0; i < want.size(); ++i) {
                const float got = y.span<float>()[i];
                QVERIFY2(std::isnan(want[i]) ? std::isnan(got) : std::abs(got - want[i]) < 1e-6f,
                         (op + "(" + std::to_string(x.span<float>()[i]) + ") gave " + std::to_string(got)).c_str());
            }
        }
    }

    void reshapeBetweenKernelsTakesOverItsInputBuffer() {
        GraphBuilder b;
        ValueId x = b.input("x", DType::Float, {4, 6});
        ValueId r = b.op("Reshape", {b.op("Relu", {x}), b.initializer("s", Tensor::int64s({2}, {6, 4}))});
        b.output(b.op("Neg", {r}));
        auto plan = makeCpuBackend()->compile(b.model(13), {});
        QCOMPARE(plan->nodes().at(1).kernel, std::string("cpu:reshape"));
        QVERIFY(plan->memoryPlan().inPlaceCount >= 1);
        const Tensor in = seeded({4, 6}, 905);
        const auto out = plan->run({{"x", in}});
        for (int64_t i = 0; i < 24; ++i)
            QCOMPARE(out[0].span<float>()[size_t(i)], -std::max(in.span<float>()[size_t(i)], 0.f));
    }

    void printsSpeedAgainstTheReference() {
        // Not a pass/fail check: how much faster the general broadcast Add and bilinear Resize run.
        const Tensor a = seeded({8, 1, 4096}, 1000), b = seeded({1, 64, 1}, 1001);
        const auto add = singleNode("Add", {{a}, {b}});
        const Tensor image = seeded({1, 16, 128, 128}, 1002);
        const Tensor none = Tensor::allocate(DType::Float, {0}), scales = Tensor::floats({4}, {1, 1, 2, 2});
        const auto resize = singleNode("Resize", {{image}, {none, true}, {scales, true}}, {{"mode", "linear"}}, 13);
        for (const auto* test : {&add, &resize}) {
            CompileOptions reference, oneThread;
            reference.referenceOnly = true;
            oneThread.threads = 1;
            auto slow = makeCpuBackend()->compile(test->first, reference);
            const double ref = seconds([&] { slow->run(test->second); }, 2);
            for (const CompileOptions& options : {oneThread, CompileOptions()}) {
                auto fast = makeCpuBackend()->compile(test->first, options);
                const double cpu = seconds([&] { fast->run(test->second); }, 20);
                qInfo("%s: reference %.2f ms, %s on %s threads %.3f ms (%.0fx)", test->first.graph.node(0).opType.c_str(),
                      ref * 1e3, fast->nodes()[0].kernel.c_str(), options.threads ? "1" : "all", cpu * 1e3, ref / cpu);
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestCpuKernels)
#include "tst_cpu_kernels.moc"
