// One check per op family; each names the node and the attribute in one sentence. Ranks and sizes
// are checked only where the graph knows them (declared or inferred shapes, constant inputs).
#include "core/runtime/op_validation.h"

#include "core/graph/op_key.h"
#include "core/onnx/schema_defaults.h"
#include "core/runtime/reference/rnn_spec.h"
#include "core/runtime/resource_limits.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace graphlens {
namespace {

/// Window sizes, strides, dilations and pads above this are refused: no model has them, and the
/// geometry arithmetic of shape inference and the kernels would overflow.
constexpr int64_t kMaxWindowValue = 2147483647;

class NodeCheck {
public:
    NodeCheck(const Graph& g, const Node& n, int64_t opset) : g_(g), n_(n), opset_(opset) {}

    [[noreturn]] void fail(const std::string& what) const {
        const std::string name = n_.name.empty() ? "a node" : "node '" + n_.name + "'";
        const std::string op = OpKey::of(n_).toString();
        throw ValidationError(name + " (" + op + "): " + what);
    }

    const Node& node() const { return n_; }
    int64_t opset() const { return opset_; }

    bool has(const char* name) const { return n_.attributes.has(name); }
    int64_t getInt(const char* name, int64_t fallback) const { return n_.attributes.getInt(name, fallback); }
    std::vector<int64_t> ints(const char* name) const { return n_.attributes.getInts(name); }

    bool hasInput(size_t k) const { return k < n_.inputs().size() && n_.input(k) != kNoId; }
    /// The rank of input k where known.
    std::optional<int64_t> rank(size_t k) const {
        if (!hasInput(k)) return std::nullopt;
        if (const Tensor* t = g_.constantValue(n_.input(k))) return int64_t(t->dims().size());
        const Shape& s = g_.value(n_.input(k)).shape;
        if (!s.rankKnown()) return std::nullopt;
        return int64_t(s.rank());
    }
    /// Dim `axis` of input k where it is a number.
    std::optional<int64_t> dim(size_t k, int64_t axis) const {
        if (!hasInput(k)) return std::nullopt;
        if (const Tensor* t = g_.constantValue(n_.input(k)))
            return axis < int64_t(t->dims().size()) ? std::optional<int64_t>(t->dims()[size_t(axis)]) : std::nullopt;
        const Shape& s = g_.value(n_.input(k)).shape;
        if (!s.rankKnown() || axis >= int64_t(s.rank()) || !s[size_t(axis)].isStatic()) return std::nullopt;
        return s[size_t(axis)].size();
    }
    std::optional<std::vector<double>> constantDoubles(size_t k) const {
        if (!hasInput(k)) return std::nullopt;
        const Tensor* t = g_.constantValue(n_.input(k));
        if (!t || t->numel() > 4096 || t->dtype() == DType::String) return std::nullopt;
        return t->toDoubles();
    }
    /// The values of constant input k as integers, where it is a constant.
    std::optional<std::vector<int64_t>> constantInts(size_t k) const {
        if (!hasInput(k)) return std::nullopt;
        const Tensor* t = g_.constantValue(n_.input(k));
        if (!t || t->numel() > 4096 || t->dtype() == DType::String) return std::nullopt;
        if (isFloatingPoint(t->dtype())) return std::nullopt;
        std::vector<int64_t> out;
        for (double d : t->toDoubles()) out.push_back(d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN : int64_t(d));
        return out;
    }

