// The round trip through LLVM's NVPTX back end (see nvptx_module.h).
#include "jit/nvptx/nvptx_module.h"

#include <dlfcn.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "jit/ir_builder.h"
#include "jit/lower.h"
#include "ptx/immediate.h"
#include "ptx/module_index.h"
#include "ptx/parser.h"
#include "ptx/types.h"

namespace d4r::jit {

namespace {

constexpr const char* kTriple = "nvptx64-nvidia-cuda";
constexpr const char* kPipeline = "default<O2>"; // the host JIT's (kernel_compiler.cpp)

std::string take_message(const LlvmLibrary& l, char* message) {
    std::string text = message ? message : "";
    if (message) l.LLVMDisposeMessage(message);
    return text;
}

// The initial bytes of module variable V (SIZE bytes): its initializer's values, little-endian, zeros after them.
Expected<std::string> initial_bytes(const ptx::ast::Variable& v, uint64_t size) {
    std::string bytes(size, '\0');
    if (!v.has_init) return bytes;
    const ptx::Type t = ptx::parse_type(v.type.type.substr(1));
    const unsigned element = ptx::ptx_type_size(v.type.type);
    if (element == 0 || t == ptx::Type::None)
        return make_error(ErrorCode::Unsupported, "line {}: initializer of type {}", v.line, v.type.type);
    if (v.init.size() * element > size)
        return make_error(ErrorCode::Invalid, "line {}: '{}' has more initial values than elements", v.line, v.name);
    for (size_t i = 0; i < v.init.size(); ++i) {
        const ptx::ast::Initializer& item = v.init[i];
        uint64_t bits = 0;
        if (item.kind == ptx::ast::Initializer::Kind::Symbol) {
            return make_error(ErrorCode::Unsupported,
                              "line {}: '{}' is initialised with the address of '{}' (no NVPTX lowering yet)", v.line,
                              v.name, item.symbol);
        } else if (item.kind == ptx::ast::Initializer::Kind::Integer) {
            if (t == ptx::Type::F32)
                bits = std::bit_cast<uint32_t>(static_cast<float>(static_cast<int64_t>(item.integer)));
            else if (t == ptx::Type::F64)
                bits = std::bit_cast<uint64_t>(static_cast<double>(static_cast<int64_t>(item.integer)));
            else
                bits = item.integer;
        } else {
            ptx::ast::Operand o;
            o.kind = ptx::ast::OperandKind::Float;
            o.real = item.real;
            o.float_bits = item.float_bits;
            o.raw_bits = item.raw_bits;
            auto b = ptx::immediate_bits(o, t);
            if (!b)
                return make_error(ErrorCode::Unsupported, "line {}: initializer of '{}': {}", v.line, v.name,
                                  b.error().message());
            bits = *b;
        }
        std::memcpy(bytes.data() + i * element, &bits, std::min<unsigned>(element, 8));
    }
    return bytes;
}

// The module scope's .global, .const and .shared variables as LLVM globals of their address spaces, each an i8
// array of its size and alignment (initialised as written; .shared ones undefined, an extern one external).
Status make_globals(const LlvmLibrary& l, IrBuilder& ir, const ptx::ast::Module& module, ptxsim::KernelLayout& layout,
                    NvptxObjects& objects) {
    for (const ptx::ast::Variable& v : module.variables) {
        ptx::StateSpace space;
        unsigned as;
        if (v.space == ".global") {
            space = ptx::StateSpace::Global;
            as = 1;
        } else if (v.space == ".const") {
            space = ptx::StateSpace::Const;
            as = 4;
        } else if (v.space == ".shared") {
            space = ptx::StateSpace::Shared;
            as = 3;
        } else {
            return make_error(ErrorCode::Unsupported, "line {}: module variable '{}' in {}", v.line, v.name, v.space);
        }
        const unsigned element = ptx::ptx_type_size(v.type.type);
        if (element == 0)
            return make_error(ErrorCode::Unsupported, "line {}: variable '{}' of type {}", v.line, v.name, v.type.type);
        uint64_t count = v.type.vector;
        bool unsized = false;
        for (uint64_t d : v.dims) {
            unsized = unsized || d == 0;
            count *= d;
        }
        if (unsized && v.has_init && v.dims.size() == 1) count = v.init.size() * v.type.vector;
        const uint64_t size = count * element;
        if (size > (1ull << 30))
            return make_error(ErrorCode::Unsupported, "line {}: '{}' is too large", v.line, v.name);
        const std::string name(v.name);
        if (std::any_of(v.init.begin(), v.init.end(),
                        [](const ptx::ast::Initializer& i) { return i.kind == ptx::ast::Initializer::Kind::Symbol; })) {
            // A table of device functions' addresses (an indirect call's targets): an array of pointers.
            std::vector<LLVMValueRef> targets;
            for (const ptx::ast::Initializer& i : v.init) {
                auto f = objects.functions.find(i.symbol);
                if (i.kind != ptx::ast::Initializer::Kind::Symbol || f == objects.functions.end() || i.offset != 0)
                    return make_error(ErrorCode::Unsupported,
                                      "line {}: '{}' is initialised with other than device functions' addresses "
                                      "(no NVPTX lowering)",
                                      v.line, v.name);
                targets.push_back(f->second);
            }
            if (element != 8 || targets.size() * 8 != size || space == ptx::StateSpace::Shared)
                return make_error(ErrorCode::Unsupported, "line {}: '{}': a table of addresses of this shape", v.line,
                                  v.name);
            LLVMTypeRef table = l.LLVMArrayType(ir.ptr, static_cast<unsigned>(targets.size()));
            LLVMValueRef global = l.LLVMAddGlobalInAddressSpace(ir.module(), table, name.c_str(), as);
            l.LLVMSetInitializer(global,
                                 l.LLVMConstArray(ir.ptr, targets.data(), static_cast<unsigned>(targets.size())));
            l.LLVMSetLinkage(global, abi::D4R_LLVMExternalLinkage);
            if (space == ptx::StateSpace::Const) l.LLVMSetGlobalConstant(global, 1);
            l.LLVMSetAlignment(global, static_cast<unsigned>(std::max<uint64_t>(v.type.align, 8)));
            layout.module_variables[name] = ptxsim::VariablePlace{space, objects.globals.size(), size};
            objects.globals.push_back(global);
            continue;
        }
        LLVMTypeRef type = l.LLVMArrayType(ir.i8, static_cast<unsigned>(size));
        LLVMValueRef global = l.LLVMAddGlobalInAddressSpace(ir.module(), type, name.c_str(), as);
        if (space == ptx::StateSpace::Shared) {
            if (v.is_extern || size == 0) {
                l.LLVMSetLinkage(global, abi::D4R_LLVMExternalLinkage);
            } else {
                l.LLVMSetInitializer(global, ir.undef(type));
                l.LLVMSetLinkage(global, abi::D4R_LLVMInternalLinkage);
            }
        } else {
            if (v.is_extern)
                return make_error(ErrorCode::Unsupported, "line {}: extern {} variable '{}'", v.line, v.space, v.name);
            std::string bytes = D4R_TRY(initial_bytes(v, size));
            l.LLVMSetInitializer(
                global, l.LLVMConstStringInContext(ir.context(), bytes.data(), static_cast<unsigned>(bytes.size()), 1));
            l.LLVMSetLinkage(global, abi::D4R_LLVMExternalLinkage); // visible: the host may look it up
            if (space == ptx::StateSpace::Const) l.LLVMSetGlobalConstant(global, 1);
        }
        l.LLVMSetAlignment(global, static_cast<unsigned>(v.type.align ? v.type.align : element));
        layout.module_variables[name] = ptxsim::VariablePlace{space, objects.globals.size(), size};
        objects.globals.push_back(global);
    }
    return ok_status();
}

// Optimises MODULE and prints it as PTX, in a child process (an abort in LLVM ends only the child). The parent reads
// the child's stdout (the PTX) and stderr (LLVM's messages) together, so neither pipe fills while the other waits.
Expected<std::string> generate_in_child(const LlvmLibrary& l, abi::LLVMModuleRef module,
                                        abi::LLVMTargetMachineRef machine) {
    int out[2], err[2];
    if (pipe(out) != 0) return make_error(ErrorCode::Internal, "pipe: {}", std::strerror(errno));
    if (pipe(err) != 0) {
        close(out[0]);
        close(out[1]);
        return make_error(ErrorCode::Internal, "pipe: {}", std::strerror(errno));
    }
    const pid_t child = fork();
    if (child < 0) {
        for (int fd : {out[0], out[1], err[0], err[1]}) close(fd);
        return make_error(ErrorCode::Internal, "fork: {}", std::strerror(errno));
    }
    if (child == 0) {
        close(out[0]);
        close(err[0]);
        dup2(err[1], 2);
        int status = 0;
        abi::LLVMPassBuilderOptionsRef options = l.LLVMCreatePassBuilderOptions();
        std::string e = take_error_message(l, l.LLVMRunPasses(module, kPipeline, machine, options));
        char* message = nullptr;
        abi::LLVMMemoryBufferRef text = nullptr;
        if (!e.empty()) {
            (void)!write(2, e.data(), e.size());
            status = 3;
        } else if (l.LLVMTargetMachineEmitToMemoryBuffer(machine, module, abi::D4R_LLVMAssemblyFile, &message, &text) ||
                   !text) {
            const std::string m = take_message(l, message);
            (void)!write(2, m.data(), m.size());
            status = 4;
        } else {
            const char* p = l.LLVMGetBufferStart(text);
            size_t left = l.LLVMGetBufferSize(text);
            while (left > 0) {
                const ssize_t n = write(out[1], p, left);
                if (n <= 0) {
                    if (n < 0 && errno == EINTR) continue;
                    status = 5;
                    break;
                }
                p += n;
                left -= static_cast<size_t>(n);
            }
        }
        _exit(status);
    }
    close(out[1]);
    close(err[1]);
    std::string ptx, messages;
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    int open_fds = 2;
    char buffer[65536];
    while (open_fds > 0) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int k = 0; k < 2; ++k) {
            if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t n = read(fds[k].fd, buffer, sizeof buffer);
            if (n > 0) {
                (k == 0 ? ptx : messages).append(buffer, static_cast<size_t>(n));
            } else if (n == 0 || errno != EINTR) {
                close(fds[k].fd);
                fds[k].fd = -1;
                --open_fds;
            }
        }
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    while (!messages.empty() && (messages.back() == '\n' || messages.back() == ' ')) messages.pop_back();
    if (WIFSIGNALED(status))
        return make_error(ErrorCode::Internal, "LLVM's NVPTX back end stopped with signal {}: {}", WTERMSIG(status),
                          messages.empty() ? "no message" : messages);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return make_error(ErrorCode::Internal, "LLVM's NVPTX back end failed (status {}): {}", WEXITSTATUS(status),
                          messages.empty() ? "no message" : messages);
    return ptx;
}

// The output's `.version` raised to the input's where that is higher: instructions passed through as inline PTX may
// need it (FP8 mma with f16 accumulators: PTX ISA 8.7), and LLVM 19 prints at most the 8.5 it knows (it ignores a
// +ptx feature past that). A later version accepts every earlier version's text.
void raise_version(std::string& ptx, std::pair<uint32_t, uint32_t> input) {
    const size_t at = ptx.find("\n.version ");
    if (at == std::string::npos) return;
    const size_t begin = at + 10, end = ptx.find('\n', begin);
    unsigned major = 0, minor = 0;
    if (std::sscanf(ptx.substr(begin, end - begin).c_str(), "%u.%u", &major, &minor) != 2) return;
    if (std::pair<uint32_t, uint32_t>{major, minor} >= input) return;
    ptx.replace(begin, end - begin, fmt::format("{}.{}", input.first, input.second));
}

} // namespace

