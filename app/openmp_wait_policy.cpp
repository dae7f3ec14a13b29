// The OpenMP wait policy of the graphlens executable: threads spin briefly, then sleep.
//
// OpenMP threads (GraphLens's kernels and oneDNN's) that finish a parallel region early wait for
// the next one. libgomp's default is to spin for 300,000 iterations first; on a busy machine (the
// window's own UI thread and X server, other processes) the spinning threads take the cores from
// the ones still working. ResNet-18 at 2 threads on 2 cores, medians (AMD EPYC, AVX-512):
//
//   GOMP_SPINCOUNT        quiet machine   3 busy processes beside it
//   300000 (default)      9.6-9.7 ms      67-68 ms
//   30000                 9.5-9.8 ms      104 ms
//   10000                 9.5-10.1 ms     38-54 ms
//   3000                  10.0-10.1 ms    37-38 ms
//   0 (PASSIVE)           15.0-15.5 ms    29-30 ms
//
// graphlens therefore runs as if GOMP_SPINCOUNT=3000 were set, unless the user set it or
// OMP_WAIT_POLICY.
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
    if (std::strcmp(name, "GOMP_SPINCOUNT") == 0 && lookUp("OMP_WAIT_POLICY") == nullptr)
        return const_cast<char*>("3000");
    return nullptr;
}
