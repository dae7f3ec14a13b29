// Data movement on the GPU, all through one strided-copy shader (copy.comp, copy_narrow.comp for 8-
// and 16-bit elements), for tensors of any element type: Transpose, Concat (a dispatch per input),
// Split (a dispatch per output), Slice, Expand, Tile, DepthToSpace, SpaceToDepth, and the
// reshape-like ops (Reshape, Flatten, Squeeze, Unsqueeze), which are plain copies.
#include "core/runtime/vulkan/typed.h"

#include <algorithm>

namespace graphlens::vk {

std::optional<Dispatch> copyDispatch(CopyWalk w, TensorRef dst, TensorRef src, DType type) {
    const int bits = dtypeBits(type);
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return std::nullopt;
    if (bits == 64) {  // two words an element: the words are an inner dim
        for (int64_t& v : w.src) v *= 2;
        for (int64_t& v : w.dst) v *= 2;
        w.srcBase *= 2;
        w.dstBase *= 2;
        w.dims.push_back(2);
        w.src.push_back(1);
        w.dst.push_back(1);
    }
    CopyWalk m;
    for (size_t i = 0; i < w.dims.size(); ++i) {
        if (w.dims[i] == 1) continue;
        if (!m.dims.empty() && m.src.back() == w.src[i] * w.dims[i] && m.dst.back() == w.dst[i] * w.dims[i]) {
            m.dims.back() *= w.dims[i];
            m.src.back() = w.src[i];
            m.dst.back() = w.dst[i];
            continue;
        }
        m.dims.push_back(w.dims[i]);
        m.src.push_back(w.src[i]);
        m.dst.push_back(w.dst[i]);
    }
    if (m.dims.size() > 6) return std::nullopt;
    while (m.dims.size() < 6) {
        m.dims.insert(m.dims.begin(), 1);
        m.src.insert(m.src.begin(), 0);
        m.dst.insert(m.dst.begin(), 0);
    }
    const int64_t count = numel(m.dims);
    Constants c;
    c.i(count);
    for (int64_t v : m.dims) c.i(v);
    for (int64_t v : m.src) c.i(v);
    for (int64_t v : m.dst) c.i(v);
    c.i(w.srcBase).i(w.dstBase);
    if (bits < 32) c.i(bits == 8 ? 3 : 5);  // TY_U8, TY_U16 of typed.glsl
    return Dispatch{bits < 32 ? "copy_narrow" : "copy", c.take(), {dst, src}, flatGroups(uint64_t(count), 64)};
}

namespace {

/// Input 0 and output 0 have one element type, of whole bytes (copies move elements as they are).
bool floatInOut(const NodeShapes& s) {
    return s.hasInput(0) && s.hasOutput(0) && s.inputTypes[0] == s.outputTypes[0] && dtypeBits(s.inputTypes[0]) % 8 == 0 &&
           dtypeBits(s.inputTypes[0]) > 0;
}

std::optional<NodeProgram> single(std::optional<Dispatch> d, const char* kernel) {
    if (!d) return std::nullopt;
    return NodeProgram{kernel, {*d}};
}

std::optional<NodeProgram> reshape(const NodeShapes& s) {
    if (!floatInOut(s) || numel(s.inputDims[0]) != numel(s.outputDims[0])) return std::nullopt;
    const int64_t n = numel(s.outputDims[0]);
    auto program = single(copyDispatch({{n}, {1}, {1}}, TensorRef::output(0), TensorRef::input(0), s.outputTypes[0]), "vulkan:copy");
    if (program) program->inPlace = program->copyOnly = true;  // where the input dies here, a free view
    return program;
}

std::optional<NodeProgram> transpose(const NodeShapes& s) {
    if (!floatInOut(s)) return std::nullopt;
    const auto& x = s.inputDims[0];
    std::vector<int64_t> perm = s.attributes().getInts("perm");
    if (perm.empty())
        for (size_t i = x.size(); i-- > 0;) perm.push_back(int64_t(i));
    if (perm.size() != x.size()) return std::nullopt;
    const auto inStrides = stridesOf(x);
    CopyWalk w{s.outputDims[0], {}, stridesOf(s.outputDims[0])};
    for (int64_t p : perm) {
        if (p < 0 || p >= int64_t(x.size())) return std::nullopt;
        w.src.push_back(inStrides[size_t(p)]);
    }
    return single(copyDispatch(w, TensorRef::output(0), TensorRef::input(0), s.outputTypes[0]), "vulkan:transpose");
}

int64_t normalizedAxis(int64_t axis, size_t rank) { return axis < 0 ? axis + int64_t(rank) : axis; }

std::optional<NodeProgram> concat(const NodeShapes& s) {
    if (!s.hasOutput(0)) return std::nullopt;
    const auto& y = s.outputDims[0];
    const int64_t axis = normalizedAxis(s.attributes().getInt("axis", 0), y.size());
    if (axis < 0 || axis >= int64_t(y.size())) return std::nullopt;
    const auto outStrides = stridesOf(y);
    NodeProgram program{"vulkan:concat", {}};
    int64_t offset = 0;
    for (size_t j = 0; j < s.inputDims.size(); ++j) {
        if (!s.hasInput(j) || s.inputTypes[j] != s.outputTypes[0] || s.inputDims[j].size() != y.size()) return std::nullopt;
        const auto& x = s.inputDims[j];
        if (numel(x) > 0) {
            auto d = copyDispatch({x, stridesOf(x), outStrides, 0, offset * outStrides[size_t(axis)]},
                                  TensorRef::output(0), TensorRef::input(int(j)), s.outputTypes[0]);
            if (!d) return std::nullopt;
            program.dispatches.push_back(*d);
        }
        offset += x[size_t(axis)];
    }
    if (offset != y[size_t(axis)]) return std::nullopt;
    return program;
}

std::optional<NodeProgram> split(const NodeShapes& s) {
    if (!s.hasInput(0)) return std::nullopt;
    const auto& x = s.inputDims[0];
    const int64_t axis = normalizedAxis(s.attributes().getInt("axis", 0), x.size());
    if (axis < 0 || axis >= int64_t(x.size())) return std::nullopt;
    const auto inStrides = stridesOf(x);
    NodeProgram program{"vulkan:split", {}};
    int64_t offset = 0;
    for (size_t j = 0; j < s.outputDims.size(); ++j) {
        const auto& y = s.outputDims[j];
        if (!s.hasOutput(j) || s.outputTypes[j] != s.inputTypes[0] || y.size() != x.size()) return std::nullopt;
        if (numel(y) > 0) {
            auto d = copyDispatch({y, inStrides, stridesOf(y), offset * inStrides[size_t(axis)], 0},
                                  TensorRef::output(int(j)), TensorRef::input(0), s.inputTypes[0]);
            if (!d) return std::nullopt;
            program.dispatches.push_back(*d);
        }
        offset += y[size_t(axis)];
    }
    if (offset != x[size_t(axis)]) return std::nullopt;
    return program;
}

/// Int64 (or int32) values of a constant input, or of attribute `name` before opset 10.
std::optional<std::vector<int64_t>> intsOf(const NodeShapes& s, size_t input) {
    if (!s.hasInput(input)) return std::vector<int64_t>{};
    const Tensor* t = s.constants[input];
    if (!t) return std::nullopt;
    std::vector<int64_t> v;
    for (double d : t->toDoubles()) v.push_back(int64_t(d));
    return v;
}

std::optional<NodeProgram> slice(const NodeShapes& s) {
    if (!floatInOut(s)) return std::nullopt;
    const auto& x = s.inputDims[0];
    std::optional<std::vector<int64_t>> starts, axes, steps;
    if (s.opset < 10) {
        starts = s.attributes().getInts("starts");
        axes = s.attributes().getInts("axes");
    } else {
        starts = intsOf(s, 1);
        axes = intsOf(s, 3);
        steps = intsOf(s, 4);
        if (!steps) return std::nullopt;
    }
    if (!starts || !axes) return std::nullopt;
    if (axes->empty())
        for (size_t i = 0; i < starts->size(); ++i) axes->push_back(int64_t(i));
    if (axes->size() != starts->size() || (steps && !steps->empty() && steps->size() != starts->size())) return std::nullopt;
    const auto inStrides = stridesOf(x);
    CopyWalk w{s.outputDims[0], inStrides, stridesOf(s.outputDims[0])};
    for (size_t i = 0; i < axes->size(); ++i) {
        const int64_t axis = normalizedAxis((*axes)[i], x.size());
        if (axis < 0 || axis >= int64_t(x.size())) return std::nullopt;
        const int64_t dim = x[size_t(axis)];
        const int64_t step = steps && !steps->empty() ? (*steps)[i] : 1;
        if (step == 0) return std::nullopt;
        int64_t start = (*starts)[i];
        if (start < 0) start += dim;
        start = step > 0 ? std::clamp<int64_t>(start, 0, dim) : std::clamp<int64_t>(start, 0, dim - 1);
        w.src[size_t(axis)] = inStrides[size_t(axis)] * step;
        if (s.outputDims[0][size_t(axis)] > 0) w.srcBase += start * inStrides[size_t(axis)];
    }
    if (numel(s.outputDims[0]) == 0) return std::nullopt;
    return single(copyDispatch(w, TensorRef::output(0), TensorRef::input(0), s.outputTypes[0]), "vulkan:slice");
}

std::optional<NodeProgram> expand(const NodeShapes& s) {
    if (!floatInOut(s)) return std::nullopt;
    const auto& x = s.inputDims[0];
    const auto& y = s.outputDims[0];
    if (x.size() > y.size()) return std::nullopt;
    const auto own = stridesOf(x);
    CopyWalk w{y, std::vector<int64_t>(y.size(), 0), stridesOf(y)};
    const size_t shift = y.size() - x.size();
    for (size_t i = 0; i < x.size(); ++i) w.src[shift + i] = x[i] == 1 ? 0 : own[i];
    return single(copyDispatch(w, TensorRef::output(0), TensorRef::input(0), s.outputTypes[0]), "vulkan:expand");
}

/// Tile: each dim splits into (repeat, own dim); the repeat walks the output at a whole copy's stride.
std::optional<NodeProgram> tile(const NodeShapes& s) {
    if (!floatInOut(s)) return std::nullopt;
    const auto repeats = intsOf(s, 1);
    const auto& x = s.inputDims[0];
    const auto& y = s.outputDims[0];
    if (!repeats || repeats->size() != x.size() || y.size() != x.size()) return std::nullopt;
    const auto xs = stridesOf(x), ys = stridesOf(y);
    CopyWalk w;
    for (size_t i = 0; i < x.size(); ++i) {
        if ((*repeats)[i] < 0 || x[i] * (*repeats)[i] != y[i]) return std::nullopt;
        w.dims.insert(w.dims.end(), {(*repeats)[i], x[i]});
        w.src.insert(w.src.end(), {0, xs[i]});
        w.dst.insert(w.dst.end(), {x[i] * ys[i], ys[i]});
    }
    if (numel(y) == 0) return std::nullopt;
    return single(copyDispatch(w, TensorRef::output(0), TensorRef::input(0), s.outputTypes[0]), "vulkan:tile");
}

/// DepthToSpace (DCR or CRD) and SpaceToDepth: a reshape to 6 dims and a transpose.
std::optional<NodeProgram> depthSpace(const NodeShapes& s) {
    if (!floatInOut(s) || s.inputDims[0].size() != 4) return std::nullopt;
    const int64_t b = s.attributes().getInt("blocksize", 0);
    if (b <= 0) return std::nullopt;
    if (s.node.opType == "DepthToSpace") {
        const auto& x = s.inputDims[0];
        const int64_t n = x[0], h = x[2], w = x[3], c = x[1] / (b * b);
        if (c * b * b != x[1]) return std::nullopt;
        const bool crd = s.attributes().getString("mode", "DCR") == "CRD";
        // Walk y as [n, c, h, b1, w, b2].
        CopyWalk walk{{n, c, h, b, w, b}, {}, stridesOf({n, c, h, b, w, b})};
        walk.src = crd ? std::vector<int64_t>{x[1] * h * w, b * b * h * w, w, b * h * w, 1, h * w}
                       : std::vector<int64_t>{x[1] * h * w, h * w, w, b * c * h * w, 1, c * h * w};
        return single(copyDispatch(walk, TensorRef::output(0), TensorRef::input(0), s.outputTypes[0]), "vulkan:depth-to-space");
    }
    const auto& x = s.inputDims[0];
    const int64_t n = x[0], c = x[1], h = x[2] / b, w = x[3] / b;
    if (h * b != x[2] || w * b != x[3]) return std::nullopt;
    // Walk x as [n, c, h, b1, w, b2]; y channel (b1 * b + b2) * c + channel.
    CopyWalk walk{{n, c, h, b, w, b}, stridesOf({n, c, h, b, w, b}),
                  {c * b * b * h * w, h * w, w, b * c * h * w, 1, c * h * w}};
    return single(copyDispatch(walk, TensorRef::output(0), TensorRef::input(0), s.outputTypes[0]), "vulkan:space-to-depth");
}

} // namespace

void registerLayoutOps(VulkanOpRegistry& registry) {
    for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze"}) registry.add(op, reshape);
    registry.add("Transpose", transpose);
    registry.add("Concat", concat);
    registry.add("Split", split);
    registry.add("Slice", slice);
    registry.add("Expand", expand);
    registry.add("Tile", tile);
    registry.add("DepthToSpace", depthSpace);
    registry.add("SpaceToDepth", depthSpace);
}

} // namespace graphlens::vk
