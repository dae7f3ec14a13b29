// quantize-int8 (lossy): static int8 quantization in ONNX Runtime's QDQ format (what its
// quantize_static writes with QuantFormat.QDQ and per_channel=True), activations calibrated:
//   weight of Conv, Gemm, MatMul:  W -> DequantizeLinear(q s8, scale_k = max|W_k| / 127, 0, axis)
//   bias (Conv, Gemm):             b -> DequantizeLinear(round(b / (s_x * s_w,k)) as int32, s_x * s_w,k, 0, 0)
//   activation t (inputs of those ops, and their outputs, after a Relu or Clip that follows):
//       t -> QuantizeLinear(t, s, z) -> DequantizeLinear(., s, z)   u8, with min <= 0 <= max
//       the float model's min and max of t over the calibration inputs, s = (max - min) / 255,
//       z = round(-min / s)
// A Clip(lo, hi) after the node (ReLU6) is implied when s * (0 - z) >= lo and s * (255 - z) <= hi:
// the scale is narrowed to make it so, and the Clip then folds into the int8 node's saturation.
// An activation alone after such a node (HardSwish, Sigmoid, x * Sigmoid(x)...) gets a pair on its
// output too (the CPU plan tabulates DequantizeLinear -> activation -> QuantizeLinear, qdq_fusion.h).
// FusedConv, FusedGemm and FusedMatMul of a constant weight from the fusion passes are split back first.
// The CPU plan runs DequantizeLinear -> Conv -> [Relu|Clip] -> QuantizeLinear as one int8 QLinearConv,
// and the same around MatMul and Gemm as QLinearMatMul and QGemm (core/runtime/cpu/qdq_fusion.h). The pass reports what it costs: each quantized node's output
// error on the first calibration input and the error of the graph outputs.
#include "core/passes/calibration.h"
#include "core/passes/fused_activation.h"
#include "core/passes/graph_query.h"
#include "core/passes/quantize_int8.h"
#include "core/passes/rewriter.h"
#include "core/passes/subgraph_match.h"
#include "core/passes/weight_slots.h"
#include "core/runtime/backend.h"
#include "core/runtime/cpu/qdq_fusion.h"
#include "core/runtime/tensor_compare.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>
#include <span>
#include <stdexcept>

