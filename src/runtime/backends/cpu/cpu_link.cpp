// cpu backend: the JIT linker (cuLinkCreate / AddData / AddFile / Complete / Destroy).
//
// Promise: PTX inputs (given as text, or as a fatbin holding PTX) are joined into one PTX module, which
// cuLinkComplete hands out as the "linked image": NUL-terminated PTX text that cuModuleLoadData and
// cuLibraryLoadData accept. Calls between inputs resolve because ptxsim resolves a function's
// declaration (`.extern .func f(...);`) to its definition anywhere in the module. Only the first input's
// .version/.target/.address_size header is kept (with the highest .version of all inputs). Inputs that
// are machine code (cubin, relocatable object, library) or NVVM IR are refused: ptxsim runs PTX only.
// Logs go where the options of cuLinkCreate (and of each cuLinkAdd*) say, as the driver writes them.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/ranges.h>

#include "core/log.h"
#include "runtime/backends/cpu/cpu_image.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

using LinkInput = NamedPtx;

struct LinkState {
    Context* ctx = nullptr;
    unsigned n = 0;
    CUjit_option* options = nullptr; // the caller's arrays: valid for the state's life, as the driver requires
    void** values = nullptr;
    JitLogs logs;
    std::vector<LinkInput> inputs;
    std::string image; // cuLinkComplete's output (valid until cuLinkDestroy)
    double seconds = 0;
};

struct Links final : StatePart {
    static constexpr PartSlot kSlot = PartSlot::Links;
    std::mutex mutex;
    std::unordered_map<void*, std::shared_ptr<LinkState>> links;
};

Links& links() { return state().part<Links>(); }

std::shared_ptr<LinkState> find_link(CUlinkState h) {
    std::lock_guard lock(links().mutex);
    auto it = links().links.find(h);
    return it == links().links.end() ? nullptr : it->second;
}

void write_error(LinkState& st, const std::string& text) {
    write_log(st.logs.error_buffer, st.logs.error_size, st.logs.error_size_index, st.values, text);
}

void write_info(LinkState& st, const std::string& text) {
    write_log(st.logs.info_buffer, st.logs.info_size, st.logs.info_size_index, st.values, text);
}

// Per-call options of cuLinkAdd*: their logs, if any, get the same text as the state's.
void write_call_logs(unsigned n, CUjit_option* options, void** values, const std::string& error) {
    JitLogs logs;
    if (n == 0 || parse_jit_options(n, options, values, logs)) return;
    write_log(logs.error_buffer, logs.error_size, logs.error_size_index, values, error);
}

CUresult cu_link_create(unsigned int n, CUjit_option* options, void** values, CUlinkState* out) {
    if (out) *out = nullptr;
    if (CUresult r = check_init()) return r;
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    D4R_CPU_REFUSE_IF(!out, CUDA_ERROR_INVALID_VALUE);
    auto st = std::make_shared<LinkState>();
    if (CUresult r = parse_jit_options(n, options, values, st->logs)) {
        log::debug("cpu backend: cuLinkCreate: {} options without option or value arrays", n);
        return r;
    }
    for (unsigned i = 0; i < n; ++i)
        if (options[i] == CU_JIT_WALL_TIME) st->logs.wall_time = static_cast<float*>(values[i]);
    st->ctx = ctx.get();
    st->n = n;
    st->options = options;
    st->values = values;
    std::lock_guard lock(links().mutex);
    links().links[st.get()] = st;
    *out = reinterpret_cast<CUlinkState>(st.get());
    return CUDA_SUCCESS;
}

// CUDA's device runtime library (libcudadevrt.a: an ar archive of cuda_device_runtime.o), which programs
// that launch kernels from kernels link. It holds machine code only; ptxsim implements what it provides
// (cudaGetParameterBuffer*, cudaLaunchDevice*: src/ptxsim/ops_device_launch.cpp).
bool is_device_runtime_library(const void* data, size_t size) {
    const std::string_view bytes(static_cast<const char*>(data), size);
    return bytes.starts_with("!<arch>\n") && bytes.find("cuda_device_runtime") != std::string_view::npos;
}

