// MainWindow, the parts about the window's own state: the dock layout (saved, restored, reset),
// which actions the state allows (no model: the start page, and nothing that needs one), and
// the file actions File > Save optimized model and File > Export.
#include "app/main_window.h"

#include "app/comparison_panel.h"

#include "app/dock_layout.h"
#include "app/pass_panel.h"
#include "app/profile_panel.h"
#include "app/start_page.h"
#include "app/task_runner.h"
#include "app/window_files.h"
#include "viewer/graph_pane.h"
#include "viewer/search_panel.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLayout>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>

#include <algorithm>
#include <utility>

namespace graphlens {
namespace {

/// Bumped when the docks change so much that a layout saved before would not fit.
constexpr int kLayoutVersion = 3;  // 3: the Comparison dock

} // namespace

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (!std::exchange(docksSized_, true) && !layoutRestored_) sizeDefaultDocks(*this);
}

void MainWindow::fitToScreen() {
    if (const QScreen* screen = this->screen()) setGeometry(screen->availableGeometry());
}

bool MainWindow::restoreLayout() {
    const QSettings settings;
    const QByteArray geometry = settings.value("window/geometry").toByteArray();
    const QByteArray state = settings.value("window/state").toByteArray();
    if (geometry.isEmpty() || state.isEmpty() || !restoreState(state, kLayoutVersion)) return false;
    restoreGeometry(geometry);
    split_->restoreState(settings.value("window/panes").toByteArray());
    layoutRestored_ = true;
    return true;
}

void MainWindow::saveLayout() const {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState(kLayoutVersion));
    settings.setValue("window/panes", split_->saveState());
}

void MainWindow::resetLayout() {
    arrangeDefaultDocks(*this);
    layout()->activate();  // the docks' new places first: resizeDocks() sizes what is laid out
    sizeDefaultDocks(*this);
    split_->setSizes({1, 1});  // equal halves
}

bool MainWindow::startPageShown() const { return central_->currentWidget() == startPage_; }

void MainWindow::updateActions() {
    const bool working = busy();
    const auto contains = [](const std::vector<QAction*>& list, QAction* action) { return std::ranges::find(list, action) != list.end(); };
    for (const std::vector<QAction*>* list : {&workActions_, &modelActions_})
        for (QAction* action : *list)
            action->setEnabled(!(working && contains(workActions_, action)) && (model_ || !contains(modelActions_, action)));
    passPanel_->setEnabled(model_ && !working);
    searchPanel_->setEnabled(bool(model_));
    profilePanel_->setEnabled(bool(model_));
    comparison_->setEnabled(model_ && !working);
    startPage_->setEnabled(!working);
    central_->setCurrentWidget(model_ ? static_cast<QWidget*>(split_) : startPage_);
}

void MainWindow::chooseAndSave(bool standardOpsOnly) {
    if (!model_) return;
    const QString title = standardOpsOnly ? tr("Save optimized model (standard ONNX operators only)") : tr("Save optimized model");
    QString path = QFileDialog::getSaveFileName(this, title, suggestedModelPath(modelPath_), tr("ONNX models (*.onnx)"));
    if (path.isEmpty()) return;
    if (!path.endsWith(QLatin1String(".onnx"), Qt::CaseInsensitive)) path += QLatin1String(".onnx");
    saveOptimizedModel(path, standardOpsOnly);
}

bool MainWindow::saveOptimizedModel(const QString& path, bool standardOpsOnly, bool quiet) {
    if (!model_ || busy()) return false;
    std::shared_ptr<const Model> model = stepper().sharedCurrent();
    const QString title = tr("Saving %1").arg(QFileInfo(path).fileName());
    return tasks_->start(title, [this, model, path, standardOpsOnly, quiet, title](const TaskRunner::Control& control) -> TaskRunner::Completion {
        control.report(0, 0, title);
        try {
            writeOptimizedModel(*model, path, standardOpsOnly);
        } catch (const std::exception& e) {
            return [this, quiet, error = tr("Cannot save %1: %2").arg(QFileInfo(path).fileName(), QString::fromUtf8(e.what()))] {
                emit saveFailed(error);
                if (!quiet) QMessageBox::critical(this, tr("Cannot save the model"), error);
            };
        }
        return [this, path] {
            statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), 10000);
            emit modelSaved(path);
        };
    });
}

void MainWindow::chooseAndExport(bool wholeGraph) {
    if (!model_) return;
    const QFileInfo model(modelPath_);
    const QString suggested = model.dir().filePath(model.completeBaseName() + (wholeGraph ? "-graph.svg" : "-view.svg"));
    QString filter;
    const QString path = QFileDialog::getSaveFileName(this, wholeGraph ? tr("Export whole graph") : tr("Export view"), suggested,
                                                      tr("SVG images (*.svg);;PNG images (*.png)"), &filter);
    if (path.isEmpty()) return;
    const QString error = exportImage(withImageSuffix(path, filter), wholeGraph);
    if (!error.isEmpty()) QMessageBox::critical(this, tr("Cannot export"), error);
}

QString MainWindow::exportImage(const QString& path, bool wholeGraph) {
    if (!model_) return tr("No model is open.");
    GraphPane* pane = focusedPane();
    try {
        exportPaneImage(*pane, path, wholeGraph, QFileInfo(modelPath_).fileName());
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 10000);
    return {};
}

} // namespace graphlens
