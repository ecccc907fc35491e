// libd4rcuda internals: the keyed hash behind the integrity-check export table.
//
// cudart checks that the driver it talks to is NVIDIA's by asking the integrity-check table for a
// 16-byte value and comparing it with its own computation. The value is HMAC (RFC 2104) over MD2
// (RFC 1319, block size 16) with a fixed 16-byte key, of a record describing the process, the tables
// and the devices. Promise: md2() and hmac_md2() are those standard algorithms (tested against the RFC
// vectors); integrity_hash() builds the record exactly as the driver does.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "abi/cuda.h"

namespace d4r::runtime {

using Digest16 = std::array<uint8_t, 16>;

Digest16 md2(std::span<const uint8_t> message);
Digest16 hmac_md2(std::span<const uint8_t, 16> key, std::span<const uint8_t> message);

// One device as the record holds it.
struct IntegrityDevice {
    abi::CUuuid uuid{};
    int32_t pci_domain = 0;
    int32_t pci_bus = 0;
    int32_t pci_device = 0;
};

struct IntegrityInputs {
    uint32_t driver_version = 0; // what cuDriverGetVersion reports
    uint32_t version = 0;        // the caller's argument (cudart's version)
    uint32_t process = 0;        // getpid()
    uint32_t thread = 0;         // the low 32 bits of pthread_self()
    const void* cudart_table = nullptr;
    const void* integrity_table = nullptr;
    const void* function = nullptr; // the integrity-check entry point itself
    uint64_t unix_seconds = 0;      // the caller's argument
    std::vector<IntegrityDevice> devices;
};

// The two 64-bit words the integrity-check entry point writes. Versions ending in 0 or 1 get fixed
// answers, as the driver gives them.
std::array<uint64_t, 2> integrity_hash(const IntegrityInputs& in);

} // namespace d4r::runtime
