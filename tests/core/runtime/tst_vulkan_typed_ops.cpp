// The Vulkan shaders for tensors of any element type, on small graphs with exact expected outputs:
// Cast, comparisons, logic, Where, Mod, BitShift, integer arithmetic (typed.comp); copies of
// int64, bool and uint8 tensors (Transpose, Concat at byte offsets, Slice, Tile, DepthToSpace);
// Gather and GatherElements with negative indices; Trilu; Shape, Size, ConstantOfShape, EyeLike,
// Dropout; NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss; ArgMax, ArgMin, Hardmax,
// CumSum; Sum, Mean and Max of three inputs; the trigonometry the unary table lacks. Every node must run as a shader (no CPU fallback). Skips where there is no Vulkan
// device. Also: int64 math exact past 32 bits (typed64.comp), and the reasons nodes are declined
// with (int64 math without shaderInt64, BatchNormalization in training mode).
#include "core/graph/builder.h"
#include "core/runtime/backend.h"
#include "core/runtime/backend_registry.h"
#include "core/runtime/tensor_compare.h"

#include <QtTest>

#include <cmath>
#include <cstring>

using namespace graphlens;

namespace {

template <typename T> Tensor tensor(DType type, std::vector<int64_t> dims, std::vector<T> values) {
    return Tensor::fromVector(type, std::move(dims), values);
}
Tensor i64(std::vector<int64_t> dims, std::vector<int64_t> v) { return Tensor::int64s(std::move(dims), v); }
Tensor i32(std::vector<int64_t> dims, std::vector<int32_t> v) { return tensor(DType::Int32, std::move(dims), v); }
Tensor f32(std::vector<int64_t> dims, std::vector<float> v) { return Tensor::floats(std::move(dims), v); }
Tensor u8(std::vector<int64_t> dims, std::vector<uint8_t> v) { return tensor(DType::UInt8, std::move(dims), v); }
Tensor bools(std::vector<int64_t> dims, std::vector<uint8_t> v) { return tensor(DType::Bool, std::move(dims), v); }

struct Inputs {
    std::vector<std::pair<std::string, Tensor>> values;
};

/// A graph whose inputs are `inputs` (names and values) and whose outputs `body` returns.
template <typename Body> Model graphOf(const Inputs& inputs, Body body, int64_t opset = 18) {
    GraphBuilder b;
    std::vector<ValueId> xs;
    for (const auto& [name, t] : inputs.values) xs.push_back(b.input(name, t.dtype(), Shape::ofSizes(t.dims())));
    for (ValueId y : body(b, xs)) b.output(y);
    return b.model(opset);
}

std::string bytesOf(const Tensor& t) { return std::string(reinterpret_cast<const char*>(t.data()), t.byteSize()); }

} // namespace

class TestVulkanTypedOps : public QObject {
    Q_OBJECT

    std::unique_ptr<Backend> vulkan_;
    std::string problem_;

