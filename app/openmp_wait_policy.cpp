// The OpenMP wait policy of the graphlens executable: threads sleep between parallel regions.
//
// OpenMP threads (GraphLens's kernels and oneDNN's) that finish a parallel region early wait for
// the next one. libgomp's default is to spin for 300,000 iterations first; on a busy machine (the
// window's own UI thread and X server, other processes) the spinning threads take the cores from
// the ones still working. ResNet-18 at 2 threads on 2 cores beside busy processes: median
// 121-148 ms spinning, 40-43 ms sleeping. graphlens therefore runs as if OMP_WAIT_POLICY=PASSIVE
// were set, unless the user set OMP_WAIT_POLICY or GOMP_SPINCOUNT.
//
// libgomp reads its environment once, in its initializer, before main() runs; neither setenv from
// .preinit_array (the C library resets the environment after it) nor a library's initializer
// (libgomp is initialized early: Qt's libb2 needs it) comes first, and executing graphlens again
// with the variable set doubled its start-up time. So the executable defines getenv itself: the C
// library's lookup of the environment, plus that one default. The dynamic linker binds every
// library's getenv to the executable's, libgomp's included (tst_cli checks that libgomp saw it).
#include <cstring>

extern char** environ;

namespace {

const char* lookUp(const char* name) {
    const size_t length = std::strlen(name);
    if (length == 0 || std::strchr(name, '=') != nullptr) return nullptr;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry)
        if (std::strncmp(*entry, name, length) == 0 && (*entry)[length] == '=') return *entry + length + 1;
    return nullptr;
}

} // namespace

extern "C" char* getenv(const char* name) noexcept {
    if (const char* value = lookUp(name)) return const_cast<char*>(value);
    if (std::strcmp(name, "OMP_WAIT_POLICY") == 0 && lookUp("GOMP_SPINCOUNT") == nullptr)
        return const_cast<char*>("PASSIVE");
    return nullptr;
}
