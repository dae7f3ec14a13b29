// Heat scales and the color ramp.
#include "profiler/heat_scale.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace graphlens {
namespace {

constexpr std::array<Rgb, 5> kRamp{{{255, 255, 204}, {254, 217, 118}, {253, 141, 60}, {227, 26, 28}, {128, 0, 38}}};

uint8_t mix(uint8_t a, uint8_t b, double f) { return uint8_t(std::lround(a + (b - a) * f)); }

/// Multiples of the smallest 1-2-5 step that gives at most `maxTicks` of them in [low, high].
std::vector<double> linearTicks(double low, double high, int maxTicks) {
    const double span = high - low;
    if (!(span > 0) || maxTicks < 2) return {low, high};
    const double slack = span * 1e-9;
    double decade = std::pow(10.0, std::floor(std::log10(span / maxTicks)));
    for (;; decade *= 10)
        for (double m : {1.0, 2.0, 5.0}) {
            const double step = m * decade;
            const double first = std::ceil((low - slack) / step), last = std::floor((high + slack) / step);
            if (last - first + 1 > maxTicks) continue;
            std::vector<double> ticks;
            for (double k = first; k <= last; ++k) ticks.push_back(k * step);
            return ticks;
        }
}

std::vector<double> logTicks(double low, double high) {
    std::vector<double> ticks;
    for (double e = std::ceil(std::log10(low) - 1e-9); std::pow(10.0, e) <= high * (1 + 1e-12); ++e)
        ticks.push_back(std::pow(10.0, e));
    if (ticks.size() < 2) return {low, high};
    return ticks;
}

} // namespace

std::string hexColor(Rgb c) {
    char text[8];
    std::snprintf(text, sizeof text, "#%02x%02x%02x", c.r, c.g, c.b);
    return text;
}

Rgb heatColor(double t) {
    const double x = std::clamp(std::isnan(t) ? 0.0 : t, 0.0, 1.0) * (kRamp.size() - 1);
    const size_t i = std::min(size_t(x), kRamp.size() - 2);
    const double f = x - double(i);
    return {mix(kRamp[i].r, kRamp[i + 1].r, f), mix(kRamp[i].g, kRamp[i + 1].g, f), mix(kRamp[i].b, kRamp[i + 1].b, f)};
}

Rgb speedupColor(double speedup) {
    constexpr Rgb slower{215, 48, 39}, same{247, 247, 247}, faster{26, 152, 80};
    const double t = std::isnan(speedup) || speedup <= 0 ? -1 : std::clamp(std::log2(speedup) / std::log2(kSpeedupColorSpan), -1.0, 1.0);
    const Rgb& end = t < 0 ? slower : faster;
    const double f = std::fabs(t);
    return {mix(same.r, end.r, f), mix(same.g, end.g, f), mix(same.b, end.b, f)};
}

double relativeLuminance(Rgb c) {
    auto linear = [](uint8_t v) {
        const double s = v / 255.0;
        return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b);
}

bool prefersDarkText(Rgb fill) {
    const double l = relativeLuminance(fill);
    return (l + 0.05) / 0.05 > 1.05 / (l + 0.05);  // contrast with black vs with white
}

HeatScale::HeatScale(double low, double high, HeatScaleKind kind) : low_(low), high_(std::max(low, high)), kind_(kind) {
    if (kind_ == HeatScaleKind::Log && !(low_ > 0)) low_ = high_ > 0 ? high_ / 1e4 : 1;
    if (kind_ == HeatScaleKind::Log) high_ = std::max(high_, low_);
}

HeatScale HeatScale::spanning(const std::vector<double>& values, HeatScaleKind kind) {
    double low = INFINITY, high = -INFINITY, lowPositive = INFINITY;
    for (double v : values) {
        low = std::min(low, v);
        high = std::max(high, v);
        if (v > 0) lowPositive = std::min(lowPositive, v);
    }
    if (values.empty()) return HeatScale(0, 1, kind);
    return HeatScale(kind == HeatScaleKind::Log && std::isfinite(lowPositive) ? lowPositive : low, high, kind);
}

double HeatScale::position(double value) const {
    if (!(high_ > low_)) return 0;
    const double t = kind_ == HeatScaleKind::Linear
                         ? (value - low_) / (high_ - low_)
                         : (std::log(std::max(value, low_)) - std::log(low_)) / (std::log(high_) - std::log(low_));
    return std::clamp(t, 0.0, 1.0);
}

std::vector<double> HeatScale::ticks(int maxTicks) const {
    return kind_ == HeatScaleKind::Linear ? linearTicks(low_, high_, maxTicks) : logTicks(low_, high_);
}

} // namespace graphlens
