// Save and export for the main window, through core's exporter (atomic) and the viewer's scene
// export (atomic).
#include "app/window_files.h"

#include "core/onnx/exporter.h"
#include "core/passes/portable.h"
#include "viewer/graph_pane.h"
#include "viewer/graph_scene.h"
#include "viewer/graph_view.h"
#include "viewer/scene_export.h"

#include <QDir>
#include <QFileInfo>

#include <stdexcept>

namespace graphlens {

QString suggestedModelPath(const QString& modelPath) {
    const QFileInfo info(modelPath);
    return info.dir().filePath(info.completeBaseName() + QStringLiteral("-optimized.onnx"));
}

void writeOptimizedModel(Model model, const QString& path, bool standardOpsOnly) {
    lowerFusedOps(model, standardOpsOnly ? Lowering::StandardOnly : Lowering::ForOnnxRuntime);
    saveModel(model, path.toStdString());
}

QString withImageSuffix(const QString& path, const QString& filter) {
    if (imageFormatOf(path)) return path;
    return path + (filter.contains(QLatin1String("png"), Qt::CaseInsensitive) ? QStringLiteral(".png") : QStringLiteral(".svg"));
}

void exportPaneImage(GraphPane& pane, const QString& path, bool wholeGraph, const QString& title) {
    if (!pane.graph()) throw std::runtime_error("there is no graph to export");
    const QRectF source = wholeGraph ? QRectF() : pane.view()->visibleSceneRect();
    writeSceneImage(*pane.scene(), path, title, source);
}

} // namespace graphlens