    /// Every value of ints attribute `name` positive (and not absurdly large).
    void positive(const char* name, int64_t maxValue = kMaxWindowValue) const {
        const auto v = ints(name);
        for (size_t i = 0; i < v.size(); ++i) {
            if (v[i] <= 0) fail(indexed(name, i, v[i]) + "; " + name + " must be positive");
            if (v[i] > maxValue) fail(indexed(name, i, v[i]) + "; " + name + " above " + std::to_string(maxValue) + " are not supported");
        }
    }
    void nonNegative(const char* name, int64_t maxValue = kMaxWindowValue) const {
        const auto v = ints(name);
        for (size_t i = 0; i < v.size(); ++i) {
            if (v[i] < 0) fail(indexed(name, i, v[i]) + "; " + name + " must not be negative");
            if (v[i] > maxValue) fail(indexed(name, i, v[i]) + "; " + name + " above " + std::to_string(maxValue) + " are not supported");
        }
    }
    void positiveInt(const char* name, int64_t fallback, int64_t maxValue = kMaxWindowValue) const {
        const int64_t v = getInt(name, fallback);
        if (v <= 0) fail(std::string(name) + " is " + std::to_string(v) + "; " + name + " must be positive");
        if (v > maxValue) fail(std::string(name) + " is " + std::to_string(v) + "; values above " + std::to_string(maxValue) + " are not supported");
    }
    void count(const char* name, size_t expected, const std::string& why) const {
        if (!has(name)) return;
        const auto v = ints(name);
        if (v.size() != expected)
            fail(std::string(name) + " has " + std::to_string(v.size()) + " values but " + why + " needs " + std::to_string(expected));
    }
    void minRank(size_t k, int64_t least, const char* what) const {
        if (auto r = rank(k); r && *r < least)
            fail(std::string(what) + " has rank " + std::to_string(*r) + "; it needs rank " + std::to_string(least) + " or more");
    }
    void exactRank(size_t k, int64_t expected, const char* what) const {
        if (auto r = rank(k); r && *r != expected)
            fail(std::string(what) + " has rank " + std::to_string(*r) + "; it needs rank " + std::to_string(expected));
    }
    /// Axis `value` (from `what`) within [-r, r - 1 + extra] for a rank r.
    void axisInRange(const std::string& what, int64_t value, int64_t r, int64_t extra = 0) const {
        if (value < -r || value > r - 1 + extra)
            fail(what + " is " + std::to_string(value) + "; it must be in [" + std::to_string(-r) + ", " +
                 std::to_string(r - 1 + extra) + "] for rank " + std::to_string(r));
    }
    /// A list of axes for rank r: in range and no axis twice.
    void axesInRange(const std::string& what, const std::vector<int64_t>& axes, int64_t r) const {
        std::set<int64_t> seen;
        for (size_t i = 0; i < axes.size(); ++i) {
            axisInRange(what + "[" + std::to_string(i) + "]", axes[i], r);
            if (!seen.insert(axes[i] < 0 ? axes[i] + r : axes[i]).second)
                fail(what + " names axis " + std::to_string(axes[i]) + " twice");
        }
    }