// Adds the input (DATA, SIZE bytes) of TYPE to ST.
CUresult add_input(LinkState& st, CUjitInputType type, const void* data, size_t size, std::string name) {
    auto start = std::chrono::steady_clock::now();
    if (name.empty()) name = fmt::format("input{}", st.inputs.size());
    std::string text, error;
    switch (static_cast<int>(type)) {
    case CU_JIT_INPUT_PTX: {
        const char* p = static_cast<const char*>(data);
        text.assign(p, strnlen(p, size));
        break;
    }
    case CU_JIT_INPUT_FATBINARY:
        if (CUresult r = find_ptx_text(data, size, name, text, error)) {
            write_error(st, error);
            log::debug("cpu backend: cuLinkAddData: {}", error);
            return r;
        }
        break;
    case CU_JIT_INPUT_LIBRARY:
        if (is_device_runtime_library(data, size)) {
            write_info(st, fmt::format("{}: CUDA's device runtime; the cpu backend provides kernel launches from "
                                       "kernels itself, so nothing of it is linked\n",
                                       name));
            if (log::once("cpu-link-cudadevrt"))
                log::info("cpu backend: cuLinkAdd*: {} is CUDA's device runtime (machine code); ptxsim implements "
                          "device-side launches itself, so it is not linked",
                          name);
            return CUDA_SUCCESS;
        }
        [[fallthrough]];
    case CU_JIT_INPUT_CUBIN:
    case CU_JIT_INPUT_OBJECT:
        error =
            fmt::format("{}: the cpu backend links PTX only; a {} holds machine code (SASS) ptxsim cannot run", name,
                        type == CU_JIT_INPUT_CUBIN    ? "cubin"
                        : type == CU_JIT_INPUT_OBJECT ? "relocatable object"
                                                      : "library");
        write_error(st, error);
        return refuse(CUDA_ERROR_NO_BINARY_FOR_GPU, "cpu backend: cuLinkAddData: {}", error);
    case CU_JIT_INPUT_NVVM:
        error = fmt::format("{}: NVVM IR (link-time optimisation) is not supported by the cpu backend", name);
        write_error(st, error);
        return refuse(CUDA_ERROR_NOT_SUPPORTED, "cpu backend: cuLinkAddData: {}", error);
    default:
        return refuse(CUDA_ERROR_INVALID_VALUE, "cpu backend: cuLinkAddData: unknown input type {}",
                      static_cast<int>(type));
    }
    // Checked now, as the driver compiles each PTX input when it is added; a module that only fails
    // because it calls functions other inputs define is checked again at cuLinkComplete.
    if (auto loaded = ptxsim::Module::load(text, name); !loaded) {
        bool has_extern = text.find(".extern") != std::string::npos;
        if (!has_extern) {
            error = loaded.error().text();
            write_error(st, error);
            return refuse(CUDA_ERROR_INVALID_PTX, "cpu backend: cuLinkAddData: {}", error);
        }
    }
    st.inputs.push_back({std::move(name), std::move(text)});
    st.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return CUDA_SUCCESS;
}

CUresult cu_link_add_data(CUlinkState h, CUjitInputType type, void* data, size_t size, const char* name, unsigned int n,
                          CUjit_option* options, void** values) {
    if (CUresult r = check_init()) return r;
    auto st = find_link(h);
    D4R_CPU_REFUSE_IF(!st, CUDA_ERROR_INVALID_HANDLE);
    D4R_CPU_REFUSE_IF(!data || size == 0 || (n && (!options || !values)), CUDA_ERROR_INVALID_VALUE);
    CUresult r = add_input(*st, type, data, size, name ? name : "");
    if (r && n) write_call_logs(n, options, values, "see the link state's error log");
    return r;
}