namespace graphlens {
namespace {

/// u8 asymmetric parameters of an activation whose calibrated range is [lo, hi].
struct ActivationParams {
    float lo = 0, hi = 0;
    float scale = 1;
    uint8_t zeroPoint = 0;
};

/// The range widened to include 0; scale = (hi - lo) / 255 (1 for an all-zero tensor),
/// zero point = round(-lo / scale), in [0, 255].
ActivationParams activationParams(float lo, float hi) {
    ActivationParams p;
    p.lo = std::min(lo, 0.f);
    p.hi = std::max(hi, 0.f);
    const double scale = (double(p.hi) - double(p.lo)) / 255.0;
    p.scale = scale > 0 ? float(scale) : 1.f;
    const double zero = scale > 0 ? std::nearbyint(-double(p.lo) / scale) : 0.0;
    p.zeroPoint = uint8_t(std::clamp(zero, 0.0, 255.0));
    return p;
}

/// A node whose weight becomes int8 and whose input and output become u8.
struct Target {
    NodeId node = kNoId;
    int64_t axis = 0;       ///< output-channel axis of the weight
    ValueId input = kNoId;  ///< its activation input
    ValueId output = kNoId; ///< its output, or the output of the Relu or Clip that alone reads it
    ValueId product = kNoId; ///< its own output
    std::optional<std::pair<float, float>> clip;  ///< the bounds of the Clip that alone reads it
    bool quantizeBias = false;
    /// The output of the activation (HardSwish, Sigmoid, x * Sigmoid(x)...) that alone reads its
    /// output, quantized too so the CPU plan runs it as an int8 lookup table; kNoId when none.
    ValueId activation = kNoId;
};

/// The output of what alone reads `v` when it is an activation the CPU plan tabulates between a
/// DequantizeLinear and a QuantizeLinear (tabulatesActivation), or x * Sigmoid(x) (a Sigmoid and a
/// Mul the only readers of v); kNoId otherwise.
ValueId tabulatedActivationAfter(const Graph& g, ValueId v) {
    const std::vector<Use>& uses = g.value(v).uses();
    if (g.isGraphOutput(v) || uses.empty() || uses.size() > 2) return kNoId;
    if (uses.size() == 1) {
        const Node& n = g.node(uses[0].node);
        return tabulatesActivation(n) ? n.output(0) : kNoId;
    }
    const Node* sigmoid = nullptr;
    const Node* mul = nullptr;
    for (const Use& u : uses) {
        const Node& n = g.node(u.node);
        if (!n.domain.empty()) return kNoId;
        if (n.opType == "Sigmoid") sigmoid = &n;
        else if (n.opType == "Mul" && n.inputs().size() == 2) mul = &n;
    }
    if (!sigmoid || !mul) return kNoId;
    const ValueId gate = sigmoid->output(0);
    if (g.isGraphOutput(gate) || g.value(gate).uses().size() != 1) return kNoId;
    const bool swish = (mul->input(0) == v && mul->input(1) == gate) || (mul->input(0) == gate && mul->input(1) == v);
    return swish ? mul->output(0) : kNoId;
}

/// True when u8 quantization with `p` saturates inside [lo, hi], so Q(Clip(t)) = Q(t): the test the
/// CPU plan folds the Clip by.
bool clipImplied(const ActivationParams& p, float lo, float hi) {
    return clipImpliedByQuantization(p.scale, float(p.zeroPoint), 0.f, 255.f, lo, hi);
}

/// The parameters of an activation calibrated after a Clip(lo, hi) whose range holds 0, narrowed
/// so the Clip is implied: the scale shrinks (by less than half a step at one end) until both
/// ends of the quantized range lie inside the calibrated one, which the Clip bounds.
ActivationParams paramsInsideClip(ActivationParams p, float lo, float hi) {
    if (p.scale <= 0 || p.lo == p.hi) return p;
    double s = p.scale;
    if (p.zeroPoint > 0) s = std::min(s, -double(p.lo) / p.zeroPoint);
    if (p.zeroPoint < 255) s = std::min(s, double(p.hi) / (255 - p.zeroPoint));
    p.scale = float(s);
    for (int i = 0; i < 8 && !clipImplied(p, lo, hi); ++i) p.scale = std::nextafter(p.scale, 0.f);  // float rounding
    return p;
}

/// One tensor's error: the largest |quantized - float|, and the largest relative error over
/// elements at least 1% of the tensor's largest magnitude (smaller ones make any ratio huge).
struct Error {
    double maxAbs = 0, maxRel = 0;
};

Error errorOf(const Tensor& got, const Tensor& expected) {
    double largest = 0;
    for (double v : expected.toDoubles()) largest = std::max(largest, std::fabs(v));
    const TensorComparison c = compareTensors(got, expected, 0, std::max(largest * 0.01, 1e-30));
    return {c.maxAbsError, c.maxRelError};
}

std::string describeError(const Error& e) {
    return "max abs error " + formatNumber(e.maxAbs) + ", max rel error " + formatNumber(e.maxRel);
}

/// Runs a model on input sets with some of its values as extra outputs, compiling the plan once
/// per set of input shapes.
class Probe {
public:
    Probe(Model model, const std::vector<ValueId>& probes, int threads) : model_(std::move(model)), threads_(threads) {
        std::vector<ValueId> outputs = model_.graph.outputs();
        graphOutputs_ = outputs.size();
        outputs.insert(outputs.end(), probes.begin(), probes.end());
        model_.graph.setOutputs(outputs);
    }
    /// The probed tensors, in order; the graph outputs into `outputs` when given.
    std::vector<Tensor> run(const InputSet& feeds, std::vector<Tensor>* outputs = nullptr) {
        CompileOptions compile;
        compile.threads = threads_;
        for (const auto& [name, tensor] : feeds) compile.inputShapes[name] = tensor.dims();
        if (!plan_ || compile.inputShapes != shapes_) {
            plan_ = makeCpuBackend()->compile(model_, compile);
            shapes_ = compile.inputShapes;
        }
        std::vector<Tensor> results = plan_->run(feeds);
        if (outputs) outputs->assign(results.begin(), results.begin() + std::ptrdiff_t(graphOutputs_));
        return {results.begin() + std::ptrdiff_t(graphOutputs_), results.end()};
    }

private:
    Model model_;
    size_t graphOutputs_ = 0;
    int threads_ = 0;
    std::unique_ptr<Plan> plan_;
    std::map<std::string, std::vector<int64_t>> shapes_;
};

class QuantizeInt8Static final : public Pass {
public:
    std::string id() const override { return "quantize-int8"; }
    std::string title() const override { return "Quantize to int8 with calibrated activations (QDQ)"; }
    bool lossy() const override { return true; }
    std::string explanation() const override {
        return "Lossy: static int8 quantization in ONNX Runtime's QDQ format (quantize_static with "
               "QuantFormat.QDQ, per_channel=True). The constant float weight of each Conv, Gemm and "
               "MatMul becomes int8 with one scale per output channel k, scale_k = max|W_k| / 127 (63 with "
               "--reduce-range: 7-bit weights, which the int8 products of machines without VNNI cannot saturate, "
               "as ONNX Runtime's reduce_range), behind a "
               "DequantizeLinear (axis 0 for Conv and for Gemm with transB, 1 for Gemm without it and for "
               "a MatMul's [K, N] weight); a Conv or Gemm bias becomes int32 in units of input scale * "
               "scale_k. The activations (the input of each such node, and its output, after the Relu or Clip when "
               "one alone reads it) pass through QuantizeLinear -> DequantizeLinear pairs, u8 asymmetric: "
               "the float model runs on the calibration inputs (--calibration DIR, ONNX TensorProto files "
               "as DIR/test_data_set_N/input_K.pb or DIR/input_K.pb; without it 4 seeded random input "
               "sets, floats standard normal and integers in [0, 10), which the notes say); each tensor's "
               "min and max, widened to include 0, give scale = (max - min) / 255 and zero point = round(-min / scale). The CPU "
               "plan runs each DequantizeLinear -> Conv -> [Relu or Clip] -> QuantizeLinear as one int8 "
               "QLinearConv (MatMul and Gemm: QLinearMatMul and QGemm, and int8 with a float output where no "
               "QuantizeLinear follows), and ONNX Runtime runs the file as it runs its own. A com.microsoft FusedConv "
               "is split back into Conv, Add and its activation first, a FusedGemm into Gemm and its activation, a FusedMatMul of "
               "a constant weight into MatMul (its weight stored transposed and scaled by alpha where it says so). "
               "An activation that alone reads a quantized node's output (HardSwish, HardSigmoid, Sigmoid, Tanh, "
               "x * Sigmoid(x) as a Sigmoid and a Mul, ...) gets a pair on its output too: the CPU plan runs "
               "DequantizeLinear -> activation -> QuantizeLinear as a 256-entry int8 lookup table (as ONNX Runtime "
               "runs QLinearSigmoid), so MobileNetV3 and EfficientNet stay int8 between their convolutions. "
               "A Clip(min, max) after a node (MobileNet's ReLU6; min <= 0 <= max) is calibrated after the Clip, "
               "as ONNX Runtime's quantizer does, and the scale narrowed by less than half a step so that every "
               "u8 value s * (q - z) lies in [min, max]: the Clip is then implied by the int8 saturation "
               "(ONNX Runtime's ClipQuantFusion test) and DequantizeLinear -> Conv -> Clip -> QuantizeLinear runs "
               "as one QLinearConv. Where it is not (an all-zero calibrated output), the node's own output "
               "is quantized and the Clip stays float between a DequantizeLinear and the next QuantizeLinear, "
               "as the tabulated activations do. A MaxPool between quantized values (or before a quantized node, after a float "
               "one such as SqueezeNet's Concat) gets a pair on its input too, and its output takes its input's scale and zero "
               "point, as ONNX Runtime's quantizer shares them: the CPU plan then pools the u8 codes themselves. "
               "Graph outputs stay float. The notes report the error each quantized node's output has on the first "
               "calibration input against the float model, and the graph outputs' error. It declines "
               "weights read by several nodes or not float32, and models before opset 13.";
    }

