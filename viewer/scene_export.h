// Export of a canvas scene (or a part of it) as SVG, with node labels as SVG text, or as PNG;
// written atomically (a temporary file renamed into place).
#pragma once

#include <QByteArray>
#include <QImage>
#include <QRectF>
#include <QString>

#include <optional>

class QGraphicsScene;

namespace graphlens {

/// The image format a path's extension asks for.
enum class ImageFormat { Svg, Png };

/// Svg for ".svg", Png for ".png" (any case); nullopt for anything else.
std::optional<ImageFormat> imageFormatOf(const QString& path);

/// The SVG text of `source` (the whole scene when empty), titled `title`.
QByteArray sceneToSvg(QGraphicsScene& scene, const QString& title = {}, QRectF source = {});

/// `source` (the whole scene when empty) at `scale`, reduced so that neither side exceeds
/// `maxSide` pixels; filled with the scene's background.
QImage sceneToImage(QGraphicsScene& scene, qreal scale = 2, QRectF source = {}, int maxSide = 16000);

/// Writes the scene to `path` as SVG or PNG by its extension. Throws std::runtime_error with one
/// sentence (unknown extension, folder missing, not writable).
void writeSceneImage(QGraphicsScene& scene, const QString& path, const QString& title = {}, QRectF source = {});

} // namespace graphlens
