// The CPU native kernel registry.
#include "runtime/native/cpu_registry.h"

#include <map>
#include <memory>
#include <mutex>

namespace d4r::runtime {

namespace {

struct Registry {
    std::mutex mutex;
    std::map<std::string, std::unique_ptr<CpuNativeKernel>, std::less<>> kernels;
};

Registry& registry() {
    static Registry* r = new Registry(); // used from static initialisers of other files; never destroyed
    return *r;
}

} // namespace

void register_cpu_kernel(CpuNativeKernel kernel) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    std::string name = kernel.name;
    r.kernels[name] = std::make_unique<CpuNativeKernel>(std::move(kernel));
}

const CpuNativeKernel* find_cpu_kernel(std::string_view name) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    auto it = r.kernels.find(name);
    return it == r.kernels.end() ? nullptr : it->second.get();
}

} // namespace d4r::runtime
