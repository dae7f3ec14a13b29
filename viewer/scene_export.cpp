// Scene export through QSvgGenerator (text stays text) and QImage, into core's AtomicFile.
#include "viewer/scene_export.h"

#include "core/onnx/atomic_file.h"

#include <QBuffer>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QPainter>
#include <QSvgGenerator>

#include <cmath>
#include <stdexcept>

namespace graphlens {

std::optional<ImageFormat> imageFormatOf(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == "svg") return ImageFormat::Svg;
    if (suffix == "png") return ImageFormat::Png;
    return std::nullopt;
}

QByteArray sceneToSvg(QGraphicsScene& scene, const QString& title, QRectF source) {
    if (source.isEmpty()) source = scene.sceneRect();
    QByteArray bytes;
    QBuffer buffer(&bytes);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(source.size().toSize());
    svg.setViewBox(QRectF(QPointF(0, 0), source.size()));
    svg.setTitle(title);
    svg.setDescription(QStringLiteral("Drawn by GraphLens"));
    QPainter painter(&svg);
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    painter.fillRect(QRectF(QPointF(0, 0), source.size()), scene.backgroundBrush());
    scene.render(&painter, QRectF(QPointF(0, 0), source.size()), source);
    painter.end();
    return bytes;
}

QImage sceneToImage(QGraphicsScene& scene, qreal scale, QRectF source, int maxSide) {
    if (source.isEmpty()) source = scene.sceneRect();
    const qreal longest = std::max(source.width(), source.height());
    if (longest * scale > maxSide) scale = maxSide / longest;
    const QSize size(std::max(1, int(std::ceil(source.width() * scale))), std::max(1, int(std::ceil(source.height() * scale))));
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    if (image.isNull()) throw std::runtime_error("the image is too large to render in memory");
    image.fill(scene.backgroundBrush().color());
    QPainter painter(&image);
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
    scene.render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), source);
    painter.end();
    return image;
}

void writeSceneImage(QGraphicsScene& scene, const QString& path, const QString& title, QRectF source) {
    const auto format = imageFormatOf(path);
    if (!format)
        throw std::runtime_error("cannot write '" + path.toStdString() + "': the file name must end in .svg or .png");
    QByteArray bytes;
    if (*format == ImageFormat::Svg) {
        bytes = sceneToSvg(scene, title, source);
    } else {
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        if (!sceneToImage(scene, 2, source).save(&buffer, "PNG"))
            throw std::runtime_error("cannot encode the PNG image for '" + path.toStdString() + "'");
    }
    AtomicFile file(path.toStdString());  // throws OnnxError "cannot write '...': ..."
    file.write(bytes.constData(), size_t(bytes.size()));
    file.commit();
}

} // namespace graphlens
