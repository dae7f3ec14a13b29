// Reading and checking the attributes and shapes of LSTM, GRU and RNN nodes (rnn_spec.h).
#include "core/runtime/reference/rnn_spec.h"

#include "core/runtime/kernel.h"
#include "core/runtime/reference/ref_util.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace graphlens::rnn {

std::optional<Activation> activationNamed(const std::string& name) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    struct Entry { const char* name; ActivationKind kind; double alpha, beta; };
    static const Entry table[] = {
        {"relu", ActivationKind::Relu, 0, 0},           {"tanh", ActivationKind::Tanh, 0, 0},
        {"sigmoid", ActivationKind::Sigmoid, 0, 0},     {"affine", ActivationKind::Affine, 1.0, 0.0},
        {"leakyrelu", ActivationKind::LeakyRelu, 0.01, 0}, {"thresholdedrelu", ActivationKind::ThresholdedRelu, 1.0, 0},
        {"scaledtanh", ActivationKind::ScaledTanh, 1.0, 1.0}, {"hardsigmoid", ActivationKind::HardSigmoid, 0.2, 0.5},
        {"elu", ActivationKind::Elu, 1.0, 0},           {"softsign", ActivationKind::Softsign, 0, 0},
        {"softplus", ActivationKind::Softplus, 0, 0},
    };
    for (const Entry& e : table)
        if (lower == e.name) return Activation{e.kind, e.alpha, e.beta};
    return std::nullopt;
}

namespace {
bool takesAlpha(ActivationKind k) {
    return k == ActivationKind::Affine || k == ActivationKind::LeakyRelu || k == ActivationKind::ThresholdedRelu ||
           k == ActivationKind::ScaledTanh || k == ActivationKind::HardSigmoid || k == ActivationKind::Elu;
}
bool takesBeta(ActivationKind k) {
    return k == ActivationKind::Affine || k == ActivationKind::ScaledTanh || k == ActivationKind::HardSigmoid;
}
} // namespace

double apply(const Activation& a, double x) {
    switch (a.kind) {
    case ActivationKind::Relu: return x > 0 ? x : 0.0;
    case ActivationKind::Tanh: return std::tanh(x);
    case ActivationKind::Sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case ActivationKind::Affine: return a.alpha * x + a.beta;
    case ActivationKind::LeakyRelu: return x >= 0 ? x : a.alpha * x;
    case ActivationKind::ThresholdedRelu: return x > a.alpha ? x : 0.0;
    case ActivationKind::ScaledTanh: return a.alpha * std::tanh(a.beta * x);
    case ActivationKind::HardSigmoid: return std::clamp(a.alpha * x + a.beta, 0.0, 1.0);
    case ActivationKind::Elu: return x >= 0 ? x : a.alpha * (std::exp(x) - 1.0);
    case ActivationKind::Softsign: return x / (1.0 + std::fabs(x));
    case ActivationKind::Softplus: return x > 30 ? x : std::log1p(std::exp(x));
    }
    return x;
}

int64_t gateCount(RnnKind kind) { return kind == RnnKind::Lstm ? 4 : kind == RnnKind::Gru ? 3 : 1; }
int64_t activationCount(RnnKind kind) { return kind == RnnKind::Lstm ? 3 : kind == RnnKind::Gru ? 2 : 1; }
const char* kindName(RnnKind kind) { return kind == RnnKind::Lstm ? "LSTM" : kind == RnnKind::Gru ? "GRU" : "RNN"; }

std::vector<int64_t> RnnSpec::yDims() const {
    return layout == 0 ? std::vector<int64_t>{seqLength, dirs, batch, hidden} : std::vector<int64_t>{batch, seqLength, dirs, hidden};
}
std::vector<int64_t> RnnSpec::stateDims() const {
    return layout == 0 ? std::vector<int64_t>{dirs, batch, hidden} : std::vector<int64_t>{batch, dirs, hidden};
}

