// d4r release: reading a zip file, refusing every entry that is not safe to extract.
#include "zip_reader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <fmt/format.h>

#include "core/log.h"

namespace d4r::release {

namespace fs = std::filesystem;

namespace {

constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr uint32_t kCentralSignature = 0x02014b50;
constexpr uint32_t kLocalSignature = 0x04034b50;
constexpr size_t kEndSize = 22;
constexpr size_t kCentralSize = 46;
constexpr size_t kLocalSize = 30;
constexpr size_t kMaxComment = 0xFFFF;
constexpr size_t kChunk = 256 << 10;
constexpr uint16_t kFlagEncrypted = 0x0001;
constexpr uint16_t kFlagStrongEncryption = 0x0040;
constexpr uint16_t kFlagMaskedHeaders = 0x2000;
constexpr uint32_t kUnixHost = 3;
constexpr uint32_t kTypeMask = 0170000, kTypeFile = 0100000, kTypeFolder = 0040000, kTypeLink = 0120000;

uint16_t get16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }
uint32_t get32(const uint8_t* p) { return uint32_t(get16(p)) | uint32_t(get16(p + 2)) << 16; }

std::string bytes_text(uint64_t n) {
    if (n >= (1ull << 30) && n % (1ull << 30) == 0) return fmt::format("{} GiB", n >> 30);
    if (n >= (1ull << 20) && n % (1ull << 20) == 0) return fmt::format("{} MiB", n >> 20);
    return fmt::format("{} bytes", n);
}

const char* method_name(uint16_t method) {
    switch (method) {
    case 1:
        return "shrink";
    case 6:
        return "implode";
    case 9:
        return "deflate64";
    case 12:
        return "bzip2";
    case 14:
        return "LZMA";
    case 93:
        return "zstd";
    case 95:
        return "xz";
    case 99:
        return "AES encryption";
    default:
        return "unknown";
    }
}

// Why NAME cannot be extracted below a folder as it is, or empty when it can.
std::string name_problem(const std::string& name) {
    if (name.empty()) return "an empty name";
    if (name.find('\0') != std::string::npos) return "a NUL byte in the name";
    if (name.find('\\') != std::string::npos) return "a backslash in the name (accepted: '/' separators only)";
    if (name.front() == '/') return "an absolute name";
    if (name.size() >= 2 && name[1] == ':' && std::isalpha(static_cast<unsigned char>(name[0])))
        return "a drive letter in the name";
    const std::string_view body(name.data(), name.back() == '/' ? name.size() - 1 : name.size());
    size_t start = 0;
    while (start <= body.size()) {
        const size_t end = std::min(body.find('/', start), body.size());
        const std::string_view part = body.substr(start, end - start);
        if (part == "..") return "a '..' component in the name";
        if (part.empty() || part == ".") return "an empty or '.' component in the name";
        start = end + 1;
    }
    return {};
}

} // namespace

struct ZipReader::Impl {
    std::string name;
    int fd = -1;
    std::span<const uint8_t> memory;
    uint64_t size = 0;
    ZipLimits limits;
    std::vector<ZipItem> entries;
    uint64_t total = 0;

    Impl() = default;
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    ~Impl() {
        if (fd >= 0) ::close(fd);
    }

    // LEN bytes at OFFSET into OUT; an Invalid error naming WHAT when the zip ends before.
    Status read_at(uint64_t offset, size_t len, uint8_t* out, std::string_view what) const {
        if (offset > size || len > size - offset)
            return make_error(ErrorCode::Invalid,
                              "{}: truncated or corrupt: {} ({} bytes at offset {}) passes the end "
                              "of the file ({} bytes)",
                              name, what, len, offset, size);
        if (fd < 0) {
            if (len) std::memcpy(out, memory.data() + offset, len);
            return ok_status();
        }
        while (len > 0) {
            const ssize_t n = ::pread(fd, out, len, off_t(offset));
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) return make_error(ErrorCode::Io, "{}: cannot read: {}", name, std::strerror(errno));
            if (n == 0) return make_error(ErrorCode::Io, "{}: the file shrank while being read", name);
            out += n;
            offset += uint64_t(n);
            len -= size_t(n);
        }
        return ok_status();
    }

    Status parse();
    Status parse_central(const std::vector<uint8_t>& cd, uint16_t count, uint64_t cd_offset);
    Status check_local_headers(uint64_t cd_offset);
    Status read_entry(const ZipItem& item, const ZipSink& sink) const;
};

