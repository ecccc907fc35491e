// d4r release: a reproducible zip file.
#include "zip_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>

#include <unistd.h>
#include <zlib.h>

#include <fmt/format.h>

#include "core/log.h"

namespace d4r::release {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMax32 = 0xFFFFFFFFull;
constexpr size_t kMaxEntries = 0xFFFF;
constexpr size_t kChunk = 1 << 20;

void put16(std::string& b, uint32_t v) {
    b += char(v & 0xff);
    b += char((v >> 8) & 0xff);
}
void put32(std::string& b, uint32_t v) {
    put16(b, v & 0xffff);
    put16(b, v >> 16);
}

struct DosTime {
    uint16_t time = 0;
    uint16_t date = 0;
};

DosTime dos_time(int64_t unix_time) {
    constexpr int64_t kMin = kFallbackSourceDateEpoch;
    constexpr int64_t kMax = 4354819199; // 2107-12-31 23:59:59 UTC
    const time_t t = time_t(std::clamp(unix_time, kMin, kMax));
    std::tm tm{};
    gmtime_r(&t, &tm);
    DosTime d;
    d.time = uint16_t(tm.tm_hour << 11 | tm.tm_min << 5 | tm.tm_sec / 2);
    d.date = uint16_t((tm.tm_year - 80) << 9 | (tm.tm_mon + 1) << 5 | tm.tm_mday);
    return d;
}

struct Written {
    uint32_t crc = 0;
    uint64_t compressed = 0;
    uint64_t size = 0;
    uint16_t method = 0; // 0 stored, 8 deflated
    uint64_t offset = 0; // of the local header
};

// Compresses SOURCE into memory (bounded by the 4 GiB limit, checked before) and returns the data to
// store: deflated when smaller, else the file as it is.
Expected<std::string> entry_data(const ZipEntry& e, Written& w) {
    std::error_code ec;
    const uint64_t size = fs::file_size(e.source, ec);
    if (ec) return make_error(ErrorCode::Io, "{}: {}", e.source.string(), ec.message());
    if (size > kMax32)
        return make_error(ErrorCode::Unsupported,
                          "{}: {} bytes: a zip without ZIP64 holds files up to 4 GiB; this one cannot be packaged",
                          e.source.string(), size);
    std::ifstream in(e.source, std::ios::binary);
    if (!in) return make_error(ErrorCode::Io, "{}: cannot open: {}", e.source.string(), std::strerror(errno));
    std::string raw(size, '\0');
    if (size && !in.read(raw.data(), std::streamsize(size)))
        return make_error(ErrorCode::Io, "{}: cannot read {} bytes", e.source.string(), size);
    w.size = size;
    w.crc = uint32_t(crc32_z(0, reinterpret_cast<const Bytef*>(raw.data()), raw.size()));
    z_stream z{};
    if (deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
        return make_error(ErrorCode::Internal, "zlib: deflateInit2 failed");
    std::string out;
    z.next_in = reinterpret_cast<Bytef*>(raw.data());
    size_t left = raw.size();
    int rc = Z_OK;
    std::string chunk(kChunk, '\0');
    do {
        const size_t take = std::min(left, size_t(kChunk));
        z.avail_in = uInt(take);
        left -= take;
        const int flush = left == 0 ? Z_FINISH : Z_NO_FLUSH;
        do {
            z.next_out = reinterpret_cast<Bytef*>(chunk.data());
            z.avail_out = uInt(chunk.size());
            rc = deflate(&z, flush);
            if (rc == Z_STREAM_ERROR) {
                deflateEnd(&z);
                return make_error(ErrorCode::Internal, "zlib: deflate failed on {}", e.source.string());
            }
            out.append(chunk.data(), chunk.size() - z.avail_out);
        } while (z.avail_out == 0);
    } while (left > 0 || rc != Z_STREAM_END);
    deflateEnd(&z);
    if (out.size() < raw.size()) {
        w.method = 8;
        w.compressed = out.size();
        return out;
    }
    w.method = 0;
    w.compressed = raw.size();
    return raw;
}

std::string header(bool central, const ZipEntry& e, const Written& w, DosTime t) {
    std::string b;
    const bool is_dir = !e.name.empty() && e.name.back() == '/';
    put32(b, central ? 0x02014b50 : 0x04034b50);
    if (central) put16(b, 3u << 8 | 20); // made by: Unix, zip 2.0 (so the mode in the attributes is read)
    put16(b, 20);                        // needed: 2.0 (deflate, folders)
    put16(b, 0x0800);                    // names are UTF-8
    put16(b, w.method);
    put16(b, t.time);
    put16(b, t.date);
    put32(b, w.crc);
    put32(b, uint32_t(w.compressed));
    put32(b, uint32_t(w.size));
    put16(b, uint32_t(e.name.size()));
    put16(b, 0); // no extra field
    if (central) {
        put16(b, 0); // comment
        put16(b, 0); // disk
        put16(b, 0); // internal attributes
        const uint32_t mode = is_dir ? 040755 : e.executable ? 0100755 : 0100644;
        put32(b, mode << 16 | (is_dir ? 0x10 : 0));
        put32(b, uint32_t(w.offset));
    }
    b += e.name;
    return b;
}

} // namespace

Expected<std::vector<ZipEntry>> zip_entries_of_tree(const fs::path& root, const std::string& prefix) {
    std::vector<ZipEntry> out;
    if (!prefix.empty()) out.push_back({prefix, {}, false});
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        const fs::path& p = it->path();
        const std::string rel = p.lexically_relative(root).generic_string();
        const fs::file_status st = it->symlink_status(ec);
        if (ec) break;
        if (fs::is_symlink(st) || !(fs::is_directory(st) || fs::is_regular_file(st)))
            return make_error(ErrorCode::Invalid,
                              "{}: a symbolic link or special file; a release holds only files and folders",
                              p.string());
        if (fs::is_directory(st)) {
            out.push_back({prefix + rel + "/", {}, false});
        } else {
            const bool exec = (st.permissions() & fs::perms::owner_exec) != fs::perms::none;
            out.push_back({prefix + rel, p, exec});
        }
    }
    if (ec) return make_error(ErrorCode::Io, "{}: cannot list the folder: {}", root.string(), ec.message());
    std::sort(out.begin(), out.end(), [](const ZipEntry& a, const ZipEntry& b) { return a.name < b.name; });
    return out;
}