    void run(Rewriter& rw, PassContext& context) override {
        splitFusedNodes(rw, context.opset);
        std::vector<Target> targets = findTargets(rw, context);
        if (targets.empty()) return;

        // The tensors to calibrate: each node's input, its output and the Relu's or Clip's after it,
        // and the input of each MaxPool whose output is quantized.
        std::vector<ValueId> calibrated;
        for (const Target& t : targets)
            for (ValueId v : {t.input, t.output, t.product, t.activation})
                if (v != kNoId && std::find(calibrated.begin(), calibrated.end(), v) == calibrated.end()) calibrated.push_back(v);
        const std::vector<NodeId> pools = maxPoolsBetweenQuantized(rw.graph(), calibrated);
        for (NodeId p : pools)
            if (std::find(calibrated.begin(), calibrated.end(), rw.graph().node(p).input(0)) == calibrated.end())
                calibrated.push_back(rw.graph().node(p).input(0));

        // Calibrate: run the float model on every input set, keep each activation's range and
        // the first set's float values of every probed tensor.
        const CalibrationSettings& settings = context.calibration;
        const bool random = settings.inputSets.empty();
        const std::vector<InputSet> sets =
            random ? randomCalibrationSets(rw.graph(), settings.randomSamples, settings.seed) : settings.inputSets;
        if (sets.empty()) return;
        const std::vector<ValueId>& probes = calibrated;
        Probe floatModel(modelOf(rw.graph(), context), probes, settings.threads);
        std::map<ValueId, std::pair<float, float>> ranges;
        std::map<ValueId, Tensor> floatValues;  // first set
        std::vector<Tensor> floatOutputs;
        for (size_t s = 0; s < sets.size(); ++s) {
            std::vector<Tensor> outputs;
            std::vector<Tensor> values;
            try {
                values = floatModel.run(sets[s], &outputs);
            } catch (const std::exception& e) {
                throw std::runtime_error("quantize-int8 could not run the float model on calibration input " +
                                         std::to_string(s + 1) + " to calibrate it: " + e.what());
            }
            for (size_t i = 0; i < probes.size(); ++i) {
                if (s == 0) floatValues[probes[i]] = values[i];
                const auto span = values[i].span<float>();
                if (span.empty()) continue;
                const auto [lo, hi] = std::minmax_element(span.begin(), span.end());
                auto& range = ranges.try_emplace(probes[i], *lo, *hi).first->second;
                range = {std::min(range.first, *lo), std::max(range.second, *hi)};
            }
            if (s == 0) floatOutputs = std::move(outputs);
        }

        // A Clip after a node goes into its QuantizeLinear's saturation where the range calibrated
        // after it makes it implied; where not, the node's own output is quantized and the Clip
        // stays float between a DequantizeLinear and the next QuantizeLinear.
        std::map<ValueId, ActivationParams> params;
        const auto rangeOf = [&](ValueId v) { return ranges.count(v) ? ranges[v] : std::pair<float, float>{0.f, 0.f}; };
        size_t clipsImplied = 0, clipsKept = 0;
        for (Target& t : targets) {
            if (!t.clip) continue;
            const auto [lo, hi] = rangeOf(t.output);
            const ActivationParams p = paramsInsideClip(activationParams(lo, hi), t.clip->first, t.clip->second);
            if (clipImplied(p, t.clip->first, t.clip->second)) {
                params[t.output] = p;
                ++clipsImplied;
            } else {
                t.output = t.product;
                ++clipsKept;
            }
        }
        // A MaxPool's output takes its input's parameters (the input's range holds the output's),
        // so the plan pools the codes.
        for (NodeId id : pools) {
            const Node& pool = rw.graph().node(id);
            const ValueId in = pool.input(0);
            if (!params.count(in)) params[in] = activationParams(rangeOf(in).first, rangeOf(in).second);
            params[pool.output(0)] = params[in];
        }
        // Rewrite: activations first (a bias needs its input's scale), then each node's weights.
        std::vector<ValueId> activations;  // in the order the nodes come
        for (NodeId id : pools)
            if (std::find(activations.begin(), activations.end(), rw.graph().node(id).input(0)) == activations.end())
                activations.push_back(rw.graph().node(id).input(0));
        size_t tabulated = 0;
        for (const Target& t : targets) {
            for (ValueId v : {t.input, t.output, t.activation})
                if (v != kNoId && std::find(activations.begin(), activations.end(), v) == activations.end()) activations.push_back(v);
            tabulated += t.activation != kNoId && !rw.graph().value(t.activation).uses().empty();  // a graph output alone stays float
        }
        size_t pairs = 0;
        for (ValueId v : activations) {
            if (!params.count(v)) params[v] = activationParams(rangeOf(v).first, rangeOf(v).second);
            pairs += insertQdqPair(rw, v, params[v]);
        }
        std::vector<size_t> rewriteOf;  // per target: its rewrite's index in the result
        for (const Target& t : targets) {
            quantizeWeights(rw, t, params.at(t.input), context.reduceRange ? kReducedLevels : kFullLevels);
            rewriteOf.push_back(rw.result().rewrites.size() - 1);
        }

        // Report: each node's output error (QDQ evaluated in float, as ONNX defines it) and the
        // outputs' error on the CPU plan, which runs the int8 kernels.
        const Model quantized = modelOf(rw.graph(), context);
        std::vector<ValueId> outputsProbed;
        for (const Target& t : targets) outputsProbed.push_back(rw.graph().node(t.node).output(0));
        const std::vector<Tensor> after = Probe(quantized, outputsProbed, settings.threads).run(sets[0]);
        Error worst;
        std::string worstNode;
        for (size_t i = 0; i < targets.size(); ++i) {
            const Error e = errorOf(after[i], floatValues.at(outputsProbed[i]));
            rw.result().rewrites[rewriteOf[i]].sentence += "; its output on calibration input 1: " + describeError(e);
            if (e.maxAbs >= worst.maxAbs) {
                worst = e;
                worstNode = describe(rw.graph().node(targets[i].node));
            }
        }
        std::vector<Tensor> int8Outputs;
        Probe(quantized, {}, settings.threads).run(sets[0], &int8Outputs);
        Error outputError;
        for (size_t i = 0; i < int8Outputs.size() && i < floatOutputs.size(); ++i) {
            const Error e = errorOf(int8Outputs[i], floatOutputs[i]);
            outputError = {std::max(outputError.maxAbs, e.maxAbs), std::max(outputError.maxRel, e.maxRel)};
        }
        auto& notes = rw.result().notes;
        notes.push_back("calibrated on " + std::to_string(sets.size()) +
                        (random ? " seeded random input sets (floats standard normal, integers in [0, 10), seed " + std::to_string(settings.seed) +
                                      "; give --calibration DIR for representative ranges)"
                                : " input sets from '" + settings.source + "'"));
        notes.push_back("int8 QDQ: " + std::to_string(targets.size()) + " nodes with int8 weights, " +
                        std::to_string(pairs) + " activations as u8 QuantizeLinear -> DequantizeLinear pairs");
        if (tabulated > 0)
            notes.push_back(std::to_string(tabulated) + " activation" + (tabulated == 1 ? "" : "s") +
                            " after a quantized node (HardSwish, Sigmoid, x * Sigmoid(x)...) quantized on both sides: the CPU "
                            "plan runs each as a 256-entry int8 lookup table");
        if (!pools.empty())
            notes.push_back(std::to_string(pools.size()) + " MaxPool" + (pools.size() == 1 ? "" : "s") +
                            " quantized on both sides with their input's scale and zero point: the CPU plan pools the u8 codes");
        if (clipsImplied + clipsKept > 0)
            notes.push_back(std::to_string(clipsImplied) + " of " + std::to_string(clipsImplied + clipsKept) +
                            " Clips after a quantized node are implied by their output's u8 range (the CPU plan and ONNX "
                            "Runtime fold them into the int8 node)" +
                            (clipsKept ? "; " + std::to_string(clipsKept) + " stay float after a quantized output" : ""));
        if (context.reduceRange)
            notes.push_back("weights within [-63, 63] (--reduce-range): int8 products add pairs of u8 x s8 products "
                            "in 16-bit sums without saturating on every machine, at twice the weight rounding error");
        else if (int8ProductsSaturate())
            notes.push_back("this machine's int8 convolutions and products of more than one row (no VNNI) add pairs "
                            "of u8 x s8 products in saturating 16-bit sums, so full-range weights can lose precision "
                            "in the CPU plan's int8 kernels "
                            "(the errors below include it); --reduce-range keeps weights within [-63, 63], where "
                            "they cannot, at twice the rounding error of each weight");
        notes.push_back("largest node output error on calibration input 1: " + worstNode + ", " + describeError(worst));
        notes.push_back("graph outputs on calibration input 1 (CPU plan, int8 kernels) against the float model: " +
                        describeError(outputError));
    }

private:
    /// `q` as initializer `name` with its scale and zero point, behind a DequantizeLinear along
    /// `axis`; the DequantizeLinear's output.
    static ValueId addDequantized(Rewriter& rw, const std::string& name, const Tensor& q, const Tensor& scale,
                                  const Tensor& zero, int64_t axis, std::span<const NodeId> from) {
        const ValueId qv = rw.addInitializer(name, q);
        const ValueId sv = rw.addInitializer(name + "_scale", scale);
        const ValueId zv = rw.addInitializer(name + "_zero_point", zero);
        const NodeId dq = rw.addNode("DequantizeLinear", {qv, sv, zv}, {name + "_DequantizeLinear_Output"}, {{"axis", axis}},
                                     from, name + "_DequantizeLinear");
        const ValueId out = rw.graph().node(dq).output(0);
        rw.setValueInfo(out, DType::Float, Shape::ofSizes(q.dims()));
        return out;
    }