Status init_nvptx_target(const LlvmLibrary& library) {
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    static constexpr const char* kInit[] = {"LLVMInitializeNVPTXTargetInfo", "LLVMInitializeNVPTXTarget",
                                            "LLVMInitializeNVPTXTargetMC", "LLVMInitializeNVPTXAsmPrinter"};
    for (const char* name : kInit) {
        auto fn = library.handle ? reinterpret_cast<void (*)()>(dlsym(library.handle, name)) : nullptr;
        if (!fn) return make_error(ErrorCode::Unsupported, "{} has no NVPTX back end (no {})", library.path, name);
        fn(); // LLVM's initialisers may run more than once
    }
    return ok_status();
}

Expected<std::string> round_trip_ptx(const LlvmLibrary& l, std::string_view text, std::string_view name,
                                     const NvptxOptions& options) {
    D4R_TRY(init_nvptx_target(l));
    auto index = ptx::index_module(text);
    if (!index) return make_error(index.error().code(), "{}: {}", name, index.error().message());
    ptx::ast::Module module = D4R_TRY(ptx::parse_module(text, name));
    const std::string target = index->sm();

    abi::LLVMTargetRef llvm_target = nullptr;
    char* message = nullptr;
    if (l.LLVMGetTargetFromTriple(kTriple, &llvm_target, &message))
        return make_error(ErrorCode::Unsupported, "no NVPTX target: {}", take_message(l, message));
    abi::LLVMTargetMachineRef machine = l.LLVMCreateTargetMachine(
        llvm_target, kTriple, options.cpu.c_str(), options.features.c_str(), abi::D4R_LLVMCodeGenLevelDefault,
        abi::D4R_LLVMRelocDefault, abi::D4R_LLVMCodeModelDefault);
    if (!machine) return make_error(ErrorCode::Internal, "LLVM made no NVPTX target machine for {}", options.cpu);
    abi::LLVMContextRef context = l.LLVMContextCreate();
    abi::LLVMModuleRef llvm_module = l.LLVMModuleCreateWithNameInContext(std::string(name).c_str(), context);
    struct Disposer {
        const LlvmLibrary& l;
        abi::LLVMTargetMachineRef machine;
        abi::LLVMContextRef context;
        abi::LLVMModuleRef module;
        ~Disposer() {
            l.LLVMDisposeModule(module);
            l.LLVMContextDispose(context);
            l.LLVMDisposeTargetMachine(machine);
        }
    } disposer{l, machine, context, llvm_module};
    l.LLVMSetTarget(llvm_module, kTriple);
    abi::LLVMTargetDataRef data_layout = l.LLVMCreateTargetDataLayout(machine);
    l.LLVMSetModuleDataLayout(llvm_module, data_layout);
    l.LLVMDisposeTargetData(data_layout);

    std::string refusals;
    {
        IrBuilder ir(l, context, llvm_module);
        ptxsim::KernelLayout layout;
        NvptxObjects objects;
        objects.inline_ptx = options.inline_ptx;
        // The device functions first (calls and tables of addresses name them): `void NAME(ptr, ...)`, one pointer
        // per return and value parameter.
        for (const ptx::ast::Function& fn : module.functions) {
            if (fn.is_entry || !fn.defined) continue;
            std::vector<LLVMTypeRef> params(fn.returns.size() + fn.params.size(), ir.ptr);
            const std::string f(fn.name);
            LLVMValueRef declared = l.LLVMAddFunction(
                llvm_module, f.c_str(),
                l.LLVMFunctionType(ir.void_type, params.data(), static_cast<unsigned>(params.size()), 0));
            l.LLVMSetLinkage(declared, abi::D4R_LLVMInternalLinkage);
            objects.functions[f] = declared;
        }
        if (Status s = make_globals(l, ir, module, layout, objects); !s.ok())
            return make_error(s.error().code(), "{}: {}", name, s.error().message());
        for (size_t f = 0; f < module.functions.size(); ++f) {
            const ptx::ast::Function& fn = module.functions[f];
            if (!fn.defined) continue;
            const ptx::EntryInfo* info = fn.is_entry ? index->find_entry(fn.name) : nullptr;
            if (fn.is_entry && !info)
                return make_error(ErrorCode::Internal, "{}: entry '{}' is not in the module's index", name, fn.name);
            ptxsim::KernelSource source;
            source.module = &module;
            source.function = static_cast<uint32_t>(f);
            source.info = info;
            source.layout = &layout;
            source.target = target;
            source.module_name = name;
            source.module_text = text;
            const std::string kernel(fn.name);
            auto lowered = lower_kernel_nvptx(ir, source, kernel.c_str(), objects);
            if (!lowered)
                refusals += fmt::format("{}{} '{}': {}", refusals.empty() ? "" : "\n",
                                        fn.is_entry ? "kernel" : "function", kernel, lowered.error().message());
        }
    }
    if (!refusals.empty()) return make_error(ErrorCode::Unsupported, "{}: {}", name, refusals);
    if (l.LLVMVerifyModule(llvm_module, abi::D4R_LLVMReturnStatusAction, &message)) {
        const std::string m = take_message(l, message);
        return make_error(ErrorCode::Internal, "{}: the NVPTX lowering built invalid IR: {}", name, m);
    }
    (void)take_message(l, message);
    auto ptx = generate_in_child(l, llvm_module, machine);
    if (!ptx) return make_error(ptx.error().code(), "{}: {}", name, ptx.error().message());
    if (index->version) raise_version(*ptx, *index->version);
    return ptx;
}

} // namespace d4r::jit
