// Kernel records of the compile cache (see kernel_record.h). Little-endian integers; a string or byte run is its
// length (u32, or u64 for the object) and its bytes; a list its count (u32) and its items.
#include "jit/kernel_record.h"

#include <cstring>

#include <fmt/format.h>

namespace d4r::jit {

// A new field in either struct must be written and read below (and kEntryFormat in kernel_key.cpp raised): these
// sizes fail to match first.
static_assert(sizeof(ptxsim::CompiledKernel) == 144, "CompiledKernel changed: serialise its new field here");
static_assert(sizeof(ptxsim::CollectiveSite) == 24, "CollectiveSite changed: serialise its new field here");

namespace {

class Writer {
public:
    void u8(uint8_t v) { m_out.push_back(v); }
    void u32(uint32_t v) { raw(&v, 4); }
    void u64(uint64_t v) { raw(&v, 8); }
    void text(std::string_view s) {
        u32(static_cast<uint32_t>(s.size()));
        raw(s.data(), s.size());
    }
    void raw(const void* p, size_t n) {
        const auto* b = static_cast<const uint8_t*>(p);
        m_out.insert(m_out.end(), b, b + n);
    }
    std::vector<uint8_t> take() { return std::move(m_out); }

private:
    std::vector<uint8_t> m_out;
};

class Reader {
public:
    explicit Reader(std::span<const uint8_t> in) : m_in(in) {}
    Expected<uint8_t> u8(const char* what) {
        uint8_t v = 0;
        D4R_TRY(raw(&v, 1, what));
        return v;
    }
    Expected<uint32_t> u32(const char* what) {
        uint32_t v = 0;
        D4R_TRY(raw(&v, 4, what));
        return v;
    }
    Expected<uint64_t> u64(const char* what) {
        uint64_t v = 0;
        D4R_TRY(raw(&v, 8, what));
        return v;
    }
    Expected<bool> flag(const char* what) {
        const uint8_t v = D4R_TRY(u8(what));
        if (v > 1) return make_error(ErrorCode::Invalid, "kernel record: {} is {}, not 0 or 1", what, v);
        return v == 1;
    }
    Expected<std::string> text(const char* what) {
        const uint32_t n = D4R_TRY(u32(what));
        std::string s(n, '\0');
        D4R_TRY(raw(s.data(), n, what));
        return s;
    }
    // A count of items at least MIN_BYTES each: more than the bytes left is refused before anything is allocated.
    Expected<uint32_t> count(const char* what, size_t min_bytes) {
        const uint32_t n = D4R_TRY(u32(what));
        if (uint64_t(n) * min_bytes > left())
            return make_error(ErrorCode::Invalid, "kernel record: {} {} for {} bytes left", n, what, left());
        return n;
    }
    Status raw(void* p, size_t n, const char* what) {
        if (n > left())
            return make_error(ErrorCode::Invalid, "kernel record: {} ({} bytes) runs past the end ({} left)", what, n,
                              left());
        if (n) std::memcpy(p, m_in.data() + m_at, n);
        m_at += n;
        return ok_status();
    }
    size_t left() const { return m_in.size() - m_at; }

private:
    std::span<const uint8_t> m_in;
    size_t m_at = 0;
};

void write_collective(Writer& w, const ptxsim::CollectiveSite& c) {
    w.u8(static_cast<uint8_t>(c.kind));
    w.u8(c.mode);
    w.u8(c.acc16);
    w.u8(c.format_a);
    w.u8(c.format_b);
    w.u8(c.transpose);
    w.u8(c.shared);
    w.u32(c.fault_site);
    w.u8(c.wide);
    w.u8(c.is_signed);
    w.u32(c.order);
    w.u32(c.source_offset);
}

constexpr size_t kCollectiveBytes = 21;

Expected<ptxsim::CollectiveSite> read_collective(Reader& r) {
    ptxsim::CollectiveSite c;
    const uint8_t kind = D4R_TRY(r.u8("collective kind"));
    if (kind > static_cast<uint8_t>(ptxsim::CollectiveSite::Kind::LoadMatrix))
        return make_error(ErrorCode::Invalid, "kernel record: collective kind {} is unknown", kind);
    c.kind = static_cast<ptxsim::CollectiveSite::Kind>(kind);
    c.mode = D4R_TRY(r.u8("collective mode"));
    c.acc16 = D4R_TRY(r.flag("collective acc16"));
    c.format_a = D4R_TRY(r.u8("collective format_a"));
    c.format_b = D4R_TRY(r.u8("collective format_b"));
    c.transpose = D4R_TRY(r.flag("collective transpose"));
    c.shared = D4R_TRY(r.flag("collective shared"));
    c.fault_site = D4R_TRY(r.u32("collective fault_site"));
    c.wide = D4R_TRY(r.flag("collective wide"));
    c.is_signed = D4R_TRY(r.flag("collective is_signed"));
    c.order = D4R_TRY(r.u32("collective order"));
    c.source_offset = D4R_TRY(r.u32("collective source_offset"));
    return c;
}

} // namespace

std::vector<uint8_t> serialize_kernel_record(const KernelRecord& record) {
    const ptxsim::CompiledKernel& k = record.kernel;
    Writer w;
    w.text(record.symbol);
    w.u8(k.warp);
    w.u8(k.whole_warps_in_x);
    w.text(k.why_not_warp);
    w.u32(k.state_bytes);
    w.u32(static_cast<uint32_t>(k.sites.size()));
    for (const auto& site : k.sites) {
        w.u32(site.line);
        w.text(site.text);
    }
    w.u32(static_cast<uint32_t>(k.collectives.size()));
    for (const auto& c : k.collectives) write_collective(w, c);
    w.u32(static_cast<uint32_t>(record.variables.size()));
    for (const auto& name : record.variables) w.text(name);
    w.u64(record.object.size());
    w.raw(record.object.data(), record.object.size());
    return w.take();
}

Expected<KernelRecord> parse_kernel_record(std::span<const uint8_t> bytes) {
    Reader r(bytes);
    KernelRecord record;
    ptxsim::CompiledKernel& k = record.kernel;
    record.symbol = D4R_TRY(r.text("symbol"));
    if (record.symbol.empty()) return make_error(ErrorCode::Invalid, "kernel record: no symbol");
    k.warp = D4R_TRY(r.flag("warp"));
    k.whole_warps_in_x = D4R_TRY(r.flag("whole_warps_in_x"));
    k.why_not_warp = D4R_TRY(r.text("why_not_warp"));
    k.state_bytes = D4R_TRY(r.u32("state_bytes"));
    const uint32_t sites = D4R_TRY(r.count("sites", 8));
    k.sites.resize(sites);
    for (auto& site : k.sites) {
        site.line = D4R_TRY(r.u32("site line"));
        site.text = D4R_TRY(r.text("site text"));
    }
    const uint32_t collectives = D4R_TRY(r.count("collectives", kCollectiveBytes));
    k.collectives.reserve(collectives);
    for (uint32_t i = 0; i < collectives; ++i) k.collectives.push_back(D4R_TRY(read_collective(r)));
    const uint32_t variables = D4R_TRY(r.count("variables", 4));
    record.variables.resize(variables);
    for (auto& name : record.variables) name = D4R_TRY(r.text("variable name"));
    const uint64_t object = D4R_TRY(r.u64("object size"));
    if (object == 0 || object != r.left())
        return make_error(ErrorCode::Invalid, "kernel record: object of {} bytes where {} are left", object, r.left());
    record.object.resize(object);
    D4R_TRY(r.raw(record.object.data(), object, "object"));
    return record;
}

} // namespace d4r::jit
