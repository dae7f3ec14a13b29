// What the window's profiles share: one worker thread for all of them (so runs never time each
// other), the Vulkan devices the window offers, and a profile of a model on a chosen backend on
// seeded random inputs, as `graphlens profile` makes them.
#pragma once

#include "core/graph/model.h"
#include "core/runtime/backend_registry.h"
#include "profiler/profile_session.h"

#include <QApplication>
#include <QPointer>
#include <QString>
#include <QThreadPool>

#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace graphlens {

/// The profiles' own thread pool, of one thread.
QThreadPool* profilePool();

/// listVulkanDevices(), asked once per process (creating a Vulkan instance is not free).
const DeviceListing& vulkanDevicesOnce();

/// A backend to profile on: makeBackend(name, device).
struct BackendChoice {
    std::string name = "cpu";
    int device = -1;  ///< the Vulkan device index; -1: the preferred one
};

struct BackendProfile {
    std::map<std::string, std::vector<int64_t>> inputShapes;  ///< of the feeds it ran on
    std::string backend;  ///< Backend::name() of what ran it: "cpu", "vulkan"
    ProfileResult result;
};

/// Runs in the worker thread: seeded random feeds, a plan of `backend` shaped by them, the
/// session. Throws what creating the backend, compiling or running throws.
BackendProfile profileOn(const Model& model, const BackendChoice& backend, const ProfileOptions& options);

/// profileOn() the CPU backend.
inline BackendProfile profileOnCpu(const Model& model, const ProfileOptions& options) { return profileOn(model, {}, options); }

/// Runs `work` (returning a Result) on the profile thread and hands what it returned, or nullopt
/// and the sentence of what it threw, to `(owner->*done)(generation, result, error)` on the UI
/// thread, unless `owner` is gone by then.
template <typename Result, typename Owner, typename Work>
void runOnProfileThread(Owner* owner, int generation, Work work,
                        void (Owner::*done)(int, std::shared_ptr<std::optional<Result>>, const QString&)) {
    QPointer<Owner> self(owner);
    profilePool()->start([self, generation, work = std::move(work), done]() mutable {
        auto result = std::make_shared<std::optional<Result>>();
        QString error;
        try {
            *result = work();
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
        QMetaObject::invokeMethod(qApp, [self, generation, result, error, done] {
            if (self) (self.data()->*done)(generation, result, error);
        }, Qt::QueuedConnection);
    });
}

} // namespace graphlens