    /// A model holding a copy of `graph`, for the CPU backend.
    static Model modelOf(const Graph& graph, const PassContext& context) {
        Model m;
        m.opsets = {{"", context.opset}, {"com.microsoft", 1}};
        m.graph = graph;
        return m;
    }

    /// FusedMatMul(x, W) of a constant float matrix only it reads (fuse-matmul-scale's x * W^T
    /// and x * W * alpha) -> MatMul(x, W') with W' = alpha * W, stored as [K, N] (transposed once
    /// here for transB), so that the QDQ pattern finds a MatMul and its weight. A FusedMatMul that
    /// transposes x or batches stays as it is (float).
    static void splitFusedMatMul(Rewriter& rw, NodeId id) {
        const Graph& g = rw.graph();
        const Node& n = g.node(id);
        const Tensor* w = constantInput(g, n, 1);
        const Attributes& a = n.attributes;
        if (!w || w->dtype() != DType::Float || w->rank() != 2 || !hasInput(n, 0) || !hasSingleUse(g, n.input(1)) ||
            a.getInt("transA", 0) || a.getInt("transBatchA", 0) || a.getInt("transBatchB", 0))
            return;
        const float alpha = a.getFloat("alpha", 1.f);
        const bool transB = a.getInt("transB", 0) != 0;
        const std::string sentence = "split " + describe(n) + " back into a MatMul for the QDQ pattern" +
                                     (transB ? ", its weight " + quoted(g, n.input(1)) + " stored transposed" : "") +
                                     (alpha != 1.f ? ", alpha " + formatNumber(alpha) + " multiplied into it" : "");
        const ValueId x = n.input(0);
        ValueId weight = n.input(1);
        if (transB || alpha != 1.f) {
            const int64_t rows = w->dims()[0], cols = w->dims()[1];
            Tensor scaled = Tensor::allocate(DType::Float, transB ? std::vector{cols, rows} : std::vector{rows, cols});
            const std::span<const float> from = w->span<float>();
            const std::span<float> to = scaled.mutableSpan<float>();
            for (int64_t r = 0; r < rows; ++r)
                for (int64_t c = 0; c < cols; ++c) to[size_t(transB ? c * rows + r : r * cols + c)] = alpha * from[size_t(r * cols + c)];
            weight = rw.addInitializer(g.value(weight).name + (transB ? "_transposed" : "_scaled"), std::move(scaled));
        }
        rw.replaceNodes({id}, "MatMul", {x, weight}, {});
        rw.commit("split-fused-matmul", sentence);
    }

