// The rows of tst_kernel_registry_diff (the format: kernel_diff_cases.h). One function builds
// hundreds of Case temporaries, each with its own exception cleanup: GCC's optimizer spent 150 s on
// it at -O3 (87 s at -O1), Clang with the sanitizers 150 s at -O1, for a table that runs once.
// tests/CMakeLists.txt compiles this file without optimization; the test's own code, beside it,
// keeps the build's flags.
#include "kernel_diff_cases.h"

#include <limits>

namespace graphlens::testing {

// clang-format off
// ---- the cases ----------------------------------------------------------------------------------
const std::vector<Case>& kCases() {
    static const std::vector<Case> table = [] {
        constexpr DType I64 = DType::Int64, I32 = DType::Int32, I8 = DType::Int8, U8 = DType::UInt8;
        const Dims small{2, 3, 37}, large{4, 64, 129};  // an odd size; past the kernels' 2^15-element threading threshold
        const auto scalar = [](float v) { return konst(values(Tensor::scalar(v))); };
        const int64_t big = int64_t(1) << 40;  // int64 values past 32 bits: both words must move
        std::vector<Case> t = {
            // element-wise math and activations
            {"Clip", {f32(small), scalar(-0.5f), scalar(0.25f)}},
            {"Clip", {f32(large), none(), scalar(0.5f)}},
            Case{"Clip", {f32(small)}, {{"min", -0.3}, {"max", 0.6}}}.opset(6), // the attribute form of opset 6
            {"Pow", {f32(small), konst(values(Tensor::floats({}, {2.f})))}, {}}, // x^2: cpu:activation
            {"Pow", {f32({3, 1, 5}, 0.1, 2), f32({4, 1}, -2, 2)}},
            {"LeakyRelu", {f32(small)}, {{"alpha", 0.2}}},
            {"LeakyRelu", {f32(small)}},  // cases without attributes pin down each backend's defaults
            {"HardSigmoid", {f32(small, -4, 4)}},
            {"Elu", {f32(small)}},
            {"ThresholdedRelu", {f32(small, -2, 2)}},
            {"Celu", {f32(small)}},
            {"HardSigmoid", {f32(small)}, {{"alpha", 0.3}, {"beta", 0.4}}},
            {"Elu", {f32(small)}, {{"alpha", 0.7}}},
            {"Selu", {f32(small)}},
            {"ThresholdedRelu", {f32(small)}, {{"alpha", 0.3}}},
            {"Celu", {f32(small)}, {{"alpha", 0.8}}},
            {"Exp", {f32(small, -4, 4)}},
            {"com.microsoft:QuickGelu", {f32(small, -4, 4)}},
            Case{"Softmax", {f32({3, 4, 5}, -5, 5)}, {{"axis", 1}}}.only(Target::Vulkan),
            Case{"Softmax", {f32({4, 129}, -5, 5)}}.opset(11),  // axis 1 by default, over the flattened trailing dims
            Case{"Split", {f32({6, 4})}}.outputs(2).tol(kExact),
            {"com.microsoft:QuickGelu", {f32(large, -4, 4)}, {{"alpha", 1.3}}},
            {"com.microsoft:Gelu", {f32(large, -4, 4)}},
            {"Gelu", {f32(small, -4, 4)}, {}}, // ONNX's Gelu (opset 20)
            {"Gelu", {f32(small, -4, 4)}, {{"approximate", "tanh"}}},
            {"com.microsoft:FastGelu", {f32(small, -4, 4)}},
            {"com.microsoft:FastGelu", {f32({2, 7, 33}, -4, 4), f32({33})}},
            {"com.microsoft:BiasGelu", {f32({2, 7, 33}, -4, 4), konst(f32({33}))}},
            {"com.microsoft:BiasGelu", {f32({3, 64, 200}, -4, 4), f32({200})}},
            // binary arithmetic: cpu:binary's layouts, then general broadcasting
            {"Add", {f32({2, 16, 5, 5}), f32({2, 16, 5, 5})}},
            {"Sub", {f32({2, 16, 5, 5}), konst(values(Tensor::scalar(0.5f)))}},
            {"Div", {konst(values(Tensor::scalar(0.5f))), f32({2, 16, 5, 5}, 0.5, 2)}},  // scalar first
            {"Mul", {f32({2, 16, 5, 5}), konst(f32({16, 1, 1}))}},                     // per channel
            {"Sub", {f32({3, 7, 33}), f32({33})}},                                       // a bias along the last axis
            {"Mul", {f32({33}), f32({3, 7, 33})}},                                       // the vector first
            {"Div", {f32({4, 64, 130}), f32({64, 1}, 0.5, 2)}},
            {"Add", {f32({2, 1, 7}), f32({1, 3, 1})}},                                   // general broadcasting
            {"Sub", {f32({3, 1, 5}), f32({4, 1})}},
            {"Mul", {f32({1, 9, 1, 33}), f32({2, 1, 17, 1})}},
            {"Div", {f32({5}), f32({3, 1, 1}, 0.5, 2)}},
            // int64 arithmetic on values past 32 bits (Vulkan: typed64.comp, on devices with shaderInt64)
            {"Add", {ints(I64, {2, 1, 7}, -big, big), ints(I64, {3, 1}, -big, big)}},
            {"Mul", {ints(I32, {4, 5}, -100, 100), ints(I32, {5}, -100, 100)}},
            {"Add", {ints(I32, {2, 1, 7}, -1000, 1000), ints(I32, {3, 1}, -1000, 1000)}},
            Case{"Sub", {ints(I8, {3, 9}, -60, 60), ints(I8, {9}, -60, 60)}}.only(Target::Vulkan),  // the CPU kernels: int32/int64 Add and Mul
            Case{"Div", {ints(I32, {4, 6}, -100, 100), ints(I32, {6}, 1, 9)}}.only(Target::Vulkan),
            {"Max", {f32({2, 1, 7}), f32({1, 3, 1})}},
            {"Min", {f32({3, 7, 33}), f32({3, 7, 33})}},
            {"Max", {ints(I64, {6, 5}, -big, big), ints(I64, {5}, -big, big)}},
            {"Min", {ints(I32, {2, 3, 4}, -9, 9), ints(I32, {3, 1}, -9, 9)}},
            Case{"Max", {ints(U8, {3, 7}, 0, 255), ints(U8, {7}, 0, 255)}}.only(Target::Vulkan),  // the CPU kernel: int32/int64
            Case{"Max", {f32(small)}}.only(Target::Vulkan),                              // one input: a copy
            Case{"PRelu", {f32({1, 8, 5, 5}), konst(f32({8, 1, 1}))}},
            Case{"PRelu", {f32({3, 7, 33}), f32({33})}},
            // comparisons and logic
            {"Equal", {ints(I64, {4, 5}, 0, 3), ints(I64, {5}, 0, 3)}},
            {"Equal", {ints(I32, {2, 3, 4}, 0, 2), ints(I32, {2, 3, 4}, 0, 2)}},
            {"Less", {f32({2, 1, 7}), f32({1, 3, 1})}},
            {"LessOrEqual", {ints(I8, {3, 9}, -3, 3), ints(I8, {3, 9}, -3, 3)}},
            {"Greater", {f32({3, 7, 33}), konst(values(Tensor::scalar(0.f)))}},
            {"GreaterOrEqual", {ints(I64, {5, 1}, 0, 4), ints(I64, {1, 6}, 0, 4)}},
            {"And", {bools({4, 5}), bools({5})}},
            {"Or", {bools({2, 1, 7}), bools({1, 3, 1})}},
            {"Xor", {bools({3, 33}), bools({3, 33})}},
            {"Not", {bools({3, 37})}},
            {"Where", {bools({2, 1, 5}), f32({2, 3, 5}), f32({5})}},
            {"Where", {bools({4, 6}), ints(I64, {4, 6}, -50, 50), ints(I64, {1}, -50, 50)}},
            {"Where", {bools({7}), ints(U8, {3, 7}, 0, 255), ints(U8, {3, 7}, 0, 255)}},
            // type conversion
            {"Cast", {f32(small, -100, 100)}, {{"to", 6}}},  // to int32, truncating
            {"Cast", {f32(small, -100, 100)}, {{"to", 7}}},  // to int64
            {"Cast", {ints(I64, small, -1000, 1000)}, {{"to", 1}}},
            {"Cast", {ints(U8, small, 0, 255)}, {{"to", 1}}},
            {"Cast", {bools(small)}, {{"to", 1}}},
            {"Cast", {f32(small, -2, 2)}, {{"to", 9}}},      // to bool: nonzero
            Case{"Cast", {f32(small)}, {{"to", 11}}}.only(Target::Cpu),  // to double: Vulkan has no 64-bit floats
            {"CastLike", {ints(I32, small, -1000, 1000), konst(values(Tensor::scalar(0.f)))}},
            // normalization
            {"BatchNormalization", {f32({2, 16, 7, 7}), konst(f32({16})), konst(f32({16})), konst(f32({16})), konst(f32({16}, 0.5, 2))}},
            {"BatchNormalization", {f32({3, 5, 11}), konst(f32({5})), konst(f32({5})), konst(f32({5})), konst(f32({5}, 0.5, 2))}, {{"epsilon", 1e-3}}},
            {"InstanceNormalization", {f32({2, 5, 9, 11}), konst(f32({5})), konst(f32({5}))}},
            {"InstanceNormalization", {f32({1, 32, 64}), f32({32}), f32({32})}, {{"epsilon", 1e-3}}},
            // recurrent (tst_recurrent covers every attribute combination)
            Case{"LSTM", {f32({5, 3, 4}), konst(f32({2, 24, 4})), konst(f32({2, 24, 6})), konst(f32({2, 48})), ints(I32, {3}, 1, 5),
                          f32({2, 3, 6}), f32({2, 3, 6}), konst(f32({2, 18}))},
                 {{"hidden_size", 6}, {"direction", "bidirectional"}}}.outputs(3).opset(14),
            Case{"GRU", {f32({3, 6, 5}), konst(f32({1, 21, 5})), konst(f32({1, 21, 7})), konst(f32({1, 42}))},
                 {{"hidden_size", 7}, {"linear_before_reset", 1}, {"layout", 1}}}.outputs(2).opset(14),
            Case{"GRU", {f32({6, 2, 5}), konst(f32({1, 21, 5})), konst(f32({1, 21, 7}))}, {{"hidden_size", 7}, {"direction", "reverse"}}}
                .outputs(2).opset(14),
            Case{"RNN", {f32({6, 2, 5}), konst(f32({1, 8, 5})), konst(f32({1, 8, 8})), konst(f32({1, 16}))}, {{"hidden_size", 8}}}
                .outputs(2).opset(14),
            {"LayerNormalization", {f32({3, 7, 48}), konst(f32({48})), konst(f32({48}))}},
            {"LayerNormalization", {f32({2, 5, 33}), konst(f32({33}))}, {{"epsilon", 1e-3}}},
            {"com.microsoft:SkipLayerNormalization", {f32({2, 5, 32}), f32({2, 5, 32}), konst(f32({32})), konst(f32({32})), konst(f32({32}))}},
            {"com.microsoft:SkipLayerNormalization", {f32({3, 37}), f32({3, 37}), konst(f32({37}))}},
            {"Softmax", {f32({3, 7, 33}, -5, 5)}},
            {"Softmax", {f32({2, 1000}, -5, 5)}, {{"axis", 1}}},
            {"LogSoftmax", {f32({3, 7, 33}, -5, 5)}, {{"axis", -1}}},
            {"LogSoftmax", {f32({4, 129}, -5, 5)}},
            // pooling
            {"GlobalAveragePool", {f32({2, 16, 7, 7})}},
            {"GlobalAveragePool", {f32({1, 5, 3, 11, 2})}},
            {"GlobalMaxPool", {f32({2, 16, 7, 7})}},
            {"GlobalMaxPool", {f32({1, 3, 13})}},
            Case{"MaxPool", {f32({2, 16, 15, 15})}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}}.cpu("cpu:maxpool"),
            Case{"MaxPool", {f32({1, 3, 10, 9})}, {{"kernel_shape", {2, 3}}, {"strides", {2, 1}}}}.cpu("cpu:maxpool"),
            Case{"MaxPool", {f32({1, 8, 12, 12})}, {{"kernel_shape", {3, 3}}, {"dilations", {2, 2}}}}.cpu("onednn:pool"),
            Case{"MaxPool", {f32({1, 4, 9, 10, 6})}, {{"kernel_shape", {2, 3, 2}}, {"strides", {2, 2, 1}}}}.cpu("onednn:pool").only(Target::Cpu),
            Case{"AveragePool", {f32({2, 16, 15, 15})}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}}.cpu("cpu:averagepool"),
            Case{"AveragePool", {f32({1, 8, 11, 11})}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}, {"count_include_pad", 1}}}.cpu("onednn:pool"),
            Case{"AveragePool", {f32({1, 6, 20})}, {{"kernel_shape", {4}}, {"strides", {3}}}}.cpu("onednn:pool"),
            // products: oneDNN on the CPU; Winograd, tiles and texels on Vulkan
            Case{"Conv", {f32({1, 16, 9, 9}), konst(f32({32, 16, 3, 3})), konst(f32({32}))}, {{"pads", {1, 1, 1, 1}}}}.tol(kSums).vulkanTol(kWinograd),
            Case{"Conv", {f32({2, 8, 15, 15}), konst(f32({24, 8, 3, 3})), konst(f32({24}))}, {{"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}}}.tol(kSums),
            Case{"Conv", {f32({1, 32, 10, 10}), konst(f32({32, 1, 3, 3})), konst(f32({32}))}, {{"pads", {1, 1, 1, 1}}, {"group", 32}}}.tol(kSums),
            Case{"Conv", {f32({1, 12, 8, 8}), konst(f32({18, 4, 3, 3}))}, {{"group", 3}, {"dilations", {2, 2}}, {"pads", {2, 2, 2, 2}}}}.tol(kSums),
            Case{"Conv", {f32({1, 16, 7, 7}), konst(f32({24, 16, 1, 1})), konst(f32({24}))}}.tol(kSums),
            Case{"Conv", {f32({1, 3, 11, 13}), konst(f32({5, 3, 5, 5})), konst(f32({5}))}, {{"strides", {2, 1}}, {"pads", {2, 1, 0, 2}}}}.tol(kSums),
            Case{"Conv", {f32({1, 4, 20}), konst(f32({6, 4, 5}))}, {{"pads", {2, 2}}}}.tol(kSums),
            Case{"com.microsoft:FusedConv", {f32({1, 16, 9, 9}), konst(f32({32, 16, 3, 3})), konst(f32({32}))},
                 {{"pads", {1, 1, 1, 1}}, {"activation", "Relu"}}}.tol(kSums).vulkanTol(kWinograd),
            Case{"com.microsoft:FusedConv", {f32({1, 16, 9, 9}), konst(f32({20, 16, 3, 3})), konst(f32({20})), f32({1, 20, 9, 9})},
                 {{"pads", {1, 1, 1, 1}}, {"activation", "LeakyRelu"}, {"activation_params", std::vector<float>{0.2f}}}}.tol(kSums).vulkanTol(kWinograd),
            Case{"com.microsoft:FusedConv", {f32({1, 8, 12, 12}), konst(f32({16, 8, 3, 3})), konst(f32({16}))},
                 {{"strides", {2, 2}}, {"activation", "Clip"}, {"activation_params", std::vector<float>{-0.5f, 0.5f}}}}.tol(kSums),
            Case{"ConvTranspose", {f32({1, 8, 5, 5}), konst(f32({8, 4, 3, 3})), konst(f32({4}))},
                 {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}, {"output_padding", {1, 1}}}}.tol(kSums),
            Case{"ConvTranspose", {f32({2, 6, 7}), konst(f32({6, 2, 4}))}, {{"group", 3}, {"strides", {3}}}}.tol(kSums),
            Case{"Gemm", {f32({7, 33}), konst(f32({33, 19})), konst(f32({19}))}}.tol(kSums),
            Case{"Gemm", {f32({5, 16}), konst(f32({32, 16})), konst(f32({1, 32}))}, {{"transB", 1}, {"alpha", 0.5}, {"beta", 2.0}}}.tol(kSums),
            Case{"Gemm", {f32({33, 6}), f32({33, 9})}, {{"transA", 1}}}.tol(kSums),
            Case{"com.microsoft:FusedGemm", {f32({7, 33}), konst(f32({33, 19})), konst(f32({19}))}, {{"activation", "Relu"}}}.tol(kSums),
            Case{"com.microsoft:FusedGemm", {f32({4, 16}), konst(f32({24, 16}))},
                 {{"transB", 1}, {"activation", "LeakyRelu"}, {"activation_alpha", 0.1}}}.tol(kSums),
            Case{"com.microsoft:FusedGemm", {f32({4, 16}), konst(f32({16, 24}))}, {{"activation", "LeakyRelu"}}}.tol(kSums),
            Case{"com.microsoft:FusedGemm", {f32({5, 16}), konst(f32({16, 8})), konst(f32({8}))}, {{"activation", "HardSigmoid"}}}.tol(kSums),
            Case{"com.microsoft:FusedConv", {f32({1, 8, 6, 6}), konst(f32({16, 8, 1, 1}))}, {{"activation", "LeakyRelu"}}}.tol(kSums),
            Case{"com.microsoft:FusedConv", {f32({1, 8, 6, 6}), konst(f32({16, 8, 1, 1})), konst(f32({16}))}, {{"activation", "HardSigmoid"}}}.tol(kSums),
            Case{"MatMul", {f32({2, 3, 7, 33}), konst(f32({33, 19}))}}.tol(kSums),
            Case{"MatMul", {f32({2, 5, 9}), f32({2, 9, 6})}}.tol(kSums),
            Case{"MatMul", {f32({4, 1, 5, 9}), f32({3, 9, 16})}}.tol(kSums),
            Case{"com.microsoft:FusedMatMul", {f32({2, 7, 33}), f32({2, 19, 33})}, {{"transB", 1}, {"alpha", 0.5}}}.tol(kSums),
            Case{"com.microsoft:FusedMatMul", {f32({16, 5}), konst(f32({16, 8}))}, {{"transA", 1}}}.tol(kSums),
            // reductions (axes: an input of ReduceSum since opset 13, an attribute of the others until 18)
            Case{"ReduceSum", {f32({3, 7, 33}), i64s({-1})}}.cpu("cpu:reduce-sum").tol(kSums),
            Case{"ReduceSum", {f32({3, 7, 33}), i64s({0, 2})}, {{"keepdims", 0}}}.cpu("cpu:reduce").tol(kSums),
            Case{"ReduceMean", {f32({3, 7, 33})}, {{"axes", {-1}}}}.cpu("cpu:reduce-mean").tol(kSums),
            Case{"ReduceMean", {f32({2, 16, 7, 7})}, {{"axes", {2, 3}}}}.cpu("cpu:reduce").tol(kSums),
            Case{"ReduceMax", {f32({3, 7, 33})}, {{"axes", {1}}}}.tol(kExact),
            Case{"ReduceMin", {f32({4, 5, 6})}, {{"keepdims", 0}}}.tol(kExact),
            {"ReduceProd", {f32({3, 4, 5}, 0.5, 1.5)}, {{"axes", {0}}}},
            Case{"ReduceL1", {f32({3, 7, 33})}, {{"axes", {-1}}}}.tol(kSums),
            Case{"ReduceL2", {f32({3, 7, 33})}, {{"axes", {0, 1}}}}.tol(kSums),
            Case{"ReduceSumSquare", {f32({5, 9, 4})}, {{"axes", {1}}, {"keepdims", 0}}}.tol(kSums),
            Case{"ReduceLogSum", {f32({3, 7, 33}, 0.1, 2)}, {{"axes", {2}}}}.tol(kSums),
            Case{"ReduceLogSumExp", {f32({3, 7, 33}, -3, 3)}, {{"axes", {2}}}}.tol(kSums),
            // data movement: exact
            Case{"Reshape", {f32({2, 3, 4}), i64s({4, -1})}}.tol(kExact),
            Case{"Reshape", {ints(I64, {6, 5}, -big, big), i64s({0, 5, 1})}}.tol(kExact),
            Case{"Flatten", {f32({2, 3, 4, 5})}, {{"axis", 2}}}.tol(kExact),
            Case{"Squeeze", {f32({3, 1, 5, 1}), i64s({1})}}.tol(kExact),
            Case{"Unsqueeze", {f32({3, 5}), i64s({0, 3})}}.tol(kExact),
            Case{"Transpose", {f32({2, 3, 4, 5})}, {{"perm", {0, 2, 3, 1}}}}.tol(kExact),
            Case{"Transpose", {f32({2, 7, 33})}, {{"perm", {2, 0, 1}}}}.tol(kExact),
            Case{"Transpose", {ints(I64, {3, 4}, -big, big)}}.tol(kExact),
            Case{"Transpose", {ints(U8, {3, 5, 7}, 0, 255)}, {{"perm", {2, 0, 1}}}}.tol(kExact),
            Case{"Transpose", {bools({4, 9})}}.tol(kExact),
            Case{"Concat", {f32({2, 3, 5}), f32({2, 4, 5}), konst(f32({2, 1, 5}))}, {{"axis", 1}}}.tol(kExact),
            Case{"Concat", {f32({2, 3}), f32({2, 7})}, {{"axis", -1}}}.tol(kExact),
            Case{"Concat", {ints(I64, {1, 3}, -big, big), ints(I64, {2, 3}, -big, big)}, {{"axis", 0}}}.tol(kExact),
            Case{"Concat", {bools({2, 3}), bools({2, 5}), bools({2, 1})}, {{"axis", 1}}}.tol(kExact),  // at byte offsets
            Case{"Concat", {ints(U8, {3, 7}, 0, 255), ints(U8, {1, 7}, 0, 255)}, {{"axis", 0}}}.tol(kExact),
            Case{"Split", {f32({4, 6, 5}), i64s({2, 4})}, {{"axis", 1}}}.outputs(2).tol(kExact),
            Case{"Split", {f32({4, 6, 9})}, {{"axis", 2}}}.outputs(3).tol(kExact),
            Case{"Slice", {f32({4, 10, 6}), i64s({1, 2}), i64s({3, 9}), i64s({0, 1})}}.tol(kExact),
            Case{"Slice", {f32({4, 10, 6}), i64s({-4}), i64s({1000}), i64s({-1})}}.tol(kExact),
            Case{"Slice", {ints(I32, {5, 7}, -9, 9), i64s({0, 1}), i64s({5, 6})}}.tol(kExact),
            Case{"Slice", {ints(I64, {5, 7}, -big, big), i64s({1}), i64s({6}), i64s({1}), i64s({2})}}.tol(kExact).only(Target::Vulkan),  // cpu:slice: steps of 1
            Case{"Slice", {ints(U8, {5, 7}, 0, 255), i64s({1, 1}), i64s({4, 6})}}.tol(kExact),
            Case{"Slice", {f32({4, 10, 6}), i64s({1, 9}), i64s({4, 0}), i64s({0, 1}), i64s({2, -3})}}.only(Target::Vulkan).tol(kExact),
            Case{"Expand", {f32({3, 1, 5}), i64s({2, 3, 4, 5})}}.tol(kExact),
            Case{"Expand", {f32({1, 7}), i64s({6, 1})}}.tol(kExact),
            Case{"Expand", {ints(I64, {4, 1}, -big, big), i64s({4, 3})}}.tol(kExact),
            Case{"Expand", {bools({1, 5}), i64s({3, 5})}}.tol(kExact),
            Case{"Split", {ints(I64, {4, 6}, -big, big), i64s({1, 5})}, {{"axis", 1}}}.outputs(2).tol(kExact),
            Case{"Split", {ints(U8, {6, 5}, 0, 255)}}.outputs(3).tol(kExact),
            Case{"Tile", {f32({2, 3, 4}), i64s({2, 1, 3})}}.tol(kExact),
            Case{"Tile", {ints(I32, {3, 5}, -9, 9), i64s({1, 4})}}.tol(kExact),
            Case{"Pad", {f32({1, 3, 5, 5}), i64s({0, 0, 1, 2, 0, 0, 2, 1}), scalar(0.5f)}}.tol(kExact),
            Case{"Pad", {ints(I64, {4, 3}, -9, 9), i64s({1, 0, 0, 2})}}.tol(kExact),
            Case{"Gather", {f32({5, 7, 3}), ints(I64, {4}, -5, 4)}}.tol(kExact),
            Case{"Gather", {f32({5, 7, 3}), ints(I32, {2, 3}, 0, 6)}, {{"axis", 1}}}.tol(kExact),
            Case{"Gather", {ints(I64, {10, 4}, -99, 99), konst(ints(I64, {3}, 0, 9))}}.tol(kExact),
            Case{"Gather", {f32({3, 5, 33}), values(Tensor::int64s({}, {2}))}, {{"axis", -2}}}.tol(kExact),
            // Resize (inputs X, roi, scales, sizes)
            Case{"Resize", {f32({1, 3, 7, 9}), none(), f32s({1, 1, 2, 2})}}.cpu("cpu:resize-nearest").tol(kExact),
            Case{"Resize", {f32({2, 3, 7, 9}), none(), f32s({1, 1, 2, 1.5})}, {{"mode", "linear"}}}.cpu("cpu:resize-linear"),
            Case{"Resize", {f32({1, 4, 8, 6}), none(), none(), i64s({1, 4, 5, 11})}, {{"mode", "linear"}, {"coordinate_transformation_mode", "align_corners"}}}.cpu("cpu:resize-linear"),
            Case{"Resize", {f32({1, 2, 5, 5}), none(), none(), i64s({1, 2, 9, 3})}, {{"coordinate_transformation_mode", "asymmetric"}, {"nearest_mode", "floor"}}}.cpu("cpu:resize-nearest").tol(kExact),
        };
        // Resize: every coordinate transformation with each nearest rounding, up and down
        for (const char* coordinates : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn", "half_pixel_symmetric"}) {
            for (const char* nearest : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
                // tf_half_pixel_for_nn maps x to x + 0.5 where the scale is 1: rounding up moves N and C
                // by one, which only the reference does
                if (std::string(coordinates) == "tf_half_pixel_for_nn" && std::string(nearest).find("ceil") != std::string::npos) continue;
                t.push_back(Case{"Resize", {f32({1, 2, 6, 5}), none(), f32s({1, 1, 2.5, 0.6f})},
                                 {{"coordinate_transformation_mode", coordinates}, {"nearest_mode", nearest}}}.opset(19).tol(kExact));
            }
            if (std::string(coordinates) != "tf_half_pixel_for_nn")
                t.push_back(Case{"Resize", {f32({1, 2, 6, 5}), none(), none(), i64s({1, 2, 4, 13})},
                                 {{"mode", "linear"}, {"coordinate_transformation_mode", coordinates}}}.opset(19));
        }
        // Pad's modes, negative pads (crops), axes, a run-time value, the attribute form; Resize's cubic,
        // exclude_outside, tf_crop_and_resize, 5-D and Upsample; ConvTranspose's geometry corners.
        // Vulkan-only rows: cpu:pad takes constant pads of opset 11-17 only, cpu:resize-* nearest and
        // linear 4-D images
        for (const char* mode : {"reflect", "edge", "wrap"}) {
            t.push_back(Case{"Pad", {f32({2, 3, 5, 6}), i64s({0, 1, 2, 3, 0, 2, 1, 4})}, {{"mode", mode}}}.tol(kExact).only(Target::Vulkan));
            t.push_back(Case{"Pad", {f32({3, 7}), i64s({-1, 2, 2, -3})}, {{"mode", mode}}}.tol(kExact).only(Target::Vulkan));
        }
        t.push_back(Case{"Pad", {f32({2, 4, 5}), i64s({1, -2, -1, 3}), scalar(-2.f), i64s({0, 2})}}.opset(18).tol(kExact).only(Target::Vulkan));
        t.push_back(Case{"Pad", {ints(I64, {3, 4}, -big, big), i64s({1, 1, 0, 2}), none(), i64s({-1, 0})}, {{"mode", "wrap"}}}.opset(18).tol(kExact).only(Target::Vulkan));
        t.push_back(Case{"Pad", {f32({2, 3, 4}), i64s({0, 1, 1, 1, 0, 2}), f32({})}}.tol(kExact).only(Target::Vulkan));
        t.push_back(Case{"Pad", {ints(U8, {3, 5}, 0, 255), i64s({1, 2, 2, 1}), konst(values(Tensor::fromVector<uint8_t>(U8, {}, {7})))}}.tol(kExact).only(Target::Vulkan));
        t.push_back(Case{"Pad", {f32({2, 3, 4})}, {{"pads", {0, 1, 2, 1, 0, 1}}, {"value", 1.5}}}.opset(10).tol(kExact).only(Target::Vulkan));
        t.push_back(Case{"Pad", {f32({1, 1, 2, 1, 3, 1, 2, 2}), i64s({0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0})}, {{"mode", "edge"}}}.tol(kExact).only(Target::Vulkan));
        t.push_back(Case{"Resize", {f32({1, 3, 6, 7}), none(), f32s({1, 1, 2, 1.5})}, {{"mode", "cubic"}}}.only(Target::Vulkan));
        // pads and sizes fed at run time (values() without konst()): the shader reads the pads, the
        // plan takes the sizes from the output shape
        t.push_back(Case{"Pad", {f32({2, 3, 5}), values(Tensor::int64s({6}, {0, 1, -1, 1, 2, 2})), scalar(0.5f)}}.tol(kExact).only(Target::Vulkan));
        t.push_back(Case{"Pad", {f32({3, 4}), values(Tensor::int64s({4}, {2, 1, 1, 3}))}, {{"mode", "reflect"}}}.tol(kExact).only(Target::Vulkan));
        t.push_back(Case{"Resize", {f32({1, 2, 5, 6}), none(), none(), values(Tensor::int64s({4}, {1, 2, 8, 4}))}, {{"mode", "linear"}}}.only(Target::Vulkan));
        t.push_back(Case{"Resize", {f32({2, 2, 8, 5}), none(), none(), i64s({2, 2, 5, 9})},
                         {{"mode", "cubic"}, {"cubic_coeff_a", -0.5}, {"exclude_outside", 1}, {"coordinate_transformation_mode", "align_corners"}}}.only(Target::Vulkan));
        t.push_back(Case{"Resize", {f32({1, 2, 7, 6}), f32s({0, 0, 0.2f, 0.1f, 1, 1, 0.9f, 1.2f}), none(), i64s({1, 2, 5, 8})},
                         {{"mode", "linear"}, {"coordinate_transformation_mode", "tf_crop_and_resize"}, {"extrapolation_value", 3.5}}}.only(Target::Vulkan));
        t.push_back(Case{"Resize", {f32({1, 2, 3, 4, 5}), none(), f32s({1, 1, 2, 0.5f, 1.6f})}, {{"mode", "linear"}}}.only(Target::Vulkan));
        t.push_back(Case{"Resize", {f32({1, 3, 5, 6}), none(), none(), i64s({7, 9})},
                         {{"mode", "linear"}, {"axes", {2, 3}}, {"keep_aspect_ratio_policy", "not_larger"}}}.opset(18).only(Target::Vulkan));
        t.push_back(Case{"Upsample", {f32({1, 2, 3, 4}), f32s({1, 1, 2, 3})}, {{"mode", "linear"}}}.opset(9).only(Target::Vulkan));
        t.push_back(Case{"ConvTranspose", {f32({1, 6, 5, 4}), konst(f32({6, 3, 3, 3}))}, {{"auto_pad", "SAME_UPPER"}, {"strides", {2, 2}}, {"group", 2}}}.tol(kSums));
        t.push_back(Case{"ConvTranspose", {f32({2, 4, 5, 5}), konst(f32({4, 5, 3, 2})), konst(f32({5}))}, {{"dilations", {2, 1}}, {"strides", {1, 3}}, {"pads", {1, 0, 2, 1}}}}.tol(kSums));
        t.push_back(Case{"ConvTranspose", {f32({1, 3, 4, 4}), konst(f32({3, 2, 4, 4}))}, {{"strides", {2, 2}}, {"output_shape", {9, 10}}}}.tol(kSums));
        t.push_back(Case{"ConvTranspose", {f32({1, 4, 3, 4, 3}), konst(f32({4, 2, 2, 2, 2})), konst(f32({2}))}, {{"strides", {2, 2, 2}}}}.tol(kSums));
        t.push_back(Case{"ConvTranspose", {f32({1, 64, 12, 12}), konst(f32({64, 32, 2, 2})), konst(f32({32}))}, {{"strides", {2, 2}}}}.tol(kSums));
        // attribute corners where shapes are computed: auto_pad, ceil_mode, asymmetric pads
        t.push_back(Case{"Conv", {f32({1, 6, 10, 9}), konst(f32({8, 6, 3, 3}))}, {{"auto_pad", "SAME_UPPER"}, {"strides", {2, 2}}}}.tol(kSums));
        t.push_back(Case{"Conv", {f32({1, 6, 10, 9}), konst(f32({8, 6, 2, 4}))}, {{"auto_pad", "SAME_LOWER"}}}.tol(kSums));
        t.push_back(Case{"Conv", {f32({2, 4, 9, 9}), konst(f32({4, 4, 3, 3}))}, {{"auto_pad", "VALID"}, {"strides", {3, 2}}}}.tol(kSums));
        t.push_back(Case{"Conv", {f32({1, 16, 6, 7, 5}), konst(f32({8, 16, 3, 3, 3})), konst(f32({8}))}, {{"pads", {1, 1, 1, 1, 1, 1}}}}.tol(kSums).only(Target::Cpu));  // Vulkan: 1-D and 2-D
        t.push_back(Case{"MaxPool", {f32({1, 3, 10, 10})}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"ceil_mode", 1}}});
        t.push_back(Case{"MaxPool", {f32({1, 3, 10, 11})}, {{"kernel_shape", {3, 2}}, {"strides", {2, 2}}, {"auto_pad", "SAME_UPPER"}}});
        t.push_back(Case{"MaxPool", {f32({1, 3, 10, 11})}, {{"kernel_shape", {2, 3}}, {"strides", {3, 2}}, {"auto_pad", "SAME_LOWER"}}});
        t.push_back(Case{"AveragePool", {f32({1, 3, 10, 10})}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"ceil_mode", 1}}});
        t.push_back(Case{"AveragePool", {f32({1, 3, 10, 11})}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {0, 1, 2, 0}}}});
        t.push_back(Case{"AveragePool", {f32({1, 3, 9, 9})}, {{"kernel_shape", {3, 3}}, {"strides", {3, 3}}, {"count_include_pad", 1}}});
        t.push_back(Case{"AveragePool", {f32({1, 3, 10, 11})}, {{"kernel_shape", {3, 3}}, {"auto_pad", "SAME_UPPER"}, {"count_include_pad", 1}}});
        t.push_back(Case{"ConvTranspose", {f32({1, 4, 5, 6}), konst(f32({4, 3, 3, 3}))}, {{"strides", {2, 2}}, {"auto_pad", "SAME_UPPER"}}}.tol(kSums));
        t.push_back(Case{"ConvTranspose", {f32({1, 4, 5, 6}), konst(f32({4, 3, 3, 3}))}, {{"strides", {2, 2}}, {"output_shape", {11, 13}}}}.tol(kSums));
        t.push_back(Case{"ConvTranspose", {f32({1, 4, 5, 5}), konst(f32({4, 2, 3, 3}))}, {{"strides", {2, 2}}, {"dilations", {2, 2}}}}.tol(kSums));
        // layouts and axes
        t.push_back(Case{"Softmax", {f32({2, 3, 4, 5}, -5, 5)}, {{"axis", 2}}}.opset(11).only(Target::Vulkan));
        t.push_back(Case{"LayerNormalization", {f32({2, 3, 4, 5}), konst(f32({4, 5})), konst(f32({4, 5}))}, {{"axis", 2}}}.only(Target::Vulkan));
        t.push_back(Case{"Gemm", {f32({6, 5}), f32({7, 6}), konst(values(Tensor::scalar(0.25f)))}, {{"transA", 1}, {"transB", 1}, {"beta", 0.5}}}.tol(kSums));
        t.push_back(Case{"Gemm", {f32({3, 8}), konst(f32({8, 5})), konst(f32({3, 1}))}}.tol(kSums));
        t.push_back(Case{"MatMul", {f32({65, 70}), f32({70, 67})}}.tol(Tol{1e-5, 4e-5, "sums of 70 terms in another order"}));
        t.push_back(Case{"ReduceMax", {f32({3, 4, 5, 6})}, {{"axes", {0, 2}}, {"keepdims", 0}}}.tol(kExact));
        t.push_back(Case{"ReduceSum", {f32({3, 4, 5, 6}), i64s({1, 3})}}.tol(kSums));
        t.push_back(Case{"ReduceSum", {f32({3, 4, 5}), konst(values(Tensor::int64s({0}, {})))}, {{"keepdims", 0}}}.tol(kSums));
        t.push_back(Case{"ReduceL2", {f32({4, 6, 5})}, {{"keepdims", 0}}}.tol(kSums));
        t.push_back(Case{"ReduceLogSum", {f32({4, 6, 5}, 0.1, 1)}}.tol(kSums));
        t.push_back(Case{"ReduceMean", {f32({2, 3, 4, 5, 6})}, {{"axes", {-4, -2}}}}.tol(kSums));
        t.push_back(Case{"Transpose", {f32({2, 3, 4, 5, 6})}, {{"perm", {4, 2, 0, 3, 1}}}}.tol(kExact));
        t.push_back(Case{"Transpose", {f32({37, 65})}}.tol(kExact));
        t.push_back(Case{"Concat", {f32({2, 1, 4}), f32({2, 5, 4}), f32({2, 2, 4}), f32({2, 3, 4}), f32({2, 1, 4})}, {{"axis", -2}}}.tol(kExact));
        t.push_back(Case{"Slice", {f32({6, 8, 5}), i64s({5, -1}), i64s({-100, 0}), i64s({0, 1}), i64s({-2, -3})}}.only(Target::Vulkan).tol(kExact));
        t.push_back(Case{"Slice", {f32({6, 8, 5}), i64s({2}), i64s({-1}), i64s({2}), i64s({1})}}.tol(kExact));
        t.push_back(Case{"Expand", {f32({5}), i64s({3, 1, 5})}}.tol(kExact));
        t.push_back(Case{"Expand", {f32({2, 1, 1, 3}), i64s({2, 4, 5, 3})}}.tol(kExact));
        t.push_back(Case{"Clip", {f32(small, -3, 3)}});
        t.push_back(Case{"Clip", {f32(small), scalar(-0.5f)}});
        t.push_back(Case{"BatchNormalization", {f32({4, 6}), konst(f32({6})), konst(f32({6})), konst(f32({6})), konst(f32({6}, 0.5, 2))}});
        t.push_back(Case{"Gather", {f32({4, 6, 5}), ints(I64, {2, 2}, -5, 4)}, {{"axis", 2}}}.tol(kExact));
        t.push_back(Case{"Pad", {f32({2, 3, 4}), i64s({0, 1, 0, 1, 2, 3})}}.tol(kExact));
        t.push_back(Case{"Where", {bools({3, 1, 4}), f32({1}), f32({5, 1})}}.tol(kExact));
        t.push_back(Case{"Cast", {ints(I32, small, -1000, 1000)}, {{"to", 7}}});
        t.push_back(Case{"Cast", {ints(I64, small, -1000, 1000)}, {{"to", 6}}});
        t.push_back(Case{"Cast", {f32(small, -100, 100)}, {{"to", 10}}}.tol(Tol{1e-3, 0, "float16 keeps 11 bits"}).only(Target::Cpu));  // Vulkan: no float16 tensors
        t.push_back(Case{"Cast", {f32(small, -3, 300)}, {{"to", 2}}});  // to uint8
        // ops that differ only in their math: each on an odd size and on one past the threading threshold
        for (const char* op : {"Relu", "Sigmoid", "Tanh", "Abs", "Neg", "HardSwish", "Erf", "Identity", "Floor", "Ceil",
                               "Round", "Sign", "Softsign", "Sin", "Cos", "Mish", "Softplus"}) {
            t.emplace_back(op, std::vector<In>{f32(small, -3, 3)});
            t.emplace_back(op, std::vector<In>{f32(large, -3, 3)});
        }
        // past the kernels' threading thresholds (2^15 to 2^16 elements, 2^18 bytes): the rows split across threads
        t.push_back(Case{"Transpose", {f32({3, 130, 257})}, {{"perm", {0, 2, 1}}}}.tol(kExact));
        t.push_back(Case{"Transpose", {f32({2, 64, 33, 20})}, {{"perm", {0, 2, 3, 1}}}}.tol(kExact));
        t.push_back(Case{"Concat", {f32({2, 300, 129}), f32({2, 100, 129})}, {{"axis", 1}}}.tol(kExact));
        t.push_back(Case{"Split", {f32({3, 200, 150}), i64s({70, 130})}, {{"axis", 1}}}.outputs(2).tol(kExact));
        t.push_back(Case{"Slice", {f32({3, 300, 200}), i64s({1, 3}), i64s({299, 197}), i64s({1, 2})}}.tol(kExact));
        t.push_back(Case{"Pad", {f32({2, 3, 150, 150}), i64s({0, 0, 2, 1, 0, 0, 1, 3})}}.tol(kExact));
        t.push_back(Case{"Gather", {f32({500, 200}), ints(I64, {400}, -500, 499)}}.tol(kExact));
        t.push_back(Case{"Gather", {f32({4, 1000, 20}), ints(I32, {900}, 0, 999)}, {{"axis", 1}}}.tol(kExact));
        t.push_back(Case{"Expand", {f32({1, 300, 1}), i64s({3, 300, 100})}}.tol(kExact));
        t.push_back(Case{"Tile", {f32({3, 150, 100}), i64s({2, 1, 2})}}.tol(kExact));
        t.push_back(Case{"Where", {bools({1, 300, 1}), f32({4, 300, 70}), f32({70})}}.tol(kExact));
        t.push_back(Case{"Less", {f32({4, 300, 70}), f32({300, 1})}});
        t.push_back(Case{"Cast", {f32({4, 300, 70}, -100, 100)}, {{"to", 7}}});
        t.push_back(Case{"Softmax", {f32({300, 257}, -5, 5)}});
        t.push_back(Case{"LayerNormalization", {f32({300, 129}), konst(f32({129})), konst(f32({129}))}});
        t.push_back(Case{"com.microsoft:SkipLayerNormalization", {f32({300, 129}), f32({300, 129}), konst(f32({129})), konst(f32({129}))}});
        t.push_back(Case{"InstanceNormalization", {f32({2, 40, 30, 31}), konst(f32({40})), konst(f32({40}))}});
        t.push_back(Case{"ReduceSum", {f32({300, 257}), i64s({1})}}.tol(kSums));
        t.push_back(Case{"ReduceMax", {f32({40, 30, 60})}, {{"axes", {0, 2}}}}.tol(kExact));
        t.push_back(Case{"ReduceMean", {f32({64, 1200})}, {{"axes", {0}}}}.tol(kSums));
        t.push_back(Case{"MaxPool", {f32({2, 32, 40, 40})}, {{"kernel_shape", {3, 3}}, {"strides", {1, 1}}, {"pads", {1, 1, 1, 1}}}}.cpu("cpu:maxpool"));
        t.push_back(Case{"Resize", {f32({1, 16, 40, 40}), none(), f32s({1, 1, 2, 2})}, {{"mode", "linear"}}});
        t.push_back(Case{"BatchNormalization", {f32({2, 32, 40, 40}), konst(f32({32})), konst(f32({32})), konst(f32({32})), konst(f32({32}, 0.5, 2))}});
        t.push_back(Case{"GlobalAveragePool", {f32({2, 64, 30, 30})}}.tol(kSums));
        // far from zero, where exp overflows and naive forms give inf/inf
        for (const char* op : {"Sigmoid", "Tanh", "Erf", "HardSwish", "Softplus", "Mish", "Elu", "Selu", "Celu", "Softsign",
                               "com.microsoft:QuickGelu", "com.microsoft:Gelu", "com.microsoft:FastGelu"})
            t.emplace_back(op, std::vector<In>{f32(small, -120, 120)});
        t.push_back(Case{"Gelu", {f32(small, -120, 120)}, {{"approximate", "tanh"}}}.opset(20));
        t.push_back(Case{"Exp", {f32(small, -100, 100)}});
        // fixed values at the edges: ties (Round is half to even), signed zeros, negative bases, NaN
        const Tensor ties = Tensor::floats({12}, {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 3.5f, -0.f, 0.f, 1e-30f, -3.7f, 2.49999f});
        for (const char* op : {"Round", "Floor", "Ceil", "Sign", "Relu", "Abs", "Neg"})
            t.push_back(Case{op, {values(ties)}}.tol(kExact));
        t.push_back(Case{"Pow", {f32(small, -2, 2), scalar(3.f)}});   // an integer exponent of a negative base
        t.push_back(Case{"Pow", {f32(small, -2, 2), f32s({2.f, -1.f, 3.f, 0.f, 1.f, 2.f, 3.f, 2.f, 4.f, 1.f, 2.f, 3.f, -2.f, 2.f, 3.f,
                                                        2.f, 1.f, 2.f, 3.f, 2.f, 1.f, 2.f, 3.f, 2.f, 1.f, 2.f, 3.f, 2.f, 1.f, 2.f,
                                                        3.f, 2.f, 1.f, 2.f, 3.f, 2.f, 5.f})}});
        const float nan = std::numeric_limits<float>::quiet_NaN();
        t.push_back(Case{"Max", {values(Tensor::floats({4}, {nan, 1.f, -2.f, nan})), values(Tensor::floats({4}, {0.f, nan, 3.f, nan}))}}.tol(kExact));
        t.push_back(Case{"Min", {values(Tensor::floats({4}, {nan, 1.f, -2.f, nan})), values(Tensor::floats({4}, {0.f, nan, 3.f, nan}))}}.tol(kExact));
        t.push_back(Case{"MatMul", {f32({33}), f32({33, 7})}}.tol(kSums));
        t.push_back(Case{"MatMul", {f32({3, 5, 33}), f32({33})}}.tol(kSums));
        t.push_back(Case{"Gemm", {f32({5, 7}), konst(f32({7, 9})), konst(f32({5, 9}))}, {{"beta", -1.0}}}.tol(kSums));
        t.push_back(Case{"Relu", {values(Tensor::floats({}, {-0.5f}))}}.tol(kExact));          // rank 0
        t.push_back(Case{"Add", {values(Tensor::floats({}, {1.5f})), f32({3, 4})}});
        t.push_back(Case{"ReduceSum", {f32({1}), i64s({0})}}.tol(kExact));
        // near zero, where 1 - e^(-2x) cancels: a relative error that the absolute slack of kFloat hides
        for (const char* op : {"Tanh", "Mish", "Softplus", "com.microsoft:FastGelu", "Sigmoid", "Erf"})
            t.push_back(Case{op, {f32(small, -1e-3, 1e-3)}}.tol(Tol{1e-5, 0, "relative only: the values are near zero"}));
        t.push_back(Case{"Softmax", {f32({3, 7, 33}, -200, 200)}});
        t.push_back(Case{"LogSoftmax", {f32({3, 7, 33}, -200, 200)}});
        t.push_back(Case{"ReduceLogSumExp", {f32({3, 7, 33}, 100, 200)}, {{"axes", {2}}}}.tol(kSums));
        // a large mean, where a variance as E[x^2] - E[x]^2 cancels to garbage (errors near 1): a float32
        // mean of values near 300 is itself off by about ulp(300) = 3e-5, 1e-4 of their spread (0.29),
        // which is the slack these cases allow
        const Tol largeMean{1e-4, 5e-4, "a float32 mean of values near 300"};
        t.push_back(Case{"LayerNormalization", {f32({3, 7, 48}, 300, 301), konst(f32({48})), konst(f32({48}))}}.tol(largeMean));
        t.push_back(Case{"com.microsoft:SkipLayerNormalization", {f32({2, 5, 32}, 300, 301), f32({2, 5, 32}), konst(f32({32}))}}.tol(largeMean));
        t.push_back(Case{"InstanceNormalization", {f32({2, 5, 9, 11}, 300, 301), konst(f32({5})), konst(f32({5}))}}.tol(largeMean));
        for (const char* op : {"Sqrt", "Log", "Reciprocal"}) {  // positive inputs
            t.emplace_back(op, std::vector<In>{f32(small, 0.1, 4)});
            t.emplace_back(op, std::vector<In>{f32(large, 0.1, 4)});
        }
        // ops of typed.comp, the layout copies, constants.cpp, gather.comp, loss.comp and axis.comp:
        // integer and bool tensors of every width the shaders load differently
        {
            const auto i32 = [](std::vector<int64_t> dims, std::vector<int32_t> v) { return values(Tensor::fromVector(DType::Int32, std::move(dims), v)); };
            const auto i8 = [](std::vector<int64_t> dims, std::vector<int8_t> v) { return values(Tensor::fromVector(DType::Int8, std::move(dims), v)); };
            const auto u8 = [](std::vector<int64_t> dims, std::vector<uint8_t> v) { return values(Tensor::fromVector(DType::UInt8, std::move(dims), v)); };
            const auto u64s = [](std::vector<int64_t> dims, std::vector<uint64_t> v) { return values(Tensor::fromVector(DType::UInt64, std::move(dims), v)); };
            const auto u32s = [](std::vector<int64_t> dims, std::vector<uint32_t> v) { return values(Tensor::fromVector(DType::UInt32, std::move(dims), v)); };
            const In divisors64 = values(Tensor::int64s({6}, {3, -7, 5000000000, -4294967296, 1, 13}));
            const float inf = std::numeric_limits<float>::infinity();
            const Tensor specials = Tensor::floats({8}, {inf, -inf, nan, 0.f, -1.f, 3e38f, -nan, 1.f});
            std::vector<Case> v = {
                {"Acos", {f32(small, -0.99, 0.99)}},
                {"Asin", {f32(small, -0.99, 0.99)}},
                {"Atan", {f32(small, -5, 5)}},
                {"Acosh", {f32(small, 1, 5)}},
                {"Asinh", {f32(small, -5, 5)}},
                {"Atanh", {f32(small, -0.95, 0.95)}},
                {"Cosh", {f32(small, -4, 4)}},
                {"Sinh", {f32(small, -4, 4)}},
                {"Tan", {f32(small, -1.4, 1.4)}},
                {"Atan", {f32(large, -5, 5)}},
                {"IsNaN", {values(specials)}},
                {"IsNaN", {f32(small)}},
                {"IsInf", {values(specials)}},
                {"IsInf", {values(specials)}, {{"detect_negative", 0}}},
                {"IsInf", {values(specials)}, {{"detect_positive", 0}}},
                {"Shrink", {f32(small, -2, 2)}},
                {"Shrink", {f32(small, -2, 2)}, {{"lambd", 0.7}, {"bias", 0.3}}},
                // integers: comparisons of every width, logic, Mod, BitShift, Neg/Abs/Sign
                {"Less", {ints(I32, {3, 1, 5}, -9, 9), ints(I32, {4, 1}, -9, 9)}},
                {"Greater", {ints(U8, {3, 9}, 0, 255), ints(U8, {9}, 0, 255)}},
                {"Equal", {bools({3, 9}), bools({9})}},
                {"Equal", {f32s({0.5f, -1.f, 2.f}), values(Tensor::floats({2, 3}, {0.5f, 1.f, 2.f, -0.5f, -1.f, 3.f}))}},
                {"LessOrEqual", {f32({4, 5}), f32({5})}},
                {"GreaterOrEqual", {ints(I8, {2, 3, 4}, -3, 3), ints(I8, {1, 4}, -3, 3)}},
                {"And", {bools({2, 3, 37}), bools({3, 1})}},
                {"Not", {bools({300, 129})}},
                {"Mod", {ints(I32, {4, 3}, -50, 50), i32({3}, {7, -4, 3})}},                     // the sign of the divisor
                {"Mod", {ints(I32, {4, 3}, -50, 50), i32({3}, {7, -4, 3})}, {{"fmod", 1}}},      // the sign of the dividend
                {"Mod", {ints(I8, {5, 6}, -100, 100), i8({6}, {5, -3, 7, -128, 1, 9})}},
                {"Mod", {f32({4, 9}, -10, 10), f32({9}, 0.5, 3)}, {{"fmod", 1}}},
                {"BitShift", {ints(U8, {4, 9}, 0, 255), ints(U8, {9}, 0, 7)}, {{"direction", "LEFT"}}},
                {"BitShift", {ints(U8, {4, 9}, 0, 255), u8({1}, {3})}, {{"direction", "RIGHT"}}},
                Case{"Neg", {ints(I32, small, -1000, 1000)}}.only(Target::Vulkan),  // the CPU kernels: float only
                Case{"Abs", {ints(I8, small, -127, 127)}}.only(Target::Vulkan),
                {"Sign", {ints(I32, small, -3, 3)}},
                // casts: int64 past 32 bits, narrow types, saturation of floats out of an integer's range
                {"Cast", {ints(I64, small, -big, big)}, {{"to", 1}}},
                {"Cast", {ints(I64, small, -big, big)}, {{"to", 6}}},   // int32: the low word
                {"Cast", {ints(I64, small, -big, big)}, {{"to", 7}}},   // to the same type: a move of both words
                {"Cast", {ints(I64, small, -big, big)}, {{"to", 2}}},   // uint8: the low byte
                {"Cast", {values(Tensor::int64s({6}, {int64_t(1) << 32, 0, -(int64_t(1) << 32), 5, int64_t(1) << 40, -1}))}, {{"to", 9}}},
                {"Cast", {ints(I32, small, -100000, 100000)}, {{"to", 7}}},
                {"Cast", {ints(I8, small, -128, 127)}, {{"to", 1}}},
                {"Cast", {ints(U8, small, 0, 255)}, {{"to", 3}}},      // to int8: wraps
                {"Cast", {bools(small)}, {{"to", 7}}},
                {"Cast", {ints(I32, small, -2, 2)}, {{"to", 9}}},
                {"CastLike", {f32(small, -100, 100), konst(values(Tensor::int64s({}, {0})))}},
                {"CastLike", {bools(small), f32({1})}},
                // 64-bit comparisons on both words; casts of floats out of an integer's range saturate
                {"Equal", {ints(I64, {4, 5}, -big, big), konst(values(Tensor::int64s({5}, {big, -big, int64_t(1) << 32, 5, -1})))}},
                {"Less", {values(Tensor::int64s({6}, {int64_t(1) << 32, -(int64_t(1) << 32), 5, -1, big, -3})),
                          values(Tensor::int64s({6}, {1, -1, (int64_t(1) << 32) + 5, int64_t(1) << 33, -big, -3}))}},
                {"GreaterOrEqual", {ints(I64, {5, 1}, -big, big), ints(I64, {1, 6}, -big, big)}},
                // 64-bit and uint32 integer math past 32 bits (typed64.comp): wrapping, signed and unsigned
                // division and remainders, shifts, extremes, casts between the 64-bit types
                Case{"Sub", {ints(I64, {4, 5}, -big, big), ints(I64, {5}, -big, big)}}.only(Target::Vulkan),
                {"Mul", {ints(I64, {4, 5}, -3000000000, 3000000000), ints(I64, {5}, -3000000000, 3000000000)}},
                Case{"Div", {ints(I64, {4, 6}, -big, big), divisors64}}.only(Target::Vulkan),
                Case{"Mod", {ints(I64, {4, 6}, -big, big), divisors64}}.only(Target::Vulkan),
                Case{"Mod", {ints(I64, {4, 6}, -big, big), divisors64}, {{"fmod", 1}}}.only(Target::Vulkan),
                Case{"Min", {ints(I64, {3, 4}, -big, big), ints(I64, {4}, -big, big), ints(I64, {3, 1}, -big, big)}}.only(Target::Vulkan),
                {"Sum", {ints(I64, {2, 7}, -big, big), ints(I64, {7}, -big, big), ints(I64, {2, 1}, -big, big)}},
                Case{"Neg", {ints(I64, small, -big, big)}}.only(Target::Vulkan),
                Case{"Abs", {ints(I64, small, -big, big)}}.only(Target::Vulkan),
                Case{"Sign", {ints(I64, small, -big, big)}}.only(Target::Vulkan),
                Case{"Clip", {ints(I64, small, -big, big), konst(values(Tensor::int64s({}, {-big / 3}))), konst(values(Tensor::int64s({}, {big / 2})))}}.only(Target::Vulkan),
                Case{"Add", {u64s({4}, {~uint64_t(0), uint64_t(1) << 63, 5, uint64_t(1) << 40}), u64s({4}, {2, uint64_t(1) << 63, 7, 3})}}.only(Target::Vulkan),
                Case{"Div", {u64s({4}, {~uint64_t(0), uint64_t(1) << 63, 5, uint64_t(1) << 40}), u64s({4}, {3, 7, 2, 1000})}}.only(Target::Vulkan),
                Case{"Less", {u64s({4}, {~uint64_t(0), uint64_t(1) << 63, 5, 3}), u64s({4}, {1, uint64_t(1) << 62, 5, uint64_t(1) << 40})}}.only(Target::Vulkan),
                Case{"Div", {u32s({4}, {0xFFFFFFFFu, 0x80000000u, 7, 100}), u32s({4}, {3, 2, 0x80000000u, 7})}}.only(Target::Vulkan),
                Case{"Mod", {u32s({4}, {0xFFFFFFFFu, 0x80000000u, 7, 100}), u32s({4}, {10, 3, 0x80000000u, 7})}}.only(Target::Vulkan),
                Case{"BitShift", {u64s({3}, {1, ~uint64_t(0), uint64_t(1) << 40}), u64s({3}, {40, 4, 23})}, {{"direction", "LEFT"}}}.only(Target::Vulkan),
                Case{"BitShift", {u64s({3}, {1, ~uint64_t(0), uint64_t(1) << 40}), u64s({3}, {40, 4, 23})}, {{"direction", "RIGHT"}}}.only(Target::Vulkan),
                Case{"Cast", {ints(I64, small, -big, big)}, {{"to", 13}}}.only(Target::Vulkan),   // to uint64: the bits
                Case{"Cast", {u64s({3}, {~uint64_t(0), uint64_t(1) << 63, 5})}, {{"to", 7}}}.only(Target::Vulkan),
                Case{"Cast", {u32s({3}, {0xFFFFFFFFu, 0x80000000u, 5})}, {{"to", 7}}}.only(Target::Vulkan),  // zero-extended
                Case{"Cast", {values(Tensor::int64s({3}, {(int64_t(1) << 40) + 1, -(int64_t(1) << 53) - 3, (int64_t(1) << 24) + 1}))}, {{"to", 1}}}.only(Target::Vulkan),
                {"Cast", {f32(small, -1e12, 1e12)}, {{"to", 7}}},     // int64 past 32 bits
                {"Cast", {f32(small, -1e10, 1e10)}, {{"to", 6}}},     // int32: saturates
                {"Cast", {f32(small, -300, 300)}, {{"to", 3}}},       // int8: saturates
                {"Cast", {values(Tensor::floats({6}, {nan, 3e38f, -3e38f, 2147483648.f, -2147483648.f, -0.9f}))}, {{"to", 7}}},
                {"Cast", {values(Tensor::floats({6}, {nan, 3e38f, -3e38f, 2147483648.f, -2147483648.f, -0.9f}))}, {{"to", 6}}},
                // Where: three operands broadcast, 64-bit and narrow values
                {"Where", {bools({3, 1, 5}), ints(I64, {4, 1}, -big, big), ints(I64, {1, 5}, -big, big)}},
                {"Where", {bools({2, 9}), bools({2, 9}), bools({9})}},
                {"Where", {bools({5, 1}), ints(I8, {1, 6}, -128, 127), ints(I8, {5, 6}, -128, 127)}},
                // Trilu: k as a constant or fed at run time
                {"Trilu", {f32({2, 5, 6})}},
                {"Trilu", {f32({7, 4}), konst(values(Tensor::int64s({}, {-1})))}, {{"upper", 0}}},
                {"Trilu", {ints(I64, {3, 4, 4}, -big, big), values(Tensor::int64s({}, {1}))}},
                {"Trilu", {ints(U8, {5, 3}, 0, 255), konst(values(Tensor::int64s({}, {2})))}, {{"upper", 0}}},
                // Clip of integers, and of floats with bounds given at run time
                Case{"Clip", {f32(small), f32({}, -1, -0.2), f32({}, 0.2, 1)}}.only(Target::Vulkan),  // cpu:activation: constant float bounds
                Case{"Clip", {f32(small), none(), f32({}, 0, 0.5)}}.only(Target::Vulkan),
                Case{"Clip", {ints(I32, small, -100, 100), konst(i32({}, {-20})), konst(i32({}, {30}))}}.only(Target::Vulkan),
                Case{"Clip", {ints(I8, small, -128, 127), none(), i8({}, {5})}}.only(Target::Vulkan),
                // Sum, Mean, Max, Min of any number of inputs
                {"Sum", {f32({3, 1, 5}), f32({4, 1}), f32({5})}},
                {"Sum", {f32(small)}},
                {"Sum", {ints(I32, {2, 7}, -1000, 1000), ints(I32, {7}, -1000, 1000), ints(I32, {2, 1}, -1000, 1000), ints(I32, {2, 7}, -1000, 1000)}},
                {"Mean", {f32({3, 1, 5}), f32({4, 1}), f32({5})}},
                {"Mean", {f32({2, 7}), f32({2, 7})}},
                Case{"Max", {f32({3, 1, 5}), f32({4, 1}), f32({5})}}.only(Target::Vulkan),  // the CPU kernels: two inputs
                Case{"Min", {ints(I32, {2, 7}, -9, 9), ints(I32, {7}, -9, 9), ints(I32, {2, 1}, -9, 9)}}.only(Target::Vulkan),
                // QuantizeLinear and DequantizeLinear: scalar and per-axis scales, with and without zero points
                {"QuantizeLinear", {f32(small, -3, 3), scalar(0.02f), konst(u8({}, {128}))}},
                {"QuantizeLinear", {f32({2, 3, 7}, -3, 3), konst(f32({3}, 0.01, 0.05)), konst(values(Tensor::fromVector(DType::Int8, {3}, std::vector<int8_t>{-3, 0, 10})))}},
                {"QuantizeLinear", {f32(small, -1, 3), scalar(0.01f)}},   // uint8 without a zero point, saturating
                {"DequantizeLinear", {ints(U8, small, 0, 255), scalar(0.05f), konst(u8({}, {100}))}},
                {"DequantizeLinear", {ints(I8, {2, 3, 7}, -128, 127), konst(f32({3}, 0.01, 0.05)), konst(i8({3}, {-3, 0, 10}))}},
                {"DequantizeLinear", {ints(I32, small, -100000, 100000), scalar(0.001f)}},
                // int8 kernels (oneDNN): u8 inputs, weights within [-64, 64] (exact without VNNI too,
                // see onednn_int8.cpp); int32 outputs exact, requantized ones within one step
                Case{"ConvInteger", {ints(U8, {1, 8, 7, 7}, 0, 255), konst(ints(I8, {16, 8, 3, 3}, -64, 64)), konst(u8({}, {12}))},
                     {{"pads", {1, 1, 1, 1}}}}.tol(kExact),
                Case{"MatMulInteger", {ints(U8, {6, 40}, 0, 255), konst(ints(I8, {40, 24}, -64, 64)), konst(u8({}, {7}))}}.tol(kExact),
                Case{"QLinearConv", {ints(U8, {1, 8, 7, 7}, 0, 255), scalar(0.02f), konst(u8({}, {10})), konst(ints(I8, {16, 8, 3, 3}, -64, 64)),
                                     konst(f32({16}, 0.005, 0.01)), konst(i8({}, {0})), scalar(0.1f), konst(u8({}, {128})),
                                     konst(ints(I32, {16}, -5000, 5000))}, {{"pads", {1, 1, 1, 1}}}}.tol(Tol{0, 1, "requantized: one output step"}),
                // ONNX Runtime's QLinearAdd (the CPU plan's QDQ Add): float sum, requantized, exact
                Case{"com.microsoft:QLinearAdd", {ints(U8, {2, 16, 5, 7}, 0, 255), scalar(0.03f), konst(u8({}, {120})), ints(U8, {2, 16, 5, 7}, 0, 255),
                                                  scalar(0.02f), konst(u8({}, {7})), scalar(0.05f), konst(u8({}, {0}))}}.tol(kExact).only(Target::Cpu),
                Case{"com.microsoft:QLinearAdd", {ints(I8, {3, 100}, -128, 127), scalar(0.03f), konst(i8({}, {-5})), ints(I8, {3, 100}, -128, 127),
                                                  scalar(0.01f), konst(i8({}, {3})), scalar(0.02f), konst(i8({}, {-1}))}}.tol(kExact).only(Target::Cpu),
                // ONNX Runtime's QLinearMul (the CPU plan's QDQ Mul: same shapes, or a gate per channel)
                // and QLinearGlobalAveragePool (int32 sums: within float rounding of a half step it
                // may round to the neighbour of the reference's float sum)
                Case{"com.microsoft:QLinearMul", {ints(U8, {2, 16, 5, 7}, 0, 255), scalar(0.03f), konst(u8({}, {120})), ints(U8, {2, 16, 5, 7}, 0, 255),
                                                  scalar(0.02f), konst(u8({}, {7})), scalar(0.05f), konst(u8({}, {10}))}}.tol(kExact).only(Target::Cpu),
                Case{"com.microsoft:QLinearMul", {ints(U8, {1, 24, 6, 5}, 0, 255), scalar(0.03f), konst(u8({}, {120})), ints(U8, {1, 24, 1, 1}, 0, 255),
                                                  scalar(0.004f), konst(u8({}, {0})), scalar(0.02f), konst(u8({}, {128}))}}.tol(kExact).only(Target::Cpu),
                Case{"com.microsoft:QLinearMul", {ints(I8, {2, 24, 1, 1}, -128, 127), scalar(0.004f), konst(i8({}, {-128})), ints(I8, {2, 24, 3, 3}, -128, 127),
                                                  scalar(0.03f), konst(i8({}, {5})), scalar(0.02f), konst(i8({}, {0}))}}.tol(kExact).only(Target::Cpu),
                Case{"com.microsoft:QLinearGlobalAveragePool", {ints(U8, {2, 24, 7, 9}, 0, 255), scalar(0.03f), konst(u8({}, {120})), scalar(0.01f),
                                                                konst(u8({}, {128}))}, {{"channels_last", 0}}}
                    .tol(Tol{0, 1, "int32 sums: one output step"}).only(Target::Cpu),
                Case{"com.microsoft:QLinearGlobalAveragePool", {ints(I8, {1, 40, 5, 5}, -128, 127), scalar(0.02f), konst(i8({}, {3})), scalar(0.005f),
                                                                konst(i8({}, {-2}))}, {{"channels_last", 0}}}
                    .tol(Tol{0, 1, "int32 sums: one output step"}).only(Target::Cpu),
                // ONNX Runtime's QLinearConcat (the CPU plan's QDQ Concat): each input requantized
                // to the output's parameters through a table, or copied where they are the same; exact
                Case{"com.microsoft:QLinearConcat", {scalar(0.05f), konst(u8({}, {100})), ints(U8, {2, 16, 5, 7}, 0, 255), scalar(0.03f),
                                                     konst(u8({}, {120})), ints(U8, {2, 8, 5, 7}, 0, 255), scalar(0.05f), konst(u8({}, {100}))},
                     {{"axis", 1}}}.tol(kExact).only(Target::Cpu),
                Case{"com.microsoft:QLinearConcat", {scalar(0.02f), konst(i8({}, {-3})), ints(I8, {3, 5, 4}, -128, 127), scalar(0.07f),
                                                     konst(i8({}, {10})), ints(I8, {3, 5, 9}, -128, 127), scalar(0.01f), konst(i8({}, {0}))},
                     {{"axis", -1}}}.tol(kExact).only(Target::Cpu),
                // MaxPool of u8 and s8 codes (the CPU plan's QDQ MaxPool), exact
                Case{"MaxPool", {ints(U8, {1, 3, 9, 9}, 0, 255)}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"ceil_mode", 1}}}.tol(kExact).only(Target::Cpu),
                Case{"MaxPool", {ints(I8, {2, 2, 8, 7}, -128, 127)}, {{"kernel_shape", {2, 3}}, {"pads", {1, 1, 1, 1}}}}.tol(kExact).only(Target::Cpu),
                // The CPU plan's lookup table (DQ -> activation -> Q): y = table[x's byte], exact
                Case{"ai.graphlens:QLinearLookupTable", {ints(U8, {2, 16, 5, 7}, 0, 255), konst(ints(U8, {256}, 0, 255))}}.tol(kExact).only(Target::Cpu),
                Case{"ai.graphlens:QLinearLookupTable", {ints(I8, {3, 100}, -128, 127), konst(ints(I8, {256}, -128, 127))}}.tol(kExact).only(Target::Cpu),
                Case{"QLinearMatMul", {ints(U8, {6, 40}, 0, 255), scalar(0.05f), konst(u8({}, {3})), konst(ints(I8, {40, 24}, -64, 64)),
                                       scalar(0.01f), konst(i8({}, {0})), scalar(0.2f), konst(u8({}, {128}))}}.tol(Tol{0, 1, "requantized: one output step"}),
                Case{"QLinearMatMul", {ints(U8, {2, 5, 40}, 0, 255), scalar(0.05f), konst(u8({}, {3})), konst(ints(I8, {40, 24}, -64, 64)),
                                       konst(f32({24}, 0.005, 0.02)), konst(i8({}, {0})), scalar(0.2f), konst(u8({}, {128}))}}
                    .tol(Tol{0, 1, "requantized: one output step"}),  // per-column scales (QDQ MatMul)
                // ONNX Runtime's QGemm and MatMulIntegerToFloat (the CPU plan's QDQ Gemm and MatMul):
                // int32 bias, requantized or float output
                Case{"com.microsoft:QGemm", {ints(U8, {6, 40}, 0, 255), scalar(0.05f), konst(u8({}, {9})), konst(ints(I8, {24, 40}, -64, 64)),
                                             konst(f32({24}, 0.005, 0.02)), konst(i8({}, {0})), konst(ints(I32, {24}, -3000, 3000)),
                                             scalar(0.2f), konst(u8({}, {128}))}, {{"transB", 1}}}
                    .tol(Tol{0, 1, "requantized: one output step"}).only(Target::Cpu),
                Case{"com.microsoft:QGemm", {ints(U8, {6, 40}, 0, 255), scalar(0.05f), konst(u8({}, {9})), konst(ints(I8, {40, 24}, -64, 64)),
                                             scalar(0.01f), konst(i8({}, {0})), konst(ints(I32, {24}, -3000, 3000))}}.only(Target::Cpu),
                Case{"com.microsoft:MatMulIntegerToFloat", {ints(U8, {2, 3, 40}, 0, 255), konst(ints(I8, {40, 24}, -64, 64)), scalar(0.05f),
                                                            konst(f32({24}, 0.005, 0.02)), konst(u8({}, {130})), konst(i8({}, {0}))}}.only(Target::Cpu),
                // Products of one row (a classifier's last layer) with full-range weights: exact sums
                // on every machine (VNNI, or int8_gemv.h's kernel where oneDNN's sums saturate)
                Case{"MatMulInteger", {ints(U8, {1, 300}, 0, 255), konst(ints(I8, {300, 37}, -128, 127)), konst(u8({}, {7}))}}.tol(kExact),
                Case{"MatMulInteger", {ints(I8, {1, 1, 70}, -128, 127), konst(ints(I8, {70, 9}, -126, 127)), konst(i8({}, {-4})),
                                       konst(i8({}, {2}))}}.tol(kExact),
                Case{"com.microsoft:QGemm", {ints(U8, {1, 300}, 0, 255), scalar(0.02f), konst(u8({}, {131})), konst(ints(I8, {37, 300}, -128, 127)),
                                             konst(f32({37}, 0.002, 0.01)), konst(i8({}, {0})), konst(ints(I32, {37}, -30000, 30000)),
                                             scalar(0.5f), konst(u8({}, {100}))}, {{"transB", 1}}}
                    .tol(Tol{0, 1, "requantized: one output step"}).only(Target::Cpu),
                Case{"com.microsoft:QGemm", {ints(U8, {1, 300}, 0, 255), scalar(0.02f), konst(u8({}, {131})), konst(ints(I8, {300, 37}, -128, 127)),
                                             konst(f32({37}, 0.002, 0.01)), konst(i8({}, {0})), konst(ints(I32, {37}, -30000, 30000))}}.only(Target::Cpu),
                Case{"QLinearMatMul", {ints(I8, {1, 70}, -128, 127), scalar(0.05f), konst(i8({}, {-3})), konst(ints(I8, {70, 9}, -128, 127)),
                                       scalar(0.01f), konst(i8({}, {0})), scalar(0.7f), konst(i8({}, {5}))}}.tol(Tol{0, 1, "requantized: one output step"}),
                // ... and 1x1 convolutions of one 1x1 plane (squeeze-and-excitation blocks)
                Case{"ConvInteger", {ints(U8, {1, 72, 1, 1}, 0, 255), konst(ints(I8, {18, 72, 1, 1}, -128, 127)), konst(u8({}, {12}))}}.tol(kExact),
                Case{"QLinearConv", {ints(U8, {1, 72, 1, 1}, 0, 255), scalar(0.02f), konst(u8({}, {10})), konst(ints(I8, {18, 72, 1, 1}, -128, 127)),
                                     konst(f32({18}, 0.002, 0.01)), konst(i8({}, {0})), scalar(0.3f), konst(u8({}, {128})),
                                     konst(ints(I32, {18}, -20000, 20000))}}.tol(Tol{0, 1, "requantized: one output step"}),
                Case{"QLinearConv", {ints(I8, {1, 40, 1, 1}, -128, 127), scalar(0.02f), konst(i8({}, {-7})), konst(ints(I8, {24, 40, 1, 1}, -128, 127)),
                                     scalar(0.004f), konst(i8({}, {0})), scalar(0.2f), konst(i8({}, {3}))},
                     {{"strides", {2, 2}}, {"pads", {0, 0, 1, 1}}}}.tol(Tol{0, 1, "requantized: one output step"}),
                Case{"ConvInteger", {ints(U8, {1, 40, 1, 1}, 0, 255), konst(ints(I8, {24, 40, 1, 1}, -128, 127)), konst(u8({}, {9}))},
                     {{"strides", {2, 2}}, {"pads", {1, 1, 0, 0}}}}.tol(kExact),  // reads padding only
                // constants and known outputs
                Case{"Constant", {}, {{"value", Tensor::fromVector(DType::Int32, {2, 3}, std::vector<int32_t>{1, -2, 3, -4, 5, 1 << 30})}}}.tol(kExact),
                Case{"Constant", {}, {{"value_floats", std::vector<float>{0.5f, -1.5f, 3.f}}}}.tol(kExact),
                Case{"Constant", {}, {{"value_ints", std::vector<int64_t>{-big, 7, big}}}}.tol(kExact),
                Case{"Constant", {}, {{"value_float", 2.5}}}.tol(kExact),
                {"Shape", {f32({2, 3, 4})}},
                Case{"Shape", {ints(I64, {2, 3, 4, 5}, 0, 1)}, {{"start", 1}, {"end", -1}}}.opset(15),
                {"Size", {f32({2, 3, 4})}},
                {"ConstantOfShape", {i64s({2, 3})}},
                {"ConstantOfShape", {i64s({4, 3})}, {{"value", Tensor::int64s({1}, {-big})}}},
                {"EyeLike", {f32({4, 5})}, {{"k", 1}}},
                {"EyeLike", {ints(I32, {3, 3}, -9, 9)}, {{"k", -1}}},
                {"EyeLike", {f32({3, 5})}, {{"k", -4}}},   // no ones
                Case{"Dropout", {f32(small)}}.outputs(2).tol(kExact),
                Case{"Dropout", {ints(I64, small, -big, big)}}.tol(kExact),
                {"Identity", {ints(I64, small, -big, big)}},
                {"Identity", {bools(small)}},
                {"Identity", {ints(U8, small, 0, 255)}},
                // layout copies of any element type
                Case{"Tile", {ints(I64, {2, 3}, -big, big), i64s({3, 2})}}.tol(kExact),
                Case{"Tile", {bools({3, 5}), i64s({2, 1})}}.tol(kExact),
                Case{"Pad", {ints(U8, {3, 5}, 0, 255), i64s({1, 2, 0, 1})}}.tol(kExact),
                Case{"DepthToSpace", {f32({1, 8, 3, 4})}, {{"blocksize", 2}}}.tol(kExact),
                Case{"DepthToSpace", {f32({2, 18, 2, 3})}, {{"blocksize", 3}, {"mode", "CRD"}}}.tol(kExact),
                Case{"DepthToSpace", {ints(I64, {1, 4, 2, 3}, -big, big)}, {{"blocksize", 2}}}.tol(kExact),
                Case{"SpaceToDepth", {f32({2, 3, 6, 4})}, {{"blocksize", 2}}}.tol(kExact),
                Case{"SpaceToDepth", {ints(U8, {1, 2, 6, 9}, 0, 255)}, {{"blocksize", 3}}}.tol(kExact),
                // Gather and GatherElements: negative indices, every axis, narrow and 64-bit values
                Case{"Gather", {ints(I64, {6, 5}, -big, big), ints(I64, {3, 2}, -5, 4)}, {{"axis", 1}}}.tol(kExact),
                Case{"Gather", {bools({7, 3}), ints(I32, {4}, -7, 6)}}.tol(kExact),
                Case{"GatherElements", {f32({3, 4, 5}), ints(I64, {3, 2, 5}, -4, 3)}, {{"axis", 1}}}.tol(kExact),
                Case{"GatherElements", {f32({3, 4, 5}), ints(I32, {2, 4, 5}, -3, 2)}}.tol(kExact),
                Case{"GatherElements", {ints(I64, {4, 6}, -big, big), ints(I64, {4, 3}, -6, 5)}, {{"axis", -1}}}.tol(kExact),
                Case{"GatherElements", {ints(U8, {4, 6}, 0, 255), ints(I64, {4, 6}, 0, 5)}, {{"axis", 1}}}.tol(kExact),
                // losses: every reduction, class weights, ignored targets, extra dims
                Case{"NegativeLogLikelihoodLoss", {f32({5, 4}, -3, 0), ints(I64, {5}, 0, 3)}}.tol(kSums),
                Case{"NegativeLogLikelihoodLoss", {f32({3, 4, 6}, -3, 0), ints(I64, {3, 6}, 0, 3), f32({4}, 0.5, 2)}, {{"reduction", "sum"}}}.tol(kSums),
                Case{"NegativeLogLikelihoodLoss", {f32({3, 4, 6}, -3, 0), ints(I32, {3, 6}, -1, 3), f32({4}, 0.5, 2)}, {{"ignore_index", -1}}}.tol(kSums),
                Case{"NegativeLogLikelihoodLoss", {f32({3, 5, 2, 2}, -3, 0), ints(I64, {3, 2, 2}, 0, 4)}, {{"reduction", "none"}, {"ignore_index", 2}}},
                Case{"SoftmaxCrossEntropyLoss", {f32({5, 4}, -3, 3), ints(I64, {5}, 0, 3)}}.tol(kSums),
                Case{"SoftmaxCrossEntropyLoss", {f32({3, 4, 6}, -3, 3), ints(I64, {3, 6}, 0, 3), f32({4}, 0.5, 2)}, {{"reduction", "sum"}}}.outputs(2).tol(kSums),
                Case{"SoftmaxCrossEntropyLoss", {f32({3, 4, 6}, -3, 3), ints(I64, {3, 6}, -1, 3)}, {{"reduction", "none"}, {"ignore_index", -1}}},
                // ArgMax/ArgMin, Hardmax, CumSum along every kind of axis
                {"ArgMax", {f32({3, 7, 33})}},
                {"ArgMax", {f32({3, 7, 33})}, {{"axis", -1}, {"keepdims", 0}}},
                {"ArgMin", {f32({4, 9, 5})}, {{"axis", 1}}},
                {"ArgMax", {ints(I32, {4, 9, 5}, 0, 3)}, {{"axis", 1}, {"select_last_index", 1}}},  // ties
                {"ArgMin", {ints(U8, {6, 20}, 0, 5)}, {{"axis", 1}}},
                {"ArgMin", {ints(I8, {6, 20}, -3, 3)}, {{"axis", 0}, {"select_last_index", 1}, {"keepdims", 0}}},
                {"Hardmax", {f32({3, 7, 33})}},
                {"Hardmax", {f32({3, 4, 5})}, {{"axis", 1}}},
                Case{"Hardmax", {f32({3, 4, 5})}, {{"axis", 1}}}.opset(11),  // over the flattened trailing dims
                Case{"CumSum", {f32({3, 5, 7}), i64s({1})}}.tol(kSums),
                Case{"CumSum", {f32({3, 5, 7}), konst(values(Tensor::int64s({}, {-1})))}, {{"exclusive", 1}}}.tol(kSums),
                Case{"CumSum", {f32({3, 5, 7}), i64s({0})}, {{"reverse", 1}}}.tol(kSums),
                Case{"CumSum", {f32({3, 5, 7}), i64s({2})}, {{"exclusive", 1}, {"reverse", 1}}}.tol(kSums),
                {"CumSum", {ints(I32, {4, 9}, -1000, 1000), i64s({1})}},
                Case{"CumSum", {f32({4, 300}), i64s({1})}}.tol(kSums),
                // int64 past 32 bits: compared over both words, summed with carries
                {"ArgMax", {ints(I64, {3, 9}, -big, big)}, {{"axis", 1}}},
                {"ArgMin", {values(Tensor::int64s({2, 3}, {int64_t(1) << 32, -(int64_t(1) << 32), 5, -1, big, -(int64_t(1) << 32)}))}, {{"axis", 1}, {"select_last_index", 1}}},
                {"CumSum", {ints(I64, {3, 7}, -big, big), i64s({1})}},
                {"CumSum", {values(Tensor::int64s({4}, {0xFFFFFFFF, 1, -2, 0x7FFFFFFF})), i64s({0})}, {{"exclusive", 1}, {"reverse", 1}}},
            };
            for (Case& c : v) t.push_back(std::move(c));
        }
        // per-channel normalizations (vulkan/batchnorm.cpp): BatchNormalization of any rank with fed
        // statistics, InstanceNormalization rows past one workgroup's 64 lanes, LRN windows at both edges
        {
            std::vector<Case> v = {
                // (cpu:batchnorm folds constant statistics at prepare time: fed ones are Vulkan rows)
                Case{"BatchNormalization", {f32({2, 3, 4, 5, 3}), f32({3}), f32({3}), f32({3}), f32({3}, 0.5, 2)}}.only(Target::Vulkan),
                Case{"BatchNormalization", {f32({2, 7, 9}), f32({7}), f32({7}), f32({7}), f32({7}, 0.5, 2)}, {{"epsilon", 0.1}}}.opset(9).only(Target::Vulkan),
                Case{"BatchNormalization", {f32({2, 4, 3, 3}), konst(f32({4})), konst(f32({4})), konst(f32({4})), konst(f32({4}, 0.5, 2))}}.opset(9),
                {"InstanceNormalization", {f32({2, 3, 37, 29}, 4, 6), f32({3}), f32({3})}},
                {"InstanceNormalization", {f32({3, 4}), konst(f32({4})), konst(f32({4}))}},  // rank 2: one element per row
                {"LRN", {f32({2, 8, 5, 5})}, {{"size", 3}}},
                {"LRN", {f32({1, 7, 6}, -4, 4)}, {{"size", 4}, {"alpha", 0.02}, {"beta", 0.6}, {"bias", 2.0}}},  // an even window
                {"LRN", {f32({2, 5, 3, 4, 2})}, {{"size", 11}}},  // wider than the channels
            };
            for (Case& c : v) t.push_back(std::move(c));
        }
        // indexing, generating and sorting shaders (vulkan/scatter.cpp, topk.cpp): repeated scatter targets
        // combine in the reference's order; negative indices; 64-bit values past 32 bits; ties and NaN in TopK
        {
            const int64_t two32 = int64_t(1) << 32;
            const float nanValue = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
            std::vector<Case> v = {
                Case{"GatherND", {f32({2, 3, 4}), ints(I64, {5, 2}, -2, 1)}}.tol(kExact),
                Case{"GatherND", {f32({2, 3, 4, 5}), ints(I64, {2, 4, 2}, -3, 2)}, {{"batch_dims", 1}}}.tol(kExact),
                Case{"GatherND", {ints(I64, {4, 3}, -big, big), ints(I32, {3, 2}, -3, 2)}}.tol(kExact),  // whole-rank tuples
                Case{"GatherND", {ints(U8, {3, 4, 6}, 0, 255), ints(I64, {3, 2, 1}, -4, 3)}, {{"batch_dims", 1}}}.tol(kExact),
                Case{"ScatterElements", {f32({4, 5}), ints(I64, {3, 5}, -4, 3), f32({3, 5})}}.tol(kExact),
                Case{"ScatterElements", {f32({3, 6}), ints(I64, {3, 4}, -6, 5), f32({3, 4})}, {{"axis", 1}, {"reduction", "add"}}}.opset(16),
                Case{"ScatterElements", {ints(I32, {2, 5, 3}, -100, 100), ints(I32, {2, 4, 3}, 0, 4), ints(I32, {2, 4, 3}, -100, 100)},
                     {{"axis", -2}, {"reduction", "max"}}}.opset(18),
                Case{"ScatterElements", {f32({4, 3}), ints(I64, {2, 3}, 0, 3), f32({2, 3})}, {{"reduction", "min"}}}.opset(18).tol(kExact),
                Case{"ScatterElements", {ints(I64, {3, 4}, -big, big), ints(I64, {3, 2}, 0, 3), ints(I64, {3, 2}, -big, big)}, {{"axis", 1}}},
                Case{"Scatter", {f32({4, 5}), ints(I64, {3, 5}, -4, 3), f32({3, 5})}, {{"axis", 0}}}.opset(10).tol(kExact),
                Case{"ScatterND", {f32({4, 5, 6}), ints(I64, {3, 1}, -4, 3), f32({3, 5, 6})}}.tol(kExact),
                Case{"ScatterND", {f32({4, 5}, 0.5, 1.5), ints(I64, {2, 3, 2}, 0, 3), f32({2, 3}, 0.5, 1.5)}, {{"reduction", "mul"}}}.opset(16),
                Case{"ScatterND", {ints(I8, {4, 6}, -100, 100), ints(I64, {5, 2}, -4, 3), ints(I8, {5}, -100, 100)}, {{"reduction", "add"}}}.opset(16),
                Case{"ScatterND", {f32({3, 4, 2}), ints(I32, {2, 2}, 0, 2), f32({2, 2})}, {{"reduction", "max"}}}.opset(18).tol(kExact),
                Case{"ScatterND", {ints(I64, {5, 4}, -big, big), ints(I64, {2, 1}, -5, 4), ints(I64, {2, 4}, -big, big)}},
                Case{"OneHot", {ints(I64, {3, 4}, -5, 4), konst(values(Tensor::int64s({}, {5}))), f32s({-1.f, 3.f})}}.tol(kExact),
                Case{"OneHot", {f32({2, 3}, -4, 4), konst(values(Tensor::int64s({1}, {4}))), konst(values(Tensor::int64s({2}, {0, big})))}, {{"axis", 1}}},
                Case{"OneHot", {ints(I32, {5}, 0, 6), konst(values(Tensor::floats({}, {6.f}))), konst(values(Tensor::fromVector(DType::Int8, {2}, std::vector<int8_t>{-3, 7})))}, {{"axis", 0}}},
                {"Range", {f32({}, -5, 5), f32({}, 5, 20), f32({}, 0.5, 2)}},
                {"Range", {values(Tensor::int64s({}, {two32 - 40})), values(Tensor::int64s({}, {two32 + 50})), values(Tensor::int64s({}, {3}))}},  // across 2^32
                {"Range", {values(Tensor::fromVector(DType::Int32, {}, std::vector<int32_t>{10})), values(Tensor::fromVector(DType::Int32, {}, std::vector<int32_t>{-20})),
                           values(Tensor::fromVector(DType::Int32, {}, std::vector<int32_t>{-3}))}},
                Case{"TopK", {f32({3, 20}), i64s({5})}}.outputs(2).tol(kExact),
                Case{"TopK", {f32({7, 4, 3}), i64s({3})}, {{"axis", 1}, {"largest", 0}}}.outputs(2).tol(kExact),
                Case{"TopK", {ints(I32, {4, 30}, 0, 5), i64s({10})}}.outputs(2),  // ties in index order
                Case{"TopK", {ints(I64, {2, 9}, -big, big), i64s({4})}, {{"axis", 1}}}.outputs(2),
                Case{"TopK", {values(Tensor::floats({8}, {1.f, nanValue, 3.f, nanValue, -inf, 2.f, 3.f, inf})), i64s({5})}, {{"largest", 0}}}.outputs(2).tol(kExact),
                Case{"TopK", {f32({2, 6, 5}), i64s({6})}, {{"axis", -2}, {"largest", 0}}}.outputs(2).tol(kExact),  // k = n
            };
            for (Case& c : v) t.push_back(std::move(c));
        }
        for (Case& c : t) {
            if (c.key == "Gelu") c.opsetVersion = 20;  // ops of later opsets
            if (c.key == "Mish") c.opsetVersion = 18;
            const std::string op = c.op();
            c.bothProductKernels = op == "Conv" || op == "FusedConv" || op == "MatMul" || op == "FusedMatMul" ||
                                   op == "Gemm" || op == "FusedGemm";
        }
        return t;
    }();
    return table;
}
// clang-format on

} // namespace graphlens::testing
