// The fatbin reader. Field offsets are those documented in docs/ptx-containers.md, learned from the
// fatbins nvcc/fatbinary 13.0 write.
#include "ptx/fatbin.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ptx/container_bytes.h"
#include "ptx/decompress.h"

namespace d4r::ptx {

using bytes::fits;
using bytes::le16;
using bytes::le32;
using bytes::le64;

namespace {

// Entry header field offsets, relative to the entry's first byte.
constexpr uint64_t kEntryKind = 0x00;             // u16
constexpr uint64_t kEntryHeaderSize = 0x04;       // u32: payload starts here
constexpr uint64_t kEntryPayloadSize = 0x08;      // u64: stored bytes (8-aligned, padding included)
constexpr uint64_t kEntryCompressedSize = 0x10;   // u32: exact compressed bytes, 0 when stored plain
constexpr uint64_t kEntryArch = 0x1c;             // u32: sm number, 89 for sm_89
constexpr uint64_t kEntryFlags = 0x28;            // u64
constexpr uint64_t kEntryUncompressedSize = 0x38; // u64: 0 when stored plain

// Bounds a scan's idea of "plausible": real headers are 16 and 64..96 bytes.
constexpr uint64_t kMaxPlausibleFatbinHeader = 256;
constexpr uint64_t kMaxPlausibleEntryHeader = 4096;

struct EntryView {
    uint16_t kind = 0;
    uint64_t header_size = 0;
    uint64_t payload_size = 0;
};

EntryView entry_view(const uint8_t* p) {
    return {le16(p + kEntryKind), le32(p + kEntryHeaderSize), le64(p + kEntryPayloadSize)};
}

std::string with_place(std::string_view place, std::string text) {
    if (place.empty()) return text;
    return fmt::format("{}: {}", place, text);
}

// One PTX entry at FILE[ENTRY] whose payload is [PAYLOAD, PAYLOAD + PAYLOAD_SIZE).
Expected<PtxModuleBlob> read_ptx_entry(std::span<const uint8_t> file, uint64_t entry, uint64_t payload,
                                       uint64_t payload_size, ModuleCollector& out) {
    const uint8_t* h = file.data() + entry;
    const uint32_t compressed_size = le32(h + kEntryCompressedSize);
    const uint32_t arch = le32(h + kEntryArch);
    const uint64_t flags = le64(h + kEntryFlags);
    const uint64_t uncompressed_size = le64(h + kEntryUncompressedSize);
    const bool lz4 = (flags & kFatbinFlagLz4) != 0;
    const bool zstd = (flags & kFatbinFlagZstd) != 0;

    PtxModuleBlob blob;
    blob.sm = fmt::format("sm_{}", arch);
    blob.offset = payload;
    if (lz4 && zstd) return make_error(ErrorCode::Invalid, "flags 0x{:x} claim both LZ4 and zstd compression", flags);
    if (!lz4 && !zstd) {
        if (payload_size == 0) return make_error(ErrorCode::Invalid, "zero-length PTX payload");
        D4R_TRY(out.check_size(payload_size));
        blob.text.assign(reinterpret_cast<const char*>(file.data() + payload), payload_size);
        return blob;
    }
    const char* method = lz4 ? "LZ4" : "zstd";
    if (compressed_size == 0)
        return make_error(ErrorCode::Invalid, "{} entry with compressed size 0 (payload size {})", method,
                          payload_size);
    if (compressed_size > payload_size)
        return make_error(ErrorCode::Invalid, "{} compressed size {} exceeds the payload size {}", method,
                          compressed_size, payload_size);
    if (uncompressed_size == 0)
        return make_error(ErrorCode::Invalid, "zero-length PTX ({} uncompressed size 0)", method);
    D4R_TRY(out.check_size(uncompressed_size)); // before the decompressor allocates it
    std::span<const uint8_t> packed = file.subspan(payload, compressed_size);
    if (lz4) {
        blob.text = D4R_TRY(decompress_lz4_block(packed, uncompressed_size));
    } else {
        blob.text = D4R_TRY(decompress_zstd_frame(packed, uncompressed_size));
    }
    return blob;
}

} // namespace

Status ModuleCollector::check_size(uint64_t size) const {
    if (size > m_limits.max_module_bytes)
        return make_error(ErrorCode::Invalid, "PTX module of {} bytes exceeds the limit of {} bytes per module", size,
                          m_limits.max_module_bytes);
    if (size > m_limits.max_total_bytes - std::min(m_total_bytes, m_limits.max_total_bytes))
        return make_error(ErrorCode::Invalid,
                          "PTX module of {} bytes would exceed the limit of {} bytes per file "
                          "({} already read)",
                          size, m_limits.max_total_bytes, m_total_bytes);
    return ok_status();
}

Status ModuleCollector::add(PtxModuleBlob blob) {
    D4R_TRY(check_size(blob.text.size()));
    if (m_modules.size() >= m_limits.max_modules)
        return make_error(ErrorCode::Invalid, "more than {} PTX modules in one file", m_limits.max_modules);
    m_total_bytes += blob.text.size();
    m_modules.push_back(std::move(blob));
    return ok_status();
}

Expected<uint64_t> read_fatbin(std::span<const uint8_t> file, uint64_t pos, uint64_t end, std::string_view place,
                               ModuleCollector& out) {
    const uint32_t index = out.next_fatbin_index();
    // Formatted only when needed: a section may hold thousands of empty fatbins.
    auto where = [&] { return with_place(place, fmt::format("fatbin {} @0x{:x}", index, pos)); };
    if (end > file.size() || pos > end) return make_error(ErrorCode::Internal, "{}: range past the buffer", where());
    const uint8_t* h = file.data() + pos;
    if (end - pos >= 4 && le32(h) != kFatbinMagic)
        return make_error(ErrorCode::Invalid, "{}: bad magic 0x{:08x} (a fatbin starts with 0x{:08x})", where(),
                          le32(h), kFatbinMagic);
    if (end - pos < kFatbinHeaderSize)
        return make_error(ErrorCode::Invalid, "{}: truncated header ({} bytes left, the header has {})", where(),
                          end - pos, kFatbinHeaderSize);
    const uint16_t version = le16(h + 4);
    const uint64_t header_size = le16(h + 6);
    const uint64_t size = le64(h + 8);
    if (version != kFatbinVersion)
        return make_error(ErrorCode::Invalid, "{}: unsupported version {} (only {} is known)", where(), version,
                          kFatbinVersion);
    if (header_size < kFatbinHeaderSize || header_size > end - pos)
        return make_error(ErrorCode::Invalid, "{}: header size {} is below {} or past the end ({} bytes left)", where(),
                          header_size, kFatbinHeaderSize, end - pos);
    const uint64_t body = pos + header_size;
    if (size > end - body)
        return make_error(ErrorCode::Invalid, "{}: size {} runs past the end of its container ({} bytes left)", where(),
                          size, end - body);
    const uint64_t fatbin_end = body + size;

    uint64_t entry = body;
    for (uint32_t n = 0; entry < fatbin_end; ++n) {
        const uint64_t left = fatbin_end - entry;
        if (left < kFatbinEntryHeaderSize)
            return make_error(ErrorCode::Invalid,
                              "{}: entry {} @0x{:x}: truncated entry header ({} bytes left, "
                              "it has at least {})",
                              where(), n, entry, left, kFatbinEntryHeaderSize);
        const EntryView e = entry_view(file.data() + entry);
        if (e.header_size < kFatbinEntryHeaderSize || e.header_size > left)
            return make_error(ErrorCode::Invalid,
                              "{}: entry {} @0x{:x}: header size {} is below {} or past the end "
                              "of the fatbin ({} bytes left)",
                              where(), n, entry, e.header_size, kFatbinEntryHeaderSize, left);
        if (e.payload_size > left - e.header_size)
            return make_error(ErrorCode::Invalid,
                              "{}: entry {} @0x{:x}: payload size {} runs past the end of the "
                              "fatbin ({} bytes left)",
                              where(), n, entry, e.payload_size, left - e.header_size);
        const uint64_t payload = entry + e.header_size;
        if (e.kind == kFatbinKindPtx) {
            PtxModuleBlob blob = D4R_TRY_CTX(read_ptx_entry(file, entry, payload, e.payload_size, out),
                                             "{}: entry {} @0x{:x}", where(), n, entry);
            const uint64_t flags = le64(file.data() + entry + kEntryFlags);
            const char* method = (flags & kFatbinFlagLz4) ? ", LZ4" : (flags & kFatbinFlagZstd) ? ", zstd" : "";
            blob.origin = fmt::format("{}, entry {} ({} PTX{})", where(), n, blob.sm, method);
            D4R_TRY_CTX(out.add(std::move(blob)), "{}: entry {} @0x{:x}", where(), n, entry);
        }
        entry = payload + e.payload_size;
    }
    return fatbin_end;
}

Status read_fatbin_sequence(std::span<const uint8_t> file, uint64_t begin, uint64_t end, std::string_view place,
                            ModuleCollector& out) {
    uint64_t pos = begin;
    while (pos < end) {
        // Linkers align each object's fatbin; the gap is zeros (a magic never starts with 0).
        while (pos < end && file[pos] == 0) ++pos;
        if (pos == end) break;
        pos = D4R_TRY(read_fatbin(file, pos, end, place, out));
    }
    return ok_status();
}

Status scan_fatbins(std::span<const uint8_t> file, uint64_t begin, uint64_t end, std::string_view place,
                    ModuleCollector& out) {
    uint64_t pos = begin;
    while (pos < end) {
        const uint64_t hit = find_fatbin_magic(file, pos, end);
        if (hit == end) break;
        if (plausible_fatbin_at(file, hit, end)) {
            pos = D4R_TRY(read_fatbin(file, hit, end, place, out));
        } else {
            pos = hit + 1;
        }
    }
    return ok_status();
}

uint64_t find_fatbin_magic(std::span<const uint8_t> file, uint64_t from, uint64_t end) {
    if (end > file.size() || from > end || end - from < 4) return end;
    const uint8_t* base = file.data();
    const uint64_t last = end - 3; // exclusive bound on where a magic can start
    uint64_t i = from;
#if defined(__SSE2__)
    // 16 candidate positions per step, each compared with all four magic bytes through four overlapping
    // unaligned loads: as fast on data full of 0x50/0xED bytes as on any other (a memchr for one byte of
    // the magic slows to a crawl there), and bounded by memory bandwidth on large files.
    const __m128i m0 = _mm_set1_epi8(static_cast<char>(kFatbinMagic & 0xff));
    const __m128i m1 = _mm_set1_epi8(static_cast<char>((kFatbinMagic >> 8) & 0xff));
    const __m128i m2 = _mm_set1_epi8(static_cast<char>((kFatbinMagic >> 16) & 0xff));
    const __m128i m3 = _mm_set1_epi8(static_cast<char>((kFatbinMagic >> 24) & 0xff));
    auto at = [&](uint64_t offset) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + offset)); };
    for (; i + 19 <= end; i += 16) { // the last load reads bytes i+3 .. i+18
        const __m128i hit = _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi8(at(i), m0), _mm_cmpeq_epi8(at(i + 1), m1)),
                                          _mm_and_si128(_mm_cmpeq_epi8(at(i + 2), m2), _mm_cmpeq_epi8(at(i + 3), m3)));
        const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(hit));
        if (mask != 0) return i + static_cast<unsigned>(__builtin_ctz(mask));
    }
