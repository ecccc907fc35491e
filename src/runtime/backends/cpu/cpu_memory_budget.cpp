// cpu backend: the memory budget (cpu_memory_budget.h).
#include "runtime/backends/cpu/cpu_memory_budget.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <fstream>
#include <string>

#include "core/env.h"
#include "core/env_vars.h"
#include "core/log.h"
#include "core/strings.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

constexpr uint64_t kUnlimited = UINT64_MAX;

struct Held final : StatePart {
    static constexpr PartSlot kSlot = PartSlot::Budget;
    std::atomic<uint64_t> module_bytes{0};  // module variables alive
    std::atomic<uint64_t> pending_bytes{0}; // allocations checked and under way
};

Held& held() { return state().part<Held>(); }

uint64_t physical_bytes() {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : kUnlimited;
}

// The first line of a small file, or "".
std::string first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    if (in) std::getline(in, line);
    return line;
}

// MemAvailable of /proc/meminfo in bytes (kUnlimited when it cannot be read).
uint64_t mem_available() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    uint64_t kib = 0;
    std::string unit;
    while (in >> key >> kib) {
        std::getline(in, unit);
        if (key == "MemAvailable:") return kib * 1024;
    }
    return kUnlimited;
}

struct CgroupLimit {
    uint64_t max = kUnlimited;  // the smallest memory.max above the process
    uint64_t room = kUnlimited; // the smallest memory.max - memory.current
};

// cgroup v2: the process's group ("0::/path" in /proc/self/cgroup) and each of its ancestors may cap
// memory; the tightest counts.
CgroupLimit cgroup_limit() {
    CgroupLimit out;
    std::ifstream in("/proc/self/cgroup");
    std::string line, path;
    while (std::getline(in, line))
        if (line.rfind("0::", 0) == 0) path = line.substr(3);
    if (path.empty() || path[0] != '/') return out;
    for (;;) {
        const std::string dir = "/sys/fs/cgroup" + (path == "/" ? std::string() : path);
        const std::string max = first_line(dir + "/memory.max");
        if (!max.empty() && max != "max" && std::isdigit(static_cast<unsigned char>(max[0]))) {
            const uint64_t limit = std::stoull(max);
            const std::string current = first_line(dir + "/memory.current");
            const uint64_t used =
                !current.empty() && std::isdigit(static_cast<unsigned char>(current[0])) ? std::stoull(current) : 0;
            out.max = std::min(out.max, limit);
            out.room = std::min(out.room, limit > used ? limit - used : 0);
        }
        if (path == "/") break;
        const size_t slash = path.rfind('/');
        path = slash == 0 ? "/" : path.substr(0, slash);
    }
    return out;
}

std::optional<uint64_t> env_cap() {
    // A Size in the table of variables; the K/M/G/T parsing is parse_memory_size's.
    auto text = env_text(process_environment(), EnvVar::CpuMemoryLimit);
    if (!text) return std::nullopt;
    auto cap = parse_memory_size(*text);
    if (!cap && log::once("cpu:D4R_CPU_MEMORY_LIMIT"))
        log::warn("cpu backend: D4R_CPU_MEMORY_LIMIT='{}' is not a size in bytes (a number, optionally followed by K, "
                  "M, G or T): ignored",
                  *text);
    return cap;
}

uint64_t held_bytes() {
    return state().device.allocated_bytes() + held().module_bytes.load() + held().pending_bytes.load();
}

CUresult refuse_oom(uint64_t bytes, const char* what, const MemoryBudget& b) {
    return refuse(CUDA_ERROR_OUT_OF_MEMORY,
                  "cpu backend: {}: {} bytes exceed the {} bytes free of the memory budget ({} "
                  "in all: physical memory, cgroup memory.max, D4R_CPU_MEMORY_LIMIT)",
                  what, bytes, b.free, b.total);
}

} // namespace

std::optional<uint64_t> parse_memory_size(std::string_view text) {
    auto bytes = parse_byte_size(text);
    if (!bytes || *bytes == 0) return std::nullopt;
    return bytes;
}

// The budget's parts: TOTAL, what d4r HOLDS, and what the system has AVAILABLE (MemAvailable, cgroup room).
struct Parts {
    uint64_t total = 0;
    uint64_t held = 0;
    uint64_t available = 0;
};

Parts budget_parts() {
    const CgroupLimit cgroup = cgroup_limit();
    Parts p;
    p.total = std::min(physical_bytes(), cgroup.max);
    if (auto cap = env_cap()) p.total = std::min(p.total, *cap);
    p.held = held_bytes();
    p.available = std::min(mem_available(), cgroup.room);
    return p;
}

MemoryBudget memory_budget() {
    const Parts p = budget_parts();
    return MemoryBudget{p.total, std::min(p.total > p.held ? p.total - p.held : 0, p.available)};
}

CUresult budget_check(uint64_t bytes, const char* what) {
    const MemoryBudget b = memory_budget();
    return bytes > b.free ? refuse_oom(bytes, what, b) : CUDA_SUCCESS;
}

CUresult budget_alloc(uint64_t bytes, const char* what, uint64_t& out) {
    // Reserved while checked and filled, so that threads allocating at once count each other's memory.
    held().pending_bytes.fetch_add(bytes);
    const Parts p = budget_parts();
    const uint64_t others = p.held - bytes; // what d4r holds besides this allocation
    const uint64_t free = std::min(p.total > others ? p.total - others : 0, p.available);
    CUresult r = CUDA_SUCCESS;
    if (bytes > free) {
        r = refuse_oom(bytes, what, MemoryBudget{p.total, free});
    } else if (auto ptr = state().device.alloc(bytes)) {
        out = *ptr;
    } else {
        r = CUDA_ERROR_OUT_OF_MEMORY;
    }
    held().pending_bytes.fetch_sub(bytes);
    return r;
}

void charge_module_memory(uint64_t bytes) { held().module_bytes.fetch_add(bytes); }
void release_module_memory(uint64_t bytes) { held().module_bytes.fetch_sub(bytes); }

} // namespace d4r::runtime::cpu