    /// FusedConv(x, w, b, z) with no activation, a Relu or a Clip -> Conv -> [Add z] -> [Relu|Clip],
    /// and FusedGemm(a, b, c) -> Gemm -> [activation], the QDQ pattern's form (the fusions ran
    /// before, as in `--passes default,quantize-int8`); the activation becomes its standard node again.
    static void splitFusedNodes(Rewriter& rw, int64_t opset) {
        for (NodeId id : rw.graph().topologicalOrder()) {
            const Graph& g = rw.graph();
            const Node& n = g.node(id);
            if (n.opType == "FusedMatMul" && n.domain == "com.microsoft") {
                splitFusedMatMul(rw, id);
                continue;
            }
            const bool gemm = n.opType == "FusedGemm";
            if ((n.opType != "FusedConv" && !gemm) || n.domain != "com.microsoft") continue;
            const auto activation = gemm ? gemmActivationOf(n.attributes) : activationOf(n.attributes);
            const std::string op = gemm ? "Gemm" : "Conv";
            Attributes attributes = n.attributes;
            for (const char* a : {"activation", "activation_params", "activation_alpha", "activation_beta", "activation_gamma"})
                attributes.erase(a);
            std::vector<ValueId> inputs{n.input(0), n.input(1)};
            if (hasInput(n, 2)) inputs.push_back(n.input(2));
            const bool hasZ = !gemm && hasInput(n, 3);
            if (!activation && !hasZ) {
                rw.replaceNodes({id}, op, inputs, attributes);
                rw.commit("split-fused-conv", "split " + describe(n) + " back into a " + op + " for the QDQ pattern");
                continue;
            }
            const std::string name = n.name.empty() ? (gemm ? "fused_gemm" : "fused_conv") : n.name;
            const Value& out = g.value(n.output(0));
            const std::string outName = out.name;
            const DType dtype = out.dtype;
            const Shape shape = out.shape;
            const ValueId z = hasZ ? n.input(3) : kNoId;
            const std::string sentence = "split " + describe(n) + " back into " + op + (hasZ ? ", Add" : "") +
                                         (activation ? ", " + activation->name : "") + " for the QDQ pattern";
            const NodeId from[] = {id};
            const std::string suffix = gemm ? "_gemm" : "_conv";
            const NodeId product = rw.addNode(op, inputs, {outName + suffix}, attributes, from, name + suffix);
            ValueId last = rw.graph().node(product).output(0);
            rw.setValueInfo(last, dtype, shape);
            if (hasZ && activation) {
                const NodeId add = rw.addNode("Add", {last, z}, {outName + "_add"}, {}, from, name + "_add");
                last = rw.graph().node(add).output(0);
                rw.setValueInfo(last, dtype, shape);
            }
            if (activation) replaceWithActivation(rw, id, *activation, last, opset);
            else rw.replaceNodes({id}, "Add", {last, z}, {});
            rw.commit(gemm ? "split-fused-gemm" : "split-fused-conv", sentence);
        }
    }

