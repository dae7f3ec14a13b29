// `graphlens MODEL --screenshot FILE.png [--apply-all] [--profile] [--compare-with B] [--size WxH]`:
// opens the window
// off screen at the given size (1600x1000 by default), waits for the first paint of the graph
// (after the default passes with --apply-all; with --profile, after the Profile dock's profile of
// that step, its time heatmap painted on the graph and the dock raised; with --compare-with, after
// the comparison with B is on the panes with its Error overlay), and writes the window as
// a PNG, atomically.
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>

#include <optional>

class QWidget;

namespace graphlens {

struct ScreenshotRequest {
    QString model;
    QString output;
    QSize size{1600, 1000};
    bool applyAll = false;
    bool profile = false;  ///< profile the step shown and paint its time heatmap first
    QString compareWith;   ///< File > Compare with... this model first: A vs B with the Error overlay
};

/// True when the window's arguments (argv without the program) ask for a screenshot.
bool wantsScreenshot(const QStringList& args);

/// The request in `args` (argv without the program). Throws std::runtime_error with one sentence
/// for anything else in them, a missing MODEL or FILE, a FILE not ending in .png, or a bad size.
ScreenshotRequest parseScreenshotRequest(const QStringList& args);

/// Writes `window` as it looks now to `path` as a PNG (temporary file renamed into place).
/// Throws std::runtime_error with one sentence.
void writeWindowImage(QWidget& window, const QString& path);

/// Opens the window for `request`, writes the screenshot and returns the exit status: 0, or 1
/// after one sentence on stderr when the model cannot be opened or the file cannot be written.
/// Needs a QApplication.
int runScreenshot(const ScreenshotRequest& request);

} // namespace graphlens
