// d4r ptx run: runs one kernel of a PTX file (or of a fatbin / ELF / PE holding PTX) on ptxsim, the CPU
// device, with arguments given on the command line; prints the output buffers or writes them to files.
// A development tool: the quickest way to see what a kernel does and where it faults.
//
// Exit statuses: 0 the kernel ran; 1 it faulted or ran past its budget (the message names kernel,
// block, thread, address and PTX line); 2 bad usage, an unreadable file, a module that does not load
// (unsupported instruction, with its line), or arguments that do not match the kernel's parameters.
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli_common.h"
#include "core/files.h"
#include "core/strings.h"
#include "ptx/module_index.h"
#include "ptxsim/ptxsim.h"
#include "verbs.h"

namespace d4r::cli {

namespace {

namespace fs = std::filesystem;
using namespace d4r::ptxsim;

struct RunOptions {
    std::string file;
    std::string kernel;
    std::string grid = "1";
    std::string block = "1";
    std::vector<std::string> args;
    uint32_t shared = 0;
    unsigned workers = 0;
    uint64_t budget = 0;
    std::string out_dir;
    std::string print_type = "u32";
    size_t count = 16;
};

Expected<Dim3> parse_dim3(const std::string& text, const char* what) {
    Dim3 d;
    uint32_t* parts[3] = {&d.x, &d.y, &d.z};
    size_t start = 0;
    for (int i = 0; i < 3; ++i) {
        size_t comma = text.find(',', start);
        std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        auto v = parse_u64(trim(item));
        if (!v || *v == 0 || *v > 0xffffffffull)
            return make_error(ErrorCode::Invalid, "--{} '{}': expected X[,Y[,Z]] with positive numbers", what, text);
        *parts[i] = static_cast<uint32_t>(*v);
        if (comma == std::string::npos) return d;
        start = comma + 1;
    }
    return make_error(ErrorCode::Invalid, "--{} '{}': at most three dimensions", what, text);
}

struct ScalarType {
    const char* name;
    unsigned bytes;
    bool is_float;
    bool is_signed;
};
constexpr ScalarType kScalars[] = {{"u8", 1, false, false},  {"u16", 2, false, false}, {"u32", 4, false, false},
                                   {"u64", 8, false, false}, {"s8", 1, false, true},   {"s16", 2, false, true},
                                   {"s32", 4, false, true},  {"s64", 8, false, true},  {"f32", 4, true, true},
                                   {"f64", 8, true, true}};

const ScalarType* scalar_type(std::string_view name) {
    for (const ScalarType& t : kScalars)
        if (name == t.name) return &t;
    return nullptr;
}

// VALUE as TYPE's little-endian bytes.
Expected<std::vector<uint8_t>> scalar_bytes(const ScalarType& t, const std::string& value) {
    std::vector<uint8_t> out(t.bytes);
    if (t.is_float) {
        char* end = nullptr;
        double v = std::strtod(value.c_str(), &end);
        if (value.empty() || *end != '\0') return make_error(ErrorCode::Invalid, "'{}' is not a number", value);
        if (t.bytes == 4) {
            float f = static_cast<float>(v);
            std::memcpy(out.data(), &f, 4);
        } else {
            std::memcpy(out.data(), &v, 8);
        }
        return out;
    }
    bool negative = !value.empty() && value[0] == '-';
    auto magnitude = parse_u64_any_base(negative ? value.substr(1) : value);
    if (!magnitude) return make_error(ErrorCode::Invalid, "'{}' is not an integer", value);
    uint64_t bits = negative ? 0 - *magnitude : *magnitude;
    std::memcpy(out.data(), &bits, t.bytes);
    return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> parts;
    size_t start = 0;
    for (;;) {
        size_t p = s.find(sep, start);
        parts.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
        if (p == std::string::npos) return parts;
        start = p + 1;
    }
}

// One --arg: either scalar bytes for the parameter block, or a device buffer whose address is passed.
struct Arg {
    std::string spec;
    std::vector<uint8_t> bytes; // scalar value, or the buffer's initial contents
    bool buffer = false;
};

Expected<Arg> parse_arg(const std::string& spec) {
    Arg a;
    a.spec = spec;
    std::vector<std::string> p = split(spec, ':');
    auto bad = [&](const char* why) {
        return make_error(ErrorCode::Invalid, "--arg '{}': {} (see d4r ptx run --help)", spec, why);
    };
    if (p.size() < 2) return bad("expected TYPE:VALUE, buf:BYTES, file:PATH, iota:TYPE:COUNT or fill:TYPE:COUNT:VALUE");
    if (p[0] == "buf") {
        auto n = parse_u64(p[1]);
        if (p.size() != 2 || !n || *n > (1ull << 32)) return bad("buf takes a byte count up to 4 GiB");
        a.buffer = true;
        a.bytes.assign(*n, 0);
        return a;
    }
    if (p[0] == "file") {
        std::string path = spec.substr(5);
        auto data = read_file(path, 1ull << 32);
        if (!data) return std::move(data).error();
        a.buffer = true;
        a.bytes = std::move(*data);
        return a;
    }
    if (p[0] == "iota" || p[0] == "fill") {
        bool fill = p[0] == "fill";
        if (p.size() != (fill ? 4u : 3u)) return bad(fill ? "fill takes TYPE:COUNT:VALUE" : "iota takes TYPE:COUNT");
        const ScalarType* t = scalar_type(p[1]);
        auto n = parse_u64(p[2]);
        if (!t || !n || *n > (1ull << 28)) return bad("unknown element type or bad count");
        a.buffer = true;
        for (uint64_t i = 0; i < *n; ++i) {
            std::vector<uint8_t> v = D4R_TRY(scalar_bytes(*t, fill ? p[3] : std::to_string(i)));
            a.bytes.insert(a.bytes.end(), v.begin(), v.end());
        }
        return a;
    }
    const ScalarType* t = scalar_type(p[0]);
    if (!t || p.size() != 2) return bad("unknown argument kind");
    a.bytes = D4R_TRY_CTX(scalar_bytes(*t, p[1]), "--arg '{}'", spec);
    return a;
}

std::string format_element(const uint8_t* p, const ScalarType& t) {
    uint64_t bits = 0;
    std::memcpy(&bits, p, t.bytes);
    if (t.is_float) {
        if (t.bytes == 4) {
            float f;
            std::memcpy(&f, p, 4);
            return fmt::format("{}", f);
        }
        double d;
        std::memcpy(&d, p, 8);
        return fmt::format("{}", d);
    }
    if (t.is_signed) {
        int shift = 64 - 8 * static_cast<int>(t.bytes);
        return fmt::format("{}", static_cast<int64_t>(bits << shift) >> shift);
    }
    return fmt::format("{}", bits);
}

// The PTX text of the module defining KERNEL in FILE (PTX text or any container d4r reads).
Expected<std::string> module_text(const std::string& file, const std::string& kernel) {
    ptx::PtxFile f = D4R_TRY(ptx::index_ptx_file(file));
    if (f.modules.empty()) return make_error(ErrorCode::Invalid, "{}: no PTX found", file);
    for (const ptx::IndexedModule& m : f.modules)
        if (m.index.find_entry(kernel)) return std::string(m.text());
    return make_error(ErrorCode::NotFound, "{}: no kernel named '{}'", file, kernel);
}

int run(const RunOptions& o) {
    auto text = module_text(o.file, o.kernel);
    if (!text) return report_error(text.error());
    std::string name = fs::path(o.file).filename().string();
    auto module = Module::load(*text, name);
    if (!module) return report_error(module.error());
    auto kernel = (*module)->kernel(o.kernel);
    if (!kernel) return report_error(kernel.error());
    const ptx::EntryInfo& info = (*kernel)->info();
    auto grid = parse_dim3(o.grid, "grid");
    if (!grid) return report_error(grid.error());
    auto block = parse_dim3(o.block, "block");
    if (!block) return report_error(block.error());
    const ScalarType* print_type = scalar_type(o.print_type);
    if (!print_type)
        return report_error(make_error(ErrorCode::Invalid, "--print '{}': not an element type", o.print_type));
    if (o.args.size() != info.params.size())
        return report_error(make_error(ErrorCode::Invalid, "kernel '{}' takes {} parameters, {} --arg given", o.kernel,
                                       info.params.size(), o.args.size()));

    Device dev;
    std::vector<uint8_t> params(info.param_block_size, 0);
    std::vector<Arg> args;
    std::vector<DevicePtr> buffers(o.args.size(), 0);
    for (size_t i = 0; i < o.args.size(); ++i) {
        auto a = parse_arg(o.args[i]);
        if (!a) return report_error(a.error());
        const ptx::ParamInfo& p = info.params[i];
        if (a->buffer) {
            if (p.size != 8)
                return report_error(make_error(ErrorCode::Invalid,
                                               "--arg '{}': parameter {} ('{}', {}) is not a pointer", a->spec, i,
                                               p.name, p.describe()));
            auto ptr = dev.alloc(a->bytes.size());
            if (!ptr) return report_error(ptr.error());
            if (auto s = dev.copy_to_device(*ptr, a->bytes.data(), a->bytes.size()); !s) return report_error(s.error());
            buffers[i] = *ptr;
            std::memcpy(params.data() + p.offset, &*ptr, 8);
        } else {
            if (a->bytes.size() != p.size)
                return report_error(make_error(ErrorCode::Invalid, "--arg '{}': parameter {} ('{}', {}) takes {} bytes",
                                               a->spec, i, p.name, p.describe(), p.size));
            std::memcpy(params.data() + p.offset, a->bytes.data(), a->bytes.size());
        }
        args.push_back(std::move(*a));
    }

    LaunchConfig cfg;
    cfg.grid = *grid;
    cfg.block = *block;
    cfg.dynamic_shared_bytes = o.shared;
    cfg.worker_threads = o.workers;
    cfg.instruction_budget = o.budget;
    if ((*kernel)->module().uses_device_heap()) {
        // malloc/free in the kernel: CUDA's default heap of 8 MiB.
        constexpr uint64_t kHeapBytes = 8u << 20;
        auto heap = dev.alloc(kHeapBytes);
        if (!heap) return report_error(heap.error());
        cfg.heap = std::make_shared<DeviceHeap>(*heap, kHeapBytes);
    }
    auto result = launch(dev, **kernel, cfg, params);
    if (!result) {
        fmt::print(stderr, "d4r: error: {}\n", result.error().text());
        return result.error().code() == ErrorCode::Unsupported ? kExitUsage : kExitFailed;
    }
    fmt::print("ran {} on {} x {} threads: {} warp instructions, {} lane instructions\n", o.kernel, grid->count(),
               block->count(), result->warp_instructions, result->lane_instructions);
    if (!o.out_dir.empty()) {
        std::error_code ec;
        fs::create_directories(o.out_dir, ec);
    }
    for (size_t i = 0; i < args.size(); ++i) {
        if (!args[i].buffer) continue;
        std::vector<uint8_t> data(args[i].bytes.size());
        if (auto s = dev.copy_to_host(data.data(), buffers[i], data.size()); !s) return report_error(s.error());
        if (!o.out_dir.empty()) {
            fs::path path = fs::path(o.out_dir) / fmt::format("arg{}.bin", i);
            if (auto s = write_file_atomic(path, data); !s) return report_error(s.error());
            fmt::print("arg {} ({}): {} bytes -> {}\n", i, info.params[i].name, data.size(), path.string());
            continue;
        }
        size_t n = std::min(o.count, data.size() / print_type->bytes);
        std::string line = fmt::format("arg {} ({}, {} bytes):", i, info.params[i].name, data.size());
        for (size_t k = 0; k < n; ++k) line += " " + format_element(data.data() + k * print_type->bytes, *print_type);
        if (n < data.size() / print_type->bytes) line += " ...";
        fmt::print("{}\n", line);
    }
    return kExitOk;
}

} // namespace

void register_ptx_run_verb(CLI::App& ptx) {
    auto o = std::make_shared<RunOptions>();
    CLI::App* sub = ptx.add_subcommand(
        "run", "Run a kernel on ptxsim, d4r's CPU device, and print its output buffers.\n"
               "Arguments are given in parameter order with --arg:\n"
               "  TYPE:VALUE              a scalar (TYPE: u8 u16 u32 u64 s8 s16 s32 s64 f32 f64), e.g. u32:1024\n"
               "  buf:BYTES               a zero-filled device buffer (its address is passed)\n"
               "  file:PATH               a device buffer holding the bytes of PATH\n"
               "  iota:TYPE:COUNT         a buffer of COUNT elements 0, 1, 2, ...\n"
               "  fill:TYPE:COUNT:VALUE   a buffer of COUNT elements equal to VALUE\n"
               "After the launch every buffer is printed (the first --count elements as --print) or written to\n"
               "--out DIR/argN.bin.");
    sub->footer("Exit status: 0 the kernel ran, 1 it faulted or ran past --budget (the message names block, thread,\n"
                "address and PTX line), 2 bad usage or a module that does not load. docs/ptxsim.md describes ptxsim.");
    sub->add_option("file", o->file, "PTX file, or a fatbin / ELF / PE file holding PTX")->required();
    sub->add_option("kernel", o->kernel, "kernel (.entry) name")->required();
    sub->add_option("--grid", o->grid, "grid size X[,Y[,Z]] (default 1)");
    sub->add_option("--block", o->block, "block size X[,Y[,Z]] (default 1)");
    sub->add_option("--arg", o->args, "one kernel argument, in parameter order (see above); repeat per parameter");
    sub->add_option("--shared", o->shared, "dynamic shared memory bytes (default 0)");
    sub->add_option("--workers", o->workers, "worker threads (default: every core)");
    sub->add_option("--budget", o->budget, "stop after this many warp instructions (default: unlimited)");
    sub->add_option("--out", o->out_dir, "write each buffer to DIR/argN.bin instead of printing it");
    sub->add_option("--print", o->print_type, "element type used to print buffers (default u32)");
    sub->add_option("--count", o->count, "elements printed per buffer (default 16)");
    set_action(sub, [o] { return run(*o); });
}

} // namespace d4r::cli
