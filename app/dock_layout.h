// Where the main window's docks go by default, and their default sizes: the pass pipeline and
// search (and the canvas outline where there is one) tabbed in a narrow column on the left; the
// inspector and the model overview tabbed in a full-height column on the right; the rewrite log
// and the profile tabbed below the graph panes. The graph panes keep most of the width.
#pragma once

class QMainWindow;

namespace graphlens {

/// The docks' objectNames: QMainWindow::saveState() and restoreState() find docks by them.
inline constexpr const char* kPassesDock = "passesDock";
inline constexpr const char* kSearchDock = "searchDock";
inline constexpr const char* kOutlineDock = "outlineDock";
inline constexpr const char* kInspectorDock = "inspectorDock";
inline constexpr const char* kModelDock = "modelDock";
inline constexpr const char* kRewriteLogDock = "rewriteLogDock";
inline constexpr const char* kProfileDock = "profileDock";
inline constexpr const char* kComparisonDock = "comparisonDock";

/// Puts every dock named above that `window` has in its default area, docked, shown and tabbed
/// with the others of its area (the first of each area raised); the left and right columns run
/// the window's full height, the bottom area sits below the central widget only.
void arrangeDefaultDocks(QMainWindow& window);

/// Gives the docks their default sizes for the window's current size: left about 16% of the
/// width (220-300 px), right about 21% (280-400 px), the bottom about 30% of the height
/// (200-340 px). At 1600x1000 the central widget keeps about 62% of the width.
void sizeDefaultDocks(QMainWindow& window);

} // namespace graphlens
