// What the window's profiles share: one worker thread for all of them (so runs never time each
// other) and a CPU profile of a model on seeded random inputs, as `graphlens profile` makes them.
#pragma once

#include "core/graph/model.h"
#include "profiler/profile_session.h"

#include <map>
#include <string>
#include <vector>

class QThreadPool;

namespace graphlens {

/// The profiles' own thread pool, of one thread.
QThreadPool* profilePool();

struct CpuProfile {
    std::map<std::string, std::vector<int64_t>> inputShapes;  ///< of the feeds it ran on
    ProfileResult result;
};

/// Runs in the worker thread: seeded random feeds, a CPU plan shaped by them, the session.
/// Throws what compiling or running throws.
CpuProfile profileOnCpu(const Model& model, const ProfileOptions& options);

} // namespace graphlens