Status write_zip(const fs::path& out, std::vector<ZipEntry> entries, int64_t unix_time) {
    std::sort(entries.begin(), entries.end(), [](const ZipEntry& a, const ZipEntry& b) { return a.name < b.name; });
    if (entries.size() > kMaxEntries)
        return make_error(ErrorCode::Unsupported, "{}: {} entries: a zip without ZIP64 holds at most {}", out.string(),
                          entries.size(), kMaxEntries);
    for (size_t i = 0; i < entries.size(); ++i) {
        if (entries[i].name.empty() || entries[i].name.size() > 0xFFFF || entries[i].name.front() == '/')
            return make_error(ErrorCode::Invalid, "zip entry name '{}': empty, too long or absolute", entries[i].name);
        if (i && entries[i].name == entries[i - 1].name)
            return make_error(ErrorCode::Invalid, "zip entry '{}' given twice", entries[i].name);
    }
    const DosTime t = dos_time(unix_time);
    const fs::path tmp = out.string() + fmt::format(".tmp-{}", ::getpid());
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return make_error(ErrorCode::Io, "{}: cannot create: {}", tmp.string(), std::strerror(errno));
    auto fail = [&](Error e) -> Status {
        f.close();
        std::error_code ignored;
        fs::remove(tmp, ignored);
        return e;
    };
    uint64_t at = 0;
    std::string central;
    for (const ZipEntry& e : entries) {
        Written w;
        w.offset = at;
        std::string data;
        if (e.name.back() != '/') {
            auto d = entry_data(e, w);
            if (!d) return fail(std::move(d).error());
            data = std::move(*d);
        }
        const std::string local = header(false, e, w, t);
        f.write(local.data(), std::streamsize(local.size()));
        f.write(data.data(), std::streamsize(data.size()));
        at += local.size() + data.size();
        if (at > kMax32)
            return fail(Error(ErrorCode::Unsupported,
                              fmt::format("{}: the zip passes 4 GiB at {}: a zip without ZIP64 cannot hold it",
                                          out.string(), e.name)));
        central += header(true, e, w, t);
    }
    std::string end;
    put32(end, 0x06054b50);
    put16(end, 0);
    put16(end, 0);
    put16(end, uint32_t(entries.size()));
    put16(end, uint32_t(entries.size()));
    put32(end, uint32_t(central.size()));
    put32(end, uint32_t(at));
    put16(end, 0);
    if (at + central.size() > kMax32)
        return fail(Error(
            ErrorCode::Unsupported,
            fmt::format("{}: the zip's directory passes 4 GiB: a zip without ZIP64 cannot hold it", out.string())));
    f.write(central.data(), std::streamsize(central.size()));
    f.write(end.data(), std::streamsize(end.size()));
    f.flush();
    if (!f) return fail(Error(ErrorCode::Io, fmt::format("{}: write failed", tmp.string())));
    f.close();
    std::error_code ec;
    fs::rename(tmp, out, ec);
    if (ec)
        return fail(
            Error(ErrorCode::Io, fmt::format("cannot rename {} to {}: {}", tmp.string(), out.string(), ec.message())));
    log::debug("zip {}: {} entries, {} bytes", out.string(), entries.size(), at + central.size() + end.size());
    return ok_status();
}

} // namespace d4r::release
