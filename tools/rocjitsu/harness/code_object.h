// d4r-rj-run: an AMDGPU code object (.hsaco) as the harness needs it, with no ROCm: its loadable segments,
// its symbols (kernel descriptors `NAME.kd`, u32 globals), the descriptor fields of a dispatch, and the
// kernel arguments of its metadata note (msgpack, code object v5) so hidden arguments are filled the way
// HIP's hipModuleLaunchKernel fills them.
//
// Promise: parse() checks everything it reads against the file's size; a malformed file is an error
// (std::runtime_error with the file's name), never a read outside the buffer.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace d4r::rj {

struct Segment {
    uint64_t vaddr = 0;         // relative to the load base
    std::vector<uint8_t> bytes; // p_memsz bytes: the file's p_filesz, then zeros
};

struct KernelArg {
    uint32_t offset = 0, size = 0;
    std::string value_kind; // "by_value", "global_buffer", "hidden_block_count_x", ...
};

struct KernelInfo {
    uint64_t descriptor = 0; // value of NAME.kd (relative to the load base)
    uint32_t group_segment_fixed_size = 0, private_segment_fixed_size = 0, kernarg_size = 0;
    std::vector<KernelArg> args; // from the metadata note; empty when the note does not list the kernel
};

class CodeObject {
public:
    static CodeObject parse(const std::string& path, std::vector<uint8_t> elf);

    const std::string& path() const { return m_path; }
    // EF_AMDGPU_MACH of e_flags, as the gfx target name ("gfx1100"); "gfx?XX" (hex) for one not known here.
    const std::string& target() const { return m_target; }
    const std::vector<Segment>& segments() const { return m_segments; }
    std::optional<uint64_t> symbol(const std::string& name) const; // relative to the load base
    std::optional<KernelInfo> kernel(const std::string& name) const;
    // The initial value of a u32 global (0 when it lies in zero-filled memory); nullopt when absent.
    std::optional<uint32_t> u32_global(const std::string& name) const;

private:
    std::string m_path, m_target;
    std::vector<Segment> m_segments;
    std::map<std::string, uint64_t> m_symbols;
    std::map<std::string, std::vector<KernelArg>> m_args;
};

// "gfx1100" for EF_AMDGPU_MACH 0x41 and the other targets d4r builds for; "" for another value.
std::string target_for_mach(uint32_t mach);

} // namespace d4r::rj
