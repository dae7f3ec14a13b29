// graphlens: with a subcommand (info, optimize, ...) it runs headless; otherwise it opens the window.
#include "app/cli/cli.h"
#include "app/main_window.h"

#include <QApplication>
#include <QCoreApplication>

#include <cstdlib>
#include <iostream>

int main(int argc, char** argv) {
    if (argc > 1 && graphlens::cli::isCommand(QString::fromLocal8Bit(argv[1]))) {
        QCoreApplication app(argc, argv);
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
    const QStringList args = QApplication::arguments();
    if (args.size() > 1) window.openModel(args[1]);
    return app.exec();
}
