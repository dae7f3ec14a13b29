// The look of the canvas: fills per op family, mark colors and fonts, derived from the
// application palette so the graph follows the system's light or dark scheme.
#pragma once

#include "viewer/op_family.h"
#include "viewer/visual_graph.h"

#include <QColor>
#include <QFont>
#include <QPalette>

#include <array>

namespace graphlens {

/// How a box is marked: diff states of the before/after view and provenance highlights.
enum class NodeMark {
    Normal,
    Removed,      ///< gone after the step (before side of a diff)
    Added,        ///< new or fused by the step (after side of a diff)
    Highlighted,  ///< related to the selection on the other side (provenance)
    Changed,      ///< paired with a node of another model whose op, attributes or weights differ
};

struct SceneStyle {
    bool dark = false;
    QColor background;
    QColor text;
    QColor mutedText;  ///< names, attributes, parameters
    QColor border;
    QColor edge;
    QColor edgeLabel;
    QColor frameFill;
    QColor frameBorder;
    QColor terminalFill;
    QColor groupFill;
    QColor selection;
    std::array<QColor, kOpFamilyCount> familyFill;
    QFont titleFont;  ///< op type, bold
    QFont bodyFont;
    QFont labelFont;  ///< edge shapes, frame titles

    /// Light or dark scheme chosen by the lightness of the palette's window color.
    static SceneStyle fromPalette(const QPalette& palette, const QFont& baseFont = QFont());

    QColor fillFor(const VisualNode& node) const;
    QColor markColor(NodeMark mark) const;
    const QFont& font(TextRole role) const;
    /// Text metrics of these fonts, for buildVisualGraph() and layoutVisualGraph().
    TextMeasure textMeasure() const;
};

} // namespace graphlens