    /// The nodes to quantize, each with its weight's axis, its input and its output activation.
    static std::vector<Target> findTargets(Rewriter& rw, const PassContext& context) {
        std::vector<Target> targets;
        for (NodeId id : rw.graph().topologicalOrder()) {
            const Graph& g = rw.graph();
            const Node& n = g.node(id);
            if (!n.domain.empty() || (n.opType != "Conv" && n.opType != "Gemm" && n.opType != "MatMul")) continue;
            const Tensor* w = constantInput(g, n, 1);
            if (!w || !hasInput(n, 0)) continue;  // a product of two activations (attention) stays float
            const ValueId wv = n.input(1);
            std::string why;
            const auto axis = outputChannelAxis(n, w->rank());
            if (w->dtype() != DType::Float) why = "its weight " + quoted(g, wv) + " is not float32";
            else if (!axis || (n.opType == "MatMul" && w->rank() != 2))
                why = "its weight " + quoted(g, wv) + " is not a [K, N] matrix";
            else if (!hasSingleUse(g, wv)) why = "its weight " + quoted(g, wv) + " is read by other nodes too";
            else if (g.value(n.input(0)).dtype != DType::Float) why = "its input " + quoted(g, n.input(0)) + " is not float32";
            else if (context.opset < 13)
                why = "per-channel DequantizeLinear (its axis attribute) needs opset 13, and the model imports opset " +
                      std::to_string(context.opset);
            if (!why.empty()) {
                rw.decline(id, "kept in float: " + why);
                continue;
            }
            Target t{id, *axis, n.input(0), n.output(0), n.output(0), std::nullopt, false};
            const NodeId next = soleConsumer(g, t.output);
            if (next != kNoId && g.node(next).domain.empty()) {
                const Node& a = g.node(next);
                const auto bounds = a.opType == "Clip" ? fusableActivation(g, a) : std::nullopt;
                if (a.opType == "Relu") t.output = a.output(0);
                if (bounds && bounds->params.size() == 2 && bounds->params[0] <= 0 && bounds->params[1] >= 0) {
                    t.output = a.output(0);
                    t.clip = std::pair{bounds->params[0], bounds->params[1]};
                }
            }
            if (t.output == t.product) t.activation = tabulatedActivationAfter(g, t.product);
            // The bias in accumulator units: a constant float vector of one value per output
            // channel; Gemm only when it adds A * B + C as it is (alpha = beta = 1).
            if (const Tensor* b = constantInput(g, n, 2)) {
                const int64_t channels = w->dims()[size_t(*axis)];
                const bool plainGemm = n.opType != "Gemm" || (n.attributes.getFloat("alpha", 1.f) == 1.f &&
                                                              n.attributes.getFloat("beta", 1.f) == 1.f);
                t.quantizeBias = b->dtype() == DType::Float && b->rank() == 1 && b->numel() == channels && plainGemm &&
                                 hasSingleUse(g, n.input(2));
            }
            targets.push_back(t);
        }
        // A value read by a sub-graph by name, or a graph output nothing else reads, keeps no pair;
        // such a target stays float.
        const auto bySubgraphs = namesReadBySubgraphs(rw.graph());
        std::erase_if(targets, [&](const Target& t) {
            for (ValueId v : {t.input, t.output}) {
                if (!bySubgraphs.count(rw.graph().value(v).name)) continue;
                rw.decline(t.node, "kept in float: a sub-graph reads " + quoted(rw.graph(), v) + " by name");
                return true;
            }
            return false;
        });
        return targets;
    }