std::string readAttributes(RnnKind kind, const Attributes& a, int64_t opset, RnnSpec& s) {
    s.kind = kind;
    s.gates = gateCount(kind);
    s.direction = a.getString("direction", "forward");
    if (s.direction != "forward" && s.direction != "reverse" && s.direction != "bidirectional")
        return "direction is '" + s.direction + "'; it must be forward, reverse or bidirectional";
    s.dirs = s.direction == "bidirectional" ? 2 : 1;
    s.hidden = a.getInt("hidden_size", 0);
    if (a.has("hidden_size") && s.hidden <= 0)
        return "hidden_size is " + std::to_string(s.hidden) + "; it must be positive";
    s.layout = opset >= 14 ? a.getInt("layout", 0) : 0;
    if (s.layout != 0 && s.layout != 1) return "layout is " + std::to_string(s.layout) + "; it must be 0 or 1";
    s.clip = a.has("clip") ? double(a.getFloat("clip", 0.f)) : 0.0;
    if (a.has("clip") && !(s.clip > 0.0)) return "clip is " + std::to_string(s.clip) + "; it must be positive";
    s.inputForget = kind == RnnKind::Lstm && a.getInt("input_forget", 0) != 0;
    s.linearBeforeReset = kind == RnnKind::Gru && a.getInt("linear_before_reset", 0) != 0;

    const int64_t perDir = activationCount(kind);
    std::vector<std::string> names;
    if (const Attribute* attr = a.find("activations"); attr && attr->holds<std::vector<std::string>>())
        names = attr->get<std::vector<std::string>>();
    if (names.empty()) {
        static const char* defaults[] = {"Sigmoid", "Tanh", "Tanh"};
        for (int64_t d = 0; d < s.dirs; ++d)
            for (int64_t k = 0; k < perDir; ++k) names.push_back(kind == RnnKind::Rnn ? "Tanh" : defaults[k]);
    } else if (int64_t(names.size()) == perDir && s.dirs == 2) {
        names.insert(names.end(), names.begin(), names.end());
    } else if (int64_t(names.size()) < perDir * s.dirs) {
        return "activations has " + std::to_string(names.size()) + " names; a " + s.direction + " " + kindName(kind) +
               " needs " + std::to_string(perDir * s.dirs);
    }
    std::vector<float> alphas, betas;
    if (const Attribute* attr = a.find("activation_alpha"); attr && attr->holds<std::vector<float>>()) alphas = attr->get<std::vector<float>>();
    if (const Attribute* attr = a.find("activation_beta"); attr && attr->holds<std::vector<float>>()) betas = attr->get<std::vector<float>>();
    size_t nextAlpha = 0, nextBeta = 0;
    s.activations.assign(size_t(s.dirs), {});
    for (int64_t d = 0; d < s.dirs; ++d)
        for (int64_t k = 0; k < perDir; ++k) {
            const std::string& name = names[size_t(d * perDir + k)];
            auto act = activationNamed(name);
            if (!act) return "activations names '" + name + "', which is not an activation LSTM, GRU and RNN know";
            if (takesAlpha(act->kind) && nextAlpha < alphas.size()) act->alpha = alphas[nextAlpha++];
            if (takesBeta(act->kind) && nextBeta < betas.size()) act->beta = betas[nextBeta++];
            s.activations[size_t(d)].push_back(*act);
        }
    return {};
}

RnnSpec specOf(RnnKind kind, const Attributes& attributes, int64_t opset, const std::vector<int64_t>& x,
               const std::vector<int64_t>& w, const std::vector<int64_t>& r,
               const std::function<std::optional<std::vector<int64_t>>(size_t)>& optionalDims) {
    RnnSpec s;
    if (std::string problem = readAttributes(kind, attributes, opset, s); !problem.empty()) throw KernelError(problem);
    if (x.size() != 3) throw KernelError("X has shape " + ref::dimsText(x) + "; it must have rank 3");
    if (w.size() != 3 || r.size() != 3)
        throw KernelError("W " + ref::dimsText(w) + " and R " + ref::dimsText(r) + " must have rank 3");
    s.seqLength = s.layout == 0 ? x[0] : x[1];
    s.batch = s.layout == 0 ? x[1] : x[0];
    s.inputSize = x[2];
    if (s.hidden == 0) s.hidden = r[2];
    const int64_t H = s.hidden, G = s.gates;
    auto expect = [&](const char* what, const std::vector<int64_t>& got, const std::vector<int64_t>& want) {
        if (got != want)
            throw KernelError(std::string(what) + " has shape " + ref::dimsText(got) + " but hidden_size " + std::to_string(H) +
                              ", direction " + s.direction + " and the input size need " + ref::dimsText(want));
    };
    expect("W", w, {s.dirs, G * H, s.inputSize});
    expect("R", r, {s.dirs, G * H, H});
    if (auto b = optionalDims(3)) expect("B", *b, {s.dirs, 2 * G * H});
    if (auto l = optionalDims(4)) expect("sequence_lens", *l, {s.batch});
    if (auto h = optionalDims(5)) expect("initial_h", *h, s.stateDims());
    if (kind == RnnKind::Lstm) {
        if (auto c = optionalDims(6)) expect("initial_c", *c, s.stateDims());
        if (auto p = optionalDims(7)) expect("P", *p, {s.dirs, 3 * H});
    }
    return s;
}

} // namespace graphlens::rnn