Status ZipReader::Impl::parse() {
    if (size < kEndSize)
        return make_error(ErrorCode::Invalid, "{}: not a zip file ({} bytes, too short for the end record)", name,
                          size);
    const size_t tail_len = size_t(std::min<uint64_t>(size, kEndSize + kMaxComment));
    std::vector<uint8_t> tail(tail_len);
    D4R_TRY(read_at(size - tail_len, tail_len, tail.data(), "the end record"));
    size_t at = tail_len; // the end record's position in tail
    bool seen_signature = false;
    for (size_t i = tail_len - kEndSize + 1; i-- > 0;) {
        if (get32(&tail[i]) != kEndSignature) continue;
        seen_signature = true;
        if (i + kEndSize + get16(&tail[i + 20]) == tail_len) {
            at = i;
            break;
        }
    }
    if (at == tail_len)
        return make_error(ErrorCode::Invalid, "{}: {}", name,
                          seen_signature ? "truncated or corrupt: the end record's comment does not end at the end "
                                           "of the file"
                                         : "not a zip file, or a truncated one (no end-of-central-directory record)");
    const uint64_t end_offset = size - tail_len + at;
    const uint8_t* e = &tail[at];
    const uint16_t disk = get16(e + 4), cd_disk = get16(e + 6), here = get16(e + 8), count = get16(e + 10);
    const uint32_t cd_size = get32(e + 12), cd_offset = get32(e + 16);
    bool zip64 = here == 0xFFFF || count == 0xFFFF || cd_size == 0xFFFFFFFF || cd_offset == 0xFFFFFFFF;
    if (end_offset >= 20) {
        uint8_t locator[4];
        D4R_TRY(read_at(end_offset - 20, 4, locator, "the ZIP64 locator"));
        zip64 = zip64 || get32(locator) == kZip64LocatorSignature;
    }
    if (zip64)
        return make_error(ErrorCode::Unsupported,
                          "{}: a ZIP64 archive, which d4r does not read (release zips are plain zips below 4 GiB; "
                          "zip it again without ZIP64)",
                          name);
    if (disk != 0 || cd_disk != 0 || here != count)
        return make_error(ErrorCode::Unsupported, "{}: a split (multi-disk) zip, which d4r does not read", name);
    if (count > limits.max_entries)
        return make_error(ErrorCode::Invalid, "{}: {} entries, above the limit of {}", name, count, limits.max_entries);
    if (uint64_t(cd_offset) + cd_size != end_offset)
        return make_error(ErrorCode::Invalid,
                          "{}: truncated or corrupt: the central directory ({} bytes at offset {}) does not end where "
                          "the end record starts ({})",
                          name, cd_size, cd_offset, end_offset);
    std::vector<uint8_t> cd(cd_size);
    D4R_TRY(read_at(cd_offset, cd_size, cd.data(), "the central directory"));
    D4R_TRY(parse_central(cd, count, cd_offset));
    return check_local_headers(cd_offset);
}