    /// The MaxPools (without Indices) whose output is one of `quantized` and whose input is float,
    /// in graph order.
    static std::vector<NodeId> maxPoolsBetweenQuantized(const Graph& g, const std::vector<ValueId>& quantized) {
        std::vector<NodeId> pools;
        for (NodeId id : g.topologicalOrder()) {
            const Node& n = g.node(id);
            if (!n.domain.empty() || n.opType != "MaxPool" || !hasInput(n, 0) || (n.outputs().size() > 1 && n.output(1) != kNoId))
                continue;
            if (g.value(n.input(0)).dtype != DType::Float) continue;
            if (std::find(quantized.begin(), quantized.end(), n.output(0)) != quantized.end()) pools.push_back(id);
        }
        return pools;
    }

    /// t -> QuantizeLinear -> DequantizeLinear, and every node that read t reads the result.
    static bool insertQdqPair(Rewriter& rw, ValueId t, const ActivationParams& p) {
        const Graph& g = rw.graph();
        const std::vector<Use> uses = g.value(t).uses();
        if (uses.empty()) return false;  // a graph output nothing else reads stays float
        const std::string name = g.value(t).name;
        const Shape shape = g.value(t).shape;
        std::vector<NodeId> from;
        if (const Node* producer = producerOf(g, t)) from.push_back(producer->id);
        const ValueId scale = rw.addInitializer(name + "_scale", Tensor::scalar(p.scale));
        const ValueId zero = rw.addInitializer(name + "_zero_point", Tensor::fromVector(DType::UInt8, {}, std::vector<uint8_t>{p.zeroPoint}));
        const NodeId q = rw.addNode("QuantizeLinear", {t, scale, zero}, {name + "_QuantizeLinear_Output"}, {}, from,
                                    name + "_QuantizeLinear");
        const ValueId quantized = rw.graph().node(q).output(0);
        rw.setValueInfo(quantized, DType::UInt8, shape);
        const NodeId dq = rw.addNode("DequantizeLinear", {quantized, scale, zero}, {name + "_DequantizeLinear_Output"}, {},
                                     from, name + "_DequantizeLinear");
        const ValueId dequantized = rw.graph().node(dq).output(0);
        rw.setValueInfo(dequantized, DType::Float, shape);
        for (const Use& use : uses) rw.setNodeInput(use.node, use.input, dequantized);
        rw.count("numActivations");
        rw.commit("quantize-activation", "quantized the activation '" + name + "' to u8: calibrated range [" +
                                             formatNumber(p.lo) + ", " + formatNumber(p.hi) + "], scale " +
                                             formatNumber(p.scale) + ", zero point " + std::to_string(p.zeroPoint));
        return true;
    }

