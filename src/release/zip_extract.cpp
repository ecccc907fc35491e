// d4r release: unpacking a zip into a folder.
#include "zip_extract.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "core/log.h"

namespace d4r::release {

namespace fs = std::filesystem;

namespace {

// Creates FOLDER (one component below an existing folder) unless it is already a folder; a link or a
// file there is an error.
Expected<bool> make_folder(const fs::path& folder) {
    if (::mkdir(folder.c_str(), 0755) == 0) return true;
    if (errno != EEXIST)
        return make_error(ErrorCode::Io, "cannot create the folder {}: {}", folder.string(), std::strerror(errno));
    struct stat st{};
    if (::lstat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        return make_error(ErrorCode::Invalid, "{}: exists and is not a folder", folder.string());
    return false;
}

Status write_entry(const ZipReader& zip, const ZipItem& item, const fs::path& path) {
    const int fd =
        ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, item.executable ? 0755 : 0644);
    if (fd < 0) return make_error(ErrorCode::Io, "cannot create {}: {}", path.string(), std::strerror(errno));
    const ZipSink write_all = [&](std::span<const uint8_t> chunk) -> Status {
        const uint8_t* p = chunk.data();
        size_t left = chunk.size();
        while (left > 0) {
            const ssize_t n = ::write(fd, p, left);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) return make_error(ErrorCode::Io, "cannot write {}: {}", path.string(), std::strerror(errno));
            p += n;
            left -= size_t(n);
        }
        return ok_status();
    };
    Status s = zip.read(item, write_all);
    if (::close(fd) != 0 && s)
        s = make_error(ErrorCode::Io, "cannot write {}: {}", path.string(), std::strerror(errno));
    if (!s) ::unlink(path.c_str());
    return s;
}

Expected<ExtractCount> extract_impl(const ZipReader& zip, const fs::path& target_in) {
    std::error_code ec;
    const fs::path target = fs::absolute(target_in, ec).lexically_normal();
    if (ec) return make_error(ErrorCode::Io, "{}: {}", target_in.string(), ec.message());
    const fs::file_status st = fs::symlink_status(target, ec);
    if (ec || !fs::is_directory(st))
        return make_error(ErrorCode::Invalid, "{}: not a folder to unpack {} into", target.string(), zip.name());
    ExtractCount count;
    for (const ZipItem& item : zip.entries()) {
        const fs::path relative = fs::path(item.name).lexically_normal();
        const fs::path path = (target / relative).lexically_normal();
        // The reader refused every name that could leave TARGET; this is the second lock on that door.
        const fs::path back = path.lexically_relative(target);
        if (relative.is_absolute() || back.empty() || *back.begin() == ".." || *back.begin() == ".")
            return make_error(ErrorCode::Invalid, "{}: entry '{}': refused: it would land outside {}", zip.name(),
                              item.name, target.string());
        fs::path folder = target;
        const fs::path parents = item.folder ? back : back.parent_path();
        for (const fs::path& part : parents) {
            if (part.empty()) continue;
            folder /= part;
            const bool created = D4R_TRY(make_folder(folder));
            if (created) ++count.folders;
        }
        if (item.folder) continue;
        D4R_TRY(write_entry(zip, item, path));
        ++count.files;
        count.bytes += item.size;
    }
    return count;
}

} // namespace

Expected<ExtractCount> extract_zip(const ZipReader& zip, const fs::path& target) {
    try {
        auto done = extract_impl(zip, target);
        if (!done) log::debug("zip: unpacking into {} stopped: {}", target.string(), done.error().text());
        return done;
    } catch (const std::exception& e) {
        return make_error(ErrorCode::Internal, "{}: unpacking into {} failed: {}", zip.name(), target.string(),
                          e.what());
    }
}

} // namespace d4r::release