Status ZipReader::Impl::parse_central(const std::vector<uint8_t>& cd, uint16_t count, uint64_t cd_offset) {
    size_t p = 0;
    std::set<std::string> names, files;
    for (uint16_t i = 0; i < count; ++i) {
        if (cd.size() - p < kCentralSize || get32(&cd[p]) != kCentralSignature)
            return make_error(ErrorCode::Invalid,
                              "{}: truncated or corrupt: central directory entry {} of {} is missing or damaged", name,
                              i + 1, count);
        const uint8_t* c = &cd[p];
        const size_t name_len = get16(c + 28), extra_len = get16(c + 30), comment_len = get16(c + 32);
        if (cd.size() - p - kCentralSize < name_len + extra_len + comment_len)
            return make_error(ErrorCode::Invalid, "{}: truncated or corrupt: central directory entry {} passes its end",
                              name, i + 1);
        ZipItem item;
        item.name.assign(reinterpret_cast<const char*>(c + kCentralSize), name_len);
        const std::string where = fmt::format("{}: entry '{}'", name, item.name);
        const uint32_t host = get16(c + 4) >> 8, mode = get32(c + 38) >> 16;
        item.flags = get16(c + 8);
        item.method = get16(c + 10);
        item.crc32 = get32(c + 16);
        const uint32_t csize = get32(c + 20), usize = get32(c + 24), local = get32(c + 42);
        p += kCentralSize + name_len + extra_len + comment_len;

        if (const std::string why = name_problem(item.name); !why.empty())
            return make_error(ErrorCode::Invalid,
                              "{}: refused: {} (only relative names inside the folder are extracted)", where, why);
        if (csize == 0xFFFFFFFF || usize == 0xFFFFFFFF || local == 0xFFFFFFFF)
            return make_error(ErrorCode::Unsupported, "{}: ZIP64 sizes, which d4r does not read", where);
        if (get16(c + 34) != 0)
            return make_error(ErrorCode::Unsupported, "{}: on another disk of a split zip, which d4r does not read",
                              where);
        if (item.flags & (kFlagEncrypted | kFlagStrongEncryption | kFlagMaskedHeaders))
            return make_error(ErrorCode::Unsupported, "{}: encrypted, which d4r does not read", where);
        if (item.method != 0 && item.method != 8)
            return make_error(ErrorCode::Unsupported,
                              "{}: compression method {} ({}); accepted: 0 (stored) and 8 (deflate)", where,
                              item.method, method_name(item.method));
        const uint32_t type = mode & kTypeMask;
        if (type == kTypeLink)
            return make_error(ErrorCode::Invalid,
                              "{}: refused: a symbolic link (a release holds only files and folders)", where);
        if (host == kUnixHost && type != 0 && type != kTypeFile && type != kTypeFolder)
            return make_error(ErrorCode::Invalid, "{}: refused: a special file (Unix mode {:o})", where, mode);
        item.folder = item.name.back() == '/';
        item.executable = !item.folder && host == kUnixHost && (mode & 0100) != 0;
        item.compressed_size = csize;
        item.size = usize;
        item.data_offset = local; // the local header's offset until check_local_headers
        if (item.folder && (usize != 0 || (item.method == 0 && csize != 0)))
            return make_error(ErrorCode::Invalid, "{}: corrupt: a folder entry holding {} bytes", where, usize);
        if (item.method == 0 && csize != usize)
            return make_error(ErrorCode::Invalid,
                              "{}: corrupt: stored, but its compressed size {} differs from its size {}", where, csize,
                              usize);
        if (usize > limits.max_entry_bytes)
            return make_error(ErrorCode::Invalid, "{}: refused: declares {} bytes, above the limit of {} per entry",
                              where, usize, bytes_text(limits.max_entry_bytes));
        total += usize;
        if (total > limits.max_total_bytes)
            return make_error(ErrorCode::Invalid,
                              "{}: refused: the entries up to this one declare {} bytes, above the limit of {} in all",
                              where, total, bytes_text(limits.max_total_bytes));
        if (local >= cd_offset)
            return make_error(ErrorCode::Invalid,
                              "{}: corrupt: its local header offset {} is not before the central "
                              "directory ({})",
                              where, local, cd_offset);
        std::string key = item.folder ? item.name.substr(0, item.name.size() - 1) : item.name;
        if (!names.insert(key).second)
            return make_error(ErrorCode::Invalid, "{}: refused: the name appears twice in the zip", where);
        if (!item.folder) files.insert(key);
        entries.push_back(std::move(item));
    }
    if (p != cd.size())
        return make_error(ErrorCode::Invalid, "{}: corrupt: the central directory holds {} bytes after its {} entries",
                          name, cd.size() - p, count);
    for (const ZipItem& item : entries)
        for (size_t slash = item.name.find('/'); slash != std::string::npos && slash + 1 < item.name.size();
             slash = item.name.find('/', slash + 1))
            if (files.count(item.name.substr(0, slash)))
                return make_error(ErrorCode::Invalid,
                                  "{}: entry '{}': refused: '{}' is a file in the zip, not a folder", name, item.name,
                                  item.name.substr(0, slash));
    return ok_status();
}

