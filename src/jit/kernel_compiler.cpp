// Compiling kernels with ORC's LLJIT, through the compile cache (see kernel_compiler.h).
#include "jit/kernel_compiler.h"

#include <chrono>

#include <fmt/format.h>

#include "core/log.h"
#include "jit/lower.h"
#include "jit/zero_stores.h"
#include "ptx/modifiers.h"

namespace d4r::jit {

namespace {

// LLVM's optimisation pipeline for every kernel (part of the cache key). Not O1, though it was as fast on
// bench_ptxsim's kernels and took 11% less time: LLVM 19's code generation never finished on the O1 output of two
// kernels of warp_lowering_test.cpp (a loop in the DAG combiner).
constexpr const char* kPipeline = "default<O2>";
// For kernels of more than kLightPipelineInstructions as lowered (kernel_compiler.h).
constexpr const char* kLightPipeline = "function(sroa,early-cse,simplifycfg)";

// The instructions of FUNCTION in MODULE.
uint64_t instruction_count(const LlvmLibrary& l, abi::LLVMModuleRef module, const char* function) {
    uint64_t n = 0;
    abi::LLVMValueRef fn = l.LLVMGetNamedFunction(module, function);
    if (!fn) return 0;
    for (abi::LLVMBasicBlockRef b = l.LLVMGetFirstBasicBlock(fn); b; b = l.LLVMGetNextBasicBlock(b))
        for (abi::LLVMValueRef i = l.LLVMGetFirstInstruction(b); i; i = l.LLVMGetNextInstruction(i)) ++n;
    return n;
}

// Whether at least kFastCodegenFloatShare of the instructions of SOURCE's kernel are floating-point arithmetic
// (an instruction on .f16, .f16x2, .bf16, .bf16x2, .f32 or .f64 values other than a move, conversion, comparison,
// selection, load or store: add, fma, ex2, mma, ...).
bool float_arithmetic(const ptxsim::KernelSource& source) {
    const auto& instructions = source.module->functions[source.function].instructions;
    uint64_t arithmetic = 0;
    for (const auto& in : instructions) {
        const ptx::Modifiers m(in.opcode);
        const std::string_view base = m.base();
        if (base == "mov" || base == "cvt" || base == "setp" || base == "selp" || base == "ld" || base == "st" ||
            base == "set" || base == "slct" || base == "testp")
            continue;
        for (std::string_view t : {"f16", "f16x2", "bf16", "bf16x2", "f32", "f64"})
            if (m.has(t)) {
                ++arithmetic;
                break;
            }
    }
    return double(arithmetic) >= kFastCodegenFloatShare * double(instructions.size());
}

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// LLVM's string, disposed; "" for null.
std::string take_message(const LlvmLibrary& l, char* message) {
    std::string text = message ? message : "";
    if (message) l.LLVMDisposeMessage(message);
    return text;
}

} // namespace

Expected<KernelCompiler*> KernelCompiler::instance() {
    static std::mutex mutex;
    // Lives for the process (compiled code points into it): never destroyed, not even at exit.
    static std::shared_ptr<KernelCompiler>* compiler = nullptr;
    static std::string failure;
    std::lock_guard lock(mutex);
    if (compiler) return compiler->get();
    if (!failure.empty()) return make_error(ErrorCode::NotFound, "{}", failure);
    CacheSettings cache;
    if (auto settings = cache_settings(process_environment()))
        cache = *settings;
    else
        log::warn("PTX JIT: no compile cache: {}", settings.error().message());
    auto created = create(cache);
    if (!created) {
        failure = created.error().message();
        return make_error(ErrorCode::NotFound, "{}", failure);
    }
    if (cache.enabled())
        log::debug("PTX JIT: compile cache '{}', at most {} bytes", cache.dir.string(), cache.max_bytes);
    else
        log::debug("PTX JIT: no compile cache");
    compiler = new std::shared_ptr<KernelCompiler>(std::move(*created)); // NOLINT(cppcoreguidelines-owning-memory)
    return compiler->get();
}

Expected<std::shared_ptr<KernelCompiler>> KernelCompiler::create(const CacheSettings& cache,
                                                                 uint64_t fast_codegen_above) {
    const std::vector<std::string> candidates = default_llvm_candidates();
    auto loaded = load_llvm_library(candidates);
    if (!loaded) return std::move(loaded).error();
    const LlvmLibrary& l = **loaded;
    abi::LLVMOrcLLJITRef jit = nullptr;
    std::string e = take_error_message(l, l.LLVMOrcCreateLLJIT(&jit, nullptr));
    if (e.find("Symbols not found") != std::string::npos && make_llvm_library_global(l)) {
        log::info("PTX JIT: {} ({}) looks its runtime up in the process's global symbols ({}): its symbols made "
                  "global",
                  l.path, l.version, e);
        e = take_error_message(l, l.LLVMOrcCreateLLJIT(&jit, nullptr));
    }
    if (!e.empty()) return make_error(ErrorCode::NotFound, "LLVM's LLJIT did not start: {}", e);
    // Code for this CPU, as LLJIT would generate it itself (its code model, relocations and optimisation level).
    Target target;
    target.triple = l.LLVMOrcLLJITGetTripleString(jit);
    target.cpu = take_message(l, l.LLVMGetHostCPUName());
    target.features = take_message(l, l.LLVMGetHostCPUFeatures());
    // LLVM 19's X86 code generation never ends (a DAG combine that undoes itself) on some warp code with AVX-512BW:
    // masks of 32 lanes as i32 bitcast to <32 x i1> selecting between <32 x i32> values, as the FP8 linear of
    // refine-v2 (d4r_nn_linear_fp8) has; at -O0 too. Without BW (the 32-bit mask registers, 16-bit lanes) it compiles
    // in 0.6 s, f32/i32 vectors still 512 bits wide. Clearing it last clears the features that imply it (VBMI, FP16,
    // BF16, BITALG) too. docs/ptx-front-end.md, "The PTX JIT".
    if (target.features.find("+avx512bw") != std::string::npos) target.features += ",-avx512bw";
    abi::LLVMTargetRef llvm_target = nullptr;
    char* message = nullptr;
    if (l.LLVMGetTargetFromTriple(target.triple.c_str(), &llvm_target, &message)) {
        std::string e = take_message(l, message);
        (void)take_error_message(l, l.LLVMOrcDisposeLLJIT(jit));
        return make_error(ErrorCode::NotFound, "LLVM has no target for '{}': {}", target.triple, e);
    }
    auto machine = [&](int level) {
        return l.LLVMCreateTargetMachine(llvm_target, target.triple.c_str(), target.cpu.c_str(),
                                         target.features.c_str(), level, abi::D4R_LLVMRelocDefault,
                                         abi::D4R_LLVMCodeModelJITDefault);
    };
    abi::LLVMTargetMachineRef full = machine(abi::D4R_LLVMCodeGenLevelDefault);
    abi::LLVMTargetMachineRef fast = machine(abi::D4R_LLVMCodeGenLevelNone);
    if (!full || !fast) {
        if (full) l.LLVMDisposeTargetMachine(full);
        if (fast) l.LLVMDisposeTargetMachine(fast);
        (void)take_error_message(l, l.LLVMOrcDisposeLLJIT(jit));
        return make_error(ErrorCode::NotFound, "LLVM made no target machine for '{}' ({})", target.triple, target.cpu);
    }
    std::unique_ptr<KernelCache> kernel_cache = cache.enabled() ? std::make_unique<KernelCache>(cache) : nullptr;
    return std::shared_ptr<KernelCompiler>(new KernelCompiler(l, jit, Machines{full, fast}, std::move(target),
                                                              std::move(kernel_cache), fast_codegen_above));
}

KernelCompiler::KernelCompiler(const LlvmLibrary& llvm, abi::LLVMOrcLLJITRef jit, Machines machines, Target target,
                               std::unique_ptr<KernelCache> cache, uint64_t fast_codegen_above)
    : m_llvm(llvm), m_jit(jit), m_machines(machines), m_target(std::move(target)), m_cache(std::move(cache)),
      m_fast_codegen_above(fast_codegen_above) {}

KernelCompiler::~KernelCompiler() {
    m_llvm.LLVMDisposeTargetMachine(m_machines.full);
    m_llvm.LLVMDisposeTargetMachine(m_machines.fast);
    (void)take_error_message(m_llvm, m_llvm.LLVMOrcDisposeLLJIT(m_jit));
}

KernelCompiler::Counters KernelCompiler::counters() const {
    std::lock_guard lock(m_mutex);
    return m_counters;
}

std::optional<CacheKey> KernelCompiler::key(const ptxsim::KernelSource& source, bool warp) const {
    std::string kernel = kernel_text(source);
    if (kernel.empty()) return std::nullopt;
    return make_key(
        KeyParts{jit_version(), m_llvm.version, m_target.triple, m_target.cpu, m_target.features,
                 fmt::format("{} {} ({} above {} instructions lowered), fast code generation above {} "
                             "instructions of warp code under {} floating-point arithmetic or above {}",
                             warp ? "warp" : "thread", kPipeline, kLightPipeline, kLightPipelineInstructions,
                             m_fast_codegen_above, kFastCodegenFloatShare, kOptimisedCodegenInstructions),
                 std::move(kernel)});
}

Expected<std::shared_ptr<const ptxsim::CompiledKernel>> KernelCompiler::find(const ptxsim::KernelSource& source,
                                                                             bool warp) {
    std::lock_guard lock(m_mutex);
    return find_locked(source, key(source, warp));
}

Expected<std::shared_ptr<const ptxsim::CompiledKernel>>
KernelCompiler::find_locked(const ptxsim::KernelSource& source, const std::optional<CacheKey>& cache_key) {
    if (!cache_key) return std::shared_ptr<const ptxsim::CompiledKernel>();
    if (auto linked = m_linked.find(cache_key->digest); linked != m_linked.end()) {
        ++m_counters.reused;
        return bind(linked->second.record, linked->second.fn, source);
    }
    if (!m_cache) return std::shared_ptr<const ptxsim::CompiledKernel>();
    const auto start = Clock::now();
    std::optional<std::vector<uint8_t>> payload = m_cache->load(*cache_key);
    m_counters.cache_ms += ms_since(start);
    if (!payload) return std::shared_ptr<const ptxsim::CompiledKernel>();
    Expected<KernelRecord> record = parse_kernel_record(*payload);
    if (!record) {
        m_cache->refuse(*cache_key, record.error().message());
        return std::shared_ptr<const ptxsim::CompiledKernel>();
    }
    if (m_symbols.contains(record->symbol)) {
        m_cache->refuse(*cache_key, fmt::format("its symbol '{}' is taken in this process", record->symbol));
        return std::shared_ptr<const ptxsim::CompiledKernel>();
    }
    Expected<ptxsim::CompiledThreadFn> fn = link(*record);
    if (!fn) {
        m_cache->refuse(*cache_key, fn.error().message());
        return std::shared_ptr<const ptxsim::CompiledKernel>();
    }
    ++m_counters.loaded;
    log::debug("PTX JIT: kernel '{}' of {} loaded from the compile cache in {:.1f} ms", source.info->name,
               source.module_name, ms_since(start));
    record->object = {};
    auto bound = bind(*record, *fn, source);
    m_linked[cache_key->digest] = Linked{std::move(*record), *fn};
    return bound;
}

Expected<std::shared_ptr<const ptxsim::CompiledKernel>> KernelCompiler::compile(const ptxsim::KernelSource& source,
                                                                                bool warp) {
    std::lock_guard lock(m_mutex);
    const std::optional<CacheKey> cache_key = key(source, warp);
    std::shared_ptr<const ptxsim::CompiledKernel> found = D4R_TRY(find_locked(source, cache_key));
    if (found) return found;
    const std::string symbol =
        fresh_symbol(cache_key ? "d4r_" + cache_key->digest : fmt::format("d4r_kernel_{}", m_counters.compiled));
    KernelRecord record = D4R_TRY(build(source, warp, symbol));
    const ptxsim::CompiledThreadFn fn = D4R_TRY(link(record));
    ++m_counters.compiled;
    if (cache_key && m_cache) m_cache->store(*cache_key, serialize_kernel_record(record));
    record.object = {};
    auto bound = bind(record, fn, source);
    if (cache_key) m_linked[cache_key->digest] = Linked{std::move(record), fn};
    return bound;
}

std::string KernelCompiler::fresh_symbol(const std::string& name) {
    std::string symbol = name;
    for (unsigned n = 2; m_symbols.contains(symbol); ++n) symbol = fmt::format("{}_{}", name, n);
    return symbol;
}

Expected<KernelRecord> KernelCompiler::build(const ptxsim::KernelSource& source, bool warp, const std::string& symbol) {
    std::string why_not_warp = "warp code not asked for";
    if (warp) {
        auto record = build_as(source, true, symbol);
        if (record) return record;
        why_not_warp = record.error().message(); // Unsupported, or (a bug) invalid IR: per thread then
        // A barrier or collective the analysis cannot prove reached by whole warps may be, for blocks that are
        // whole warps in x (uniformity.h): warp code for those launches (the others run interpreted).
        if (why_not_warp.find("under divergence") != std::string::npos) {
            auto whole = build_as(source, true, symbol, true);
            if (whole) {
                whole->kernel.whole_warps_in_x = true;
                whole->kernel.why_not_warp = why_not_warp;
                return whole;
            }
            why_not_warp += "; for blocks of whole warps in x: " + whole.error().message();
        }
    }
    auto record = build_as(source, false, symbol);
    if (!record) return std::move(record).error();
    record->kernel.why_not_warp = std::move(why_not_warp);
    return record;
}

Expected<KernelRecord> KernelCompiler::build_as(const ptxsim::KernelSource& source, bool warp,
                                                const std::string& symbol, bool whole_warps) {
    const LlvmLibrary& l = m_llvm;
    const auto start = Clock::now();
    abi::LLVMOrcThreadSafeContextRef ts_context = l.LLVMOrcCreateNewThreadSafeContext();
    abi::LLVMContextRef context = l.LLVMOrcThreadSafeContextGetContext(ts_context);
    abi::LLVMModuleRef module = l.LLVMModuleCreateWithNameInContext(symbol.c_str(), context);
    l.LLVMSetTarget(module, m_target.triple.c_str());
    abi::LLVMTargetDataRef layout = l.LLVMCreateTargetDataLayout(m_machines.full);
    l.LLVMSetModuleDataLayout(module, layout);
    l.LLVMDisposeTargetData(layout);
    struct Disposer {
        const LlvmLibrary& l;
        abi::LLVMModuleRef module;
        abi::LLVMOrcThreadSafeContextRef ts_context;
        ~Disposer() {
            l.LLVMDisposeModule(module);
            l.LLVMOrcDisposeThreadSafeContext(ts_context);
        }
    } disposer{l, module, ts_context};
    Expected<LoweredKernel> lowered = [&] {
        IrBuilder ir(l, context, module);
        return lower_kernel(ir, source, symbol.c_str(), warp, whole_warps);
    }();
    if (!lowered) return std::move(lowered).error();
    char* message = nullptr;
    if (l.LLVMVerifyModule(module, abi::D4R_LLVMReturnStatusAction, &message)) {
        std::string text = take_message(l, message);
        return Error(ErrorCode::Internal, "the JIT built invalid IR: " + (text.empty() ? "?" : text));
    }
    (void)take_message(l, message);
    // Before the optimiser, whose promotion of the register slots to SSA values is then cheap for most of them.
    const uint64_t zeros_dropped = drop_unread_zero_stores(l, l.LLVMGetNamedFunction(module, symbol.c_str()));
    const auto lowered_at = Clock::now();
    const char* pipeline =
        instruction_count(l, module, symbol.c_str()) > kLightPipelineInstructions ? kLightPipeline : kPipeline;
    abi::LLVMPassBuilderOptionsRef options = l.LLVMCreatePassBuilderOptions();
    std::string e = take_error_message(l, l.LLVMRunPasses(module, pipeline, nullptr, options));
    l.LLVMDisposePassBuilderOptions(options);
    if (!e.empty()) return Error(ErrorCode::Internal, "LLVM's optimiser failed: " + e);
    const auto optimised_at = Clock::now();
    const uint64_t instructions = instruction_count(l, module, symbol.c_str());
    const bool fast = warp && instructions > m_fast_codegen_above &&
                      (!float_arithmetic(source) || instructions > kOptimisedCodegenInstructions);
    abi::LLVMMemoryBufferRef object = nullptr;
    if (l.LLVMTargetMachineEmitToMemoryBuffer(fast ? m_machines.fast : m_machines.full, module, abi::D4R_LLVMObjectFile,
                                              &message, &object) ||
        !object) {
        std::string text = take_message(l, message);
        return Error(ErrorCode::Internal, "LLVM generated no code: " + (text.empty() ? "?" : text));
    }
    KernelRecord record;
    const auto* bytes = reinterpret_cast<const uint8_t*>(l.LLVMGetBufferStart(object));
    record.object.assign(bytes, bytes + l.LLVMGetBufferSize(object));
    l.LLVMDisposeMemoryBuffer(object);
    record.symbol = symbol;
    record.kernel.warp = warp;
    record.kernel.sites = std::move(lowered->sites);
    record.kernel.state_bytes = lowered->state_bytes;
    record.kernel.collectives = std::move(lowered->collectives);
    record.variables = std::move(lowered->variables);
    const double lowering = std::chrono::duration<double, std::milli>(lowered_at - start).count();
    const double optimiser = std::chrono::duration<double, std::milli>(optimised_at - lowered_at).count();
    const double codegen = ms_since(optimised_at);
    m_counters.lowering_ms += lowering;
    m_counters.optimiser_ms += optimiser;
    m_counters.codegen_ms += codegen;
    if (fast) ++m_counters.fast_codegen;
    log::debug("PTX JIT: kernel '{}' of {} compiled ({}, {} instructions, {} code generation) in {:.1f} ms: lowering "
               "{:.1f}, optimiser {:.1f} ({}; {} register slots' zeros dropped), code generation {:.1f}; {} bytes of "
               "object code",
               source.info->name, source.module_name, warp ? "warp code" : "per thread", instructions,
               fast ? "fast" : "optimising", lowering + optimiser + codegen, lowering, optimiser, pipeline,
               zeros_dropped, codegen, record.object.size());
    return record;
}

Expected<ptxsim::CompiledThreadFn> KernelCompiler::link(const KernelRecord& record) {
    const LlvmLibrary& l = m_llvm;
    const auto start = Clock::now();
    struct Timer {
        double& total;
        Clock::time_point start;
        ~Timer() { total += ms_since(start); }
    } timer{m_counters.link_ms, start};
    abi::LLVMMemoryBufferRef buffer = l.LLVMCreateMemoryBufferWithMemoryRangeCopy(
        reinterpret_cast<const char*>(record.object.data()), record.object.size(), record.symbol.c_str());
    m_symbols.insert(record.symbol); // taken even when linking fails: LLVM may have defined it
    // The JIT owns the buffer from here on, whatever the answer.
    std::string e =
        take_error_message(l, l.LLVMOrcLLJITAddObjectFile(m_jit, l.LLVMOrcLLJITGetMainJITDylib(m_jit), buffer));
    if (!e.empty()) return make_error(ErrorCode::Internal, "LLVM did not take the kernel's object: {}", e);
    abi::LLVMOrcExecutorAddress address = 0;
    e = take_error_message(l, l.LLVMOrcLLJITLookup(m_jit, &address, record.symbol.c_str()));
    if (!e.empty() || address == 0) return make_error(ErrorCode::Internal, "LLVM did not link the kernel: {}", e);
    return reinterpret_cast<ptxsim::CompiledThreadFn>(static_cast<uintptr_t>(address));
}

Expected<std::shared_ptr<const ptxsim::CompiledKernel>>
KernelCompiler::bind(const KernelRecord& record, ptxsim::CompiledThreadFn fn, const ptxsim::KernelSource& source) {
    auto kernel = std::make_shared<ptxsim::CompiledKernel>(record.kernel);
    kernel->fn = fn;
    for (const std::string& name : record.variables) {
        auto place = source.layout->module_variables.find(name);
        if (place == source.layout->module_variables.end())
            return make_error(ErrorCode::Internal, "compiled kernel '{}' reads variable '{}', which {} lacks",
                              source.info->name, name, source.module_name);
        kernel->variables.push_back(place->second.address);
    }
    kernel->owner = shared_from_this();
    return std::shared_ptr<const ptxsim::CompiledKernel>(std::move(kernel));
}

} // namespace d4r::jit
