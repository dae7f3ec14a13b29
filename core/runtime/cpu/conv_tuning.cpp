// The measured convolution algorithms of conv_tuning.h: an in-memory table read once from the
// cache file, rewritten (atomically) whenever a plan measured a new layer.
#include "core/runtime/cpu/conv_tuning.h"

#include "core/onnx/atomic_file.h"
#include "core/runtime/cpu/onednn_internal.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <utility>

namespace graphlens {
namespace {

std::atomic<bool>& tuningSwitch() {
    static std::atomic<bool> on{false};
    return on;
}

std::filesystem::path defaultCachePath() {
    if (const char* p = std::getenv("GRAPHLENS_CONV_CACHE")) return p;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "graphlens/conv_algorithms.tsv";
    if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache/graphlens/conv_algorithms.tsv";
    return {};
}

/// The remembered choices: layer key -> algorithm, and the line each was stored with.
struct Choices {
    std::mutex mutex;
    std::optional<std::filesystem::path> path;  ///< unset: defaultCachePath() on first use
    bool loaded = false;
    std::map<std::string, std::pair<std::string, std::string>> byKey;  ///< key -> (algorithm, measured times)
    std::string writeError;  ///< why the file could not be written, once it could not

    std::filesystem::path file() {
        if (!path) path = defaultCachePath();
        return *path;
    }

    /// Reads the file's entries into the table (kept where the table already has the key).
    void read() {
        const std::filesystem::path p = file();
        if (p.empty()) return;
        std::ifstream in(p);
        std::string line;
        while (std::getline(in, line)) {
            if (line.empty() || line[0] == '#') continue;
            const size_t a = line.find('\t');
            const size_t b = a == std::string::npos ? a : line.find('\t', a + 1);
            if (b == std::string::npos) continue;  // a damaged line measures again
            byKey.try_emplace(line.substr(0, a), line.substr(a + 1, b - a - 1), line.substr(b + 1));
        }
    }

    void ensureLoaded() {
        if (loaded) return;
        loaded = true;
        read();
    }

    /// Merges what other processes stored meanwhile and writes the table back.
    void write() {
        const std::filesystem::path p = file();
        if (p.empty() || !writeError.empty()) return;
        try {
            read();
            std::filesystem::create_directories(p.parent_path());
            std::ostringstream out;
            out << "# GraphLens: convolution algorithms measured on this machine (delete the file to measure again)\n"
                   "# instruction set | threads | layer\talgorithm\tmedian ms of each candidate\n";
            for (const auto& [key, entry] : byKey) out << key << '\t' << entry.first << '\t' << entry.second << '\n';
            const std::string text = out.str();
            AtomicFile f(p);
            f.write(text.data(), text.size());
            f.commit(false);
        } catch (const std::exception& e) {
            writeError = e.what();
        }
    }
};

Choices& choices() {
    static Choices c;
    return c;
}

thread_local ConvTuningCounts counts;

std::string keyOf(const std::string& layer) { return onednn::cpuIsaName() + " | " + layer; }
bool isWinograd(const std::string& algorithm) { return algorithm.find("winograd") != std::string::npos; }

double medianOf(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

void setConvTuning(bool on) { tuningSwitch() = on; }
bool convTuning() { return tuningSwitch(); }

void setConvTuningCachePath(std::filesystem::path path) {
    Choices& c = choices();
    std::lock_guard lock(c.mutex);
    c.path = std::move(path);
    c.loaded = false;
    c.byKey.clear();
    c.writeError.clear();
}

std::filesystem::path convTuningCachePath() {
    Choices& c = choices();
    std::lock_guard lock(c.mutex);
    return c.file();
}

ConvTuningCounts takeConvTuningCounts() { return std::exchange(counts, {}); }

std::string convTuningLine(const ConvTuningCounts& n) {
    if (n.measured + n.remembered == 0) return {};
    std::string line = "chose the algorithm of " + std::to_string(n.measured + n.remembered) +
                       " convolution" + (n.measured + n.remembered == 1 ? "" : "s") + " by measuring (" +
                       std::to_string(n.measured) + " measured now, " + std::to_string(n.remembered) +
                       " remembered): " + std::to_string(n.winograd) + " Winograd, " +
                       std::to_string(n.measured + n.remembered - n.winograd) + " direct";
    Choices& c = choices();
    std::lock_guard lock(c.mutex);
    if (!c.writeError.empty()) line += " (not remembered: " + c.writeError + ")";
    return line;
}

std::optional<size_t> rememberedConvAlgorithm(const std::string& layer, const std::vector<std::string>& algorithms) {
    Choices& c = choices();
    std::lock_guard lock(c.mutex);
    c.ensureLoaded();
    const auto it = c.byKey.find(keyOf(layer));
    if (it == c.byKey.end()) return std::nullopt;
    const auto found = std::find(algorithms.begin(), algorithms.end(), it->second.first);
    if (found == algorithms.end()) return std::nullopt;
    ++counts.remembered;
    counts.winograd += isWinograd(*found);
    return size_t(found - algorithms.begin());
}

size_t measureConvAlgorithm(const std::string& layer, const std::vector<ConvCandidate>& candidates) {
    if (candidates.size() < 2) return 0;
    Choices& c = choices();
    // Each once to warm up (caches, page faults of fresh buffers), then alternating rounds, so a
    // change of the machine's speed meanwhile reaches every candidate alike.
    using clock = std::chrono::steady_clock;
    double slowest = 0;
    for (const ConvCandidate& candidate : candidates) {
        const auto start = clock::now();
        candidate.run();
        slowest = std::max(slowest, std::chrono::duration<double, std::milli>(clock::now() - start).count());
    }
    const int rounds = slowest > 50 ? 1 : slowest > 10 ? 3 : 7;
    std::vector<std::vector<double>> times(candidates.size());
    for (int r = 0; r < rounds; ++r) {
        for (size_t i = 0; i < candidates.size(); ++i) {
            const auto start = clock::now();
            candidates[i].run();
            times[i].push_back(std::chrono::duration<double, std::milli>(clock::now() - start).count());
        }
    }
    size_t best = 0;
    std::string measured;
    std::vector<double> medians;
    for (size_t i = 0; i < candidates.size(); ++i) {
        medians.push_back(medianOf(times[i]));
        if (medians[i] < medians[best]) best = i;
        char text[64];
        std::snprintf(text, sizeof text, "%s%s=%.4f", i ? " " : "", candidates[i].algorithm.c_str(), medians[i]);
        measured += text;
    }
    ++counts.measured;
    counts.winograd += isWinograd(candidates[best].algorithm);
    std::lock_guard lock(c.mutex);
    c.ensureLoaded();
    c.byKey[keyOf(layer)] = {candidates[best].algorithm, measured};
    c.write();
    return best;
}

namespace detail {
void forgetConvChoices() {
    Choices& c = choices();
    std::lock_guard lock(c.mutex);
    c.loaded = false;
    c.byKey.clear();
    c.writeError.clear();
}
} // namespace detail

} // namespace graphlens
