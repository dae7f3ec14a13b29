// graphlens: with a subcommand (info, optimize, ...) it runs headless; otherwise it opens the window.
#include "app/cli/cli.h"
#include "app/main_window.h"
#include "app/window_screenshot.h"
#include "core/runtime/cpu/conv_tuning.h"

#include <QApplication>
#include <QIcon>
#include <QCoreApplication>
#include <QElapsedTimer>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <string_view>

namespace {

/// Qt's notes about the session (XDG_RUNTIME_DIR, ...) would break the one-line errors of
/// headless runs: only critical messages reach stderr.
void keepErrorsOnOneLine() {
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& message) {
        if (type == QtCriticalMsg || type == QtFatalMsg) std::cerr << message.toStdString() << std::endl;
    });
}

} // namespace

int main(int argc, char** argv) {
    QElapsedTimer sinceStart;  // for --quit-after-first-paint
    sinceStart.start();
    // CPU plans measure each convolution's algorithms once per machine and remember the fastest
    // (conv_tuning.h); GRAPHLENS_CONV_TUNING=off keeps the shape rules.
    const char* tuning = std::getenv("GRAPHLENS_CONV_TUNING");
    graphlens::setConvTuning(!tuning || std::string_view(tuning) != "off");
    if (argc > 1 && graphlens::cli::isCommand(QString::fromLocal8Bit(argv[1]))) {
        std::unique_ptr<QCoreApplication> app;
        if (graphlens::cli::commandNeedsGui(QString::fromLocal8Bit(argv[1]))) {
            // Painting commands draw a QGraphicsScene (which needs a QApplication) off screen:
            // no display needed, and the same result with one.
            if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
            keepErrorsOnOneLine();
            app = std::make_unique<QApplication>(argc, argv);
        } else {
            app = std::make_unique<QCoreApplication>(argc, argv);
        }
        QStringList args = QCoreApplication::arguments();
        args.removeFirst();
        return graphlens::cli::run(args);
    }
    // graphlens MODEL --screenshot FILE.png [--apply-all] [--profile] [--size WxH] needs no display.
    QStringList windowArgs;
    for (int i = 1; i < argc; ++i) windowArgs << QString::fromLocal8Bit(argv[i]);
    if (graphlens::wantsScreenshot(windowArgs)) {
        // Like the painting subcommands: off screen unless a platform is asked for.
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
        keepErrorsOnOneLine();
        QApplication app(argc, argv);
        QApplication::setOrganizationName("GraphLens");  // the recent files of screenshots stay apart
        QApplication::setApplicationName("GraphLens-screenshot");
        try {
            return graphlens::runScreenshot(graphlens::parseScreenshotRequest(windowArgs));
        } catch (const std::exception& e) {
            return graphlens::cli::fail(e.what());
        }
    }
    const bool haveDisplay = std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY") ||
                             std::getenv("QT_QPA_PLATFORM");
    if (!haveDisplay) {
        std::cerr << "graphlens: no display is available to open the window; use a subcommand "
                     "such as 'graphlens info MODEL' (see 'graphlens --help')" << std::endl;
        return 1;
    }
    for (int i = 1; i < argc; ++i)
        if (std::string_view(argv[i]) == "--quit-after-first-paint") keepErrorsOnOneLine();  // a smoke test
    QApplication app(argc, argv);
    QApplication::setOrganizationName("GraphLens");  // QSettings: ~/.config/GraphLens/GraphLens.conf
    QApplication::setApplicationName("GraphLens");
    QApplication::setApplicationVersion(GRAPHLENS_VERSION);
    QApplication::setWindowIcon(QIcon(":/graphlens.svg"));
    QGuiApplication::setDesktopFileName("graphlens");  // ties the window to graphlens.desktop
    graphlens::MainWindow window;
    // The layout the user left, or the whole screen (maximized where a window manager does it).
    if (window.restoreLayout()) {
        window.show();
    } else {
        window.fitToScreen();
        window.showMaximized();
    }
    // graphlens [MODEL] [--apply-all] [--quit-after-first-paint]: --apply-all runs the whole
    // default pipeline after opening; --quit-after-first-paint prints "first paint: N ms" (from
    // process start to the first frame with the graph drawn) and exits.
    QStringList args = QApplication::arguments();
    args.removeFirst();
    const bool applyAll = args.removeAll("--apply-all") > 0;
    const bool quitAfterFirstPaint = args.removeAll("--quit-after-first-paint") > 0;
    // --compare-with B: File > Compare with... B once the model is shown.
    QString compareWith;
    if (const qsizetype at = args.indexOf("--compare-with"); at >= 0 && at + 1 < args.size()) {
        compareWith = args.takeAt(at + 1);
        args.removeAt(at);
    }
    if (quitAfterFirstPaint) {
        if (args.isEmpty()) {
            std::cerr << "graphlens: --quit-after-first-paint needs a MODEL" << std::endl;
            return 1;
        }
        QObject::connect(&window, &graphlens::MainWindow::graphShown, &app, [&] {
            if (applyAll && window.busy()) return;  // the original, shown while the passes run
            window.repaint();  // paints synchronously: the frame with the graph exists now
            std::cout << "first paint: " << sinceStart.elapsed() << " ms" << std::endl;
            QApplication::quit();
        });
    }
    if (!args.isEmpty()) {
        // The model loads in the background: what comes after it is connected to its signals.
        if (quitAfterFirstPaint)
            QObject::connect(&window, &graphlens::MainWindow::loadFailed, &app, [](const QString& error) {
                std::cerr << "graphlens: " << error.toStdString() << std::endl;
                QCoreApplication::exit(1);
            });
        if (applyAll)
            QObject::connect(&window, &graphlens::MainWindow::modelLoaded, &window, &graphlens::MainWindow::applyAllPasses,
                             Qt::SingleShotConnection);
        if (!compareWith.isEmpty())
            QObject::connect(&window, &graphlens::MainWindow::graphShown, &window, [&window, compareWith] {
                if (!window.busy() && !window.diff()) window.compareWithFile(compareWith);
            });
        if (!window.openModel(args.first(), /*quiet=*/quitAfterFirstPaint) && quitAfterFirstPaint) return 1;
    }
    return app.exec();
}