CUresult cu_link_add_file(CUlinkState h, CUjitInputType type, const char* path, unsigned int n, CUjit_option* options,
                          void** values) {
    if (CUresult r = check_init()) return r;
    auto st = find_link(h);
    D4R_CPU_REFUSE_IF(!st, CUDA_ERROR_INVALID_HANDLE);
    D4R_CPU_REFUSE_IF(!path || (n && (!options || !values)), CUDA_ERROR_INVALID_VALUE);
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return refuse(CUDA_ERROR_FILE_NOT_FOUND, "cpu backend: cuLinkAddFile: cannot open {}", path);
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    std::string bytes = buffer.str();
    D4R_CPU_REFUSE_IF(bytes.empty(), CUDA_ERROR_INVALID_VALUE);
    bytes.push_back('\0'); // PTX text as the loaders expect it
    CUresult r = add_input(*st, type, bytes.data(), bytes.size(), path);
    if (r && n) write_call_logs(n, options, values, "see the link state's error log");
    return r;
}

// A line of PTX that is a module header directive (.version, .target, .address_size).
bool is_header_line(std::string_view line, std::string_view* directive = nullptr) {
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string_view::npos) return false;
    line.remove_prefix(i);
    for (std::string_view d : {".version", ".target", ".address_size"}) {
        if (line.starts_with(d) && (line.size() == d.size() || line[d.size()] == ' ' || line[d.size()] == '\t')) {
            if (directive) *directive = d;
            return true;
        }
    }
    return false;
}

} // namespace

std::string join_ptx(const std::vector<NamedPtx>& inputs) {
    std::string version, target, address, body;
    int best = -1;
    for (const LinkInput& in : inputs) {
        body += fmt::format("\n// ---- {} ----\n", in.name);
        std::string_view text = in.ptx;
        while (!text.empty()) {
            size_t eol = text.find('\n');
            std::string_view line = text.substr(0, eol == std::string_view::npos ? text.size() : eol + 1);
            text.remove_prefix(line.size());
            std::string_view d;
            if (!is_header_line(line, &d)) {
                body += line;
                continue;
            }
            std::string trimmed(line.substr(line.find_first_not_of(" \t")));
            while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == '\r')) trimmed.pop_back();
            if (d == ".version") {
                int major = 0, minor = 0;
                if (std::sscanf(trimmed.c_str(), ".version %d.%d", &major, &minor) == 2 && major * 100 + minor > best) {
                    best = major * 100 + minor;
                    version = trimmed;
                }
            } else if (d == ".target" && target.empty()) {
                target = trimmed;
            } else if (d == ".address_size" && address.empty()) {
                address = trimmed;
            }
        }
    }
    std::string out;
    for (const std::string* line : {&version, &target, &address})
        if (!line->empty()) out += *line + "\n";
    return out + body;
}

namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%'; }

// Every `.func` of TEXT: its name, whether it has a body and whether it is declared `.extern`.
struct FuncMention {
    std::string name;
    bool defined = false;
    bool is_extern = false;
};

std::vector<FuncMention> func_mentions(std::string_view text) {
    std::vector<FuncMention> out;
    for (size_t at = text.find(".func"); at != std::string_view::npos; at = text.find(".func", at + 5)) {
        if (at + 5 < text.size() && ident_char(text[at + 5])) continue; // .function..., not the directive
        FuncMention m;
        size_t back = text.find_last_not_of(" \t\r\n", at == 0 ? 0 : at - 1);
        m.is_extern = back != std::string_view::npos && back >= 6 && text.substr(back - 6, 7) == ".extern";
        size_t i = at + 5;
        auto skip_space = [&] {
            while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
        };
        auto skip_parens = [&] {
            if (i < text.size() && text[i] == '(') {
                size_t close = text.find(')', i);
                i = close == std::string_view::npos ? text.size() : close + 1;
            }
        };
        skip_space();
        if (text.substr(i).starts_with(".attribute")) {
            i += 10;
            skip_space();
            skip_parens();
            skip_space();
        }
        skip_parens(); // return parameters
        skip_space();
        size_t start = i;
        while (i < text.size() && ident_char(text[i])) ++i;
        if (i == start) continue;
        m.name = std::string(text.substr(start, i - start));
        skip_space();
        skip_parens(); // parameters
        size_t end = text.find_first_of(";{", i);
        m.defined = end != std::string_view::npos && text[end] == '{';
        out.push_back(std::move(m));
    }
    return out;
}

