// cpu backend: initialisation, versions, error texts and the one device ("d4r CPU (ptxsim)", modelled on
// an sm_90 GPU so that programs choosing code paths by compute capability and limits take the sm_90 ones).
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "core/fnv1a.h"
#include "core/log.h"
#include "runtime/backends/cpu/cpu_state.h"
#include "runtime/backends/cpu/cpu_vulkan_uuid.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

CUresult check_device(CUdevice dev) {
    if (CUresult r = check_init()) return r;
    return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

uint64_t host_ram_bytes() {
    long pages = sysconf(_SC_PHYS_PAGES);
    long page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : (16ull << 30);
}

CUresult cu_init(unsigned int flags) {
    D4R_CPU_REFUSE_IF(flags != 0, CUDA_ERROR_INVALID_VALUE);
    state().initialized.store(true);
    return CUDA_SUCCESS;
}

CUresult cu_driver_get_version(int* version) {
    D4R_CPU_REFUSE_IF(!version, CUDA_ERROR_INVALID_VALUE);
    *version = kDriverVersion;
    return CUDA_SUCCESS;
}

CUresult cu_get_error_name(CUresult error, const char** str) {
    D4R_CPU_REFUSE_IF(!str, CUDA_ERROR_INVALID_VALUE);
    *str = error_name(error);
    return *str ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cu_get_error_string(CUresult error, const char** str) {
    D4R_CPU_REFUSE_IF(!str, CUDA_ERROR_INVALID_VALUE);
    *str = error_string(error);
    return *str ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cu_device_get(CUdevice* device, int ordinal) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!device, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(ordinal != 0, CUDA_ERROR_INVALID_DEVICE);
    *device = 0;
    return CUDA_SUCCESS;
}

CUresult cu_device_get_count(int* count) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!count, CUDA_ERROR_INVALID_VALUE);
    *count = 1;
    return CUDA_SUCCESS;
}

CUresult cu_device_get_name(char* name, int len, CUdevice dev) {
    if (CUresult r = check_device(dev)) return r;
    D4R_CPU_REFUSE_IF(!name || len <= 0, CUDA_ERROR_INVALID_VALUE);
    size_t n = std::min(std::strlen(kDeviceName), size_t(len) - 1);
    std::memcpy(name, kDeviceName, n);
    name[n] = '\0';
    return CUDA_SUCCESS;
}

CUresult cu_device_get_uuid(CUuuid* uuid, CUdevice dev) {
    if (CUresult r = check_device(dev)) return r;
    D4R_CPU_REFUSE_IF(!uuid, CUDA_ERROR_INVALID_VALUE);
    // A Vulkan program picks the CUDA device by its Vulkan device's UUID: the CPU Vulkan device's, once the
    // process has loaded Vulkan (cpu_vulkan_uuid.h).
    if (std::optional<std::array<uint8_t, 16>> vk = cpu_vulkan_device_uuid()) {
        std::memcpy(uuid->bytes, vk->data(), vk->size());
        return CUDA_SUCCESS;
    }
    // Otherwise stable across runs and machines: derived from the device name, version 4 / variant 1 bits set.
    uint64_t a = fnv1a64(kDeviceName);
    uint64_t b = fnv1a64(std::string_view("d4r-ptxsim-device-0"));
    std::memcpy(uuid->bytes, &a, 8);
    std::memcpy(uuid->bytes + 8, &b, 8);
    uuid->bytes[6] = char((uuid->bytes[6] & 0x0f) | 0x40);
    uuid->bytes[8] = char((uuid->bytes[8] & 0x3f) | 0x80);
    return CUDA_SUCCESS;
}

CUresult cu_device_total_mem(size_t* bytes, CUdevice dev) {
    if (CUresult r = check_device(dev)) return r;
    D4R_CPU_REFUSE_IF(!bytes, CUDA_ERROR_INVALID_VALUE);
    *bytes = host_ram_bytes();
    return CUDA_SUCCESS;
}

