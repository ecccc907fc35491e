// MD2, HMAC-MD2 and the integrity-check record (integrity_hash.h).
#include "runtime/export_tables/integrity_hash.h"

#include <cstring>

namespace d4r::runtime {

namespace {

// RFC 1319's permutation of 0..255 built from the digits of pi.
constexpr uint8_t kPiSubst[256] = {
    41,  46,  67,  201, 162, 216, 124, 1,   61,  54,  84,  161, 236, 240, 6,   19,  98,  167, 5,   243, 192, 199,
    115, 140, 152, 147, 43,  217, 188, 76,  130, 202, 30,  155, 87,  60,  253, 212, 224, 22,  103, 66,  111, 24,
    138, 23,  229, 18,  190, 78,  196, 214, 218, 158, 222, 73,  160, 251, 245, 142, 187, 47,  238, 122, 169, 104,
    121, 145, 21,  178, 7,   63,  148, 194, 16,  137, 11,  34,  95,  33,  128, 127, 93,  154, 90,  144, 50,  39,
    53,  62,  204, 231, 191, 247, 151, 3,   255, 25,  48,  179, 72,  165, 181, 209, 215, 94,  146, 42,  172, 86,
    170, 198, 79,  184, 56,  210, 150, 164, 125, 182, 118, 252, 107, 226, 156, 116, 4,   241, 69,  157, 112, 89,
    100, 113, 135, 32,  134, 91,  207, 101, 230, 45,  168, 2,   27,  96,  37,  173, 174, 176, 185, 246, 28,  70,
    97,  105, 52,  64,  126, 15,  85,  71,  163, 35,  221, 81,  175, 58,  195, 92,  249, 206, 186, 197, 234, 38,
    44,  83,  13,  110, 133, 40,  132, 9,   211, 223, 205, 244, 65,  129, 77,  82,  106, 220, 55,  200, 108, 193,
    171, 250, 36,  225, 123, 8,   12,  189, 177, 74,  120, 136, 149, 139, 227, 99,  232, 109, 233, 203, 213, 254,
    59,  0,   29,  57,  242, 239, 183, 14,  102, 88,  208, 228, 166, 119, 114, 248, 235, 117, 75,  10,  49,  68,
    80,  180, 143, 237, 31,  26,  219, 153, 141, 51,  159, 17,  131, 20,
};

class Md2 {
public:
    void update(std::span<const uint8_t> data) {
        for (uint8_t byte : data) {
            m_block[m_used++] = byte;
            if (m_used == 16) {
                compress();
                m_used = 0;
            }
        }
    }

    Digest16 finish() {
        uint8_t pad = static_cast<uint8_t>(16 - m_used);
        uint8_t padding[16];
        std::memset(padding, pad, sizeof padding);
        update({padding, pad});
        uint8_t checksum[16];
        std::memcpy(checksum, m_checksum, 16);
        update(checksum);
        Digest16 out;
        std::memcpy(out.data(), m_state, 16);
        return out;
    }

private:
    void compress() {
        uint8_t x[48];
        for (int i = 0; i < 16; ++i) {
            x[i] = m_state[i];
            x[16 + i] = m_block[i];
            x[32 + i] = m_state[i] ^ m_block[i];
        }
        uint8_t t = 0;
        for (int round = 0; round < 18; ++round) {
            for (uint8_t& v : x) t = v ^= kPiSubst[t];
            t = static_cast<uint8_t>(t + round);
        }
        std::memcpy(m_state, x, 16);
        uint8_t l = m_checksum[15];
        for (int i = 0; i < 16; ++i) l = m_checksum[i] ^= kPiSubst[m_block[i] ^ l];
    }

    uint8_t m_state[16] = {};
    uint8_t m_checksum[16] = {};
    uint8_t m_block[16] = {};
    size_t m_used = 0;
};

// The key cudart and the driver share (the result of a first pass over constant data).
constexpr uint8_t kIntegrityKey[16] = {0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52,
                                       0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f};

void put(std::vector<uint8_t>& out, const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
}

} // namespace

Digest16 md2(std::span<const uint8_t> message) {
    Md2 h;
    h.update(message);
    return h.finish();
}

Digest16 hmac_md2(std::span<const uint8_t, 16> key, std::span<const uint8_t> message) {
    uint8_t pad[16];
    Md2 inner;
    for (int i = 0; i < 16; ++i) pad[i] = key[i] ^ 0x36;
    inner.update(pad);
    inner.update(message);
    Digest16 inner_digest = inner.finish();
    Md2 outer;
    for (int i = 0; i < 16; ++i) pad[i] = key[i] ^ 0x5c;
    outer.update(pad);
    outer.update(inner_digest);
    return outer.finish();
}

std::array<uint64_t, 2> integrity_hash(const IntegrityInputs& in) {
    switch (in.version % 10) {
    case 0:
        return {0x3341181C03CB675Cull, 0x8ED383AA1F4CD1E8ull};
    case 1:
        return {0x1841181C03CB675Cull, 0x8ED383AA1F4CD1E8ull};
    default:
        break;
    }
    // The record is the driver's in-memory struct: four u32, three pointers, a u64 (48 bytes, no
    // padding), then per device its uuid and three i32 (28 bytes, no padding).
    std::vector<uint8_t> record;
    put(record, &in.driver_version, 4);
    put(record, &in.version, 4);
    put(record, &in.process, 4);
    put(record, &in.thread, 4);
    put(record, &in.cudart_table, 8);
    put(record, &in.integrity_table, 8);
    put(record, &in.function, 8);
    put(record, &in.unix_seconds, 8);
    for (const IntegrityDevice& d : in.devices) {
        put(record, d.uuid.bytes, 16);
        put(record, &d.pci_domain, 4);
        put(record, &d.pci_bus, 4);
        put(record, &d.pci_device, 4);
    }
    Digest16 digest = hmac_md2(std::span<const uint8_t, 16>(kIntegrityKey), record);
    std::array<uint64_t, 2> out;
    std::memcpy(out.data(), digest.data(), 16);
    return out;
}

} // namespace d4r::runtime