// Functions declared `.extern .func` by some input and defined by none.
std::vector<std::string> unresolved(const std::vector<LinkInput>& inputs) {
    std::vector<std::string> externs, defined;
    for (const LinkInput& in : inputs)
        for (FuncMention& m : func_mentions(in.ptx))
            (m.defined ? defined : m.is_extern ? externs : defined).push_back(m.name);
    std::vector<std::string> out;
    for (const std::string& name : externs)
        if (!ptxsim::is_builtin_function(name) && std::find(defined.begin(), defined.end(), name) == defined.end() &&
            std::find(out.begin(), out.end(), name) == out.end())
            out.push_back(name);
    return out;
}

CUresult cu_link_complete(CUlinkState h, void** cubin_out, size_t* size_out) {
    if (cubin_out) *cubin_out = nullptr;
    if (size_out) *size_out = 0;
    if (CUresult r = check_init()) return r;
    auto st = find_link(h);
    D4R_CPU_REFUSE_IF(!st, CUDA_ERROR_INVALID_HANDLE);
    D4R_CPU_REFUSE_IF(!cubin_out, CUDA_ERROR_INVALID_VALUE);
    auto start = std::chrono::steady_clock::now();
    if (st->inputs.empty()) {
        write_error(*st, "cuLinkComplete: nothing was added to the link");
        return refuse(CUDA_ERROR_INVALID_VALUE, "cpu backend: cuLinkComplete: no inputs");
    }
    if (auto missing = unresolved(st->inputs); !missing.empty()) {
        std::string text;
        for (const std::string& name : missing) text += fmt::format("error: undefined reference to '{}'\n", name);
        write_error(*st, text);
        return refuse(CUDA_ERROR_INVALID_PTX, "cpu backend: cuLinkComplete: {}", text);
    }
    std::string joined = st->inputs.size() == 1 ? st->inputs[0].ptx : join_ptx(st->inputs);
    auto loaded = ptxsim::Module::load(joined, "linked");
    if (!loaded) {
        write_error(*st, loaded.error().text());
        return refuse(CUDA_ERROR_INVALID_PTX, "cpu backend: cuLinkComplete: {}", loaded.error().text());
    }
    st->image = std::move(joined);
    st->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::string names;
    for (const LinkInput& in : st->inputs) names += (names.empty() ? "" : ", ") + in.name;
    write_info(*st, fmt::format("d4r cpu backend: linked {} PTX input{} ({}) into one PTX module of {} bytes for "
                                "ptxsim (no SASS is generated; kernels: {})",
                                st->inputs.size(), st->inputs.size() == 1 ? "" : "s", names, st->image.size() + 1,
                                fmt::join((*loaded)->kernel_names(), ", ")));
    write_error(*st, "");
    if (st->logs.wall_time) *st->logs.wall_time = static_cast<float>(st->seconds * 1000.0);
    *cubin_out = st->image.data();
    if (size_out) *size_out = st->image.size() + 1;
    return CUDA_SUCCESS;
}

CUresult cu_link_destroy(CUlinkState h) {
    if (CUresult r = check_init()) return r;
    std::lock_guard lock(links().mutex);
    D4R_CPU_REFUSE_IF(!links().links.erase(h), CUDA_ERROR_INVALID_HANDLE);
    return CUDA_SUCCESS;
}

} // namespace

void fill_link(ApiTable& t) {
    t.cuLinkCreate = cu_link_create;
    t.cuLinkCreate_v2 = cu_link_create;
    t.cuLinkAddData = cu_link_add_data;
    t.cuLinkAddData_v2 = cu_link_add_data;
    t.cuLinkAddFile = cu_link_add_file;
    t.cuLinkAddFile_v2 = cu_link_add_file;
    t.cuLinkComplete = cu_link_complete;
    t.cuLinkDestroy = cu_link_destroy;
}

} // namespace d4r::runtime::cpu
