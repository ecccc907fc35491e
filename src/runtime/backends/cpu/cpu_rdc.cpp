// cpu backend: device-linked code (nvcc -rdc=true). See relocatable_ptx_for in cpu_image.h.
//
// nvlink links the relocatable objects' cubins into one image, and that image is what cudart registers
// and loads (cuLibraryLoadData); it holds no PTX. Each object's own fatbin, PTX included, is kept in the
// executable or library's __nv_relfatbin section (allocated, so the section headers in the file say
// where). ptxsim runs PTX only, so the objects' PTX is joined here as the JIT linker joins inputs.
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <span>

#include "core/log.h"
#include "ptx/container.h"
#include "ptx/elf.h"
#include "ptx/module_hash.h"
#include "runtime/backends/cpu/cpu_image.h"

namespace d4r::runtime::cpu {

namespace {

constexpr const char* kRelocatableSection = "__nv_relfatbin";

// The file of the loaded object whose segments contain ADDRESS ("" when none does).
std::string object_containing(const void* address) {
    struct Search {
        uintptr_t address;
        std::string path;
    } search{reinterpret_cast<uintptr_t>(address), {}};
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
            auto* s = static_cast<Search*>(data);
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const ElfW(Phdr)& ph = info->dlpi_phdr[i];
                if (ph.p_type != PT_LOAD) continue;
                const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
                if (s->address >= begin && s->address - begin < ph.p_memsz) {
                    s->path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
                    return 1;
                }
            }
            return 0;
        },
        &search);
    return search.path;
}

// A read-only mapping of a whole file.
class MappedFile {
public:
    explicit MappedFile(const std::string& path) {
        int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) return;
        struct stat st{};
        if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
            void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
            if (p != MAP_FAILED) {
                m_data = static_cast<const uint8_t*>(p);
                m_size = static_cast<size_t>(st.st_size);
            }
        }
        ::close(fd);
    }
    ~MappedFile() {
        if (m_data) ::munmap(const_cast<uint8_t*>(m_data), m_size);
    }
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    std::span<const uint8_t> bytes() const { return {m_data, m_size}; }
    bool ok() const { return m_data != nullptr; }

private:
    const uint8_t* m_data = nullptr;
    size_t m_size = 0;
};

} // namespace

bool relocatable_ptx_for(const void* image, std::string& text, std::string& origin, std::string& why) {
    const std::string path = object_containing(image);
    if (path.empty()) {
        why = "the image is not part of a loaded executable or library";
        return false;
    }
    MappedFile file(path);
    if (!file.ok()) {
        why = fmt::format("cannot map {}", path);
        return false;
    }
    auto elf = ptx::read_elf_sections(file.bytes());
    if (!elf) {
        why = fmt::format("{}: {}", path, elf.error().text());
        return false;
    }
    const ptx::ElfSection* section = nullptr;
    for (const ptx::ElfSection& s : elf->sections)
        if (s.name == kRelocatableSection && s.type != ptx::kElfSectionNobits) section = &s;
    if (!section) {
        why = fmt::format("{} has no {} section (not device-linked code)", path, kRelocatableSection);
        return false;
    }
    if (section->offset > file.bytes().size() || section->size > file.bytes().size() - section->offset) {
        why = fmt::format("{}: section {} lies outside the file", path, kRelocatableSection);
        return false;
    }
    auto blobs = ptx::find_ptx_modules(file.bytes().subspan(section->offset, section->size));
    if (!blobs) {
        why = fmt::format("{}: section {}: {}", path, kRelocatableSection, blobs.error().text());
        return false;
    }
    // One fatbin per relocatable object ("fatbin N @0x..., entry M ..."): its newest PTX for sm_90 or older.
    std::map<std::string, const ptx::PtxModuleBlob*> chosen;
    for (const ptx::PtxModuleBlob& b : *blobs) {
        const std::string object = b.origin.substr(0, b.origin.find(','));
        const int sm = sm_number(b.sm);
        if (sm > 90) continue;
        auto it = chosen.find(object);
        if (it == chosen.end() || sm > sm_number(it->second->sm)) chosen[object] = &b;
    }
    if (chosen.empty()) {
        why = fmt::format("{}: section {} holds no PTX for sm_90 or older", path, kRelocatableSection);
        return false;
    }
    std::vector<NamedPtx> inputs;
    for (const auto& [object, blob] : chosen)
        inputs.push_back({object, std::string(ptx::strip_trailing_nuls(blob->text))});
    text = inputs.size() == 1 ? inputs[0].ptx : join_ptx(inputs);
    origin = fmt::format("{} relocatable PTX module{} of {} ({})", inputs.size(), inputs.size() == 1 ? "" : "s", path,
                         kRelocatableSection);
    return true;
}

} // namespace d4r::runtime::cpu
