// d4r release: a release zip unpacked for `d4r install --release ZIP`.
#include "install_zip.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "core/files.h"
#include "core/log.h"
#include "core/sha256.h"
#include "zip_extract.h"
#include "zip_reader.h"

namespace d4r::release {

namespace fs = std::filesystem;

UnpackedRelease::UnpackedRelease(UnpackedRelease&& other) noexcept
    : m_temporary(std::move(other.m_temporary)), m_zip(std::move(other.m_zip)), m_sha256(std::move(other.m_sha256)),
      m_release(std::move(other.m_release)), m_prefix(std::move(other.m_prefix)) {
    other.m_temporary.clear();
}

UnpackedRelease::~UnpackedRelease() {
    if (m_temporary.empty()) return;
    std::error_code ec;
    fs::remove_all(m_temporary, ec);
    if (ec) log::warn("cannot remove the unpacked release {}: {}", m_temporary.string(), ec.message());
}

namespace {

std::string size_text(uint64_t bytes) {
    if (bytes >= (1ull << 20)) return fmt::format("{:.1f} MiB", double(bytes) / double(1ull << 20));
    if (bytes >= (1ull << 10)) return fmt::format("{:.1f} KiB", double(bytes) / double(1ull << 10));
    return fmt::format("{} bytes", bytes);
}

Expected<fs::path> make_temporary_folder() {
    std::error_code ec;
    const fs::path base = fs::temp_directory_path(ec);
    if (ec) return make_error(ErrorCode::Io, "no temporary folder to unpack the release into: {}", ec.message());
    std::string pattern = (base / "d4r-install-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
        return make_error(ErrorCode::Io, "cannot create a temporary folder in {} to unpack the release: {}",
                          base.string(), std::strerror(errno));
    return fs::path(pattern);
}

} // namespace

Expected<UnpackedRelease> unpack_release_zip(const fs::path& zip_in, const Say& say) {
    std::error_code ec;
    const fs::path zip = fs::absolute(zip_in, ec).lexically_normal();
    if (ec) return make_error(ErrorCode::Io, "--release {}: {}", zip_in.string(), ec.message());
    const ZipReader reader = D4R_TRY_CTX(ZipReader::open_file(zip), "--release");
    const std::string sha256 = D4R_TRY(sha256_file_hex(zip));
    say(fmt::format("release: {} (zip, SHA-256 {}, {} entries, {} unpacked)", zip.string(), sha256,
                    reader.entries().size(), size_text(reader.total_size())));
    const fs::path temporary = D4R_TRY(make_temporary_folder());
    UnpackedRelease out(temporary); // removes the folder on every return from here
    out.m_zip = zip;
    out.m_sha256 = sha256;
    const ExtractCount count = D4R_TRY_CTX(extract_zip(reader, temporary), "--release");
    say(fmt::format("unpacked {} files into {} (removed when the install ends)", count.files, temporary.string()));

    if (is_dir(temporary / "d4r")) {
        out.m_release = temporary;
        return out;
    }
    const std::vector<fs::path> top = D4R_TRY(list_directory(temporary));
    if (top.size() == 1 && is_dir(top[0]) && is_dir(top[0] / "d4r")) {
        out.m_release = top[0];
        out.m_prefix = top[0].filename().string() + "/";
        return out;
    }
    return make_error(ErrorCode::Invalid,
                      "--release {}: not a d4r release zip: it holds no d4r/ folder, neither at its top nor in one "
                      "top folder (as d4r package writes it)",
                      zip.string());
}

} // namespace d4r::release
