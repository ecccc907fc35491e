#include "files.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace d4r {

namespace {

std::string errno_text() { return std::strerror(errno); }

Status write_all(int fd, const uint8_t* data, size_t size, const fs::path& path) {
    while (size > 0) {
        ssize_t n = ::write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            return make_error(ErrorCode::Io, "cannot write '{}': {}", path.string(), errno_text());
        }
        data += n;
        size -= static_cast<size_t>(n);
    }
    return ok_status();
}

} // namespace

Expected<std::vector<uint8_t>> read_file(const fs::path& path, uint64_t max_bytes) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        ErrorCode code = errno == ENOENT ? ErrorCode::NotFound : ErrorCode::Io;
        return make_error(code, "cannot open '{}': {}", path.string(), errno_text());
    }
    // Only regular files: a device (/dev/zero), pipe or socket could feed bytes without end, and a
    // folder has none. A file's size is checked before anything is allocated.
    struct stat st{};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        const bool folder = S_ISDIR(st.st_mode);
        ::close(fd);
        return make_error(ErrorCode::Invalid, "'{}' is {}", path.string(),
                          folder ? "a folder, not a file" : "not a regular file (a device, pipe or socket)");
    }
    if (static_cast<uint64_t>(st.st_size) > max_bytes) {
        ::close(fd);
        return make_error(ErrorCode::Invalid, "'{}' is larger than the {} bytes accepted", path.string(), max_bytes);
    }
    std::vector<uint8_t> bytes;
    bytes.reserve(static_cast<size_t>(st.st_size));
    uint8_t buffer[1 << 16];
    for (;;) {
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0) {
            if (errno == EINTR) continue;
            Error e = make_error(ErrorCode::Io, "cannot read '{}': {}", path.string(), errno_text());
            ::close(fd);
            return e;
        }
        if (n == 0) break;
        if (bytes.size() + static_cast<uint64_t>(n) > max_bytes) {
            ::close(fd);
            return make_error(ErrorCode::Invalid, "'{}' is larger than the {} bytes accepted", path.string(),
                              max_bytes);
        }
        bytes.insert(bytes.end(), buffer, buffer + n);
    }
    ::close(fd);
    return bytes;
}

Expected<std::string> read_text_file(const fs::path& path, uint64_t max_bytes) {
    auto bytes = D4R_TRY(read_file(path, max_bytes));
    return std::string(bytes.begin(), bytes.end());
}

Status write_file_atomic(const fs::path& path, std::span<const uint8_t> bytes) {
    fs::path dir = path.parent_path();
    if (dir.empty()) dir = ".";
    std::string temp = (dir / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
    int fd = ::mkstemp(temp.data());
    if (fd < 0)
        return make_error(ErrorCode::Io, "cannot create a temporary file in '{}': {}", dir.string(), errno_text());
    Status status = write_all(fd, bytes.data(), bytes.size(), temp);
    if (status && ::fsync(fd) != 0) status = make_error(ErrorCode::Io, "cannot flush '{}': {}", temp, errno_text());
    // mkstemp makes 0600 files; keep the mode of the file being replaced, else make it 0644.
    if (status) {
        struct stat existing{};
        mode_t mode = ::stat(path.c_str(), &existing) == 0 ? (existing.st_mode & 07777) : 0644;
        ::fchmod(fd, mode);
    }
    if (::close(fd) != 0 && status) status = make_error(ErrorCode::Io, "cannot close '{}': {}", temp, errno_text());
    if (status && ::rename(temp.c_str(), path.c_str()) != 0)
        status = make_error(ErrorCode::Io, "cannot rename '{}' to '{}': {}", temp, path.string(), errno_text());
    if (!status) ::unlink(temp.c_str());
    return status;
}

Status write_file_atomic(const fs::path& path, std::string_view text) {
    return write_file_atomic(path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

bool path_exists(const fs::path& path) {
    std::error_code ec;
    return fs::exists(path, ec);
}

bool is_dir(const fs::path& path) {
    std::error_code ec;
    return fs::is_directory(path, ec);
}

bool is_file(const fs::path& path) {
    std::error_code ec;
    return fs::is_regular_file(path, ec);
}

Expected<std::vector<fs::path>> list_directory(const fs::path& path) {
    std::error_code ec;
    std::vector<fs::path> entries;
    fs::directory_iterator it(path, ec);
    if (ec) return make_error(ErrorCode::Io, "cannot list '{}': {}", path.string(), ec.message());
    for (; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec) return make_error(ErrorCode::Io, "cannot list '{}': {}", path.string(), ec.message());
        entries.push_back(it->path());
    }
    std::sort(entries.begin(), entries.end());
    return entries;
}

std::string resolved_path_or_same(const std::string& path) {
    char real[PATH_MAX];
    return realpath(path.c_str(), real) ? std::string(real) : path;
}

} // namespace d4r