// Values of an H100/H200-class sm_90 device, except the SM count (host cores) and features ptxsim lacks
// (cluster launches, IPC: reported as 0). Memory features are what holds
// for a device whose memory is the host's: managed memory is coherent and concurrently accessible from
// host and kernels (83, 89, 101), page-locked and registered host memory is used at its host address
// (19, 91, 99, 113), virtual memory management works with POSIX file descriptor handles (102, 103). Plain
// pageable memory is NOT device-accessible (88 and 100 read 0): kernels only reach ranges the API knows. Numbers are
// the CUdevice_attribute values; every value from 1 to 147 is known (unknown ones read 0, as for a driver that reports
// an unsupported feature), anything else is CUDA_ERROR_INVALID_VALUE.
constexpr int kL2Bytes = 52428800;                     // an H100's 50 MiB
constexpr int kMaxAccessPolicyWindowBytes = 128 << 20; // the H200's (driver 580)

bool attribute_value(int attr, int* out) {
    switch (attr) {
    case 1:
        *out = kMaxThreadsPerBlock;
        return true;
    case 2:
    case 3:
        *out = 1024;
        return true;
    case 4:
        *out = 64;
        return true;
    case 5:
        *out = 2147483647;
        return true;
    case 6:
    case 7:
        *out = 65535;
        return true;
    case 8:
        *out = kDefaultSharedPerBlock;
        return true;
    case 9:
        *out = 65536;
        return true;
    case 10:
        *out = 32;
        return true;
    case 11:
        *out = 2147483647;
        return true;
    case 12:
        *out = kRegistersPerSm;
        return true;
    case 13:
        *out = static_cast<int>(ptxsim::kClockRateKhz);
        return true; // kHz, the rate ptxsim's %clock64 advances at
    case 14:
        *out = 512;
        return true;
    case 15:
        *out = 1;
        return true;
    case 16:
        *out = sm_count();
        return true;
    case 17:
        *out = 0;
        return true;
    case 18:
        *out = 0;
        return true;
    case 19:
        *out = 1;
        return true;
    case 20:
        *out = 0;
        return true; // CU_COMPUTEMODE_DEFAULT
    case 21:
        *out = 131072;
        return true;
    case 22:
        *out = 131072;
        return true;
    case 23:
        *out = 65536;
        return true;
    case 24:
    case 25:
    case 26:
        *out = 16384;
        return true;
    case 27:
    case 28:
        *out = 32768;
        return true;
    case 29:
        *out = 2048;
        return true;
    case 30:
        *out = 512;
        return true;
    case 31:
        *out = 1;
        return true;
    case 36:
        *out = 2619000;
        return true; // kHz
    case 37:
        *out = 5120;
        return true;
    case 38:
        *out = kL2Bytes;
        return true;
    case 39:
        *out = kMaxThreadsPerSm;
        return true;
    case 40:
        *out = 1;
        return true; // one worker per context does the copies
    case 41:
        *out = 1;
        return true;
    case 42:
        *out = 32768;
        return true;
    case 43:
        *out = 2048;
        return true;
    case 44:
        *out = 1;
        return true;
    case 45:
    case 46:
        *out = 32768;
        return true;
    case 47:
    case 48:
        *out = 8192;
        return true;
    case 49:
        *out = 32768;
        return true;
    case 51:
        *out = 32;
        return true;
    case 52:
    case 53:
        *out = 32768;
        return true;
    case 54:
        *out = 2046;
        return true;
    case 55:
        *out = 32768;
        return true;
    case 56:
        *out = 131072;
        return true;
    case 57:
        *out = 65536;
        return true;
    case 58:
    case 59:
    case 60:
        *out = 16384;
        return true;
    case 61:
        *out = 32768;
        return true;
    case 62:
        *out = 2048;
        return true;
    case 63:
    case 64:
        *out = 32768;
        return true;
    case 65:
        *out = 2048;
        return true;
    case 66:
    case 67:
        *out = 32768;
        return true;
    case 68:
        *out = 2046;
        return true;
    case 69:
        *out = 268435456;
        return true;
    case 70:
        *out = 131072;
        return true;
    case 71:
        *out = 65000;
        return true;
    case 72:
        *out = 2097120;
        return true;
    case 73:
    case 74:
    case 77:
        *out = 32768;
        return true;
    case 75:
        *out = 9;
        return true;
    case 76:
        *out = 0;
        return true;
    case 78:
    case 79:
    case 80:
        *out = 1;
        return true;
    case 81:
        *out = kSharedPerSm;
        return true;
    case 82:
        *out = kRegistersPerSm;
        return true;
    case 83:
        *out = 1;
        return true; // managed memory (cuMemAllocManaged)
    case 87:
        *out = 2;
        return true; // single-to-double performance ratio
    case 89:
        *out = 1;
        return true; // concurrent managed access (no migration: one memory)
    case 90:
        *out = 1;
        return true;
    case 91:
        *out = 1;
        return true; // registered host memory at its host address
    case 95:
        *out = 1;
        return true; // cuLaunchCooperativeKernel: every block resident (ptxsim)
    case 97:
        *out = kOptinSharedPerBlock;
        return true;
    case 99:
        *out = 1;
        return true;
    case 101:
        *out = 1;
        return true; // host accesses managed memory directly
    case 102:
        *out = 1;
        return true; // virtual memory management (cpu_vmm.cpp)
    case 103:
        *out = 1;
        return true; // POSIX file descriptor handles for cuMemCreate allocations
    case 106:
        *out = kMaxBlocksPerSm;
        return true;
    case 107:
        *out = 1;
        return true; // generic compression, as the H200: granted by cuMemCreate and invisible to data (cpu_vmm.cpp)
    case 108:
        *out = kL2Bytes / 8 * 5;
        return true; // persisting L2 lines, 5/8 of the L2 as on the H200: a hint (ptxsim has no cache)
    case 109:
        *out = kMaxAccessPolicyWindowBytes;
        return true; // the largest access policy window (a hint, kept and returned)
    case 111:
        *out = kReservedSharedPerBlock;
        return true;
    case 113:
        *out = 1;
        return true; // CU_MEMHOSTREGISTER_READ_ONLY accepted (not enforced)
    case 115:
        *out = 1;
        return true; // cuMemAllocAsync / cuMemFreeAsync work
    case 126:
        *out = 1;
        return true; // memory sync domains
    case 131:
    case 134:
        *out = -1;
        return true; // NUMA ids: none
    default:
        if (attr >= 1 && attr <= 147) {
            *out = 0;
            return true;
        }
        return false;
    }
}

