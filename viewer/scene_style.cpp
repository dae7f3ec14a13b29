// Family fills are one hue each: pale in the light scheme, deep in the dark one, so black or
// white text stays readable on every box.
#include "viewer/scene_style.h"

#include <QFontMetricsF>

namespace graphlens {
namespace {

/// Hue (degrees) and saturation of each family, in OpFamily order.
constexpr std::array<std::pair<int, double>, kOpFamilyCount> kFamilyHues{{
    {212, 0.65},  // linear: blue
    {32, 0.85},   // activation: orange
    {112, 0.45},  // normalization: green
    {262, 0.50},  // pooling: violet
    {0, 0.60},    // element-wise: red
    {210, 0.08},  // shape / layout: grey
    {182, 0.50},  // reduction: teal
    {52, 0.75},   // control flow: yellow
    {318, 0.70},  // fused: magenta
    {0, 0.0},     // other: neutral
}};

QColor familyColor(int family, bool dark) {
    const auto [hue, saturation] = kFamilyHues[size_t(family)];
    return dark ? QColor::fromHslF(hue / 360.0, saturation * 0.55, 0.30)
                : QColor::fromHslF(hue / 360.0, saturation, 0.86);
}

QColor mix(const QColor& a, const QColor& b, qreal t) {
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t), float(a.greenF() + (b.greenF() - a.greenF()) * t),
                            float(a.blueF() + (b.blueF() - a.blueF()) * t));
}

} // namespace

SceneStyle SceneStyle::fromPalette(const QPalette& palette, const QFont& baseFont) {
    SceneStyle s;
    s.dark = palette.color(QPalette::Window).lightnessF() < 0.5;
    s.background = palette.color(QPalette::Base);
    s.text = palette.color(QPalette::Text);
    s.mutedText = mix(s.text, s.background, 0.4);
    s.border = s.dark ? QColor(150, 150, 160) : QColor(90, 90, 100);
    s.edge = s.dark ? QColor(170, 170, 180) : QColor(80, 80, 90);
    s.edgeLabel = s.dark ? QColor(160, 160, 170) : QColor(100, 100, 110);
    s.frameFill = s.dark ? QColor(255, 255, 255, 14) : QColor(0, 0, 40, 10);
    s.frameBorder = s.dark ? QColor(120, 120, 135) : QColor(170, 170, 185);
    s.terminalFill = s.dark ? QColor(70, 70, 78) : QColor(245, 245, 240);
    s.groupFill = s.dark ? QColor(60, 66, 84) : QColor(226, 230, 240);
    s.selection = palette.color(QPalette::Highlight);
    for (int f = 0; f < kOpFamilyCount; ++f) s.familyFill[size_t(f)] = familyColor(f, s.dark);
    s.bodyFont = baseFont;
    s.bodyFont.setPointSizeF(9);
    s.titleFont = s.bodyFont;
    s.titleFont.setBold(true);
    s.titleFont.setPointSizeF(10);
    s.labelFont = s.bodyFont;
    s.labelFont.setPointSizeF(8);
    return s;
}

QColor SceneStyle::fillFor(const VisualNode& node) const {
    switch (node.key.kind) {
    case VisualKey::Kind::Input:
    case VisualKey::Kind::Output: return terminalFill;
    case VisualKey::Kind::Group: return groupFill;
    case VisualKey::Kind::Node: break;
    }
    return familyFill[size_t(node.family)];
}

QColor SceneStyle::markColor(NodeMark mark) const {
    switch (mark) {
    case NodeMark::Removed: return dark ? QColor(239, 83, 80) : QColor(198, 40, 40);
    case NodeMark::Added: return dark ? QColor(102, 187, 106) : QColor(46, 125, 50);
    case NodeMark::Highlighted: return QColor(255, 179, 0);
    case NodeMark::Changed: return dark ? QColor(100, 181, 246) : QColor(21, 101, 192);
    case NodeMark::Normal: break;
    }
    return border;
}

const QFont& SceneStyle::font(TextRole role) const {
    switch (role) {
    case TextRole::Title: return titleFont;
    case TextRole::EdgeLabel: return labelFont;
    case TextRole::Body: break;
    }
    return bodyFont;
}

TextMeasure SceneStyle::textMeasure() const {
    // Copies of the metrics, so the measure outlives this style and works in a worker thread.
    const std::array metrics{QFontMetricsF(titleFont), QFontMetricsF(bodyFont), QFontMetricsF(labelFont)};
    return [metrics](const QString& line, TextRole role) {
        const QFontMetricsF& m = metrics[size_t(role)];
        return QSizeF(m.horizontalAdvance(line), m.height());
    };
}

} // namespace graphlens
