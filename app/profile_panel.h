// The Profile panel of the main window: profiles the graph after the current step on the chosen
// backend (the CPU or a Vulkan device) in a worker thread, paints a heatmap of one per-node figure (time, output bytes, FLOPs, GFLOP/s) on
// the after side with a legend, and shows in tabs the hotspots, the timeline of one run, the
// memory chart, the before/after comparison and the CPU/Vulkan comparison; a row, bar or column focuses its node.
#pragma once

#include "core/graph/model.h"
#include "app/background_profile.h"
#include "profiler/heat_scale.h"
#include "profiler/profile_session.h"

#include <QColor>
#include <QPointer>
#include <QThread>
#include <QWidget>

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

class QBoxLayout;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QTabWidget;

namespace graphlens {

class BackendComparePanel;
class ComparePanel;
class HeatLegendWidget;
class MemoryChart;
class TimelineView;

/// The per-node figure a heatmap shows.
/// Error: each node's max relative error from the window's comparison (the Comparison dock
/// holds it; this panel only announces the choice with errorOverlayChosen()).
enum class HeatOverlay { None, Time, Memory, Flops, Gflops, Error };

/// "FusedConv" for "com.microsoft:FusedConv" (a profile's op label): the op without its domain.
QString bareOp(const std::string& op);
/// "Vulkan: llvmpipe" for "Vulkan: llvmpipe (LLVM 15.0.6, 256 bits)": a backend entry short
/// enough for a button.
QString shortBackendName(const QString& name);

/// Hotspot table columns.
enum HotspotColumn { kNodeColumn, kOpColumn, kMedianColumn, kShareColumn, kGflopsColumn, kHotspotColumns };

class ProfilePanel : public QWidget {
    Q_OBJECT
public:
    explicit ProfilePanel(QWidget* parent = nullptr);
    /// Waits for the Vulkan device listing if it still runs: it fills a static that the exit
    /// destroys, and the process may end without an event loop (a failed first open).
    ~ProfilePanel() override;

    /// Profiles `model` on the chosen backend in a worker thread, on seeded random inputs (as
    /// `graphlens profile` makes them); profileReady() or profileFailed() follows unless the
    /// profile is dropped first.
    void startProfile(std::shared_ptr<const Model> model);
    /// The graph shown changed: forgets the profile (and any still running) and the heatmap.
    void dropProfile();
    bool running() const { return running_; }
    /// The last profile of the graph shown; nullptr when there is none.
    const ProfileResult* profile() const { return profile_ ? &*profile_ : nullptr; }
    /// Backend::name() of what ran the last profile ("cpu", "vulkan"); empty without one.
    const std::string& profileBackend() const { return profileBackend_; }
    /// The backend combo: "CPU", then one "Vulkan: <device>" per device of vulkanDevicesOnce(),
    /// added when the devices are listed (on a worker thread, after the panel is made).
    QComboBox* backendBox() const { return backend_; }
    /// Whether the Vulkan devices are listed (and in the combo); backendsListed() says when.
    bool backendsKnown() const { return backendsListed_; }
    /// Options of this panel's profiles and of the before/after comparison's.
    void setProfileOptions(ProfileOptions options);

    HeatOverlay overlay() const;
    void setOverlay(HeatOverlay overlay);
    HeatScaleKind scaleKind() const;
    void setScaleKind(HeatScaleKind kind);
    /// The values the overlay colors by node: seconds, bytes, FLOPs or FLOP/s; nodes without
    /// the figure (no FLOP count) are left out. Empty without a profile or an overlay.
    std::unordered_map<NodeId, double> overlayValues() const;
    /// The heatmap fills by node, for GraphScene::setNodeFills().
    const std::unordered_map<NodeId, QColor>& nodeFills() const { return fills_; }

    QLabel* summaryLabel() const { return summary_; }
    HeatLegendWidget* legend() const { return legend_; }
    QTableWidget* hotspotTable() const { return hotspots_; }
    QPushButton* profileButton() const { return runButton_; }
    QTabWidget* tabs() const { return tabs_; }
    /// The timeline of the profile's median run (by span), and the memory chart of its plan.
    TimelineView* timeline() const { return timeline_; }
    MemoryChart* memoryChart() const { return memoryChart_; }
    /// The Before/After tab.
    ComparePanel* comparePanel() const { return compare_; }
    /// The Backends tab.
    BackendComparePanel* backendComparePanel() const { return backendCompare_; }
    /// The node selected on the after side: its timeline bar is outlined and its memory column
    /// marked, now and in the profiles that come (kNoId: none).
    void selectNode(NodeId node);
    NodeId selectedNode() const { return selectedNode_; }
    /// Whether the controls sit in a column beside the tabs (a wide, short dock) rather than
    /// above them (a narrow one).
    bool controlsBeside() const;

signals:
    /// The Vulkan devices were listed and added to the backend combo.
    void backendsListed();
    /// The "Profile on <backend>" button was pressed: the window answers with startProfile().
    void profileRequested();
    void profileReady();
    void profileFailed(const QString& reason);
    /// The Error overlay was chosen: the window paints the comparison's errors.
    void errorOverlayChosen();
    /// nodeFills() changed.
    void nodeFillsChanged();
    /// A hotspot row, a timeline bar or a memory column was clicked: focus `node` on the canvas.
    void nodeActivated(graphlens::NodeId node);

protected:
    void resizeEvent(QResizeEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void finishProfile(int generation, std::shared_ptr<std::optional<BackendProfile>> result, const QString& error);
    void fillBackends();
    void addVulkanDevices();
    void backendChosen(int index);
    void setBusy(bool busy);
    void fillHotspots();
    /// Caps the Op column at 30% of the table and hides GFLOP/s in a narrow one.
    void fitHotspotColumns();
    void fillTimelineAndMemory();
    void updateHeatmap();
    void activateRow(int row);

    QBoxLayout* layout_ = nullptr;
    QWidget* controls_ = nullptr;
    QPointer<QThread> lister_;  ///< the Vulkan device listing while it runs
    QComboBox* backend_ = nullptr;
    QPushButton* runButton_ = nullptr;
    QProgressBar* busy_ = nullptr;
    QLabel* summary_ = nullptr;
    QComboBox* overlay_ = nullptr;
    QComboBox* scale_ = nullptr;
    HeatLegendWidget* legend_ = nullptr;
    QTableWidget* hotspots_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    TimelineView* timeline_ = nullptr;
    MemoryChart* memoryChart_ = nullptr;
    ComparePanel* compare_ = nullptr;
    BackendComparePanel* backendCompare_ = nullptr;
    ProfileOptions options_{2, 10};
    std::optional<ProfileResult> profile_;
    std::string profileBackend_;
    std::unordered_map<NodeId, QColor> fills_;
    NodeId selectedNode_ = kNoId;
    int opColumnWidth_ = 0;
    bool backendsListed_ = false;  ///< what the widest op name in the hotspot table needs
    int generation_ = 0;  ///< bumped for each profile started or dropped; older results are dropped
    bool running_ = false;
};

} // namespace graphlens
