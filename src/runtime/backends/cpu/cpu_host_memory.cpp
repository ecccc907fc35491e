// cpu backend: probing host memory the API does not know before a copy touches it (cpu_host_memory.h).
#include "runtime/backends/cpu/cpu_host_memory.h"

#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <vector>

#include "core/log.h"

namespace d4r::runtime::cpu {

namespace {

uint64_t page_size() {
    static const uint64_t page = [] {
        long v = sysconf(_SC_PAGESIZE);
        return v > 0 ? uint64_t(v) : uint64_t(4096);
    }();
    return page;
}

// Pages probed per system call (IOV_MAX is 1024 on Linux).
constexpr uint64_t kBatch = 1024;

// Whether every page of [BEGIN, END) (page aligned) is mapped: mincore fails with ENOMEM on a hole.
bool mapped(uint64_t begin, uint64_t end) {
    const uint64_t page = page_size();
    std::vector<unsigned char> vec;
    for (uint64_t at = begin; at < end;) {
        const uint64_t length = std::min<uint64_t>(end - at, kBatch * 64 * page);
        vec.resize(length / page);
        if (mincore(reinterpret_cast<void*>(at), length, vec.data()) != 0) return false;
        at += length;
    }
    return true;
}

// One byte of every page that [ADDRESS, ADDRESS + BYTES) touches: the range's first byte, then the first
// byte of each following page.
template <typename Visit>
bool for_page_bytes(uint64_t address, uint64_t bytes, Visit visit) {
    const uint64_t page = page_size();
    const uint64_t end = address + bytes;
    std::vector<iovec> remote;
    remote.reserve(kBatch);
    for (uint64_t at = address; at < end;) {
        remote.push_back(iovec{reinterpret_cast<void*>(at), 1});
        at = (at & ~(page - 1)) + page;
        if (remote.size() == kBatch || at >= end) {
            if (!visit(remote)) return false;
            remote.clear();
        }
    }
    return true;
}

enum class Probe { Ok, Fault, Unavailable };

// Reads one byte per iovec of REMOTE into DATA.
Probe read_bytes(const std::vector<iovec>& remote, std::vector<unsigned char>& data) {
    data.resize(remote.size());
    iovec local{data.data(), data.size()};
    ssize_t n = process_vm_readv(getpid(), &local, 1, remote.data(), remote.size(), 0);
    if (n == ssize_t(remote.size())) return Probe::Ok;
    if (n >= 0 || errno == EFAULT) return Probe::Fault;
    return Probe::Unavailable; // ENOSYS, EPERM (a seccomp filter): the caller falls back to mincore
}

Probe write_bytes(const std::vector<iovec>& remote, std::vector<unsigned char>& data) {
    iovec local{data.data(), data.size()};
    ssize_t n = process_vm_writev(getpid(), &local, 1, remote.data(), remote.size(), 0);
    if (n == ssize_t(remote.size())) return Probe::Ok;
    if (n >= 0 || errno == EFAULT) return Probe::Fault;
    return Probe::Unavailable;
}

bool probe(uint64_t address, uint64_t bytes, bool write) {
    if (bytes == 0) return true;
    const uint64_t page = page_size();
    if (address < page || address + bytes < address) return false; // the null page, or a range that wraps
    const uint64_t begin = address & ~(page - 1);
    const uint64_t end = (address + bytes + page - 1) & ~(page - 1);
    if (end < begin || !mapped(begin, end)) return false;
    std::vector<unsigned char> data;
    int unavailable = 0; // the errno that made the probe unavailable
    bool ok = for_page_bytes(address, bytes, [&](const std::vector<iovec>& remote) {
        Probe p = read_bytes(remote, data);
        if (p == Probe::Ok && write) p = write_bytes(remote, data);
        if (p == Probe::Unavailable) unavailable = errno ? errno : -1;
        return p == Probe::Ok;
    });
    if (unavailable) {
        if (log::once("cpu:host-probe"))
            log::debug("cpu backend: process_vm_readv/writev unavailable (errno {}): unknown host memory is checked "
                       "for being mapped only",
                       unavailable);
        return true; // mapped, which is all mincore can say
    }
    return ok;
}

} // namespace

bool host_readable(uint64_t address, uint64_t bytes) { return probe(address, bytes, false); }
bool host_writable(uint64_t address, uint64_t bytes) { return probe(address, bytes, true); }

bool host_mapped_writable(uint64_t address, uint64_t bytes) {
    if (bytes == 0) return true;
    if (address + bytes < address) return false;
    std::FILE* maps = std::fopen("/proc/self/maps", "r");
    if (!maps) return false;
    // The lines are sorted by address: walk them while they cover [next, end) without a gap.
    uint64_t next = address;
    const uint64_t end = address + bytes;
    char line[512];
    while (next < end && std::fgets(line, sizeof line, maps)) {
        unsigned long long lo = 0, hi = 0;
        char perms[5] = {};
        if (std::sscanf(line, "%llx-%llx %4s", &lo, &hi, perms) != 3) continue;
        if (hi <= next) continue;
        if (lo > next || perms[1] != 'w') break; // a gap, or a mapping that may not be written
        next = hi;
    }
    std::fclose(maps);
    return next >= end;
}

} // namespace d4r::runtime::cpu
