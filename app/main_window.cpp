// MainWindow: menus, the model overview in the middle, a status bar with the model's figures.
#include "app/main_window.h"

#include "app/cli/model_report.h"
#include "core/graph/model_summary.h"
#include "core/onnx/loader.h"
#include "viewer/model_overview.h"

#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>

namespace graphlens {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("GraphLens"));
    resize(1100, 760);
    overview_ = new ModelOverview(this);
    setCentralWidget(overview_);
    statusLabel_ = new QLabel(tr("No model"), this);
    statusBar()->addPermanentWidget(statusLabel_);

    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::chooseAndOpen);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
}

void MainWindow::chooseAndOpen() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open model"), QString(),
                                                      tr("ONNX models (*.onnx);;All files (*)"));
    if (!path.isEmpty()) openModel(path);
}

bool MainWindow::openModel(const QString& path, bool quiet) {
    try {
        if (!QFileInfo::exists(path)) throw std::runtime_error("the file does not exist");
        Model loaded = loadModel(path.toStdString());
        model_ = std::move(loaded);
    } catch (const std::exception& e) {
        lastError_ = tr("Cannot open %1: %2").arg(QFileInfo(path).fileName(), QString::fromUtf8(e.what()));
        if (!quiet) QMessageBox::critical(this, tr("Cannot open model"), lastError_);
        return false;
    }
    lastError_.clear();
    overview_->showModel(*model_);
    setWindowTitle(tr("%1 — GraphLens").arg(QFileInfo(path).fileName()));
    updateStatus();
    return true;
}

void MainWindow::updateStatus() {
    const ModelSummary s = summarize(*model_);
    statusLabel_->setText(tr("%1 nodes · %2 op types · %3 parameters · %4")
                              .arg(s.nodes)
                              .arg(s.ops.size())
                              .arg(cli::humanCount(double(s.parameters), QString()).trimmed())
                              .arg(cli::humanCount(double(s.flops), "FLOPs")));
}

} // namespace graphlens
