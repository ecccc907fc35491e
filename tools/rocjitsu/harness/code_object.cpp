// An AMDGPU code object read without ROCm: ELF64 segments and symbols, kernel descriptors, the msgpack
// metadata note (AMDGPU's NT_AMDGPU_METADATA, code object v4/v5).
#include "code_object.h"

#include <elf.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <utility>

namespace d4r::rj {

namespace {

constexpr uint32_t kEmAmdgpu = 224;
constexpr uint32_t kNtAmdgpuMetadata = 32;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw std::runtime_error(path + ": " + what);
}

// A msgpack value: enough of the format for the metadata note (maps, arrays, strings, integers, booleans).
struct Value {
    enum class Kind { Nil, Int, Str, Array, Map, Other } kind = Kind::Nil;
    int64_t i = 0;
    std::string s;
    std::vector<Value> items;                        // Array
    std::vector<Value> keys;                         // Map: keys[i] maps to items[i]
    const Value* get(const std::string& key) const { // Map lookup by string key
        for (size_t i = 0; i < keys.size(); ++i)
            if (keys[i].kind == Kind::Str && keys[i].s == key) return &items[i];
        return nullptr;
    }
};

class MsgpackReader {
public:
    MsgpackReader(const uint8_t* p, size_t n, const std::string& path) : m_p(p), m_n(n), m_path(path) {}
    Value read(int depth = 0) {
        if (depth > 32) fail(m_path, "metadata note nested too deeply");
        const uint8_t t = byte();
        Value v;
        if (t <= 0x7f) return int_value(t);
        if (t >= 0xe0) return int_value(int8_t(t));
        if ((t & 0xf0) == 0x80) return map(t & 0x0f, depth);
        if ((t & 0xf0) == 0x90) return array(t & 0x0f, depth);
        if ((t & 0xe0) == 0xa0) return str(t & 0x1f);
        switch (t) {
        case 0xc0:
            return v;
        case 0xc2:
        case 0xc3:
            return int_value(t == 0xc3);
        case 0xcc:
            return int_value(int64_t(be(1)));
        case 0xcd:
            return int_value(int64_t(be(2)));
        case 0xce:
            return int_value(int64_t(be(4)));
        case 0xcf:
            return int_value(int64_t(be(8)));
        case 0xd0:
            return int_value(int8_t(be(1)));
        case 0xd1:
            return int_value(int16_t(be(2)));
        case 0xd2:
            return int_value(int32_t(be(4)));
        case 0xd3:
            return int_value(int64_t(be(8)));
        case 0xd9:
            return str(be(1));
        case 0xda:
            return str(be(2));
        case 0xdb:
            return str(be(4));
        case 0xc4:
        case 0xc5:
        case 0xc6:
            skip(be(t == 0xc4 ? 1 : t == 0xc5 ? 2 : 4));
            v.kind = Value::Kind::Other;
            return v;
        case 0xca:
        case 0xcb:
            skip(t == 0xca ? 4 : 8);
            v.kind = Value::Kind::Other;
            return v;
        case 0xdc:
            return array(be(2), depth);
        case 0xdd:
            return array(be(4), depth);
        case 0xde:
            return map(be(2), depth);
        case 0xdf:
            return map(be(4), depth);
        default:
            fail(m_path, "metadata note: unsupported msgpack type " + std::to_string(t));
        }
    }

private:
    uint8_t byte() {
        if (m_at >= m_n) fail(m_path, "metadata note truncated");
        return m_p[m_at++];
    }
    uint64_t be(int bytes) {
        uint64_t v = 0;
        for (int i = 0; i < bytes; ++i) v = (v << 8) | byte();
        return v;
    }
    void skip(uint64_t n) {
        if (n > m_n - m_at) fail(m_path, "metadata note truncated");
        m_at += n;
    }
    static Value int_value(int64_t i) {
        Value v;
        v.kind = Value::Kind::Int;
        v.i = i;
        return v;
    }
    Value str(uint64_t n) {
        const size_t at = m_at;
        skip(n);
        Value v;
        v.kind = Value::Kind::Str;
        v.s.assign(reinterpret_cast<const char*>(m_p + at), n);
        return v;
    }
    Value array(uint64_t n, int depth) {
        Value v;
        v.kind = Value::Kind::Array;
        for (uint64_t i = 0; i < n; ++i) v.items.push_back(read(depth + 1));
        return v;
    }
    Value map(uint64_t n, int depth) {
        Value v;
        v.kind = Value::Kind::Map;
        for (uint64_t i = 0; i < n; ++i) {
            v.keys.push_back(read(depth + 1));
            v.items.push_back(read(depth + 1));
        }
        return v;
    }

    const uint8_t* m_p;
    size_t m_n, m_at = 0;
    const std::string& m_path;
};

template <typename T>
const T* at(const std::vector<uint8_t>& elf, uint64_t offset, uint64_t count, const std::string& path) {
    if (offset > elf.size() || count > (elf.size() - offset) / sizeof(T)) fail(path, "ELF structure out of bounds");
    return reinterpret_cast<const T*>(elf.data() + offset);
}

} // namespace

std::string target_for_mach(uint32_t mach) {
    switch (mach) {
    case 0x41:
        return "gfx1100";
    case 0x46:
        return "gfx1101";
    case 0x47:
        return "gfx1102";
    case 0x44:
        return "gfx1103";
    case 0x48:
        return "gfx1200";
    case 0x4e:
        return "gfx1201";
    default:
        return "";
    }
}

