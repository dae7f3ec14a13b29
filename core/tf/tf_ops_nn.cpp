// TensorFlow's convolution, pooling, resize and activation ops lowered to ONNX ops in NCHW.
// Filters are re-laid out at import (HWIO -> OIHW; depthwise HWCM -> (C*M)1HW with group C), and
// the fused ops TF's Grappler and the TF.js converter make (_FusedConv2D, FusedDepthwiseConv2dNative)
// are expanded back into a Conv followed by its bias, batch norm, residual Add and activation, so
// the project's own fusion passes can fuse them again, one rewrite at a time.
#include "core/tf/tf_node_converter.h"

#include "core/tf/tf_tensor.h"

#include <climits>
#include <cmath>
#include <cstring>

namespace graphlens::tf {
namespace {

/// Constant `t` of node `c` with its axes reordered by `perm` (out dim j = in dim perm[j]); a
/// constant of strings (a file may type a filter so) is refused in one sentence, as its elements
/// have no fixed size to move (fuzzing: a MatMul's string weight crashed the copy).
Tensor transposed(const NodeConverter& c, const Tensor& t, const std::vector<int64_t>& perm) {
    if (t.dtype() == DType::String || dtypeBits(t.dtype()) < 8)
        c.fail("needs numeric constant weights, but one holds " + std::string(dtypeName(t.dtype())) + " values");
    const auto& in = t.dims();
    std::vector<int64_t> outDims;
    for (int64_t p : perm) outDims.push_back(in[size_t(p)]);
    Tensor out = Tensor::allocate(t.dtype(), outDims);
    const size_t element = size_t(dtypeBits(t.dtype()) / 8), rank = in.size();
    std::vector<int64_t> inStride(rank, 1);
    for (size_t i = rank - 1; i > 0; --i) inStride[i - 1] = inStride[i] * in[i];
    std::vector<int64_t> index(rank, 0);
    const int64_t count = t.numel();
    for (int64_t o = 0; o < count; ++o) {
        int64_t s = 0;
        for (size_t j = 0; j < rank; ++j) s += index[j] * inStride[size_t(perm[j])];
        std::memcpy(out.mutableData() + o * int64_t(element), t.data() + s * int64_t(element), element);
        for (size_t j = rank; j-- > 0;) {
            if (++index[j] < outDims[j]) break;
            index[j] = 0;
        }
    }
    return out;
}

/// The (H, W) entries of a TF 4-element list given in the node's data_format.
std::pair<int64_t, int64_t> spatialPair(const NodeConverter& c, const std::string& key, int64_t fallback) {
    const std::vector<int64_t> v = c.attrInts(key);
    if (v.size() != 4) return {fallback, fallback};
    return c.isNchwFormat() ? std::pair{v[2], v[3]} : std::pair{v[1], v[2]};
}

/// strides, dilations and padding of a TF convolution or pooling as ONNX attributes. SAME becomes
/// auto_pad SAME_UPPER (TF puts the odd pixel after, as SAME_UPPER does); the importer turns it
/// into explicit pads once shapes are inferred.
Attributes windowAttributes(const NodeConverter& c, bool dilations) {
    Attributes a;
    const auto [sh, sw] = spatialPair(c, "strides", 1);
    a.set("strides", std::vector<int64_t>{sh, sw});
    if (dilations) {
        const auto [dh, dw] = spatialPair(c, "dilations", 1);
        a.set("dilations", std::vector<int64_t>{dh, dw});
    }
    const std::string padding = c.attrString("padding", "VALID");
    if (padding == "SAME") {
        a.set("auto_pad", "SAME_UPPER");
    } else if (padding == "VALID") {
        a.set("pads", std::vector<int64_t>{0, 0, 0, 0});
    } else if (padding == "EXPLICIT") {
        const std::vector<int64_t> p = c.attrInts("explicit_paddings");
        if (p.size() != 8) c.fail("has EXPLICIT padding without 8 explicit_paddings");
        const size_t h = c.isNchwFormat() ? 4 : 2, w = h + 2;
        a.set("pads", std::vector<int64_t>{p[h], p[w], p[h + 1], p[w + 1]});
    } else {
        c.fail("has the padding '" + padding + "', which is none of SAME, VALID and EXPLICIT");
    }
    return a;
}

/// The data input of a convolution or pooling in NCHW; for data_format NCHW, the TF tensor itself.
ValueId nchwData(NodeConverter& c) { return c.isNchwFormat() ? c.input(0) : c.input(0, Layout::NCHW); }
Layout outputLayout(const NodeConverter& c) { return c.isNchwFormat() ? Layout::NHWC : Layout::NCHW; }

/// One node of a lowering chain: its op reads the previous step's output first, then `extra`.
struct Step {
    std::string op;
    std::vector<ValueId> extra;
    Attributes attributes;
};

/// Emits `first` (with its own inputs) and the steps after it; the last one makes the TF output.
void emitChain(NodeConverter& c, const Step& first, const std::vector<Step>& rest, Layout layout) {
    if (rest.empty()) return c.produce(first.op, first.extra, first.attributes, layout);
    ValueId x = c.add(first.op, first.extra, first.attributes);
    for (size_t i = 0; i < rest.size(); ++i) {
        std::vector<ValueId> inputs{x};
        inputs.insert(inputs.end(), rest[i].extra.begin(), rest[i].extra.end());
        if (i + 1 == rest.size()) c.produce(rest[i].op, inputs, rest[i].attributes, layout);
        else x = c.add(rest[i].op, inputs, rest[i].attributes);
    }
}

ValueId scalarFloat(NodeConverter& c, float value, const std::string& suffix) {
    return c.constantValue(Tensor::scalar(value), suffix);
}

/// The ONNX step of a TF activation; `alpha` is the Prelu slope input (in the output's layout).
std::optional<Step> activationStep(NodeConverter& c, const std::string& name, ValueId alpha = kNoId) {
    if (name == "Relu") return Step{"Relu", {}, {}};
    if (name == "Relu6") return Step{"Clip", {scalarFloat(c, 0.f, "zero"), scalarFloat(c, 6.f, "six")}, {}};
    if (name == "Elu") return Step{"Elu", {}, {{"alpha", 1.0f}}};
    if (name == "Selu") return Step{"Selu", {}, {}};
    if (name == "LeakyRelu") return Step{"LeakyRelu", {}, {{"alpha", c.attrFloat("leakyrelu_alpha", c.attrFloat("alpha", 0.2f))}}};
    if (name == "Sigmoid") return Step{"Sigmoid", {}, {}};
    if (name == "Tanh") return Step{"Tanh", {}, {}};
    if (name == "Prelu" && alpha != kNoId) return Step{"PRelu", {alpha}, {}};
    return std::nullopt;
}

/// A per-channel vector as an NCHW broadcast operand ([C] -> [C,1,1]) or kept for NHWC.
ValueId channelVector(NodeConverter& c, size_t input, Layout layout) {
    if (layout == Layout::NHWC && !c.isNchwFormat()) return c.input(input);
    if (const Tensor* t = c.constant(input); t && t->rank() == 1) {
        Tensor shaped = Tensor::fromBytes(t->dtype(), {t->dims()[0], 1, 1},
                                          std::string(reinterpret_cast<const char*>(t->data()), t->byteSize()));
        return c.constantValue(std::move(shaped), "channel_" + std::to_string(input));
    }
    return c.add("Reshape", {c.input(input), c.int64Constant({-1, 1, 1}, "channel_shape")});
}

enum class ConvKind { Regular, Depthwise };

/// The ONNX weight of a TF filter: HWIO -> OIHW, or depthwise HWCM -> (C*M)1HW.
ValueId convWeight(NodeConverter& c, ConvKind kind, int64_t& group) {
    group = 1;
    if (const Tensor* f = c.constant(1)) {
        if (f->rank() != 4 || !isFloatingPoint(f->dtype())) c.fail("needs a 4-D floating-point filter");
        if (kind == ConvKind::Regular) return c.constantValue(transposed(c, *f, {3, 2, 0, 1}), "filter_oihw");
        const auto& d = f->dims();  // H, W, C, M
        group = d[2];
        Tensor cmhw = transposed(c, *f, {2, 3, 0, 1});
        Tensor weight = Tensor::fromBytes(f->dtype(), {d[2] * d[3], 1, d[0], d[1]},
                                          std::string(reinterpret_cast<const char*>(cmhw.data()), cmhw.byteSize()));
        return c.constantValue(std::move(weight), "filter_oihw");
    }
    if (kind == ConvKind::Depthwise) c.fail("has a filter that is not a constant, which depthwise import needs");
    return c.add("Transpose", {c.input(1)}, {{"perm", std::vector<int64_t>{3, 2, 0, 1}}});
}

/// A convolution between SpaceToBatchND and BatchToSpaceND is a dilated one: dilations are the
/// block shape, pads the SpaceToBatchND paddings less the BatchToSpaceND crops.
void makeAtrous(NodeConverter& c, Attributes& attrs) {
    auto in = c.state().atrousInputs.find(c.inputTensor(0));
    if (in == c.state().atrousInputs.end()) return;
    const auto& [block, paddings] = in->second;
    const auto& consumers = c.state().consumers[c.name()];
    if (consumers.size() != 1 || consumers[0]->op() != "BatchToSpaceND" || consumers[0]->input_size() < 3)
        c.fail("reads a SpaceToBatchND but is not followed by one BatchToSpaceND");
    const auto crops = c.state().constValueOf(tensorName(consumers[0]->input(2)));
    if (!crops || crops->numel() != 4) c.fail("is followed by a BatchToSpaceND whose crops are not 4 constants");
    const std::vector<double> cr = crops->toDoubles();  // none for strings (fuzzing: read past an empty vector)
    if (cr.size() != 4) c.fail("is followed by a BatchToSpaceND whose crops are not 4 numbers");
    for (double d : cr)
        if (!(std::abs(d) <= double(INT32_MAX))) c.fail("is followed by a BatchToSpaceND whose crops are not sizes");
    for (int64_t p : paddings)
        if (p < 0 || p > INT32_MAX) c.fail("reads a SpaceToBatchND whose paddings are not sizes");
    std::vector<int64_t> pads{paddings[0] - int64_t(cr[0]), paddings[2] - int64_t(cr[2]), paddings[1] - int64_t(cr[1]),
                              paddings[3] - int64_t(cr[3])};
    for (int64_t p : pads)
        if (p < 0) c.fail("is a dilated convolution whose crops exceed its paddings");
    attrs.erase("auto_pad");
    attrs.set("pads", pads);
    attrs.set("dilations", block);
    c.state().atrousConvolutions.insert(c.name());
}

/// SpaceToBatchND feeding a convolution that BatchToSpaceND reads back: passed through, the
/// convolution becomes a dilated one (the only form of these ops GraphLens imports).
void convertSpaceToBatch(NodeConverter& c) {
    const std::vector<int64_t> block = c.constInts(1), paddings = c.constInts(2);
    const auto& consumers = c.state().consumers[c.name()];
    bool conv = !consumers.empty() && block.size() == 2 && paddings.size() == 4;
    for (const NodeDef* n : consumers) conv = conv && (n->op() == "Conv2D" || n->op() == "DepthwiseConv2dNative");
    if (!conv) c.fail("is not the input of a dilated convolution (SpaceToBatchND -> Conv2D -> BatchToSpaceND), the only form GraphLens imports");
    c.state().atrousInputs[c.outputTensor(0)] = {block, paddings};
    if (c.hasNchw(0)) return c.alias(0, c.input(0, Layout::NCHW), Layout::NCHW);
    c.alias(0, c.input(0));
}

void convertBatchToSpace(NodeConverter& c) {
    if (!c.state().atrousConvolutions.count(c.inputTensor(0)))
        c.fail("does not follow a dilated convolution (SpaceToBatchND -> Conv2D -> BatchToSpaceND), the only form GraphLens imports");
    if (c.hasNchw(0)) return c.alias(0, c.input(0, Layout::NCHW), Layout::NCHW);
    c.alias(0, c.input(0));
}

/// Conv2D, DepthwiseConv2dNative and their fused forms with `fused_ops` after the convolution.
void convertConv(NodeConverter& c, ConvKind kind, bool fused) {
    int64_t group = 1;
    const ValueId x = nchwData(c);
    const ValueId w = convWeight(c, kind, group);
    Attributes attrs = windowAttributes(c, true);
    makeAtrous(c, attrs);
    if (group != 1) attrs.set("group", group);
    const Layout layout = outputLayout(c);
    Step conv{"Conv", {x, w}, attrs};
    std::vector<Step> rest;
    const std::vector<std::string> ops = fused ? c.attrStrings("fused_ops") : std::vector<std::string>{};
    size_t arg = 2;
    for (size_t i = 0; i < ops.size(); ++i) {
        const std::string& f = ops[i];
        if (f == "BiasAdd" && i == 0) {
            conv.extra.push_back(c.input(arg++));  // the bias is Conv's third input
        } else if (f == "FusedBatchNorm" || f == "FusedBatchNormV3") {
            std::vector<ValueId> params;
            for (int k = 0; k < 4; ++k) params.push_back(c.input(arg++));
            rest.push_back({"BatchNormalization", params, {{"epsilon", c.attrFloat("epsilon", 1e-3f)}}});
        } else if (f == "Add" || f == "AddV2") {
            const ValueId addend = layout == Layout::NCHW ? c.nchwOperand(arg) : c.input(arg);
            if (addend == kNoId) c.fail("adds a tensor GraphLens cannot bring into NCHW layout");
            ++arg;
            rest.push_back({"Add", {addend}, {}});
        } else if (f == "Prelu") {
            const ValueId alpha = layout == Layout::NCHW ? c.nchwOperand(arg) : c.input(arg);
            if (alpha == kNoId) c.fail("has a Prelu slope GraphLens cannot bring into NCHW layout");
            ++arg;
            rest.push_back(*activationStep(c, f, alpha));
        } else if (auto step = activationStep(c, f)) {
            rest.push_back(*step);
        } else {
            c.fail("fuses the op '" + f + "', which GraphLens cannot expand");
        }
    }
    emitChain(c, conv, rest, layout);
}

void convertPool(NodeConverter& c, const std::string& onnxOp) {
    const auto [kh, kw] = spatialPair(c, "ksize", 1);
    Attributes attrs = windowAttributes(c, false);
    attrs.set("kernel_shape", std::vector<int64_t>{kh, kw});
    c.produce(onnxOp, {nchwData(c)}, attrs, outputLayout(c));
}

/// ONNX Resize's sizes [N, C, h, w]: from the input's inferred shape, or computed in the graph.
ValueId resizeSizes(NodeConverter& c, ValueId x) {
    const std::vector<int64_t> hw = c.constant(1) ? c.constInts(1) : std::vector<int64_t>{};
    if (c.constant(1) && hw.size() != 2) c.fail("needs a size of two values");
    if (c.constant(1) && c.rankOf(x)) {
        const Shape& s = c.graph().value(x).shape;
        if (s[0].isStatic() && s[1].isStatic()) return c.int64Constant({s[0].size(), s[1].size(), hw[0], hw[1]}, "sizes");
    }
    const ValueId shape = c.add("Shape", {x});
    const ValueId nc = c.add("Slice", {shape, c.int64Constant({0}, "nc_start"), c.int64Constant({2}, "nc_end")});
    return c.add("Concat", {nc, c.constant(1) ? c.int64Constant(hw, "hw") : c.int64Input(1)}, {{"axis", int64_t(0)}});
}

void convertResize(NodeConverter& c, bool bilinear) {
    const ValueId x = nchwData(c);
    const bool alignCorners = c.attrBool("align_corners", false), halfPixel = c.attrBool("half_pixel_centers", false);
    // TF's nearest neighbour: round(out * scale) with align_corners, floor((out + 0.5) * scale) with
    // half-pixel centers (ONNX: half_pixel's (out + 0.5) * scale - 0.5, rounded half up), else
    // floor(out * scale).
    Attributes attrs{{"mode", bilinear ? "linear" : "nearest"}};
    if (alignCorners) attrs.set("coordinate_transformation_mode", "align_corners");
    else if (halfPixel) attrs.set("coordinate_transformation_mode", "half_pixel");
    else attrs.set("coordinate_transformation_mode", "asymmetric");
    if (!bilinear) attrs.set("nearest_mode", alignCorners || halfPixel ? "round_prefer_ceil" : "floor");
    c.produce("Resize", {x, kNoId, kNoId, resizeSizes(c, x)}, attrs, Layout::NCHW);
}

void convertBiasAdd(NodeConverter& c) {
    const Layout layout = c.hasNchw(0) || c.isNchwFormat() ? Layout::NCHW : Layout::NHWC;
    const ValueId x = c.hasNchw(0) ? c.input(0, Layout::NCHW) : c.input(0);
    c.produce("Add", {x, channelVector(c, 1, layout)}, {}, c.isNchwFormat() ? Layout::NHWC : layout);
}

void convertBatchNorm(NodeConverter& c) {
    if (c.attrBool("is_training", false)) c.fail("is in training mode, which GraphLens does not import");
    std::vector<ValueId> inputs{nchwData(c)};
    for (size_t i = 1; i < 5; ++i) inputs.push_back(c.input(i));
    c.produce("BatchNormalization", inputs, {{"epsilon", c.attrFloat("epsilon", 1e-3f)}}, outputLayout(c));
}

void convertDepthToSpace(NodeConverter& c, const std::string& onnxOp) {
    Attributes attrs{{"blocksize", c.attrInt("block_size", 2)}};
    if (onnxOp == "DepthToSpace") attrs.set("mode", "DCR");
    c.produce(onnxOp, {nchwData(c)}, attrs, outputLayout(c));
}

/// The transposed convolution TF writes as the gradient of a convolution: its output size is an
/// input, so the pads are computed from the inferred input size the way TF pads the forward conv.
/// Output sizes computed in the graph (a Pack of the input's shape) are taken to be what Keras's
/// Conv2DTranspose computes: in * stride for SAME, (in - 1) * stride + (k - 1) * dilation + 1 for VALID.
void convertConvBackpropInput(NodeConverter& c) {
    const Tensor* f = c.constant(1);
    if (!f || f->rank() != 4) c.fail("needs a constant 4-D filter");
    const ValueId x = c.isNchwFormat() ? c.input(2) : c.input(2, Layout::NCHW);
    if (!c.rankOf(x) || !c.graph().value(x).shape.isStatic()) c.fail("has an input whose shape is not known at import");
    const Shape& in = c.graph().value(x).shape;
    const auto [sh, sw] = spatialPair(c, "strides", 1);
    const auto [dh, dw] = spatialPair(c, "dilations", 1);
    const int64_t kh = f->dims()[0], kw = f->dims()[1];
    // The sizes below are computed here, before any validation sees the node: strides and
    // dilations must be positive, and every size must leave that arithmetic inside int64 (fuzzing:
    // a stride of 0 divided by zero).
    constexpr int64_t kMaxSize = 2147483647;
    for (const auto& [name, v] : {std::pair{"strides", sh}, {"strides", sw}, {"dilations", dh}, {"dilations", dw}})
        if (v < 1 || v > kMaxSize)
            c.fail("has " + std::string(name) + " of " + std::to_string(v) + " on a spatial axis; " + name +
                   " must be from 1 to " + std::to_string(kMaxSize));
    for (int64_t size : {kh, kw, in[2].size(), in[3].size()})
        if (size > kMaxSize) c.fail("has a filter or input size of " + std::to_string(size) + ", above the " +
                                    std::to_string(kMaxSize) + " GraphLens imports");
    const bool samePadding = c.attrString("padding", "VALID") == "SAME";
    std::vector<int64_t> outSize;
    if (c.constant(0)) {
        outSize = c.constInts(0);
        if (outSize.size() != 4) c.fail("needs 4 output sizes");
    } else {
        const int64_t ih = in[2].size(), iw = in[3].size();
        const int64_t oh0 = samePadding ? ih * sh : (ih - 1) * sh + (kh - 1) * dh + 1;
        const int64_t ow0 = samePadding ? iw * sw : (iw - 1) * sw + (kw - 1) * dw + 1;
        outSize = c.isNchwFormat() ? std::vector<int64_t>{0, 0, oh0, ow0} : std::vector<int64_t>{0, oh0, ow0, 0};
    }
    const int64_t oh = c.isNchwFormat() ? outSize[2] : outSize[1], ow = c.isNchwFormat() ? outSize[3] : outSize[2];
    if (oh < 0 || ow < 0 || oh > kMaxSize || ow > kMaxSize)
        c.fail("has the output size " + std::to_string(oh) + " x " + std::to_string(ow) + "; each must be from 0 to " +
               std::to_string(kMaxSize));
    std::vector<int64_t> pads{0, 0, 0, 0};
    const std::string padding = c.attrString("padding", "VALID");
    auto same = [](int64_t out, int64_t stride, int64_t k, int64_t d) {
        return std::max<int64_t>(((out + stride - 1) / stride - 1) * stride + (k - 1) * d + 1 - out, 0);
    };
    if (padding == "SAME") {
        const int64_t th = same(oh, sh, kh, dh), tw = same(ow, sw, kw, dw);
        pads = {th / 2, tw / 2, th - th / 2, tw - tw / 2};
    } else if (padding != "VALID") {
        c.fail("has the padding '" + padding + "', which GraphLens does not import for transposed convolutions");
    }
    const int64_t ih = in[2].size(), iw = in[3].size();
    const int64_t fullH = sh * (ih - 1) + (kh - 1) * dh + 1 - pads[0] - pads[2];
    const int64_t fullW = sw * (iw - 1) + (kw - 1) * dw + 1 - pads[1] - pads[3];
    Attributes attrs{{"strides", std::vector<int64_t>{sh, sw}}, {"dilations", std::vector<int64_t>{dh, dw}},
                     {"pads", pads}, {"output_padding", std::vector<int64_t>{oh - fullH, ow - fullW}}};
    const ValueId w = c.constantValue(transposed(c, *f, {3, 2, 0, 1}), "filter_iohw");
    c.produce("ConvTranspose", {x, w}, attrs, outputLayout(c));
}

void activation(ConverterTable& t, const std::string& tfOp) {
    t[tfOp] = [tfOp](NodeConverter& c) {
        const Layout layout = c.hasNchw(0) ? Layout::NCHW : Layout::NHWC;
        auto step = activationStep(c, tfOp);
        c.produce(step->op, [&] {
            std::vector<ValueId> in{c.input(0, layout)};
            in.insert(in.end(), step->extra.begin(), step->extra.end());
            return in;
        }(), step->attributes, layout);
    };
}

/// The 2-D operand of MatMul, transposed when the TF attribute asks (constants at import).
ValueId matmulOperand(NodeConverter& c, size_t i, bool transpose) {
    if (!transpose) return c.input(i);
    if (const Tensor* t = c.constant(i); t && t->rank() == 2)
        return c.constantValue(transposed(c, *t, {1, 0}), "transposed_" + std::to_string(i));
    return c.add("Transpose", {c.input(i)}, {{"perm", std::vector<int64_t>{1, 0}}});
}

/// MatMul and _FusedMatMul (MatMul + BiasAdd + activation, as Grappler fuses a dense layer).
void convertMatMul(NodeConverter& c, bool fused) {
    const ValueId a = matmulOperand(c, 0, c.attrBool("transpose_a", false));
    const ValueId b = matmulOperand(c, 1, c.attrBool("transpose_b", false));
    std::vector<Step> rest;
    size_t arg = 2;
    for (const std::string& f : fused ? c.attrStrings("fused_ops") : std::vector<std::string>{}) {
        if (f == "BiasAdd" || f == "Add" || f == "AddV2") {
            rest.push_back({"Add", {c.input(arg++)}, {}});
        } else if (f == "Prelu") {
            const ValueId alpha = c.input(arg++);
            rest.push_back(*activationStep(c, f, alpha));
        } else if (auto step = activationStep(c, f)) {
            rest.push_back(*step);
        } else {
            c.fail("fuses the op '" + f + "', which GraphLens cannot expand");
        }
    }
    emitChain(c, {"MatMul", {a, b}, {}}, rest, Layout::NHWC);
}

/// BatchMatMul: adj_x / adj_y swap the last two axes of an operand.
void convertBatchMatMul(NodeConverter& c) {
    std::vector<ValueId> in;
    for (size_t i = 0; i < 2; ++i) {
        ValueId v = c.input(i);
        if (c.attrBool(i == 0 ? "adj_x" : "adj_y", false)) {
            const auto rank = c.rankOf(v);
            if (!rank || *rank < 2) c.fail("transposes an operand whose rank is not known at import");
            std::vector<int64_t> perm(*rank);
            for (size_t k = 0; k < *rank; ++k) perm[k] = int64_t(k);
            std::swap(perm[*rank - 1], perm[*rank - 2]);
            v = c.add("Transpose", {v}, {{"perm", perm}});
        }
        in.push_back(v);
    }
    c.produce("MatMul", in);
}

} // namespace

void registerNnOps(ConverterTable& t) {
    t["SpaceToBatchND"] = convertSpaceToBatch;
    t["BatchToSpaceND"] = convertBatchToSpace;
    t["MatMul"] = [](NodeConverter& c) { convertMatMul(c, false); };
    t["_FusedMatMul"] = [](NodeConverter& c) { convertMatMul(c, true); };
    t["BatchMatMul"] = convertBatchMatMul;
    t["BatchMatMulV2"] = convertBatchMatMul;
    t["BatchMatMulV3"] = convertBatchMatMul;
    t["Softmax"] = [](NodeConverter& c) { c.produce("Softmax", {c.input(0)}, {{"axis", int64_t(-1)}}); };
    t["LogSoftmax"] = [](NodeConverter& c) { c.produce("LogSoftmax", {c.input(0)}, {{"axis", int64_t(-1)}}); };
    t["Conv2D"] = [](NodeConverter& c) { convertConv(c, ConvKind::Regular, false); };
    t["_FusedConv2D"] = [](NodeConverter& c) { convertConv(c, ConvKind::Regular, true); };
    t["DepthwiseConv2dNative"] = [](NodeConverter& c) { convertConv(c, ConvKind::Depthwise, false); };
    t["FusedDepthwiseConv2dNative"] = [](NodeConverter& c) { convertConv(c, ConvKind::Depthwise, true); };
    t["_FusedDepthwiseConv2dNative"] = t["FusedDepthwiseConv2dNative"];
    t["Conv2DBackpropInput"] = convertConvBackpropInput;
    t["MaxPool"] = [](NodeConverter& c) { convertPool(c, "MaxPool"); };
    t["AvgPool"] = [](NodeConverter& c) { convertPool(c, "AveragePool"); };
    t["ResizeBilinear"] = [](NodeConverter& c) { convertResize(c, true); };
    t["ResizeNearestNeighbor"] = [](NodeConverter& c) { convertResize(c, false); };
    t["DepthToSpace"] = [](NodeConverter& c) { convertDepthToSpace(c, "DepthToSpace"); };
    t["SpaceToDepth"] = [](NodeConverter& c) { convertDepthToSpace(c, "SpaceToDepth"); };
    t["BiasAdd"] = convertBiasAdd;
    t["FusedBatchNorm"] = convertBatchNorm;
    t["FusedBatchNormV3"] = convertBatchNorm;
    for (const char* op : {"Relu", "Relu6", "Elu", "Selu", "LeakyRelu", "Sigmoid", "Tanh"}) activation(t, op);
    t["Prelu"] = [](NodeConverter& c) {
        const ValueId slope = c.hasNchw(0) ? c.nchwOperand(1) : kNoId;
        const bool nchw = slope != kNoId;
        const ValueId x = nchw ? c.input(0, Layout::NCHW) : c.input(0);
        c.produce("PRelu", {x, nchw ? slope : c.input(1)}, {}, nchw ? Layout::NCHW : Layout::NHWC);
    };
}

} // namespace graphlens::tf
