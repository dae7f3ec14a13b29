// The attributes and shapes of an LSTM, GRU or RNN node, read once and shared by the reference
// kernel, the optimized CPU kernel and the plan-time validation: gate count, hidden size,
// directions, layout, clip, the activations of each direction with their alphas and betas.
#pragma once

#include "core/graph/attribute.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace graphlens::rnn {

enum class RnnKind { Lstm, Gru, Rnn };

enum class ActivationKind { Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus };

struct Activation {
    ActivationKind kind = ActivationKind::Sigmoid;
    double alpha = 0.0, beta = 0.0;
};

/// The activation a name ("Sigmoid", "tanh", ... case-insensitive) stands for, with ONNX's
/// default alpha and beta; nullopt for an unknown name.
std::optional<Activation> activationNamed(const std::string& name);
/// f(x) in double.
double apply(const Activation& a, double x);

struct RnnSpec {
    RnnKind kind = RnnKind::Lstm;
    int64_t gates = 4;       ///< 4 (LSTM, iofc), 3 (GRU, zrh), 1 (RNN)
    int64_t hidden = 0;
    int64_t dirs = 1;
    std::string direction = "forward";
    int64_t layout = 0;      ///< 0: X [seq, batch, input]; 1: X [batch, seq, input]
    double clip = 0.0;       ///< 0: no clip
    bool inputForget = false;
    bool linearBeforeReset = false;
    int64_t seqLength = 0, batch = 0, inputSize = 0;
    /// Per direction: f, g, h (LSTM), f, g (GRU), f (RNN).
    std::vector<std::vector<Activation>> activations;

    std::vector<int64_t> yDims() const;      ///< Y
    std::vector<int64_t> stateDims() const;  ///< Y_h, Y_c, initial_h, initial_c
};

/// Gates per kind: 4, 3, 1; activations per direction: 3, 2, 1.
int64_t gateCount(RnnKind kind);
int64_t activationCount(RnnKind kind);
const char* kindName(RnnKind kind);

/// The attributes' meaning, checked (a std::string describing the first problem, empty when none).
/// `spec` gets everything but the sizes.
std::string readAttributes(RnnKind kind, const Attributes& attributes, int64_t opset, RnnSpec& spec);

/// The spec of a node with input shapes X, W, R, checked against each other and against the
/// optional inputs' shapes (`optionalDims(i)`: dims of input i, nullopt when omitted); throws
/// KernelError with one sentence on a mismatch.
RnnSpec specOf(RnnKind kind, const Attributes& attributes, int64_t opset, const std::vector<int64_t>& x,
               const std::vector<int64_t>& w, const std::vector<int64_t>& r,
               const std::function<std::optional<std::vector<int64_t>>(size_t)>& optionalDims);

} // namespace graphlens::rnn