CodeObject CodeObject::parse(const std::string& path, std::vector<uint8_t> elf) {
    CodeObject co;
    co.m_path = path;
    const auto* eh = at<Elf64_Ehdr>(elf, 0, 1, path);
    if (std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64)
        fail(path, "not an ELF64 file");
    if (eh->e_machine != kEmAmdgpu)
        fail(path, "not an AMDGPU code object (e_machine " + std::to_string(eh->e_machine) + ")");
    const uint32_t mach = eh->e_flags & 0xff;
    co.m_target = target_for_mach(mach);
    if (co.m_target.empty()) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "gfx?%02x", mach);
        co.m_target = buf;
    }
    const auto* ph = at<Elf64_Phdr>(elf, eh->e_phoff, eh->e_phnum, path);
    for (int i = 0; i < eh->e_phnum; ++i) {
        if (ph[i].p_type != PT_LOAD) continue;
        if (ph[i].p_filesz > ph[i].p_memsz || ph[i].p_memsz > (64u << 20)) fail(path, "bad PT_LOAD segment");
        Segment s{ph[i].p_vaddr, std::vector<uint8_t>(ph[i].p_memsz, 0)};
        const auto* data = at<uint8_t>(elf, ph[i].p_offset, ph[i].p_filesz, path);
        std::memcpy(s.bytes.data(), data, ph[i].p_filesz);
        co.m_segments.push_back(std::move(s));
    }
    const auto* sh = at<Elf64_Shdr>(elf, eh->e_shoff, eh->e_shnum, path);
    for (int i = 0; i < eh->e_shnum; ++i) {
        if (sh[i].sh_type == SHT_SYMTAB || sh[i].sh_type == SHT_DYNSYM) {
            if (sh[i].sh_link >= eh->e_shnum) fail(path, "bad symbol table link");
            const auto* sym = at<Elf64_Sym>(elf, sh[i].sh_offset, sh[i].sh_size / sizeof(Elf64_Sym), path);
            const Elf64_Shdr& strtab = sh[sh[i].sh_link];
            const char* str = at<char>(elf, strtab.sh_offset, strtab.sh_size, path);
            for (size_t j = 0; j < sh[i].sh_size / sizeof(Elf64_Sym); ++j) {
                if (sym[j].st_name >= strtab.sh_size || sym[j].st_shndx == SHN_UNDEF) continue;
                const char* name = str + sym[j].st_name;
                co.m_symbols.emplace(std::string(name, strnlen(name, strtab.sh_size - sym[j].st_name)),
                                     sym[j].st_value);
            }
        } else if (sh[i].sh_type == SHT_NOTE) {
            const uint8_t* p = at<uint8_t>(elf, sh[i].sh_offset, sh[i].sh_size, path);
            uint64_t off = 0;
            while (off + 12 <= sh[i].sh_size) {
                uint32_t namesz, descsz, type;
                std::memcpy(&namesz, p + off, 4);
                std::memcpy(&descsz, p + off + 4, 4);
                std::memcpy(&type, p + off + 8, 4);
                const uint64_t name_at = off + 12, desc_at = name_at + ((uint64_t(namesz) + 3) & ~3ull);
                if (desc_at + descsz > sh[i].sh_size) fail(path, "note out of bounds");
                if (type == kNtAmdgpuMetadata && namesz >= 6 && std::memcmp(p + name_at, "AMDGPU", 6) == 0) {
                    MsgpackReader reader(p + desc_at, descsz, path);
                    const Value root = reader.read();
                    const Value* kernels = root.get("amdhsa.kernels");
                    if (kernels && kernels->kind == Value::Kind::Array)
                        for (const Value& k : kernels->items) {
                            const Value* name = k.get(".name");
                            const Value* args = k.get(".args");
                            if (!name || name->kind != Value::Kind::Str) continue;
                            std::vector<KernelArg>& out = co.m_args[name->s];
                            if (!args || args->kind != Value::Kind::Array) continue;
                            for (const Value& a : args->items) {
                                const Value *o = a.get(".offset"), *s = a.get(".size"), *vk = a.get(".value_kind");
                                if (!o || !s || !vk) fail(path, "metadata: a kernel argument without offset/size/kind");
                                out.push_back({uint32_t(o->i), uint32_t(s->i), vk->s});
                            }
                        }
                }
                off = desc_at + ((uint64_t(descsz) + 3) & ~3ull);
            }
        }
    }
    return co;
}

std::optional<uint64_t> CodeObject::symbol(const std::string& name) const {
    auto it = m_symbols.find(name);
    if (it == m_symbols.end()) return std::nullopt;
    return it->second;
}

std::optional<uint32_t> CodeObject::u32_global(const std::string& name) const {
    auto addr = symbol(name);
    if (!addr) return std::nullopt;
    for (const Segment& s : m_segments)
        if (*addr >= s.vaddr && *addr + 4 <= s.vaddr + s.bytes.size()) {
            uint32_t v;
            std::memcpy(&v, s.bytes.data() + (*addr - s.vaddr), 4);
            return v;
        }
    fail(m_path, "global " + name + " lies outside the loadable segments");
}

std::optional<KernelInfo> CodeObject::kernel(const std::string& name) const {
    auto kd = symbol(name + ".kd");
    if (!kd) return std::nullopt;
    KernelInfo k;
    k.descriptor = *kd;
    bool found = false;
    for (const Segment& s : m_segments)
        if (*kd >= s.vaddr && *kd + 64 <= s.vaddr + s.bytes.size()) {
            const uint8_t* d = s.bytes.data() + (*kd - s.vaddr);
            std::memcpy(&k.group_segment_fixed_size, d, 4);
            std::memcpy(&k.private_segment_fixed_size, d + 4, 4);
            std::memcpy(&k.kernarg_size, d + 8, 4);
            found = true;
        }
    if (!found) fail(m_path, "kernel descriptor " + name + ".kd lies outside the loadable segments");
    if (auto it = m_args.find(name); it != m_args.end()) k.args = it->second;
    return k;
}

} // namespace d4r::rj
