// A graph scene rendered as SVG at a given scale, for tests of what the items draw at each level
// of detail (text present or not at a zoom).
#pragma once

#include "viewer/graph_scene.h"

#include <QBuffer>
#include <QByteArray>
#include <QPainter>
#include <QSvgGenerator>

namespace graphlens::testing {

/// The whole scene drawn at `scale` (the level of detail the items see), as SVG text.
inline QByteArray svgAtScale(GraphScene& scene, qreal scale) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    const QRectF source = scene.sceneRect();
    svg.setSize((source.size() * scale).toSize());
    QPainter painter(&svg);
    scene.render(&painter, QRectF(QPointF(0, 0), source.size() * scale), source);
    painter.end();
    return bytes;
}

} // namespace graphlens::testing