    /// Runs `m` on Vulkan (twice: the second run replays the recorded commands); fails unless every
    /// node ran as a shader and each output equals `want` bit for bit (floats within `tolerance`).
    void expectOutputs(const Model& m, const Inputs& inputs, const std::vector<Tensor>& want, double tolerance = 0) {
        std::map<std::string, Tensor> feeds;
        for (const auto& [name, t] : inputs.values) feeds[name] = t;
        std::unique_ptr<Plan> plan;
        try {
            plan = vulkan_->compile(m, {});
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        for (const PlannedNode& n : plan->nodes())
            QVERIFY2(n.kernel.rfind("vulkan:", 0) == 0, n.kernel.c_str());
        for (int run = 0; run < 2; ++run) {
            const std::vector<Tensor> got = plan->run(feeds);
            QCOMPARE(got.size(), want.size());
            for (size_t k = 0; k < want.size(); ++k) {
                QCOMPARE(int(got[k].dtype()), int(want[k].dtype()));
                QCOMPARE(got[k].dims(), want[k].dims());
                if (tolerance > 0) {
                    const TensorComparison c = compareTensors(got[k], want[k], tolerance, tolerance);
                    QVERIFY2(c.matches, c.mismatch.c_str());
                } else {
                    QCOMPARE(bytesOf(got[k]), bytesOf(want[k]));
                }
            }
        }
    }

    /// One node `op` over the inputs, one output.
    void expectOp(const std::string& op, const Inputs& inputs, Attributes a, const Tensor& want, double tolerance = 0) {
        const Model m = graphOf(inputs, [&](GraphBuilder& b, const std::vector<ValueId>& xs) {
            return std::vector<ValueId>{b.op(op, xs, a)};
        });
        expectOutputs(m, inputs, {want}, tolerance);
    }

private slots:
    void initTestCase() {
        try {
            vulkan_ = makeBackend("vulkan");
        } catch (const std::exception& e) {
            problem_ = e.what();
        }
    }

    void init() {
        if (!vulkan_) QSKIP(problem_.c_str());
    }

    void castsBetweenTypes() {
        const int64_t big = int64_t(1) << 40;
        expectOp("Cast", {{{"x", i64({4}, {-3, 0, 7, big})}}}, {{"to", int64_t(1)}}, f32({4}, {-3, 0, 7, float(big)}));
        expectOp("Cast", {{{"x", f32({4}, {-2.7f, -0.5f, 0.5f, 3.9f})}}}, {{"to", int64_t(6)}}, i32({4}, {-2, 0, 0, 3}));
        expectOp("Cast", {{{"x", f32({5}, {0, 0.5f, -1, 0, 2})}}}, {{"to", int64_t(9)}}, bools({5}, {0, 1, 1, 0, 1}));
        expectOp("Cast", {{{"x", i32({3}, {-5, 0, 70000})}}}, {{"to", int64_t(7)}}, i64({3}, {-5, 0, 70000}));
        expectOp("Cast", {{{"x", bools({5}, {1, 0, 0, 1, 1})}}}, {{"to", int64_t(2)}}, u8({5}, {1, 0, 0, 1, 1}));
        // The same type: the bits as they are, 64-bit values past 32 bits too.
        expectOp("Cast", {{{"x", i64({2}, {big + 5, -big})}}}, {{"to", int64_t(7)}}, i64({2}, {big + 5, -big}));
    }

    void comparisonsAndLogicBroadcast() {
        expectOp("Equal", {{{"a", i64({2, 3}, {1, 2, 3, 4, 2, 6})}, {"b", i64({3}, {4, 2, 6})}}}, {},
                 bools({2, 3}, {0, 1, 0, 1, 1, 1}));
        expectOp("Less", {{{"a", f32({2, 1}, {0.5f, 2})}, {"b", f32({1, 3}, {0, 1, 3})}}}, {},
                 bools({2, 3}, {0, 1, 1, 0, 0, 1}));
        expectOp("GreaterOrEqual", {{{"a", i32({3}, {-1, 5, 2})}, {"b", i32({1}, {2})}}}, {}, bools({3}, {0, 1, 1}));
        expectOp("Xor", {{{"a", bools({2, 3}, {1, 0, 1, 0, 0, 1})}, {"b", bools({3}, {1, 1, 0})}}}, {},
                 bools({2, 3}, {0, 1, 1, 1, 1, 1}));
        expectOp("And", {{{"a", bools({5}, {1, 0, 1, 1, 0})}, {"b", bools({5}, {1, 1, 0, 1, 0})}}}, {},
                 bools({5}, {1, 0, 0, 1, 0}));
        expectOp("Not", {{{"a", bools({6}, {1, 0, 1, 1, 0, 0})}}}, {}, bools({6}, {0, 1, 0, 0, 1, 1}));
    }

    void whereMovesAnyType() {
        const int64_t big = int64_t(3) << 33;
        expectOp("Where", {{{"c", bools({2, 1}, {1, 0})}, {"x", i64({1, 3}, {big, -1, 2})}, {"y", i64({2, 3}, {7, 8, 9, 10, 11, -big})}}},
                 {}, i64({2, 3}, {big, -1, 2, 10, 11, -big}));
        expectOp("Where", {{{"c", bools({3}, {0, 1, 0})}, {"x", u8({3}, {1, 2, 3})}, {"y", u8({3}, {4, 5, 6})}}}, {},
                 u8({3}, {4, 2, 6}));
    }

    void integerArithmetic() {
        expectOp("Mod", {{{"a", i32({4}, {7, -7, 7, -7})}, {"b", i32({4}, {3, 3, -3, -3})}}}, {}, i32({4}, {1, 2, -2, -1}));
        expectOp("Mod", {{{"a", i64({4}, {7, -7, 7, -7})}, {"b", i64({4}, {3, 3, -3, -3})}}}, {{"fmod", int64_t(1)}},
                 i64({4}, {1, -1, 1, -1}));
        expectOp("BitShift", {{{"a", u8({3}, {16, 4, 1})}, {"b", u8({3}, {1, 2, 3})}}}, {{"direction", std::string("RIGHT")}},
                 u8({3}, {8, 1, 0}));
        expectOp("Add", {{{"a", i64({2, 2}, {1, -2, 3, 4})}, {"b", i64({2}, {10, 20})}}}, {}, i64({2, 2}, {11, 18, 13, 24}));
        expectOp("Div", {{{"a", i32({3}, {7, -7, 9})}, {"b", i32({3}, {2, 2, -4})}}}, {}, i32({3}, {3, -3, -2}));
        expectOp("Abs", {{{"a", i64({3}, {-4, 0, 5})}}}, {}, i64({3}, {4, 0, 5}));
    }

    void copiesMoveAnyElementType() {
        const int64_t big = int64_t(1) << 35;
        expectOp("Transpose", {{{"x", i64({2, 3}, {0, 1, 2, big, 4, -5})}}}, {{"perm", {1, 0}}},
                 i64({3, 2}, {0, big, 1, 4, 2, -5}));
        // Bool rows of 3 bytes: the second input starts inside a word the first one writes.
        expectOp("Concat", {{{"a", bools({1, 3}, {1, 0, 1})}, {"b", bools({2, 3}, {0, 1, 1, 1, 0, 0})}}},
                 {{"axis", int64_t(0)}}, bools({3, 3}, {1, 0, 1, 0, 1, 1, 1, 0, 0}));
        const Model tile = graphOf({{{"x", u8({1, 3}, {5, 6, 7})}}}, [](GraphBuilder& b, const std::vector<ValueId>& xs) {
            return std::vector<ValueId>{b.op("Tile", {xs[0], b.initializer("r", i64({2}, {2, 1}))})};
        });
        expectOutputs(tile, {{{"x", u8({1, 3}, {5, 6, 7})}}}, {u8({2, 3}, {5, 6, 7, 5, 6, 7})});
        const Model tile32 = graphOf({{{"x", i32({2, 2}, {1, 2, 3, 4})}}}, [](GraphBuilder& b, const std::vector<ValueId>& xs) {
            return std::vector<ValueId>{b.op("Tile", {xs[0], b.initializer("r", i64({2}, {1, 2}))})};
        });
        expectOutputs(tile32, {{{"x", i32({2, 2}, {1, 2, 3, 4})}}}, {i32({2, 4}, {1, 2, 1, 2, 3, 4, 3, 4})});
        const Model slice = graphOf({{{"x", u8({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})}}}, [](GraphBuilder& b, const std::vector<ValueId>& xs) {
            return std::vector<ValueId>{b.op("Slice", {xs[0], b.initializer("s", i64({1}, {3})), b.initializer("e", i64({1}, {0})),
                                                        b.initializer("a", i64({1}, {1})), b.initializer("st", i64({1}, {-2}))})};
        });
        expectOutputs(slice, {{{"x", u8({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})}}}, {u8({2, 2}, {4, 2, 8, 6})});
        std::vector<int64_t> x(16);
        for (int64_t i = 0; i < 16; ++i) x[size_t(i)] = i;
        // [1, 4, 2, 2] -> [1, 1, 4, 4]: y[0, 0, h*2+b1, w*2+b2] = x[0, b1*2+b2, h, w] (DCR).
        expectOp("DepthToSpace", {{{"x", i64({1, 4, 2, 2}, x)}}}, {{"blocksize", int64_t(2)}},
                 i64({1, 1, 4, 4}, {0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15}));
    }

    void gathersWithNegativeIndices() {
        const Tensor data = i64({3, 3}, {10, 11, 12, 20, 21, 22, 30, 31, 32});
        expectOp("Gather", {{{"d", data}, {"i", i64({2}, {-1, 0})}}}, {{"axis", int64_t(1)}}, i64({3, 2}, {12, 10, 22, 20, 32, 30}));
        expectOp("Gather", {{{"d", u8({3, 2}, {1, 2, 3, 4, 5, 6})}, {"i", i32({2, 1}, {2, 0})}}}, {}, u8({2, 1, 2}, {5, 6, 1, 2}));
        expectOp("GatherElements", {{{"d", f32({2, 2}, {1, 2, 3, 4})}, {"i", i64({2, 2}, {0, 0, 1, -2})}}}, {{"axis", int64_t(1)}},
                 f32({2, 2}, {1, 1, 4, 3}));
    }

    void triluKeepsOneTriangle() {
        const Tensor x = i64({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
        expectOp("Trilu", {{{"x", x}}}, {}, i64({3, 3}, {1, 2, 3, 0, 5, 6, 0, 0, 9}));
        const Model lower = graphOf({{{"x", x}}}, [](GraphBuilder& b, const std::vector<ValueId>& xs) {
            return std::vector<ValueId>{b.op("Trilu", {xs[0], b.initializer("k", i64({}, {-1}))}, {{"upper", int64_t(0)}})};
        });
        expectOutputs(lower, {{{"x", x}}}, {i64({3, 3}, {0, 0, 0, 4, 0, 0, 7, 8, 0})});
        // k given at run time.
        expectOp("Trilu", {{{"x", x}, {"k", i64({}, {1})}}}, {}, i64({3, 3}, {0, 2, 3, 0, 0, 6, 0, 0, 0}));
    }

    void knownAndFilledOutputs() {
        const Inputs in{{{"x", f32({2, 3}, {1, 2, 3, 4, 5, 6})}}};
        const Model m = graphOf(in, [](GraphBuilder& b, const std::vector<ValueId>& xs) {
            const ValueId shape = b.op("Shape", {xs[0]});
            const ValueId fill = b.op("ConstantOfShape", {b.initializer("s", i64({2}, {2, 2}))}, {{"value", i32({1}, {7})}});
            const auto outs = b.ops("Dropout", {xs[0]}, 2);
            return std::vector<ValueId>{shape, b.op("Size", {xs[0]}), fill, b.op("EyeLike", {xs[0]}, {{"k", int64_t(1)}}),
                                        outs[0], outs[1]};
        });
        expectOutputs(m, in, {i64({2}, {2, 3}), i64({}, {6}), i32({2, 2}, {7, 7, 7, 7}), f32({2, 3}, {0, 1, 0, 0, 0, 1}),
                              f32({2, 3}, {1, 2, 3, 4, 5, 6}), bools({2, 3}, {1, 1, 1, 1, 1, 1})});
    }

    void lossesReduceWithWeightsAndIgnoredTargets() {
        // log-probabilities [N=2, C=3, D=2]; targets [2, 2] with one ignored (-1).
        const Tensor logp = f32({2, 3, 2}, {-1, -2, -3, -4, -5, -6, -0.5f, -1.5f, -2.5f, -3.5f, -4.5f, -5.5f});
        const Tensor target = i64({2, 2}, {0, 2, -1, 1});
        const Tensor weight = f32({3}, {1, 2, 3});
        const Inputs in{{{"x", logp}, {"t", target}, {"w", weight}}};
        // Losses: n0d0 -(-1)*1 = 1, n0d1 -(-6)*3 = 18, n1d0 ignored, n1d1 -(-3.5)*2 = 7.
        expectOp("NegativeLogLikelihoodLoss", in, {{"reduction", std::string("none")}, {"ignore_index", int64_t(-1)}},
                 f32({2, 2}, {1, 18, 0, 7}));
        expectOp("NegativeLogLikelihoodLoss", in, {{"reduction", std::string("sum")}, {"ignore_index", int64_t(-1)}}, f32({}, {26}));
        expectOp("NegativeLogLikelihoodLoss", in, {{"ignore_index", int64_t(-1)}}, f32({}, {26.0f / 6.0f}));
        // SoftmaxCrossEntropyLoss of equal scores: every log-probability is -log(C).
        const Inputs sce{{{"x", f32({2, 4}, {3, 3, 3, 3, -1, -1, -1, -1})}, {"t", i64({2}, {1, 3})}}};
        const Model m = graphOf(sce, [](GraphBuilder& b, const std::vector<ValueId>& xs) {
            const auto outs = b.ops("SoftmaxCrossEntropyLoss", xs, 2);
            return std::vector<ValueId>{outs[0], outs[1]};
        });
        const float l = std::log(4.0f);
        expectOutputs(m, sce, {f32({}, {l}), f32({2, 4}, {-l, -l, -l, -l, -l, -l, -l, -l})}, 1e-6);
    }

    void clipsWithBoundsGivenAtRunTime() {
        const auto i8 = [](std::vector<int8_t> v) { return tensor(DType::Int8, {int64_t(v.size())}, v); };
        expectOp("Clip", {{{"x", i8({-100, -3, 0, 5, 120})}, {"lo", tensor(DType::Int8, {}, std::vector<int8_t>{-4})},
                           {"hi", tensor(DType::Int8, {}, std::vector<int8_t>{6})}}}, {}, i8({-4, -3, 0, 5, 6}));
        expectOp("Clip", {{{"x", f32({4}, {-2, -0.5f, 0.5f, 2})}, {"lo", f32({}, {-1})}}}, {}, f32({4}, {-1, -0.5f, 0.5f, 2}));
    }

    void quantizesAndDequantizesPerAxis() {
        // Round half to even, then the zero point, saturated to uint8.
        expectOp("QuantizeLinear", {{{"x", f32({2, 3}, {0, 2.5f, 3.5f, -300, 300, 7})}, {"s", f32({}, {1})}, {"z", u8({}, {10})}}},
                 {}, u8({2, 3}, {10, 12, 14, 0, 255, 17}));
        expectOp("DequantizeLinear", {{{"x", tensor(DType::Int8, {2, 2}, std::vector<int8_t>{-4, 2, 6, -8})},
                                       {"s", f32({2}, {0.5f, 2})}, {"z", tensor(DType::Int8, {2}, std::vector<int8_t>{0, -1})}}},
                 {{"axis", int64_t(0)}}, f32({2, 2}, {-2, 1, 14, -14}));
    }

    void opsAlongOneAxis() {
        const Tensor x = f32({2, 3}, {1, 5, 5, 7, -2, 7});
        expectOp("ArgMax", {{{"x", x}}}, {{"axis", int64_t(1)}}, i64({2, 1}, {1, 0}));
        expectOp("ArgMax", {{{"x", x}}}, {{"axis", int64_t(1)}, {"select_last_index", int64_t(1)}, {"keepdims", int64_t(0)}},
                 i64({2}, {2, 2}));
        expectOp("ArgMin", {{{"x", i64({2, 3}, {4, -9, 3, 1, 2, -9})}}}, {{"axis", int64_t(0)}}, i64({1, 3}, {1, 0, 1}));
        expectOp("Hardmax", {{{"x", x}}}, {}, f32({2, 3}, {0, 1, 0, 1, 0, 0}));
        const Model cumsum = graphOf({{{"x", i32({2, 3}, {1, 2, 3, 4, 5, 6})}}}, [](GraphBuilder& b, const std::vector<ValueId>& xs) {
            const ValueId axis = b.initializer("axis", i64({}, {1}));
            return std::vector<ValueId>{b.op("CumSum", {xs[0], axis}, {{"exclusive", int64_t(1)}, {"reverse", int64_t(1)}}),
                                        b.op("CumSum", {xs[0], axis})};
        });
        expectOutputs(cumsum, {{{"x", i32({2, 3}, {1, 2, 3, 4, 5, 6})}}},
                      {i32({2, 3}, {5, 3, 0, 11, 6, 0}), i32({2, 3}, {1, 3, 6, 4, 9, 15})});
    }

    void variadicSumsMeansAndExtremes() {
        const Inputs floats{{{"a", f32({2, 2}, {1, 2, 3, 4})}, {"b", f32({2}, {10, 20})}, {"c", f32({2, 1}, {100, 200})}}};
        expectOp("Sum", floats, {}, f32({2, 2}, {111, 122, 213, 224}));
        expectOp("Mean", floats, {}, f32({2, 2}, {37, 122.0f / 3, 71, 224.0f / 3}), 1e-6);
        expectOp("Max", {{{"a", i64({3}, {1, 9, -4})}, {"b", i64({3}, {5, 2, -7})}, {"c", i64({1}, {3})}}}, {}, i64({3}, {5, 9, 3}));
        expectOp("Sum", {{{"a", f32({2}, {1.5f, 2})}}}, {}, f32({2}, {1.5f, 2}));
    }

    void int64MathIsExactPastThirtyTwoBits() {
        const int64_t a = (int64_t(1) << 40) + 7, b = -(int64_t(3) << 33) + 1;
        expectOp("Add", {{{"a", i64({2}, {a, -a})}, {"b", i64({2}, {b, int64_t(1) << 32})}}}, {}, i64({2}, {a + b, -a + (int64_t(1) << 32)}));
        expectOp("Mul", {{{"a", i64({2}, {3000000000, -5})}, {"b", i64({2}, {3, int64_t(1) << 33})}}}, {}, i64({2}, {9000000000, -(int64_t(5) << 33)}));
        expectOp("Div", {{{"a", i64({2}, {a, -a})}, {"b", i64({2}, {int64_t(1) << 33, 7})}}}, {}, i64({2}, {a / (int64_t(1) << 33), -a / 7}));
        const auto pythonMod = [](int64_t x, int64_t d) {  // the sign of the divisor
            const int64_t r = x % d;
            return r != 0 && ((r < 0) != (d < 0)) ? r + d : r;
        };
        expectOp("Mod", {{{"a", i64({2}, {-a, a})}, {"b", i64({2}, {int64_t(5) << 32, -9})}}}, {},
                 i64({2}, {pythonMod(-a, int64_t(5) << 32), pythonMod(a, -9)}));
    }

    /// Without shaderInt64 (GRAPHLENS_VULKAN_NO_INT64=1 plans as for such a device) int64 math runs on
    /// the CPU, saying why, and BatchNormalization in training mode always does.
    void declinedNodesSayWhy() {
        auto whyOf = [&](const Model& m) {
            std::unique_ptr<Plan> plan;
            try {
                plan = vulkan_->compile(m, {});
            } catch (const std::exception& e) {
                return std::string("compile failed: ") + e.what();
            }
            std::string why;
            for (const PlannedNode& n : plan->nodes())
                if (n.device == "cpu") why += n.why;
            return why;
        };
        const Inputs ints{{{"a", i64({2}, {1, 2})}, {"b", i64({2}, {3, 4})}}};
        const Model add = graphOf(ints, [](GraphBuilder& b, const std::vector<ValueId>& xs) { return std::vector<ValueId>{b.op("Add", xs)}; });
        QCOMPARE(whyOf(add), std::string());
        qputenv("GRAPHLENS_VULKAN_NO_INT64", "1");
        const std::string why = whyOf(add);
        qunsetenv("GRAPHLENS_VULKAN_NO_INT64");
        QCOMPARE(why, std::string("64-bit and uint32 integer math needs a device with shaderInt64: it runs on the CPU"));
        const Inputs x{{{"x", f32({2, 2}, {1, 2, 3, 4})}}};
        const Model bn = graphOf(x, [](GraphBuilder& b, const std::vector<ValueId>& xs) {
            const auto c = [&](const char* name, float v) { return b.initializer(name, Tensor::floats({2}, {v, v})); };
            return b.ops("BatchNormalization", {xs[0], c("s", 1), c("b", 0), c("m", 0), c("v", 1)}, 3, {{"training_mode", int64_t(1)}});
        });
        const std::string bnWhy = whyOf(bn);
        QVERIFY2(bnWhy == "BatchNormalization in training mode (batch statistics, running-mean outputs) runs on the CPU", bnWhy.c_str());
    }

    void trigonometryOfTheTypedShader() {
        const std::vector<float> x{-0.75f, -0.2f, 0.1f, 0.6f};
        auto map = [&](float (*f)(float)) {
            std::vector<float> y;
            for (float v : x) y.push_back(f(v));
            return f32({4}, y);
        };
        const std::pair<const char*, float (*)(float)> ops[] = {
            {"Acos", std::acos}, {"Asin", std::asin}, {"Atan", std::atan}, {"Asinh", std::asinh},
            {"Atanh", std::atanh}, {"Cosh", std::cosh}, {"Sinh", std::sinh}, {"Tan", std::tan}};
        for (const auto& entry : ops) {  // not a structured binding: Clang 14 cannot capture one
            const char* op = entry.first;
            const Inputs in{{{"x", f32({4}, x)}}};
            const Model m = graphOf(in, [&](GraphBuilder& b, const std::vector<ValueId>& xs) {
                return std::vector<ValueId>{b.op(op, xs)};
            });
            expectOutputs(m, in, {map(entry.second)}, 1e-5);
        }
    }
};

QTEST_GUILESS_MAIN(TestVulkanTypedOps)
#include "tst_vulkan_typed_ops.moc"