    static std::string indexed(const char* name, size_t i, int64_t v) {
        return std::string(name) + "[" + std::to_string(i) + "] is " + std::to_string(v);
    }

private:
    const Graph& g_;
    const Node& n_;
    int64_t opset_;
};

// ---- sliding windows: convolution and pooling ------------------------------------------------

/// Conv-like ops: the index of X and of W (W absent for pooling).
struct WindowOp {
    size_t x;
    std::optional<size_t> w;
    bool needsKernelShape;
    bool hasGroup;
    bool transposed;
};

const std::map<std::string, WindowOp>& windowOps() {
    static const std::map<std::string, WindowOp> ops{
        {"Conv", {0, 1, false, true, false}},
        {"FusedConv", {0, 1, false, true, false}},
        {"ConvInteger", {0, 1, false, true, false}},
        {"QLinearConv", {0, 3, false, true, false}},
        {"ConvTranspose", {0, 1, false, true, true}},
        {"MaxPool", {0, std::nullopt, true, false, false}},
        {"AveragePool", {0, std::nullopt, true, false, false}},
        {"LpPool", {0, std::nullopt, true, false, false}},
        {"MaxUnpool", {0, std::nullopt, true, false, false}},
    };
    return ops;
}

void checkWindow(const NodeCheck& c, const WindowOp& op) {
    c.positive("strides");
    c.positive("dilations");
    c.positive("kernel_shape");
    c.nonNegative("pads");
    if (op.transposed) {
        c.nonNegative("output_padding");
        c.nonNegative("output_shape", INT64_MAX / 4);
    }
    if (op.hasGroup) c.positiveInt("group", 1);
    if (op.needsKernelShape && !c.has("kernel_shape")) c.fail("the kernel_shape attribute is missing");
    if (c.node().opType == "LpPool") c.positiveInt("p", 2, 1 << 20);
    const std::string autoPad = c.node().attributes.getString("auto_pad", "NOTSET");
    if (autoPad != "NOTSET" && autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER" && autoPad != "VALID")
        c.fail("auto_pad is '" + autoPad + "'; it must be NOTSET, SAME_UPPER, SAME_LOWER or VALID");

    const auto rank = c.rank(op.x);
    if (rank && *rank < 3)
        c.fail("input 0 has rank " + std::to_string(*rank) + "; it needs rank 3 or more (batch, channels, spatial axes)");
    if (op.w) {
        if (auto wr = c.rank(*op.w); wr && rank && *wr != *rank)
            c.fail("the weights (input " + std::to_string(*op.w) + ") have rank " + std::to_string(*wr) +
                   " but the input has rank " + std::to_string(*rank));
    }
    if (!rank || *rank < 3) return;
    const size_t spatial = size_t(*rank - 2);
    const std::string why = std::to_string(spatial) + " spatial axes";
    c.count("strides", spatial, why);
    c.count("dilations", spatial, why);
    c.count("kernel_shape", spatial, why);
    c.count("output_padding", spatial, why);
    c.count("pads", 2 * spatial, why);

    if (op.w && op.hasGroup) {
        const int64_t group = c.getInt("group", 1);
        const auto channels = c.dim(op.x, 1);
        const auto w0 = c.dim(*op.w, 0), w1 = c.dim(*op.w, 1);
        if (!op.transposed) {
            if (channels && w1 && *w1 * group != *channels)
                c.fail("the weights have " + std::to_string(*w1) + " input channels per group but the input has " +
                       std::to_string(*channels) + " channels in " + std::to_string(group) + " group(s)");
            if (w0 && *w0 % group != 0)
                c.fail("group is " + std::to_string(group) + " but the " + std::to_string(*w0) +
                       " output channels do not divide into it");
        } else if (channels && *channels % group != 0) {
            c.fail("group is " + std::to_string(group) + " but the " + std::to_string(*channels) +
                   " input channels do not divide into it");
        }
        if (c.has("kernel_shape"))
            for (size_t i = 0; i < spatial; ++i)
                if (auto k = c.dim(*op.w, int64_t(i) + 2); k && *k != c.ints("kernel_shape")[i])
                    c.fail("kernel_shape[" + std::to_string(i) + "] is " + std::to_string(c.ints("kernel_shape")[i]) +
                           " but the weights have " + std::to_string(*k));
    }
    // The window must fit in the padded input (explicit padding only; the others pad to fit).
    if (autoPad != "NOTSET" || op.transposed || c.node().opType == "MaxUnpool") return;
    std::vector<int64_t> kernel = c.ints("kernel_shape");
    const auto dilations = c.ints("dilations");
    const auto pads = c.ints("pads");
    // A pooling window made only of padding has nothing to pool; ONNX Runtime refuses such pads too
    // (fuzzing: pads of 2^20 beside a kernel of 3 made a 100-million-element output of padding).
    if (!op.w && pads.size() == 2 * spatial && kernel.size() == spatial)
        for (size_t i = 0; i < 2 * spatial; ++i)
            if (pads[i] >= kernel[i % spatial])
                c.fail("pads[" + std::to_string(i) + "] is " + std::to_string(pads[i]) + " but the kernel is " +
                       std::to_string(kernel[i % spatial]) + " wide on that axis; a pooling pad must be smaller than the kernel");
    for (size_t i = 0; i < spatial; ++i) {
        int64_t k = i < kernel.size() ? kernel[i] : -1;
        if (k < 0 && op.w) k = c.dim(*op.w, int64_t(i) + 2).value_or(-1);
        const int64_t in = c.dim(op.x, int64_t(i) + 2).value_or(-1);
        if (k <= 0 || k > kMaxWindowValue || in < 0) continue;
        const int64_t d = i < dilations.size() ? dilations[i] : 1;
        const int64_t padding = pads.empty() ? 0 : pads[i] + pads[i + spatial];  // each at most kMaxWindowValue
        if (in > INT64_MAX - padding) continue;  // a padded axis past int64 holds any window (fuzzing: [2^63 - 1] + 4)
        const int64_t padded = in + padding;
        const int64_t extent = (k - 1) * d + 1;  // both factors at most kMaxWindowValue: no overflow
        if (extent > padded)
            c.fail("the window of spatial axis " + std::to_string(i) + " spans " + std::to_string(extent) +
                   " but the padded input has " + std::to_string(padded));
    }
}

// ---- axes ------------------------------------------------------------------------------------

/// Ops with an `axis` attribute over input `input`'s rank; `extra` widens the range (Flatten's
/// axis may equal the rank).
struct AxisOp {
    size_t input;
    int64_t extra;
    int64_t fallback;
};

const std::map<std::string, AxisOp>& axisOps() {
    static const std::map<std::string, AxisOp> ops{
        {"Concat", {0, 0, 0}},       {"Gather", {0, 0, 0}},        {"GatherElements", {0, 0, 0}},
        {"ScatterElements", {0, 0, 0}}, {"Split", {0, 0, 0}},      {"Softmax", {0, 0, -1}},
        {"LogSoftmax", {0, 0, -1}},  {"Hardmax", {0, 0, -1}},      {"ArgMax", {0, 0, 0}},
        {"ArgMin", {0, 0, 0}},       {"LayerNormalization", {0, 0, -1}}, {"TopK", {0, 0, -1}},
        {"Flatten", {0, 1, 1}},      {"LpNormalization", {0, 0, -1}}, {"Compress", {0, 0, 0}},
    };
    return ops;
}

void checkAxis(const NodeCheck& c, const AxisOp& op) {
    if (!c.has("axis")) return;
    const auto r = c.rank(op.input);
    if (!r) return;
    c.axisInRange("axis", c.getInt("axis", op.fallback), *r, op.extra);
}

/// `axes` of reductions, Squeeze and Unsqueeze: an attribute in older opsets, input 1 later.
void checkAxesList(const NodeCheck& c, bool unsqueeze) {
    std::optional<std::vector<int64_t>> axes;
    if (c.has("axes")) axes = c.ints("axes");
    else if (c.hasInput(1)) axes = c.constantInts(1);
    if (!axes) return;
    auto r = c.rank(0);
    if (!r) return;
    if (unsqueeze) *r += int64_t(axes->size());
    c.axesInRange("axes", *axes, *r);
    if (!unsqueeze && c.node().opType == "Squeeze")
        for (int64_t a : *axes)
            if (auto d = c.dim(0, a < 0 ? a + *r : a); d && *d != 1)
                c.fail("axes names axis " + std::to_string(a) + " of size " + std::to_string(*d) + "; Squeeze removes only axes of size 1");
}

// ---- the other families ----------------------------------------------------------------------

void checkTranspose(const NodeCheck& c) {
    if (!c.has("perm")) return;
    const auto perm = c.ints("perm");
    const auto r = c.rank(0);
    if (r && int64_t(perm.size()) != *r)
        c.fail("perm has " + std::to_string(perm.size()) + " values but the input has rank " + std::to_string(*r));
    std::vector<bool> seen(perm.size(), false);
    for (size_t i = 0; i < perm.size(); ++i) {
        if (perm[i] < 0 || perm[i] >= int64_t(perm.size()))
            c.fail(NodeCheck::indexed("perm", i, perm[i]) + "; perm must be a permutation of 0.." + std::to_string(int64_t(perm.size()) - 1));
        if (seen[size_t(perm[i])])
            c.fail("perm names axis " + std::to_string(perm[i]) + " twice; perm must be a permutation of 0.." +
                   std::to_string(int64_t(perm.size()) - 1));
        seen[size_t(perm[i])] = true;
    }
}

void checkSplit(const NodeCheck& c) {
    std::optional<std::vector<int64_t>> split;
    if (c.has("split")) split = c.ints("split");
    else if (c.opset() >= 13 && c.hasInput(1)) split = c.constantInts(1);
    const size_t outputs = c.node().outputs().size();
    if (c.has("num_outputs")) c.positiveInt("num_outputs", 1, 1 << 20);
    if (!split) return;
    for (size_t i = 0; i < split->size(); ++i)
        if ((*split)[i] < 0) c.fail(NodeCheck::indexed("split", i, (*split)[i]) + "; split sizes must not be negative");
    if (split->size() != outputs)
        c.fail("split has " + std::to_string(split->size()) + " sizes for " + std::to_string(outputs) + " outputs");
    const auto r = c.rank(0);
    if (!r) return;
    int64_t axis = c.getInt("axis", 0);
    if (axis < -*r || axis >= *r) return;  // checkAxis says so
    if (axis < 0) axis += *r;
    int64_t sum = 0;
    for (int64_t s : *split) {
        if (s > INT64_MAX - sum) c.fail("the split sizes overflow when summed");
        sum += s;
    }
    if (auto d = c.dim(0, axis); d && sum != *d)
        c.fail("the split sizes sum to " + std::to_string(sum) + " but axis " + std::to_string(axis) + " has size " + std::to_string(*d));
}

void checkBlocks(const NodeCheck& c, bool depthToSpace) {
    c.positiveInt("blocksize", 0, 1 << 16);
    c.exactRank(0, 4, "input 0");
    const int64_t b = c.getInt("blocksize", 1);
    if (depthToSpace) {
        const std::string mode = c.node().attributes.getString("mode", "DCR");
        if (mode != "DCR" && mode != "CRD") c.fail("mode is '" + mode + "'; it must be DCR or CRD");
        if (auto ch = c.dim(0, 1); ch && *ch % (b * b) != 0)
            c.fail("the input's " + std::to_string(*ch) + " channels do not divide by blocksize^2 = " + std::to_string(b * b));
    } else {
        for (int64_t axis : {2, 3})
            if (auto d = c.dim(0, axis); d && *d % b != 0)
                c.fail("spatial axis " + std::to_string(axis) + " of size " + std::to_string(*d) +
                       " does not divide by blocksize " + std::to_string(b));
    }
}

void checkGroupNorm(const NodeCheck& c) {
    c.positiveInt("num_groups", 1, INT64_MAX);
    if (auto ch = c.dim(0, 1); ch && *ch % c.getInt("num_groups", 1) != 0)
        c.fail("num_groups is " + std::to_string(c.getInt("num_groups", 1)) + " but the input's " + std::to_string(*ch) +
               " channels do not divide into it");
}

void checkReshape(const NodeCheck& c) {
    const auto shape = c.constantInts(1);
    if (!shape) return;
    int inferred = 0;
    const bool allowZero = c.getInt("allowzero", 0) != 0;
    for (size_t i = 0; i < shape->size(); ++i) {
        const int64_t s = (*shape)[i];
        if (s < -1) c.fail("the shape input's value " + std::to_string(i) + " is " + std::to_string(s) + "; sizes must be -1 or more");
        if (s == -1 && ++inferred > 1) c.fail("the shape input has more than one -1");
        if (s == 0 && allowZero && std::count(shape->begin(), shape->end(), -1))
            c.fail("the shape input has both a 0 (with allowzero) and a -1");
    }
}

void checkSlice(const NodeCheck& c) {
    if (auto steps = c.constantInts(4))
        for (size_t i = 0; i < steps->size(); ++i)
            if ((*steps)[i] == 0) c.fail("the steps input's value " + std::to_string(i) + " is 0; steps must not be zero");
}

void checkRange(const NodeCheck& c) {
    if (auto delta = c.constantDoubles(2); delta && delta->size() == 1 && (*delta)[0] == 0.0)
        c.fail("the delta input is 0; Range needs a non-zero step");
}

void checkTile(const NodeCheck& c) {
    if (auto repeats = c.constantInts(1)) {
        for (size_t i = 0; i < repeats->size(); ++i)
            if ((*repeats)[i] < 0) c.fail("the repeats input's value " + std::to_string(i) + " is " +
                                          std::to_string((*repeats)[i]) + "; repeats must not be negative");
        if (auto r = c.rank(0); r && int64_t(repeats->size()) != *r)
            c.fail("the repeats input has " + std::to_string(repeats->size()) + " values but the input has rank " + std::to_string(*r));
    }
}

void checkRecurrent(const NodeCheck& c, rnn::RnnKind kind) {
    rnn::RnnSpec s;
    if (std::string problem = rnn::readAttributes(kind, c.node().attributes, c.opset(), s); !problem.empty()) c.fail(problem);
    c.exactRank(0, 3, "input X");
    c.exactRank(1, 3, "input W");
    c.exactRank(2, 3, "input R");
    // W [dirs, gates * hidden, input], R [dirs, gates * hidden, hidden], B [dirs, 2 * gates * hidden].
    const int64_t G = s.gates;
    auto hiddenFrom = [&](size_t k, int64_t axis, int64_t factor) -> std::optional<int64_t> {
        auto d = c.dim(k, axis);
        if (!d) return std::nullopt;
        if (*d % factor != 0)
            c.fail(std::string(k == 1 ? "W" : k == 2 ? "R" : "B") + "'s dim " + std::to_string(axis) + " is " + std::to_string(*d) +
                   ", not a multiple of " + std::to_string(factor) + " (the gates of " + rnn::kindName(kind) + ")");
        return *d / factor;
    };
    for (size_t k : {size_t(1), size_t(2), size_t(3)})
        if (auto d = c.dim(k, 0); d && *d != s.dirs)
            c.fail(std::string(k == 1 ? "W" : k == 2 ? "R" : "B") + "'s first dim is " + std::to_string(*d) + " but direction " +
                   s.direction + " needs " + std::to_string(s.dirs));
    std::optional<int64_t> hidden = c.has("hidden_size") ? std::optional<int64_t>(s.hidden) : std::nullopt;
    auto agree = [&](std::optional<int64_t> h, const std::string& what) {
        if (!h) return;
        if (hidden && *h != *hidden)
            c.fail(what + " gives a hidden size of " + std::to_string(*h) + " but " +
                   (c.has("hidden_size") ? "hidden_size is " : "W gives ") + std::to_string(*hidden));
        hidden = h;
    };
    agree(hiddenFrom(1, 1, G), "W");
    agree(hiddenFrom(2, 1, G), "R");
    agree(c.dim(2, 2), "R's last dim");
    agree(hiddenFrom(3, 1, 2 * G), "B");
    if (auto wi = c.dim(1, 2), xi = c.dim(0, 2); wi && xi && *wi != *xi)
        c.fail("W takes inputs of size " + std::to_string(*wi) + " but X's last dim is " + std::to_string(*xi));
}

void checkNode(const Graph& g, const Node& n, int64_t opset) {
    const NodeCheck c(g, n, opset);
    const std::string& type = n.opType;
    // Kernels read a required attribute's absence as some default (fuzzing: a Concat without its
    // axis wrote past its output), and a required input as given (a Slice without starts and ends
    // copied past its input).
    if (isDefaultDomain(n.domain)) {
        std::vector<bool> present;
        for (ValueId v : n.inputs()) present.push_back(v != kNoId);
        if (const auto missing = missingRequiredArgument(OpKey::of(n), opset, n.attributes, present)) c.fail(*missing);
    }
    if (auto it = windowOps().find(type); it != windowOps().end()) checkWindow(c, it->second);
    if (auto it = axisOps().find(type); it != axisOps().end()) checkAxis(c, it->second);
    if (type == "Transpose") checkTranspose(c);
    else if (type == "Split") checkSplit(c);
    else if (type == "DepthToSpace") checkBlocks(c, true);
    else if (type == "SpaceToDepth") checkBlocks(c, false);
    else if (type == "Squeeze") checkAxesList(c, false);
    else if (type == "Unsqueeze") checkAxesList(c, true);
    else if (type.rfind("Reduce", 0) == 0) checkAxesList(c, false);
    else if (type == "GroupNormalization") checkGroupNorm(c);
    else if (type == "LRN") c.positiveInt("size", 0, 1 << 20);
    else if (type == "Reshape") checkReshape(c);
    else if (type == "Slice") checkSlice(c);
    else if (type == "Range") checkRange(c);
    else if (type == "Tile") checkTile(c);
    else if (type == "LSTM") checkRecurrent(c, rnn::RnnKind::Lstm);
    else if (type == "GRU") checkRecurrent(c, rnn::RnnKind::Gru);
    else if (type == "RNN") checkRecurrent(c, rnn::RnnKind::Rnn);
    else if (type == "Gemm") {
        c.exactRank(0, 2, "input A");
        c.exactRank(1, 2, "input B");
    } else if (type == "MatMul" || type == "MatMulInteger") {
        c.minRank(0, 1, "input A");
        c.minRank(1, 1, "input B");
    } else if (type == "BatchNormalization" || type == "InstanceNormalization") {
        c.minRank(0, 2, "input X");
    }
}

void validateNodes(const Graph& g, int64_t opset) {
    for (NodeId id : g.nodeIds()) {
        const Node& n = g.node(id);
        if (isDefaultDomain(n.domain) || (n.domain == "com.microsoft" && n.opType == "FusedConv")) checkNode(g, n, opset);
        for (const auto& [name, attr] : n.attributes) {
            if (attr.holds<GraphPtr>() && attr.get<GraphPtr>()) validateNodes(*attr.get<GraphPtr>(), opset);
            if (attr.holds<std::vector<GraphPtr>>())
                for (const GraphPtr& sub : attr.get<std::vector<GraphPtr>>())
                    if (sub) validateNodes(*sub, opset);
        }
    }
}

/// Output dims of the ops that materialize a tensor from a shape, from constant inputs.
std::optional<std::vector<int64_t>> materializedDims(const Graph& g, const Node& n) {
    const NodeCheck c(g, n, 0);
    if (n.opType == "ConstantOfShape") return c.constantInts(0);
    if (n.opType == "Tile") {
        const auto repeats = c.constantInts(1);
        if (!repeats || !c.rank(0) || int64_t(repeats->size()) != *c.rank(0)) return std::nullopt;
        std::vector<int64_t> dims;
        for (size_t i = 0; i < repeats->size(); ++i) {
            const auto d = c.dim(0, int64_t(i));
            if (!d) return std::nullopt;
            if ((*repeats)[i] != 0 && *d > INT64_MAX / (*repeats)[i]) return std::vector<int64_t>{-1};
            dims.push_back(*d * (*repeats)[i]);
        }
        return dims;
    }
    if (n.opType == "Expand") {
        auto dims = c.constantInts(1);
        if (!dims) return std::nullopt;
        const auto r = c.rank(0);
        if (!r) return dims;  // a lower bound
        const size_t rank = std::max(dims->size(), size_t(*r));
        std::vector<int64_t> out(rank, 1);
        for (size_t i = 0; i < rank; ++i) {
            const int64_t fromShape = i + dims->size() >= rank ? (*dims)[i + dims->size() - rank] : 1;
            const int64_t fromInput = i + size_t(*r) >= rank ? c.dim(0, int64_t(i + size_t(*r) - rank)).value_or(1) : 1;
            out[i] = std::max(fromShape, fromInput);
        }
        return out;
    }
    if (n.opType == "Range") {
        const auto start = c.constantDoubles(0), limit = c.constantDoubles(1), delta = c.constantDoubles(2);
        if (!start || !limit || !delta || start->size() != 1 || limit->size() != 1 || delta->size() != 1 || (*delta)[0] == 0)
            return std::nullopt;
        const double count = std::ceil(((*limit)[0] - (*start)[0]) / (*delta)[0]);
        if (!(count < 9.2e18)) return std::vector<int64_t>{-1};
        return std::vector<int64_t>{count > 0 ? int64_t(count) : 0};
    }
    return std::nullopt;
}

} // namespace

std::optional<uint64_t> predictedOutputBytes(const Graph& g, const Node& n) {
    uint64_t total = 0;
    bool known = true;
    for (ValueId out : n.outputs()) {
        if (out == kNoId) continue;
        const Value& v = g.value(out);
        const auto sizes = v.shape.sizes();
        if (!sizes || v.dtype == DType::Undefined) {
            known = false;
            break;
        }
        total = saturatingAdd(total, checkedTensorBytes(v.dtype, *sizes).value_or(UINT64_MAX));
    }
    if (known) return total;
    if (const auto dims = materializedDims(g, n); dims && !n.outputs().empty()) {
        for (int64_t d : *dims)
            if (d < 0) return UINT64_MAX;
        const DType type = g.value(n.output(0)).dtype == DType::Undefined ? DType::Float : g.value(n.output(0)).dtype;
        return checkedTensorBytes(type, *dims).value_or(UINT64_MAX);
    }
    return std::nullopt;
}

void validateGraph(const Graph& graph, int64_t opset) { validateNodes(graph, opset); }

} // namespace graphlens
