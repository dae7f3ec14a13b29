// The Backends tab of the Profile dock: profiles the current step on the CPU and then on a Vulkan
// device in the profile thread and shows them side by side, one row per node (CPU and Vulkan
// median ms, Vulkan/CPU), nodes the Vulkan plan ran as CPU fallbacks marked, under a summary of
// the whole-run medians.
#pragma once

#include "core/graph/model.h"
#include "profiler/profile_session.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <string>
#include <vector>

class QBoxLayout;
class QLabel;
class QPushButton;
class QTableWidget;

namespace graphlens {

/// One node profiled on both backends.
struct BackendNodeTimes {
    NodeId node = kNoId;
    std::string name;
    std::string op;
    double cpuMs = 0;     ///< median
    double vulkanMs = 0;  ///< median
    bool cpuFallback = false;  ///< the Vulkan plan ran it on the CPU
    std::string vulkanKernel;
    std::string why;           ///< why the Vulkan plan ran it on the CPU (PlannedNode::why)
    double ratio() const { return cpuMs > 0 ? vulkanMs / cpuMs : 0; }
};

struct BackendComparison {
    std::vector<BackendNodeTimes> nodes;  ///< nodes profiled on both, in the CPU profile's order
    double cpuMs = 0;     ///< whole-run median
    double vulkanMs = 0;  ///< whole-run median
    std::string device;   ///< the Vulkan device's name
    double ratio() const { return cpuMs > 0 ? vulkanMs / cpuMs : 0; }
};

/// Joins the two profiles of one model by node.
BackendComparison compareBackends(const ProfileResult& cpu, const ProfileResult& vulkan);

/// Backend table columns.
enum BackendColumn { kBackendNodeColumn, kBackendOpColumn, kCpuMsColumn, kVulkanMsColumn, kRatioColumn, kRunsOnColumn, kWhyColumn, kBackendColumns };

class BackendComparePanel : public QWidget {
    Q_OBJECT
public:
    explicit BackendComparePanel(QWidget* parent = nullptr);

    void setProfileOptions(ProfileOptions options) { options_ = options; }
    /// The Vulkan device compared with (an index of vulkanDevicesOnce()); the button stays
    /// disabled until one is set (the devices are listed after the window opens).
    void setVulkanDevice(int index);
    int vulkanDevice() const { return device_; }
    /// Profiles `model` on the CPU, then on the Vulkan device, in the profile thread;
    /// comparisonReady() or comparisonFailed() follows unless dropped first.
    void startCompare(std::shared_ptr<const Model> model);
    /// The graph shown changed: forgets the comparison (and any still running).
    void dropComparison();
    bool running() const { return running_; }
    const BackendComparison* comparison() const { return comparison_ ? &*comparison_ : nullptr; }

    QPushButton* compareButton() const { return button_; }
    QLabel* summaryLabel() const { return summary_; }
    QTableWidget* table() const { return table_; }

signals:
    /// The button was pressed: the window answers with startCompare().
    void compareRequested();
    void comparisonReady();
    void comparisonFailed(const QString& reason);
    /// A row was clicked: focus `node` on the after side.
    void nodeActivated(graphlens::NodeId node);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void finish(int generation, std::shared_ptr<std::optional<BackendComparison>> result, const QString& error);
    void setRunning(bool running);
    void fillTable();
    void activateRow(int row);

    QBoxLayout* layout_ = nullptr;
    QWidget* controls_ = nullptr;
    QPushButton* button_ = nullptr;
    QLabel* summary_ = nullptr;
    QTableWidget* table_ = nullptr;
    ProfileOptions options_{2, 10};
    std::optional<BackendComparison> comparison_;
    int device_ = 0;
    bool haveDevice_ = false;  ///< set by setVulkanDevice(): a Vulkan device exists
    int generation_ = 0;
    bool running_ = false;
};

} // namespace graphlens