CUresult cu_device_get_attribute(int* pi, CUdevice_attribute attrib, CUdevice dev) {
    if (CUresult r = check_device(dev)) return r;
    D4R_CPU_REFUSE_IF(!pi, CUDA_ERROR_INVALID_VALUE);
    return attribute_value(static_cast<int>(attrib), pi) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cu_device_compute_capability(int* major, int* minor, CUdevice dev) {
    if (CUresult r = check_device(dev)) return r;
    D4R_CPU_REFUSE_IF(!major || !minor, CUDA_ERROR_INVALID_VALUE);
    *major = 9;
    *minor = 0;
    return CUDA_SUCCESS;
}

CUresult cu_device_can_access_peer(int* can, CUdevice dev, CUdevice peer) {
    if (CUresult r = check_device(dev)) return r;
    D4R_CPU_REFUSE_IF(!can, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(peer != 0, CUDA_ERROR_INVALID_DEVICE);
    *can = 0; // a device is not its own peer
    return CUDA_SUCCESS;
}

// cuDeviceGetProperties (deprecated): the CUdevprop view of the attributes.
CUresult cu_device_get_properties(CUdevprop* prop, CUdevice dev) {
    if (prop) std::memset(prop, 0, sizeof *prop);
    if (CUresult r = check_device(dev)) return r;
    D4R_CPU_REFUSE_IF(!prop, CUDA_ERROR_INVALID_VALUE);
    auto get = [](int attr) {
        int v = 0;
        attribute_value(attr, &v);
        return v;
    };
    prop->maxThreadsPerBlock = get(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    for (int i = 0; i < 3; ++i) {
        prop->maxThreadsDim[i] = get(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + i);
        prop->maxGridSize[i] = get(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X + i);
    }
    prop->sharedMemPerBlock = get(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    prop->totalConstantMemory = get(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
    prop->SIMDWidth = get(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    prop->memPitch = get(CU_DEVICE_ATTRIBUTE_MAX_PITCH);
    prop->regsPerBlock = get(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    prop->clockRate = get(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    prop->textureAlign = get(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT);
    return CUDA_SUCCESS;
}

// The device's PCI address: domain, bus and device attributes (all 0), function 0.
CUresult cu_device_get_pci_bus_id(char* bus_id, int len, CUdevice dev) {
    if (bus_id && len > 0) bus_id[0] = '\0';
    if (CUresult r = check_device(dev)) return r;
    D4R_CPU_REFUSE_IF(!bus_id || len <= 0, CUDA_ERROR_INVALID_VALUE);
    std::string id = fmt::format("{:04x}:{:02x}:{:02x}.0", 0, 0, 0);
    size_t n = std::min<size_t>(id.size(), size_t(len) - 1);
    std::memcpy(bus_id, id.data(), n);
    bus_id[n] = '\0';
    return CUDA_SUCCESS;
}

CUresult cu_device_get_by_pci_bus_id(CUdevice* dev, const char* bus_id) {
    if (dev) *dev = 0;
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!dev || !bus_id, CUDA_ERROR_INVALID_VALUE);
    // [domain:]bus:device.function, hexadecimal.
    unsigned domain = 0, bus = 0, device = 0, function = 0;
    char tail = 0;
    if (std::sscanf(bus_id, "%x:%x:%x.%x%c", &domain, &bus, &device, &function, &tail) != 4) {
        domain = 0;
        if (std::sscanf(bus_id, "%x:%x.%x%c", &bus, &device, &function, &tail) != 3) {
            return refuse(CUDA_ERROR_INVALID_VALUE, "cpu backend: cuDeviceGetByPCIBusId: '{}' is not a PCI bus id",
                          bus_id);
        }
    }
    D4R_CPU_REFUSE_IF(domain != 0 || bus != 0 || device != 0, CUDA_ERROR_INVALID_DEVICE);
    *dev = 0;
    return CUDA_SUCCESS;
}

} // namespace

void fill_device(ApiTable& t) {
    t.cuDeviceGetProperties = cu_device_get_properties;
    t.cuDeviceGetPCIBusId = cu_device_get_pci_bus_id;
    t.cuDeviceGetByPCIBusId = cu_device_get_by_pci_bus_id;
    t.cuInit = cu_init;
    t.cuDriverGetVersion = cu_driver_get_version;
    t.cuGetErrorName = cu_get_error_name;
    t.cuGetErrorString = cu_get_error_string;
    t.cuDeviceGet = cu_device_get;
    t.cuDeviceGetCount = cu_device_get_count;
    t.cuDeviceGetName = cu_device_get_name;
    t.cuDeviceGetUuid = cu_device_get_uuid;
    t.cuDeviceGetUuid_v2 = cu_device_get_uuid;
    t.cuDeviceTotalMem_v2 = cu_device_total_mem;
    t.cuDeviceGetAttribute = cu_device_get_attribute;
    t.cuDeviceComputeCapability = cu_device_compute_capability;
    t.cuDeviceCanAccessPeer = cu_device_can_access_peer;
}

} // namespace d4r::runtime::cpu