#else
    // Portable path: memchr (vectorised in libc) for the magic's second byte, 0xED — rare in x86 code and
    // text, unlike 0x50 ('P', push rax) — then compare the whole magic.
    for (uint64_t probe = i + 1; probe < last + 1;) {
        const void* found = std::memchr(base + probe, 0xED, last + 1 - probe);
        if (found == nullptr) return end;
        probe = static_cast<uint64_t>(static_cast<const uint8_t*>(found) - base);
        if (le32(base + probe - 1) == kFatbinMagic) return probe - 1;
        ++probe;
    }
    return end;
#endif
    for (; i < last; ++i) {
        if (base[i] == (kFatbinMagic & 0xff) && le32(base + i) == kFatbinMagic) return i;
    }
    return end;
}

bool plausible_fatbin_at(std::span<const uint8_t> file, uint64_t pos, uint64_t end) {
    if (end > file.size() || !fits(pos, kFatbinHeaderSize, end)) return false;
    const uint8_t* h = file.data() + pos;
    const uint64_t header_size = le16(h + 6);
    const uint64_t size = le64(h + 8);
    if (le32(h) != kFatbinMagic || le16(h + 4) != kFatbinVersion) return false;
    if (header_size < kFatbinHeaderSize || header_size > kMaxPlausibleFatbinHeader) return false;
    if (!fits(pos + header_size, size, end) || size < kFatbinEntryHeaderSize) return false;
    const EntryView e = entry_view(h + header_size);
    if (e.kind == 0 || e.kind > 0xff) return false;
    if (e.header_size < kFatbinEntryHeaderSize || e.header_size > kMaxPlausibleEntryHeader) return false;
    return e.header_size <= size && e.payload_size <= size - e.header_size;
}

} // namespace d4r::ptx