    /// The largest weight code: full range, or 7 bits (PassContext::reduceRange).
    static constexpr int kFullLevels = 127, kReducedLevels = 63;

    /// The weight (and bias) of `t` as int8 (int32, exact in units of input scale * weight
    /// scale) behind DequantizeLinear nodes, the weight's codes within [-levels, levels].
    static void quantizeWeights(Rewriter& rw, const Target& t, const ActivationParams& input, int levels) {
        const Graph& g = rw.graph();
        const Node& n = g.node(t.node);
        const NodeId from[] = {t.node};
        const ValueId wv = n.input(1);
        const Tensor w = *g.constantValue(wv);
        const QuantizedWeight qw = quantizePerChannel(w, t.axis, levels);
        const std::string wname = g.value(wv).name + "_quantized";
        std::string sentence = "quantized " + describe(n) + ": weight '" + g.value(wv).name + "' to int8 " +
                               (levels == kFullLevels ? "" : "within [-" + std::to_string(levels) + ", " + std::to_string(levels) + "] ") + "(" +
                               std::to_string(qw.scale.numel()) + " scales along axis " + std::to_string(t.axis) +
                               ", max abs weight error " + formatNumber(qw.error.maxAbs) + ")";
        std::vector<NodeId> constants;
        if (const Node* c = producerOf(g, wv)) constants.push_back(c->id);
        const ValueId wq = addDequantized(rw, wname, qw.q, qw.scale, qw.zeroPoint, t.axis, from);
        rw.setNodeInput(t.node, 1, wq);
        if (t.quantizeBias) {
            const ValueId bv = rw.graph().node(t.node).input(2);
            const auto b = rw.graph().constantValue(bv)->span<float>();
            const auto ws = qw.scale.span<float>();
            std::vector<float> unit(ws.size());
            std::vector<int32_t> q(ws.size());
            for (size_t k = 0; k < ws.size(); ++k) {
                unit[k] = input.scale * ws[k];
                const double v = std::nearbyint(double(b[k] / unit[k]));
                q[k] = int32_t(std::clamp(v, double(INT32_MIN), double(INT32_MAX)));
            }
            if (const Node* c = producerOf(rw.graph(), bv)) constants.push_back(c->id);
            const int64_t channels = int64_t(ws.size());
            const ValueId bq = addDequantized(rw, rw.graph().value(bv).name + "_quantized",
                                                 Tensor::fromVector(DType::Int32, {channels}, q), Tensor::floats({channels}, unit),
                                                 Tensor::fromVector(DType::Int32, {channels}, std::vector<int32_t>(size_t(channels), 0)),
                                                 0, from);
            rw.setNodeInput(t.node, 2, bq);
            sentence += ", bias to int32 in units of input scale * weight scale";
        }
        for (NodeId c : constants)
            if (rw.graph().hasNode(c) && rw.graph().value(rw.graph().node(c).output(0)).uses().empty()) rw.removeNode(c);
        rw.count("numQuantized");
        rw.commit("quantize-int8-static", sentence);
    }
};

} // namespace

std::unique_ptr<Pass> makeQuantizeInt8StaticPass() { return std::make_unique<QuantizeInt8Static>(); }

} // namespace graphlens
