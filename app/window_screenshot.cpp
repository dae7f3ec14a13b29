// The screenshot run: the window's own signals say when the graph is drawn (graphShown) and
// when the passes are in (passesApplied); the grab waits for both.
#include "app/window_screenshot.h"

#include "app/cli/cli.h"
#include "app/dock_layout.h"
#include "app/main_window.h"
#include "app/profile_panel.h"
#include "core/onnx/atomic_file.h"

#include <QApplication>
#include <QBuffer>
#include <QDockWidget>
#include <QFileInfo>
#include <QLayout>
#include <QPixmap>
#include <QRegularExpression>
#include <QTimer>

#include <stdexcept>

namespace graphlens {
namespace {

constexpr int kMinSide = 320;
constexpr int kMaxSide = 8192;
/// A window that is still not drawn after this long is reported rather than waited for.
constexpr int kGiveUpSeconds = 600;

QSize parseSize(const QString& text) {
    static const QRegularExpression pattern(QStringLiteral("^(\\d{1,5})x(\\d{1,5})$"));
    const QRegularExpressionMatch match = pattern.match(text);
    const QSize size = match.hasMatch() ? QSize(match.captured(1).toInt(), match.captured(2).toInt()) : QSize();
    if (!size.isValid() || size.width() < kMinSide || size.height() < kMinSide || size.width() > kMaxSide ||
        size.height() > kMaxSide)
        throw std::runtime_error(QStringLiteral("--size takes WxH in pixels, each side from %1 to %2 (such as 1600x1000), not '%3'")
                                     .arg(kMinSide)
                                     .arg(kMaxSide)
                                     .arg(text)
                                     .toStdString());
    return size;
}

} // namespace

bool wantsScreenshot(const QStringList& args) { return args.contains(QStringLiteral("--screenshot")); }

ScreenshotRequest parseScreenshotRequest(const QStringList& args) {
    ScreenshotRequest request;
    const auto valueAfter = [&args](qsizetype& i, const char* option) {
        if (i + 1 >= args.size() || args[i + 1].startsWith(QLatin1String("--")))
            throw std::runtime_error(std::string(option) + " needs a value");
        return args[++i];
    };
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString& arg = args[i];
        if (arg == QLatin1String("--screenshot")) request.output = valueAfter(i, "--screenshot");
        else if (arg == QLatin1String("--size")) request.size = parseSize(valueAfter(i, "--size"));
        else if (arg == QLatin1String("--apply-all")) request.applyAll = true;
        else if (arg == QLatin1String("--profile")) request.profile = true;
        else if (arg == QLatin1String("--compare-with")) request.compareWith = valueAfter(i, "--compare-with");
        else if (arg.startsWith(QLatin1String("-"))) throw std::runtime_error("unknown option '" + arg.toStdString() + "' with --screenshot");
        else if (request.model.isEmpty()) request.model = arg;
        else throw std::runtime_error("--screenshot takes one MODEL, not also '" + arg.toStdString() + "'");
    }
    if (request.model.isEmpty()) throw std::runtime_error("--screenshot needs a MODEL to open");
    if (QFileInfo(request.output).suffix().toLower() != QLatin1String("png"))
        throw std::runtime_error("cannot write '" + request.output.toStdString() + "': the screenshot's file name must end in .png");
    return request;
}

void writeWindowImage(QWidget& window, const QString& path) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!window.grab().toImage().save(&buffer, "PNG"))
        throw std::runtime_error("cannot encode the PNG image for '" + path.toStdString() + "'");
    AtomicFile file(path.toStdString());  // throws "cannot write '...': ..."
    file.write(bytes.constData(), size_t(bytes.size()));
    file.commit();
}

int runScreenshot(const ScreenshotRequest& request) {
    MainWindow window;
    window.layout()->setSizeConstraint(QLayout::SetNoConstraint);  // exactly the size asked for
    window.resize(request.size);
    window.show();
    int status = 0;
    bool written = false;
    // After the graph's first paint; with --apply-all, after the passes' result is shown.
    const auto grab = [&] {
        QTimer::singleShot(0, &window, [&] {  // after the other handlers of the same signal
            try {
                writeWindowImage(window, request.output);
            } catch (const std::exception& e) {
                status = cli::fail(e.what());
            }
            QApplication::exit(status);
        });
    };
    const auto grabWhenReady = [&] {
        if (written || window.layoutPending()) return;  // busy() while the passes run
        written = true;
        if (!request.compareWith.isEmpty()) {
            // A vs B laid out on both panes, then the picture.
            QObject::connect(&window, &MainWindow::comparisonShown, &window, [&] {
                QObject::connect(&window, &MainWindow::graphShown, &window, grab, Qt::SingleShotConnection);
            });
            QObject::connect(&window, &MainWindow::comparisonFailed, &window, [&](const QString& reason) {
                status = cli::fail(reason.toStdString());
                QApplication::exit(status);
            });
            if (!window.compareWithFile(request.compareWith, /*quiet=*/true)) status = cli::fail("cannot start the comparison");
            return;
        }
        if (!request.profile) return grab();
        // The step shown, profiled: its heatmap on the graph and the Profile dock in front.
        if (auto* dock = window.findChild<QDockWidget*>(QLatin1String(kProfileDock))) dock->raise();
        QObject::connect(window.profilePanel(), &ProfilePanel::profileReady, &window, grab);
        QObject::connect(window.profilePanel(), &ProfilePanel::profileFailed, &window, [&](const QString& reason) {
            status = cli::fail("the profile failed: " + reason.toStdString());
            QApplication::exit(status);
        });
        window.profileCurrentStep();
    };
    QObject::connect(&window, &MainWindow::graphShown, &window, grabWhenReady);
    QObject::connect(&window, &MainWindow::passesApplied, &window, grabWhenReady);
    QObject::connect(&window, &MainWindow::loadFailed, &window, [&](const QString& error) {
        status = cli::fail(error.toStdString());
        QApplication::exit(status);
    });
    QTimer::singleShot(kGiveUpSeconds * 1000, &window, [&] {
        status = cli::fail(QStringLiteral("the window was not drawn within %1 s; nothing was written").arg(kGiveUpSeconds).toStdString());
        QApplication::exit(status);
    });
    if (request.applyAll)
        QObject::connect(&window, &MainWindow::modelLoaded, &window, &MainWindow::applyAllPasses, Qt::SingleShotConnection);
    if (!window.openModel(request.model, /*quiet=*/true)) return status ? status : cli::fail("cannot open the window's model");
    const int result = QApplication::exec();
    return status ? status : result;
}

} // namespace graphlens
