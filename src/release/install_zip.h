// d4r release: a release zip unpacked for `d4r install --release ZIP`.
//
// Promise: unpack_release_zip() reads the zip through ZipReader (which refuses unsafe or damaged
// archives, naming the zip and the entry), unpacks it into a new private folder d4r-install-XXXXXX
// in the system's temporary folder ($TMPDIR, else /tmp), and finds the release in it: the zip's top
// when it holds d4r/, else its one top folder (what `d4r package` writes). The UnpackedRelease owns
// that folder and removes it, with everything in it, when destroyed, whether the install succeeded or
// not; on an error the folder is already gone. The zip's SHA-256 is computed once, for the manifest.
#pragma once

#include <filesystem>
#include <string>

#include "core/status.h"
#include "install.h"

namespace d4r::release {

class UnpackedRelease {
public:
    UnpackedRelease(UnpackedRelease&& other) noexcept;
    UnpackedRelease& operator=(UnpackedRelease&&) = delete;
    UnpackedRelease(const UnpackedRelease&) = delete;
    UnpackedRelease& operator=(const UnpackedRelease&) = delete;
    ~UnpackedRelease();

    const std::filesystem::path& zip() const { return m_zip; }         // absolute
    const std::string& sha256() const { return m_sha256; }             // of the zip
    const std::filesystem::path& release() const { return m_release; } // the release folder, inside the temporary
    // The zip entry name of a file at RELATIVE below release() ("d4r-1.0-full/" + RELATIVE, or RELATIVE).
    std::string entry_name(const std::string& relative) const { return m_prefix + relative; }

private:
    friend Expected<UnpackedRelease> unpack_release_zip(const std::filesystem::path& zip, const Say& say);
    explicit UnpackedRelease(std::filesystem::path temporary) : m_temporary(std::move(temporary)) {}
    std::filesystem::path m_temporary; // empty when moved from
    std::filesystem::path m_zip;
    std::string m_sha256;
    std::filesystem::path m_release;
    std::string m_prefix;
};

// Unpacks ZIP (progress through SAY) and returns the release inside it; the folder is not yet checked
// for the release layout beyond holding d4r/ (install checks it as it checks a folder).
Expected<UnpackedRelease> unpack_release_zip(const std::filesystem::path& zip, const Say& say);

} // namespace d4r::release
