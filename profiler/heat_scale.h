// Heat scales: a per-node value (time, memory) mapped onto a color ramp, linearly or on a log
// scale, with the ticks a legend shows. Plain RGB, so the viewer and exports share it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace graphlens {

struct Rgb {
    uint8_t r = 0, g = 0, b = 0;
    bool operator==(const Rgb&) const = default;
};

/// "#rrggbb".
std::string hexColor(Rgb color);

/// The ramp from cool to hot at `t` in [0, 1] (clamped): light yellow, orange, red, dark red
/// (ColorBrewer YlOrRd), interpolated linearly between its five stops.
Rgb heatColor(double t);

/// The fill of a node with no value of its own on a time heatmap: the backend ran it inside another
/// node's kernel (fusedAway() in node_profile.h). A mid grey, off the ramp, so that it does not
/// read as the fastest node.
constexpr Rgb kFusedNodeColor{190, 190, 190};

/// The diverging ramp of a before/after speedup: red where a part got slower (1/4 and below),
/// near white at 1x, green where it got faster (4x and above, and +infinity: removed); log2
/// of the speedup interpolated between the three stops (ColorBrewer RdYlGn ends).
Rgb speedupColor(double speedup);
/// speedupColor() saturates at this speedup (fully green) and at its inverse (fully red).
constexpr double kSpeedupColorSpan = 4;

/// WCAG relative luminance of `color`, 0 (black) to 1 (white).
double relativeLuminance(Rgb color);
/// Whether dark text reads better than light text on `fill` (WCAG contrast against black
/// above that against white).
bool prefersDarkText(Rgb fill);

enum class HeatScaleKind { Linear, Log };

class HeatScale {
public:
    /// Values from `low` to `high`. A log scale needs low > 0: a lower `low` becomes high / 1e4.
    HeatScale(double low, double high, HeatScaleKind kind);
    /// The scale spanning `values` (their min and max; on a log scale the smallest positive one).
    static HeatScale spanning(const std::vector<double>& values, HeatScaleKind kind);

    double low() const { return low_; }
    double high() const { return high_; }
    HeatScaleKind kind() const { return kind_; }

    /// Where `value` sits on the scale, 0 at low and 1 at high, clamped.
    double position(double value) const;
    Rgb color(double value) const { return heatColor(position(value)); }
    /// Legend ticks within [low, high], ascending: multiples of 1, 2 or 5 x 10^k (at most
    /// `maxTicks` of them) on a linear scale, powers of ten on a log scale (low and high when
    /// the range holds fewer than two).
    std::vector<double> ticks(int maxTicks = 6) const;

private:
    double low_;
    double high_;
    HeatScaleKind kind_;
};

} // namespace graphlens
