// Test helper for the zip reader's tests: zips laid out byte by byte, so a test can write what no zip
// tool would (names with "..", links, wrong CRCs, sizes that lie, unknown methods). Promise: raw_zip()
// writes each entry's local header, its data as given, a central directory entry and the end record,
// as the zip format lays them out (little-endian, no extra fields); nothing is checked or fixed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <zlib.h>

namespace d4r::release::test_zip {

inline uint32_t crc_of(const std::string& data) {
    return uint32_t(crc32_z(0, reinterpret_cast<const Bytef*>(data.data()), data.size()));
}

// DATA as a raw deflate stream (what method 8 holds).
inline std::string deflated(const std::string& data) {
    z_stream z{};
    deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&z, uLong(data.size())), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = uInt(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = uInt(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

struct RawEntry {
    std::string name;
    std::string data;    // as stored in the zip (already deflated for method 8)
    uint16_t method = 0; // 0 stored, 8 deflate, anything else to test refusals
    uint16_t flags = 0;
    uint32_t crc = 0;        // of the uncompressed bytes
    uint32_t size = 0;       // declared uncompressed size
    uint32_t mode = 0100644; // Unix mode, in the upper half of the external attributes
    uint16_t made_by = 3u << 8 | 20;
};

// A stored entry holding TEXT, its CRC and size right.
inline RawEntry stored(const std::string& name, const std::string& text, uint32_t mode = 0100644) {
    return {name, text, 0, 0, crc_of(text), uint32_t(text.size()), mode};
}

// A deflated entry holding TEXT, its CRC and size right.
inline RawEntry deflate_entry(const std::string& name, const std::string& text) {
    return {name, deflated(text), 8, 0, crc_of(text), uint32_t(text.size())};
}

inline void put16(std::string& b, uint32_t v) {
    b += char(v & 0xff);
    b += char((v >> 8) & 0xff);
}
inline void put32(std::string& b, uint32_t v) {
    put16(b, v & 0xffff);
    put16(b, v >> 16);
}

inline std::string raw_zip(const std::vector<RawEntry>& entries) {
    std::string zip, central;
    for (const RawEntry& e : entries) {
        const uint32_t offset = uint32_t(zip.size());
        for (int pass = 0; pass < 2; ++pass) {
            const bool c = pass == 1;
            std::string& b = c ? central : zip;
            put32(b, c ? 0x02014b50 : 0x04034b50);
            if (c) put16(b, e.made_by);
            put16(b, 20);
            put16(b, e.flags);
            put16(b, e.method);
            put16(b, 0);    // time
            put16(b, 0x21); // date: 1980-01-01
            put32(b, e.crc);
            put32(b, uint32_t(e.data.size()));
            put32(b, e.size);
            put16(b, uint32_t(e.name.size()));
            put16(b, 0); // extra
            if (c) {
                put16(b, 0); // comment
                put16(b, 0); // disk
                put16(b, 0); // internal attributes
                put32(b, e.mode << 16);
                put32(b, offset);
            }
            b += e.name;
            if (!c) b += e.data;
        }
    }
    const uint32_t cd_offset = uint32_t(zip.size());
    zip += central;
    put32(zip, 0x06054b50);
    put16(zip, 0);
    put16(zip, 0);
    put16(zip, uint32_t(entries.size()));
    put16(zip, uint32_t(entries.size()));
    put32(zip, uint32_t(central.size()));
    put32(zip, cd_offset);
    put16(zip, 0);
    return zip;
}

} // namespace d4r::release::test_zip