Status ZipReader::Impl::check_local_headers(uint64_t cd_offset) {
    std::vector<std::pair<uint64_t, uint64_t>> ranges; // [local header, end of data)
    std::vector<uint8_t> header;
    for (ZipItem& item : entries) {
        const std::string where = fmt::format("{}: entry '{}'", name, item.name);
        const uint64_t local = item.data_offset;
        header.resize(kLocalSize + item.name.size());
        if (Status s = read_at(local, header.size(), header.data(), "a local header"); !s) {
            s.error().add_context(where);
            return s;
        }
        if (get32(header.data()) != kLocalSignature)
            return make_error(ErrorCode::Invalid, "{}: corrupt: no local header at offset {}", where, local);
        const uint16_t flags = get16(&header[6]), method = get16(&header[8]);
        const size_t name_len = get16(&header[26]), extra_len = get16(&header[28]);
        if (name_len != item.name.size() || std::memcmp(&header[kLocalSize], item.name.data(), item.name.size()) != 0 ||
            method != item.method || (flags & kFlagEncrypted) != (item.flags & kFlagEncrypted))
            return make_error(ErrorCode::Invalid,
                              "{}: corrupt: its local header (name, method or encryption) disagrees with the central "
                              "directory",
                              where);
        item.data_offset = local + kLocalSize + name_len + extra_len;
        const uint64_t end = item.data_offset + item.compressed_size;
        if (end > cd_offset)
            return make_error(ErrorCode::Invalid,
                              "{}: truncated or corrupt: its {} bytes of data at offset {} pass the central directory "
                              "({})",
                              where, item.compressed_size, item.data_offset, cd_offset);
        ranges.emplace_back(local, end);
    }
    std::sort(ranges.begin(), ranges.end());
    for (size_t i = 1; i < ranges.size(); ++i)
        if (ranges[i].first < ranges[i - 1].second)
            return make_error(ErrorCode::Invalid,
                              "{}: refused: entries overlap (the entry at offset {} starts inside the one before)",
                              name, ranges[i].first);
    return ok_status();
}

Status ZipReader::Impl::read_entry(const ZipItem& item, const ZipSink& sink) const {
    const std::string where = fmt::format("{}: entry '{}'", name, item.name);
    if (item.size > limits.max_entry_bytes)
        return make_error(ErrorCode::Invalid, "{}: refused: declares {} bytes, above the limit", where, item.size);
    std::vector<uint8_t> in(kChunk), out(kChunk);
    uint64_t read = 0, produced = 0;
    uint32_t crc = 0;
    auto emit = [&](const uint8_t* data, size_t n) -> Status {
        produced += n;
        if (produced > item.size)
            return make_error(ErrorCode::Invalid, "{}: refused: inflates to more than the {} bytes it declares", where,
                              item.size);
        crc = uint32_t(crc32_z(crc, data, n));
        return n ? sink(std::span<const uint8_t>(data, n)) : ok_status();
    };
    if (item.method == 0) {
        while (read < item.compressed_size) {
            const size_t n = size_t(std::min<uint64_t>(kChunk, item.compressed_size - read));
            D4R_TRY(read_at(item.data_offset + read, n, in.data(), where));
            read += n;
            D4R_TRY(emit(in.data(), n));
        }
    } else {
        z_stream z{};
        if (inflateInit2(&z, -15) != Z_OK) return make_error(ErrorCode::Internal, "zlib: inflateInit2 failed");
        struct End {
            z_stream* z;
            ~End() { inflateEnd(z); }
        } end{&z};
        int rc = Z_OK;
        while (rc != Z_STREAM_END) {
            if (z.avail_in == 0) {
                if (read == item.compressed_size)
                    return make_error(ErrorCode::Invalid, "{}: truncated or corrupt: the deflate data end early",
                                      where);
                const size_t n = size_t(std::min<uint64_t>(kChunk, item.compressed_size - read));
                D4R_TRY(read_at(item.data_offset + read, n, in.data(), where));
                read += n;
                z.next_in = in.data();
                z.avail_in = uInt(n);
            }
            z.next_out = out.data();
            z.avail_out = uInt(out.size());
            rc = inflate(&z, Z_NO_FLUSH);
            if (rc == Z_MEM_ERROR) return make_error(ErrorCode::Internal, "{}: zlib: out of memory", where);
            if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
                return make_error(ErrorCode::Invalid, "{}: corrupt deflate data ({})", where,
                                  z.msg ? z.msg : "zlib error");
            D4R_TRY(emit(out.data(), out.size() - z.avail_out));
        }
        if (z.avail_in != 0 || read != item.compressed_size)
            return make_error(ErrorCode::Invalid,
                              "{}: corrupt: the deflate data end before its compressed size of {} bytes", where,
                              item.compressed_size);
    }
    if (produced != item.size)
        return make_error(ErrorCode::Invalid, "{}: truncated or corrupt: {} bytes, but it declares {}", where, produced,
                          item.size);
    if (crc != item.crc32)
        return make_error(ErrorCode::Invalid, "{}: corrupt: CRC-32 {:08x}, but it declares {:08x}", where, crc,
                          item.crc32);
    return ok_status();
}

