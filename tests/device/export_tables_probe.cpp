// Device machine: facts about NVIDIA's export tables, measured on its driver (dlopen'd libcuda.so.1),
// and d4r's integrity hash checked against the driver's own answer.
//   export_tables_probe            prints one line per fact; exits 1 when d4r's hash differs
// Built by tests/device/cudart.sh with g++ and d4r's integrity_hash.cpp (no NVIDIA header).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include "runtime/export_tables/export_table_ids.h"
#include "runtime/export_tables/integrity_hash.h"

using d4r::abi::CUuuid;
using namespace d4r::runtime;

using GetExportTable = int (*)(const void**, const CUuuid*);
using Init = int (*)(unsigned);
using DeviceGetCount = int (*)(int*);
using DeviceGetUuid = int (*)(CUuuid*, int);
using DeviceGetAttribute = int (*)(int*, int, int);
using DriverGetVersion = int (*)(int*);
using IntegritySlot = int (*)(uint32_t, uint64_t, uint64_t*);

int main() {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
        std::printf("libcuda.so.1 not found\n");
        return 1;
    }
    auto get_table = reinterpret_cast<GetExportTable>(dlsym(lib, "cuGetExportTable"));
    auto init = reinterpret_cast<Init>(dlsym(lib, "cuInit"));
    auto count_fn = reinterpret_cast<DeviceGetCount>(dlsym(lib, "cuDeviceGetCount"));
    auto uuid_fn = reinterpret_cast<DeviceGetUuid>(dlsym(lib, "cuDeviceGetUuid_v2"));
    auto attr_fn = reinterpret_cast<DeviceGetAttribute>(dlsym(lib, "cuDeviceGetAttribute"));
    auto version_fn = reinterpret_cast<DriverGetVersion>(dlsym(lib, "cuDriverGetVersion"));
    if (init(0) != 0) {
        std::printf("cuInit failed\n");
        return 1;
    }
    // Which ids the driver answers, and the size its slot 0 states.
    for (int id = 0; id < static_cast<int>(ExportTableId::Unknown); ++id) {
        CUuuid u = export_table_uuid(static_cast<ExportTableId>(id));
        const void* table = nullptr;
        int r = get_table(&table, &u);
        unsigned long long slot0 = table ? reinterpret_cast<uintptr_t>(static_cast<const void* const*>(table)[0]) : 0;
        std::printf("table %s (%s): result %d, slot 0 = %llu\n", export_table_name(static_cast<ExportTableId>(id)),
                    format_uuid(u).c_str(), r, slot0);
    }
    CUuuid unknown{};
    std::memcpy(unknown.bytes, "d4r-no-such-tbl", 16);
    const void* none = reinterpret_cast<const void*>(1);
    std::printf("unknown id: result %d, table %s\n", get_table(&none, &unknown), none ? "not null" : "null");

    // The integrity hash: the driver's answer against d4r's for the same inputs.
    CUuuid cudart_id = export_table_uuid(ExportTableId::CudartInterface);
    CUuuid integrity_id = export_table_uuid(ExportTableId::IntegrityCheck);
    const void* cudart = nullptr;
    const void* integrity = nullptr;
    if (get_table(&cudart, &cudart_id) || get_table(&integrity, &integrity_id)) {
        std::printf("integrity: tables not answered\n");
        return 1;
    }
    auto slot = reinterpret_cast<IntegritySlot>(const_cast<void*>(static_cast<const void* const*>(integrity)[1]));
    int failures = 0;
    for (uint32_t version : {13000u, 13001u, 12082u, 13002u, 13005u}) {
        uint64_t seconds = static_cast<uint64_t>(time(nullptr));
        uint64_t theirs[2] = {0, 0};
        int r = slot(version, seconds, theirs);
        IntegrityInputs in;
        int driver_version = 0;
        version_fn(&driver_version);
        in.driver_version = static_cast<uint32_t>(driver_version);
        in.version = version;
        in.process = static_cast<uint32_t>(getpid());
        in.thread = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(reinterpret_cast<void*>(pthread_self())));
        in.cudart_table = cudart;
        in.integrity_table = integrity;
        in.function = reinterpret_cast<const void*>(slot);
        in.unix_seconds = seconds;
        int count = 0;
        count_fn(&count);
        for (int d = 0; d < count; ++d) {
            IntegrityDevice dev;
            uuid_fn(&dev.uuid, d);
            attr_fn(&dev.pci_domain, 50, d);
            attr_fn(&dev.pci_bus, 33, d);
            attr_fn(&dev.pci_device, 34, d);
            in.devices.push_back(dev);
        }
        auto ours = integrity_hash(in);
        bool same = ours[0] == theirs[0] && ours[1] == theirs[1];
        failures += !same;
        std::printf("integrity version %u: driver result %d %016llx %016llx, d4r %016llx %016llx: %s\n", version, r,
                    static_cast<unsigned long long>(theirs[0]), static_cast<unsigned long long>(theirs[1]),
                    static_cast<unsigned long long>(ours[0]), static_cast<unsigned long long>(ours[1]),
                    same ? "same" : "DIFFERENT");
    }
    return failures ? 1 : 0;
}
