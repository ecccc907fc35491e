// d4r release: building a release folder and its reproducible zip (`d4r package`, docs/packaging.md).
//
// Promise: package_release() assembles the release layout (docs/packaging.md, "Layout") from a d4r
// build folder, the source's packaging/ folder and the third-party inputs, in a temporary folder
// inside OUT_DIR; checks every ELF file's GLIBC needs against the target and its DT_NEEDED libraries
// against the base system and the bundled files (elf_dependencies.h; needs met by the system's ROCm and
// the highest libstdc++ versions are said through SAY) and, for the nonvidia variant, runs the
// redistribution guard (redistribution_guard.h); writes d4r/source/SOURCES.txt (every third-party
// file: release path, input, source path, version when its version resource declares one, SHA-256)
// and d4r/BUILD_INFO.txt (d4r version, git commit, toolchain versions, libstdc++ needed, the date);
// then the zip (zip_writer.h) OUT_DIR/d4r-<version>-<variant>.zip, its .sha256 (sha256sum -c format)
// and, renamed from the temporary last, the folder OUT_DIR/d4r-<version>-<variant>/. Any error (a
// missing input without dev, a GLIBC need above the target, a library outside the base system and the
// release, NVIDIA content in nonvidia, a failed read or write)
// names the option, file or version, and leaves nothing new in OUT_DIR. With dev a missing input is
// left out with one warning line through SAY naming the option. Files get mode 0644, ELF files and the
// check script 0755, folders 0755; symbolic links among the inputs are copied as the files they name.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace d4r::release {

enum class Variant { Full, NoNvidia };
Expected<Variant> parse_variant(std::string_view text); // "full" or "nonvidia"
const char* variant_name(Variant v);

// d4r's routing keys for the OptiScaler a release ships, in SOURCE_DIR/packaging/; written into the release's
// OptiScaler.ini (docs/optiscaler.md).
inline constexpr const char* kOptiScalerKeysFile = "OptiScaler-d4r.ini";

struct PackageOptions {
    std::filesystem::path out_dir;
    Variant variant = Variant::Full;
    bool dev = false;
    std::filesystem::path build_dir;  // holds bin/d4r, lib/libd4rcuda.so, lib/nvcuda.dll.so, win/*.dll
    std::filesystem::path source_dir; // holds packaging/ and LICENSE, NOTICE
    std::optional<std::filesystem::path> optiscaler, vkd3d, zluda, rocm, kernels, nvidia;
    std::string glibc_max = "2.41";
    std::string d4r_version;
    std::optional<std::string> source_date_epoch; // SOURCE_DATE_EPOCH as given, if set
    // Where the licences of the libraries compiled into d4r's own files are (kBuiltInLibraries).
    std::filesystem::path system_doc_dir = "/usr/share/doc";
};

// The third-party libraries compiled into d4r's own release files (fmt's implementation, the header-only
// CLI11 and nlohmann-json, and lz4, zstd and libpng linked statically; docs/packaging.md, "Dependencies of
// the release files"). Their licences go into d4r/licenses/NAME/copyright, copied from the Debian package
// the build used (SYSTEM_DOC_DIR/PACKAGE/copyright); a missing one is a missing input.
struct BuiltInLibrary {
    const char* name;
    const char* debian_package;
};
inline constexpr BuiltInLibrary kBuiltInLibraries[] = {
    {"fmt", "libfmt-dev"}, {"CLI11", "libcli11-dev"}, {"nlohmann-json", "nlohmann-json3-dev"},
    {"lz4", "liblz4-dev"}, {"zstd", "libzstd-dev"},   {"libpng", "libpng-dev"},
};

struct PackageResult {
    std::filesystem::path folder; // OUT_DIR/d4r-<version>-<variant>
    std::filesystem::path zip;
    std::filesystem::path sha256_file;
    std::string sha256;
    int64_t timestamp = 0;
    size_t files = 0;
};

using PackageSay = std::function<void(std::string_view)>;

// The zip timestamp: SOURCE_DATE_EPOCH when given (a decimal number of seconds, else an Invalid error
// naming the value), else the time of SOURCE_DIR's last git commit, else kFallbackSourceDateEpoch.
Expected<int64_t> resolve_timestamp(const std::optional<std::string>& source_date_epoch,
                                    const std::filesystem::path& source_dir);

// The source folder recorded in BUILD_DIR/CMakeCache.txt (CMAKE_HOME_DIRECTORY), or nullopt.
std::optional<std::filesystem::path> source_dir_of_build(const std::filesystem::path& build_dir);

Expected<PackageResult> package_release(const PackageOptions& options, const PackageSay& say);

} // namespace d4r::release