ZipReader::ZipReader(std::shared_ptr<const Impl> impl) : m_impl(std::move(impl)) {}

Expected<ZipReader> ZipReader::open_file(const fs::path& path, const ZipLimits& limits) {
    try {
        auto impl = std::make_shared<Impl>();
        impl->name = path.string();
        impl->limits = limits;
        impl->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (impl->fd < 0) {
            const ErrorCode code = errno == ENOENT ? ErrorCode::NotFound : ErrorCode::Io;
            return make_error(code, "{}: cannot open: {}", impl->name, std::strerror(errno));
        }
        struct stat st{};
        if (::fstat(impl->fd, &st) != 0)
            return make_error(ErrorCode::Io, "{}: cannot read its size: {}", impl->name, std::strerror(errno));
        if (!S_ISREG(st.st_mode)) return make_error(ErrorCode::Invalid, "{}: not a regular file", impl->name);
        impl->size = uint64_t(st.st_size);
        if (Status s = impl->parse(); !s) {
            log::debug("zip: refused {}: {}", impl->name, s.error().text());
            return std::move(s).error();
        }
        return ZipReader(std::move(impl));
    } catch (const std::exception& e) {
        return make_error(ErrorCode::Internal, "{}: reading the zip failed: {}", path.string(), e.what());
    }
}

Expected<ZipReader> ZipReader::open_memory(std::span<const uint8_t> bytes, std::string name, const ZipLimits& limits) {
    try {
        auto impl = std::make_shared<Impl>();
        impl->name = std::move(name);
        impl->limits = limits;
        impl->memory = bytes;
        impl->size = bytes.size();
        if (Status s = impl->parse(); !s) {
            log::debug("zip: refused {}: {}", impl->name, s.error().text());
            return std::move(s).error();
        }
        return ZipReader(std::move(impl));
    } catch (const std::exception& e) {
        return make_error(ErrorCode::Internal, "reading a zip in memory failed: {}", e.what());
    }
}

const std::string& ZipReader::name() const { return m_impl->name; }
const std::vector<ZipItem>& ZipReader::entries() const { return m_impl->entries; }
uint64_t ZipReader::total_size() const { return m_impl->total; }

Status ZipReader::read(const ZipItem& item, const ZipSink& sink) const {
    try {
        Status s = m_impl->read_entry(item, sink);
        if (!s) log::debug("zip: refused to read: {}", s.error().text());
        return s;
    } catch (const std::exception& e) {
        return make_error(ErrorCode::Internal, "{}: entry '{}': reading failed: {}", m_impl->name, item.name, e.what());
    }
}

Expected<std::string> ZipReader::read_all(const ZipItem& item) const {
    std::string out;
    const ZipSink append = [&out](std::span<const uint8_t> chunk) -> Status {
        out.append(reinterpret_cast<const char*>(chunk.data()), chunk.size());
        return ok_status();
    };
    D4R_TRY(read(item, append));
    return out;
}

} // namespace d4r::release
