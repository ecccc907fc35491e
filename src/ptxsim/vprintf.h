// ptxsim internals: device printf. CUDA's printf compiles to `call (ret), vprintf, (fmt, args)`: FMT is
// the generic address of the format string, ARGS the generic address of a buffer holding the arguments,
// each at an offset aligned to its size (4 bytes for int/unsigned/char and the h/hh forms, 8 for
// l/ll/z/j/t integers, doubles (floats arrive promoted) and pointers). The host formats the text as C's
// printf would (the conversion and length modifiers decide each argument's size), which is what the CUDA
// driver does when it drains the device's printf buffer.
//
// Text is collected per block (t_block_printf, set by launch() around each block it runs on a worker)
// and delivered in block order at the end of the launch (LaunchConfig::printf_sink).
#pragma once

#include <cstdint>
#include <string>

namespace d4r::ptxsim {

// Device memory as the formatter reads it: copies BYTES at the generic address ADDR into DST, or returns
// false when the range is not readable (the implementation records the fault).
class VprintfMemory {
public:
    virtual bool read(uint64_t addr, void* dst, uint32_t bytes) = 0;

protected:
    ~VprintfMemory() = default;
};

struct VprintfResult {
    int value = 0;      // vprintf's return: the number of arguments consumed, -1 for a null format
    bool fault = false; // a read failed: the text is incomplete and the launch must stop
};

// Formats one call: appends the text to OUT. Supports the flags - + space # 0, widths and precisions
// (also *), the length modifiers hh h l ll z j t L, and the conversions d i u o x X c s f F e E g G a A
// p % (n is consumed and ignored). An unknown conversion is copied as written.
VprintfResult format_vprintf(VprintfMemory& mem, uint64_t fmt, uint64_t args, std::string& out);

// The printf text of the block the calling worker thread runs; nullptr outside launch().
inline thread_local std::string* t_block_printf = nullptr;

} // namespace d4r::ptxsim
