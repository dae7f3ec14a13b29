// TensorFlow's shape, slicing, gathering and construction ops as ONNX ops (TF's int32 shape
// tensors are cast to ONNX's int64 where ONNX needs them), NonMaxSuppression, and control-flow ops
// kept as opaque nodes that draw but do not run.
#include "core/tf/tf_node_converter.h"

#include "core/tf/tf_tensor.h"

#include <climits>

namespace graphlens::tf {
namespace {

void convertIdentity(NodeConverter& c) {
    if (c.hasNchw(0)) return c.alias(0, c.input(0, Layout::NCHW), Layout::NCHW);
    c.alias(0, c.input(0));
}

void convertReshape(NodeConverter& c) { c.produce("Reshape", {c.input(0), c.int64Input(1)}); }

void convertSqueeze(NodeConverter& c) {
    const std::vector<int64_t> axes = c.attrInts("squeeze_dims").empty() ? c.attrInts("axis") : c.attrInts("squeeze_dims");
    if (axes.empty()) return c.produce("Squeeze", {c.input(0)});
    c.produce("Squeeze", {c.input(0), c.int64Constant(axes, "axes")});
}

void convertExpandDims(NodeConverter& c) {
    const std::vector<int64_t> axis = c.constInts(1);
    c.produce("Unsqueeze", {c.input(0), c.int64Constant(axis, "axes")});
}

/// Shape and Size: ONNX answers int64, TF's out_type is int32 by default.
void convertShapeOf(NodeConverter& c, const std::string& onnxOp) {
    const int type = c.attrType("out_type", DT_INT32);
    const ValueId shape = c.add(onnxOp, {c.input(0)});
    if (type == DT_INT64) return c.alias(0, shape);
    c.produce("Cast", {shape}, {{"to", int64_t(*dtypeFromTf(type))}});
}

/// The count attribute `name` of an op with that many outputs (Unpack's num, Split's num_split).
int64_t outputCount(const NodeConverter& c, const char* name) {
    constexpr int64_t kMaxOutputs = 1 << 16;
    const int64_t num = c.attrInt(name, 1);
    if (num < 1 || num > kMaxOutputs)
        c.fail("has " + std::string(name) + " " + std::to_string(num) + "; it must be between 1 and " + std::to_string(kMaxOutputs));
    return num;
}

void convertPack(NodeConverter& c) {
    const int64_t axis = c.attrInt("axis", 0);
    const ValueId axes = c.int64Constant({axis}, "axes");
    std::vector<ValueId> parts;
    for (size_t i = 0; i < c.inputCount(); ++i) parts.push_back(c.add("Unsqueeze", {c.input(i), axes}));
    if (parts.size() == 1) return c.alias(0, parts[0]);
    c.produce("Concat", parts, {{"axis", axis}});
}

void convertUnpack(NodeConverter& c) {
    const int64_t num = outputCount(c, "num"), axis = c.attrInt("axis", 0);
    std::vector<ValueId> parts;
    if (num == 1) parts = {c.input(0)};
    else c.add("Split", {c.input(0)}, {{"axis", axis}}, int(num), &parts);
    const ValueId axes = c.int64Constant({axis}, "axes");
    for (int64_t k = 0; k < num; ++k) c.produceAt(int(k), "Squeeze", {parts[size_t(k)], axes});
}

void convertConcat(NodeConverter& c) {
    const size_t n = c.inputCount() - 1;  // ConcatV2: the axis comes last
    int64_t axis = c.constInts(n).at(0);
    bool nchw = n > 0;
    for (size_t i = 0; i < n; ++i) nchw = nchw && c.hasNchw(i);
    std::vector<ValueId> parts;
    for (size_t i = 0; i < n; ++i) parts.push_back(c.input(i, nchw ? Layout::NCHW : Layout::NHWC));
    if (nchw) axis = toNchwAxis(axis);
    if (parts.size() == 1) return c.alias(0, parts[0], nchw ? Layout::NCHW : Layout::NHWC);
    c.produce("Concat", parts, {{"axis", axis}}, nchw ? Layout::NCHW : Layout::NHWC);
}

void convertSplit(NodeConverter& c) {  // Split(axis, value): the axis comes first
    const int64_t axis = c.constInts(0).at(0), num = outputCount(c, "num_split");
    if (num == 1) return c.alias(0, c.input(1));
    c.produce("Split", {c.input(1)}, {{"axis", axis}}, Layout::NHWC, int(num));
}

void convertSplitV(NodeConverter& c) {  // SplitV(value, size_splits, axis)
    const std::vector<int64_t> sizes = c.constInts(1);
    const int64_t axis = c.constInts(2).at(0);
    for (int64_t s : sizes)
        if (s < 0) c.fail("has a split size of -1, which GraphLens does not import yet");
    if (sizes.size() == 1) return c.alias(0, c.input(0));
    c.produce("Split", {c.input(0), c.int64Constant(sizes, "split")}, {{"axis", axis}}, Layout::NHWC, int(sizes.size()));
}

/// StridedSlice: a Slice over the specified axes, then Squeeze for shrink_axis_mask and Unsqueeze
/// for new_axis_mask. Axes after an ellipsis count from the end, so the input's rank is not needed.
void convertStridedSlice(NodeConverter& c) {
    const int64_t beginMask = c.attrInt("begin_mask", 0), endMask = c.attrInt("end_mask", 0);
    const int64_t ellipsisMask = c.attrInt("ellipsis_mask", 0), newAxisMask = c.attrInt("new_axis_mask", 0);
    const int64_t shrinkMask = c.attrInt("shrink_axis_mask", 0);
    const std::vector<int64_t> begin = c.constInts(1), end = c.constInts(2), strides = c.constInts(3);
    const size_t n = begin.size();
    if (end.size() != n || strides.size() != n) c.fail("has begin, end and strides of different lengths");
    size_t ellipsis = n;
    for (size_t i = 0; i < n; ++i)
        if (ellipsisMask >> i & 1) { ellipsis = i; break; }
    // Input axis of spec i: counted from the front before the ellipsis, from the back after it.
    std::vector<int64_t> starts, ends, axes, steps, squeeze, unsqueeze;
    int64_t inAxis = 0, outAxis = 0;
    size_t afterCount = 0, afterOut = 0;
    for (size_t i = ellipsis + 1; i < n; ++i) {
        if (!(newAxisMask >> i & 1)) ++afterCount;
        if (!(shrinkMask >> i & 1)) ++afterOut;
    }
    for (size_t i = 0; i < n; ++i) {
        if (i == ellipsis) { inAxis = -int64_t(afterCount); continue; }
        const bool after = i > ellipsis;
        if (newAxisMask >> i & 1) {
            unsqueeze.push_back(after ? -int64_t(afterOut) : outAxis);
            if (after) --afterOut; else ++outAxis;
            continue;
        }
        const int64_t stride = strides[i];
        if (stride == 0) c.fail("has a stride of 0");
        if (shrinkMask >> i & 1) {
            starts.push_back(begin[i]);
            ends.push_back(begin[i] == -1 ? INT64_MAX : begin[i] + 1);
            steps.push_back(1);
            squeeze.push_back(inAxis);
        } else {
            starts.push_back(beginMask >> i & 1 ? (stride > 0 ? 0 : INT64_MAX) : begin[i]);
            ends.push_back(endMask >> i & 1 ? (stride > 0 ? INT64_MAX : INT64_MIN) : end[i]);
            steps.push_back(stride);
            if (after) --afterOut; else ++outAxis;
        }
        axes.push_back(inAxis);
        ++inAxis;
    }
    ValueId x = c.input(0);
    const bool last = squeeze.empty() && unsqueeze.empty();
    if (!axes.empty()) {
        std::vector<ValueId> in{x, c.int64Constant(starts, "starts"), c.int64Constant(ends, "ends"),
                                c.int64Constant(axes, "axes"), c.int64Constant(steps, "steps")};
        if (last) return c.produce("Slice", in);
        x = c.add("Slice", in);
    }
    if (!squeeze.empty()) {
        const ValueId sq = c.int64Constant(squeeze, "squeeze_axes");
        if (unsqueeze.empty()) return c.produce("Squeeze", {x, sq});
        x = c.add("Squeeze", {x, sq});
    }
    if (!unsqueeze.empty()) return c.produce("Unsqueeze", {x, c.int64Constant(unsqueeze, "unsqueeze_axes")});
    c.alias(0, x);
}

void convertSlice(NodeConverter& c) {
    if (!c.constant(1) || !c.constant(2)) {  // computed in the graph: ends = size < 0 ? max : begin + size
        const ValueId begin = c.int64Input(1), size = c.int64Input(2);
        const ValueId negative = c.add("Less", {size, c.int64Constant({0}, "zero", true)});
        const ValueId ends = c.add("Where", {negative, c.int64Constant({INT64_MAX}, "max", true), c.add("Add", {begin, size})});
        return c.produce("Slice", {c.input(0), begin, ends});
    }
    const std::vector<int64_t> begin = c.constInts(1), size = c.constInts(2);
    std::vector<int64_t> ends, axes;
    for (size_t i = 0; i < begin.size(); ++i) {
        ends.push_back(size[i] < 0 ? INT64_MAX : begin[i] + size[i]);
        axes.push_back(int64_t(i));
    }
    c.produce("Slice", {c.input(0), c.int64Constant(begin, "starts"), c.int64Constant(ends, "ends"),
                        c.int64Constant(axes, "axes")});
}

/// Pad, PadV2 and MirrorPad: TF's [rank, 2] paddings become ONNX's [begins..., ends...].
void convertPad(NodeConverter& c, const std::string& mode) {
    if (!c.constant(1)) {  // computed paddings [rank, 2] -> [2, rank] -> flat
        const ValueId t = c.add("Transpose", {c.int64Input(1)}, {{"perm", std::vector<int64_t>{1, 0}}});
        std::vector<ValueId> in{c.input(0), c.add("Reshape", {t, c.int64Constant({-1}, "flat")})};
        if (mode == "constant" && c.inputCount() > 2) in.push_back(c.input(2));
        return c.produce("Pad", in, {{"mode", mode}});
    }
    std::vector<int64_t> p = c.constInts(1);
    const size_t rank = p.size() / 2;
    const bool nchw = c.hasNchw(0) && rank == 4;
    std::vector<int64_t> pads(2 * rank);
    for (size_t i = 0; i < rank; ++i) {
        const size_t axis = nchw ? size_t(toNchwAxis(int64_t(i))) : i;
        pads[axis] = p[2 * i];
        pads[rank + axis] = p[2 * i + 1];
    }
    std::vector<ValueId> in{c.input(0, nchw ? Layout::NCHW : Layout::NHWC), c.int64Constant(pads, "pads")};
    if (mode == "constant" && c.inputCount() > 2) in.push_back(c.input(2));
    c.produce("Pad", in, {{"mode", mode}}, nchw ? Layout::NCHW : Layout::NHWC);
}

void convertMirrorPad(NodeConverter& c) {
    const std::string mode = c.attrString("mode", "REFLECT");
    if (mode != "REFLECT") c.fail("pads in the mode '" + mode + "', which ONNX's Pad has no equivalent of");
    convertPad(c, "reflect");
}

void convertTranspose(NodeConverter& c) { c.produce("Transpose", {c.input(0)}, {{"perm", c.constInts(1)}}); }

void convertGather(NodeConverter& c) {
    const int64_t axis = c.inputCount() > 2 ? c.constInts(2).at(0) : 0;
    if (c.attrInt("batch_dims", 0) != 0) c.fail("gathers with batch_dims, which GraphLens does not import yet");
    c.produce("Gather", {c.input(0), c.input(1)}, {{"axis", axis}});
}

void convertGatherNd(NodeConverter& c) { c.produce("GatherND", {c.input(0), c.int64Input(1)}); }
void convertTile(NodeConverter& c) { c.produce("Tile", {c.input(0), c.int64Input(1)}); }
void convertFill(NodeConverter& c) { c.produce("Expand", {c.input(1), c.int64Input(0)}); }
void convertBroadcastTo(NodeConverter& c) { c.produce("Expand", {c.input(0), c.int64Input(1)}); }
void convertRange(NodeConverter& c) { c.produce("Range", {c.input(0), c.input(1), c.input(2)}); }

void convertFilledLike(NodeConverter& c, float value) {
    const ValueId zero = c.add("Mul", {c.input(0), c.add("Cast", {c.constantValue(Tensor::scalar(0.f), "zero")},
                                                          {{"to", int64_t(*dtypeFromTf(c.attrType("T", DT_FLOAT)))}})});
    if (value == 0.f) return c.alias(0, zero);
    const ValueId one = c.add("Cast", {c.constantValue(Tensor::scalar(value), "one")},
                              {{"to", int64_t(*dtypeFromTf(c.attrType("T", DT_FLOAT)))}});
    c.produce("Add", {zero, one});
}

void convertWhere(NodeConverter& c) {
    c.produce("Transpose", {c.add("NonZero", {c.input(0)})}, {{"perm", std::vector<int64_t>{1, 0}}});
}

/// NonMaxSuppressionV3/V4/V5(boxes [N,4], scores [N], max_output_size, iou, score_threshold
/// [, soft_nms_sigma]): ONNX's NonMaxSuppression on a batch of one, its box index column kept.
void convertNms(NodeConverter& c) {
    if (c.op() == "NonMaxSuppressionV5")
        if (const Tensor* sigma = c.constant(5); !sigma || sigma->toDoubles().at(0) != 0.0)
            c.fail("uses soft NMS (soft_nms_sigma other than 0), which ONNX's NonMaxSuppression does not do");
    if (c.attrBool("pad_to_max_output_size", false)) c.fail("pads to max_output_size, which GraphLens does not import yet");
    const ValueId boxes = c.add("Unsqueeze", {c.input(0), c.int64Constant({0}, "batch_axis")});
    const ValueId scores = c.add("Unsqueeze", {c.input(1), c.int64Constant({0, 1}, "score_axes")});
    const ValueId maxOut = c.add("Reshape", {c.int64Input(2), c.int64Constant({1}, "one")});
    const ValueId iou = c.add("Reshape", {c.input(3), c.int64Constant({1}, "one_iou")});
    std::vector<ValueId> in{boxes, scores, maxOut, iou};
    if (c.inputCount() > 4) in.push_back(c.add("Reshape", {c.input(4), c.int64Constant({1}, "one_score")}));
    const ValueId selected = c.add("NonMaxSuppression", in, {{"center_point_box", int64_t(0)}});
    const ValueId indices = c.add("Gather", {selected, c.int64Constant({2}, "index_column", true)}, {{"axis", int64_t(1)}});
    c.produceAt(0, "Cast", {indices}, {{"to", int64_t(DType::Int32)}});
    if (c.op() != "NonMaxSuppressionV5") return;
    c.produceAt(1, "Gather", {c.input(1), indices}, {{"axis", int64_t(0)}});
    c.produceAt(2, "Cast", {c.add("Size", {indices})}, {{"to", int64_t(DType::Int32)}});
}

/// SparseToDense(indices [N] or [N, rank], output_shape, values [N] or scalar, default): ScatterND
/// of the values into a tensor of the default value.
void convertSparseToDense(NodeConverter& c) {
    const ValueId dense = c.add("Expand", {c.input(3), c.int64Input(1)});
    ValueId indices = c.int64Input(0);
    const auto rank = c.rankOf(indices);
    if (!rank) c.fail("has indices whose rank is not known at import");
    if (*rank < 2) indices = c.add("Reshape", {indices, c.int64Constant({-1, 1}, "index_shape")});
    const ValueId count = c.add("Slice", {c.add("Shape", {indices}), c.int64Constant({0}, "count_start"),
                                          c.int64Constant({1}, "count_end")});
    c.produce("ScatterND", {dense, indices, c.add("Expand", {c.input(2), count})});
}

} // namespace

void registerShapeOps(ConverterTable& t) {
    for (const char* op : {"Identity", "StopGradient", "Snapshot", "PreventGradient", "EnsureShape"}) t[op] = convertIdentity;
    t["Reshape"] = convertReshape;
    t["Squeeze"] = convertSqueeze;
    t["ExpandDims"] = convertExpandDims;
    t["Shape"] = [](NodeConverter& c) { convertShapeOf(c, "Shape"); };
    t["Size"] = [](NodeConverter& c) { convertShapeOf(c, "Size"); };
    t["Pack"] = convertPack;
    t["Unpack"] = convertUnpack;
    t["ConcatV2"] = convertConcat;
    t["Split"] = convertSplit;
    t["SplitV"] = convertSplitV;
    t["StridedSlice"] = convertStridedSlice;
    t["Slice"] = convertSlice;
    t["Pad"] = [](NodeConverter& c) { convertPad(c, "constant"); };
    t["PadV2"] = [](NodeConverter& c) { convertPad(c, "constant"); };
    t["MirrorPad"] = convertMirrorPad;
    t["Transpose"] = convertTranspose;
    t["GatherV2"] = convertGather;
    t["Gather"] = convertGather;
    t["GatherNd"] = convertGatherNd;
    t["Tile"] = convertTile;
    t["Fill"] = convertFill;
    t["BroadcastTo"] = convertBroadcastTo;
    t["Range"] = convertRange;
    t["ZerosLike"] = [](NodeConverter& c) { convertFilledLike(c, 0.f); };
    t["OnesLike"] = [](NodeConverter& c) { convertFilledLike(c, 1.f); };
    t["Where"] = convertWhere;
    t["SparseToDense"] = convertSparseToDense;
    t["NonMaxSuppressionV3"] = convertNms;
    t["NonMaxSuppressionV4"] = convertNms;
    t["NonMaxSuppressionV5"] = convertNms;
}

} // namespace graphlens::tf
