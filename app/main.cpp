// graphlens: with a subcommand (info, optimize, ...) it runs headless; otherwise it opens the window.
#include "app/cli/cli.h"
#include "app/main_window.h"

#include <QApplication>
#include <QCoreApplication>

#include <cstdlib>
#include <iostream>
#include <memory>

int main(int argc, char** argv) {
    if (argc > 1 && graphlens::cli::isCommand(QString::fromLocal8Bit(argv[1]))) {
        std::unique_ptr<QCoreApplication> app;
        if (graphlens::cli::commandNeedsGui(QString::fromLocal8Bit(argv[1]))) {
            // Painting commands draw a QGraphicsScene (which needs a QApplication) off screen:
            // no display needed, and the same result with one.
            if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
            // Qt's notes about the session (XDG_RUNTIME_DIR, ...) would break the one-line errors.
            qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& message) {
                if (type == QtCriticalMsg || type == QtFatalMsg) std::cerr << message.toStdString() << std::endl;
            });
            app = std::make_unique<QApplication>(argc, argv);
        } else {
            app = std::make_unique<QCoreApplication>(argc, argv);
        }
        QStringList args = QCoreApplication::arguments();
        args.removeFirst();
        return graphlens::cli::run(args);
    }
    const bool haveDisplay = std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY") ||
                             std::getenv("QT_QPA_PLATFORM");
    if (!haveDisplay) {
        std::cerr << "graphlens: no display is available to open the window; use a subcommand "
                     "such as 'graphlens info MODEL' (see 'graphlens --help')" << std::endl;
        return 1;
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName("GraphLens");
    QApplication::setApplicationVersion(GRAPHLENS_VERSION);
    graphlens::MainWindow window;
    window.show();
    // graphlens [MODEL] [--apply-all]: --apply-all runs the whole default pipeline after opening.
    QStringList args = QApplication::arguments();
    args.removeFirst();
    const bool applyAll = args.removeAll("--apply-all") > 0;
    if (!args.isEmpty() && window.openModel(args.first()) && applyAll) window.applyAllPasses();
    return app.exec();
}
