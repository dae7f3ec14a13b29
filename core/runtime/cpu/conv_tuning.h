// Per-layer convolution algorithms measured at plan time and remembered (as cuDNN's and MIOpen's
// "find" modes do): where more than one algorithm computes a convolution on the same layouts
// (oneDNN's direct kernel, GraphLens's Winograd F(2x2, 3x3), oneDNN's own Winograd where it has
// one), the plan times each on the layer's shapes and keeps the fastest. The choice is remembered
// per machine (oneDNN's instruction set, thread count) and layer geometry in a small text file,
// so a later plan with the same layer (the same model again, or another one) does not measure.
//
// Off unless turned on: library callers and tests get the shape rules of winograd_conv.cpp, the
// same kernels on every run; the command line and the window turn it on (GRAPHLENS_CONV_TUNING=off
// keeps it off there; GRAPHLENS_CONV_ALGORITHM=direct|winograd forces one algorithm everywhere).
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace graphlens {

/// Turns measuring on or off for plans made afterwards (process-wide).
void setConvTuning(bool on);
bool convTuning();

/// Where the choices are remembered: GRAPHLENS_CONV_CACHE when set, else
/// $XDG_CACHE_HOME/graphlens/conv_algorithms.tsv, else ~/.cache/graphlens/conv_algorithms.tsv.
/// Tests set their own; an empty path keeps the choices in memory only.
void setConvTuningCachePath(std::filesystem::path path);
std::filesystem::path convTuningCachePath();

/// What plans on this thread chose since the last call (for a plan's preparation line), reset by it.
struct ConvTuningCounts {
    size_t measured = 0;  ///< layers timed now
    size_t remembered = 0;  ///< layers whose choice came from the cache
    size_t winograd = 0;  ///< of both, how many run a Winograd form
};
ConvTuningCounts takeConvTuningCounts();

/// The line a plan's preparation shows for `counts`, empty when nothing was chosen.
std::string convTuningLine(const ConvTuningCounts& counts);

/// One algorithm that can compute a layer: its name (as the cache stores it; a Winograd form has
/// "winograd" in it) and one run of it on the layer's shapes (scratch data: the measurement
/// times calls to it).
struct ConvCandidate {
    std::string algorithm;
    std::function<void()> run;
};

/// The index into `algorithms` of the one remembered for the layer described by `layer` (its
/// geometry and thread count; the machine's instruction set is added here), counted as
/// remembered; nullopt when none is, or the remembered one is not among `algorithms` (so a
/// caller builds only the kernel it will run when the choice is known).
std::optional<size_t> rememberedConvAlgorithm(const std::string& layer, const std::vector<std::string>& algorithms);

/// The index into `candidates` of the fastest for `layer`, measured now (each run once to warm up,
/// then in alternating rounds; the lowest median wins) and remembered.
size_t measureConvAlgorithm(const std::string& layer, const std::vector<ConvCandidate>& candidates);

namespace detail {
/// Forgets the in-memory choices (tests: a new cache path is read afresh).
void forgetConvChoices();
} // namespace detail

} // namespace graphlens
