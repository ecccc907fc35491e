// fuzz_cuda_api: modules, libraries, linking, functions and launches.
#include "fuzz_api.h"

namespace fuzz_api {

namespace {

// JIT options with values of the right kind: log buffers are the harness's own, sized truthfully.
struct JitOptions {
    CUjit_option opts[6];
    void* values[6];
    char info[256], error[256];
    unsigned n = 0;
};
void fill_jit(Input& in, JitOptions& j) {
    j.n = unsigned(in.below(7));
    for (unsigned i = 0; i < j.n; ++i) {
        unsigned o = in.u8() % 8 ? unsigned(in.below(15)) : in.u32();
        j.opts[i] = static_cast<CUjit_option>(o);
        switch (o) {
        case CU_JIT_INFO_LOG_BUFFER:
            j.values[i] = in.u8() % 4 ? j.info : nullptr;
            break;
        case CU_JIT_ERROR_LOG_BUFFER:
            j.values[i] = in.u8() % 4 ? j.error : nullptr;
            break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
            j.values[i] = reinterpret_cast<void*>(uintptr_t(in.below(257)));
            break;
        // Options past CU_JIT_CACHE_MODE (14) include pointers to arrays (global symbol names and
        // addresses): NULL for those, a number for the rest.
        default:
            j.values[i] = o > CU_JIT_CACHE_MODE
                              ? nullptr
                              : reinterpret_cast<void*>(uintptr_t(in.u8() % 4 ? in.below(8) : in.u64()));
        }
    }
    // A buffer without its size, or a size larger than the buffer, would be the caller's lie: make sure
    // every log buffer given has its size option and the size fits (d4r writes at most that many bytes).
    for (unsigned i = 0; i < j.n; ++i) {
        if (j.opts[i] == CU_JIT_INFO_LOG_BUFFER || j.opts[i] == CU_JIT_ERROR_LOG_BUFFER) {
            bool sized = false;
            auto want = j.opts[i] == CU_JIT_INFO_LOG_BUFFER ? CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES
                                                            : CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;
            for (unsigned k = 0; k < j.n; ++k) sized |= j.opts[k] == want;
            if (!sized) j.values[i] = nullptr;
        }
    }
}

void add_functions(CUmodule m, bool fuzzed, Input& in) {
    for (const KernelInfo& k : kKernels) {
        CUfunction f = nullptr;
        if (T->cuModuleGetFunction(&f, m, k.name) == CUDA_SUCCESS) {
            CHECK(f != nullptr);
            (fuzzed ? P->fuzzed_function : P->function).add(f);
        }
    }
    if (fuzzed) {
        std::string scratch;
        CUfunction f = nullptr;
        const char* name = pick_name(in, scratch);
        if (T->cuModuleGetFunction(&f, m, name) == CUDA_SUCCESS) P->fuzzed_function.add(f);
    }
}

} // namespace

void op_module(Input& in) {
    std::string scratch;
    switch (in.u8() % 12) {
    case 0:
    case 1:
    case 2: {
        if (P->module.live.size() >= 8) return;
        CUmodule m = nullptr;
        bool fuzzed = in.u8() % 3 == 0;
        std::string text = fuzzed ? fuzzed_ptx(in) : std::string(kPtx);
        JitOptions j;
        CUresult r;
        switch (in.u8() % 3) {
        case 0:
            r = T->cuModuleLoadData(in.u8() % 16 ? &m : nullptr, in.u8() % 16 ? text.c_str() : nullptr);
            break;
        case 1:
            fill_jit(in, j);
            r = T->cuModuleLoadDataEx(&m, text.c_str(), j.n, in.u8() % 8 ? j.opts : nullptr,
                                      in.u8() % 8 ? j.values : nullptr);
            break;
        default:
            r = T->cuModuleLoadFatBinary(&m, text.c_str());
            break;
        }
        if (r == CUDA_SUCCESS) {
            CHECK(m != nullptr);
            P->module.add(m);
            add_functions(m, fuzzed, in);
        }
        return;
    }
    case 3: {
        static const char* paths[] = {nullptr, "", "/nonexistent/d4r.ptx", "/dev/null", "/proc/self/status", "/"};
        CUmodule m = nullptr;
        if (T->cuModuleLoad(&m, paths[in.below(std::size(paths))]) == CUDA_SUCCESS) P->module.add(m);
        return;
    }
    case 4: {
        CUmodule m = pick(in, P->module);
        if (T->cuModuleUnload(m) == CUDA_SUCCESS) P->module.kill(m);
        // Its functions are gone with it (kept as destroyed handles by the pool's dead lists).
        return;
    }
    case 5: {
        CUfunction f = nullptr;
        CUmodule m = pick(in, P->module);
        if (T->cuModuleGetFunction(in.u8() % 16 ? &f : nullptr, m, pick_name(in, scratch)) == CUDA_SUCCESS) {
            CHECK(f != nullptr);
            P->fuzzed_function.add(f);
        }
        return;
    }
    case 6: {
        CUdeviceptr p = 0;
        size_t bytes = 0;
        if (T->cuModuleGetGlobal_v2(in.u8() % 8 ? &p : nullptr, in.u8() % 8 ? &bytes : nullptr, pick(in, P->module),
                                    pick_name(in, scratch)) == CUDA_SUCCESS &&
            p && bytes)
            remember_dev(p, bytes);
        return;
    }
    case 7: {
        // Libraries: context-independent, loaded into a context when used.
        if (P->library.live.size() >= 8) return;
        bool fuzzed = in.u8() % 3 == 0;
        std::string text = fuzzed ? fuzzed_ptx(in) : std::string(kPtx);
        JitOptions j;
        fill_jit(in, j);
        CUlibraryOption lopts[2] = {static_cast<CUlibraryOption>(in.below(3)), static_cast<CUlibraryOption>(in.u32())};
        void* lvalues[2] = {nullptr, reinterpret_cast<void*>(uintptr_t(in.below(2)))};
        CUlibrary l = nullptr;
        if (T->cuLibraryLoadData(in.u8() % 16 ? &l : nullptr, in.u8() % 16 ? text.c_str() : nullptr, j.opts, j.values,
                                 j.n, in.flip() ? lopts : nullptr, in.flip() ? lvalues : nullptr,
                                 unsigned(in.below(3))) == CUDA_SUCCESS) {
            CHECK(l != nullptr);
            P->library.add(l);
            for (const KernelInfo& k : kKernels) {
                CUkernel kk = nullptr;
                // A fuzzed library's kernels have unknown layouts: not in the pool (launches take them
                // as functions, and kernelParams is read by the layout).
                if (!fuzzed && T->cuLibraryGetKernel(&kk, l, k.name) == CUDA_SUCCESS) P->kernel.add(kk);
            }
        }
        return;
    }
    case 8: {
        CUlibrary l = pick(in, P->library);
        if (T->cuLibraryUnload(l) == CUDA_SUCCESS) {
            P->library.kill(l);
            // Its kernels die with it: drop them all to keep the pool's live list truthful.
            for (CUkernel k : std::vector<CUkernel>(P->kernel.live)) {
                CUlibrary owner = nullptr;
                if (T->cuKernelGetLibrary(&owner, k) != CUDA_SUCCESS || owner == l) P->kernel.kill(k);
            }
        }
        return;
    }
    case 9: {
        CUlibrary l = pick(in, P->library);
        CUkernel k = nullptr;
        CUmodule m = nullptr;
        CUdeviceptr p = 0;
        size_t bytes = 0;
        (void)T->cuLibraryGetKernel(in.flip() ? &k : nullptr, l, pick_name(in, scratch));
        (void)T->cuLibraryGetModule(in.flip() ? &m : nullptr, l);
        if (T->cuLibraryGetGlobal(&p, &bytes, l, pick_name(in, scratch)) == CUDA_SUCCESS && p && bytes)
            remember_dev(p, bytes);
        return;
    }
    case 10: {
        CUkernel k = in.flip() ? pick(in, P->kernel) : reinterpret_cast<CUkernel>(pick_function(in));
        CUfunction f = nullptr;
        int v;
        const char* name;
        CUlibrary l;
        if (T->cuKernelGetFunction(in.u8() % 16 ? &f : nullptr, k) == CUDA_SUCCESS && !P->function.has(f) &&
            !P->fuzzed_function.has(f))
            P->function.add(f); // a library kernel of kPtx (fuzzed libraries' kernels are not in the pool)
        auto attr = static_cast<CUfunction_attribute>(in.u8() % 4 ? in.below(20) : int(in.u32()));
        CUdevice dev = in.u8() % 8 ? 0 : CUdevice(in.u32());
        (void)T->cuKernelGetAttribute(in.flip() ? &v : nullptr, attr, k, dev);
        (void)T->cuKernelSetAttribute(attr, in.u8() % 4 ? int(in.u16()) : int(in.u32()), k, dev);
        (void)T->cuKernelSetCacheConfig(k, static_cast<CUfunc_cache>(in.below(6)), dev);
        if (T->cuKernelGetName(in.flip() ? &name : nullptr, k) == CUDA_SUCCESS && name) (void)std::strlen(name);
        (void)T->cuKernelGetLibrary(in.flip() ? &l : nullptr, k);
        return;
    }
    default: {
        // Linking: PTX and junk inputs; the result is loaded as a module.
        if (P->link.live.size() >= 4) return;
        JitOptions j;
        fill_jit(in, j);
        CUlinkState st = nullptr;
        if (T->cuLinkCreate_v2(j.n, j.opts, j.values, in.u8() % 16 ? &st : nullptr) != CUDA_SUCCESS || !st) return;
        P->link.add(st);
        for (int i = 0, n = int(in.below(3)); i < n; ++i) {
            bool fuzzed = in.flip();
            std::string text = fuzzed ? fuzzed_ptx(in) : std::string(kPtx);
            auto type = static_cast<CUjitInputType>(in.u8() % 4 ? 1 : in.below(7));
            // d4r is told the size: a type other than PTX reads within it.
            size_t size = in.u8() % 8 ? text.size() + 1 : in.below(text.size() + 1);
            (void)T->cuLinkAddData_v2(st, type, in.u8() % 16 ? text.data() : nullptr, size,
                                      in.flip() ? "fuzz.ptx" : nullptr, 0, nullptr, nullptr);
        }
        if (in.u8() % 4 == 0)
            (void)T->cuLinkAddFile_v2(st, CU_JIT_INPUT_PTX, in.flip() ? "/nonexistent.ptx" : "/dev/null", 0, nullptr,
                                      nullptr);
        void* cubin = nullptr;
        size_t size = 0;
        if (T->cuLinkComplete(st, in.u8() % 8 ? &cubin : nullptr, in.u8() % 8 ? &size : nullptr) == CUDA_SUCCESS &&
            cubin && in.flip() && P->module.live.size() < 8) {
            CUmodule m = nullptr;
            if (T->cuModuleLoadData(&m, cubin) == CUDA_SUCCESS) {
                P->module.add(m);
                add_functions(m, true, in);
            }
        }
        if (in.u8() % 4 && T->cuLinkDestroy(st) == CUDA_SUCCESS) P->link.kill(st);
        return;
    }
    }
}

void op_function(Input& in) {
    CUfunction f = pick_function(in);
    switch (in.u8() % 8) {
    case 0: {
        int v;
        auto attr = static_cast<CUfunction_attribute>(in.u8() % 4 ? in.below(20) : int(in.u32()));
        (void)T->cuFuncGetAttribute(in.flip() ? &v : nullptr, attr, f);
        int value = in.u8() % 4 ? int(in.u32() % (256 * 1024)) : int(in.u32());
        (void)T->cuFuncSetAttribute(f, attr, value);
        return;
    }
    case 1: {
        (void)T->cuFuncSetCacheConfig(f, static_cast<CUfunc_cache>(in.below(6)));
        (void)T->cuFuncSetSharedMemConfig(f, static_cast<CUsharedconfig>(in.below(5)));
        const char* name;
        CUmodule m;
        if (T->cuFuncGetName(in.flip() ? &name : nullptr, f) == CUDA_SUCCESS && name) (void)std::strlen(name);
        (void)T->cuFuncGetModule(in.flip() ? &m : nullptr, f);
        return;
    }
    case 2: {
        int n;
        g_b2d_value = in.u8() % 4 ? in.u16() : pick_size(in);
        (void)T->cuOccupancyMaxActiveBlocksPerMultiprocessor(in.flip() ? &n : nullptr, f, int(pick_dim(in, false)),
                                                             pick_size(in));
        (void)T->cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, int(in.u32()), in.u16(), in.below(3));
        int grid, block;
        (void)T->cuOccupancyMaxPotentialBlockSize(in.flip() ? &grid : nullptr, &block, f, in.flip() ? b2d : nullptr,
                                                  in.u16(), int(in.u8() % 4 ? in.below(1100) : in.u32()));
        (void)T->cuOccupancyMaxPotentialBlockSizeWithFlags(&grid, in.flip() ? &block : nullptr, f,
                                                           in.flip() ? b2d : nullptr, pick_size(in), int(in.u32()),
                                                           in.below(3));
        size_t smem;
        (void)T->cuOccupancyAvailableDynamicSMemPerBlock(
            in.flip() ? &smem : nullptr, f, int(in.u8() % 4 ? in.below(40) : in.u32()), int(pick_dim(in, false)));
        return;
    }
    case 3: {
        // The pre-4.0 launch API: a parameter block set piece by piece.
        (void)T->cuFuncSetBlockShape(f, int(pick_dim(in, false)), int(in.below(3)), 1);
        (void)T->cuFuncSetSharedSize(f, pick_shared(in));
        (void)T->cuParamSetSize(f, in.u8() % 4 ? in.below(64) : in.u32());
        (void)T->cuParamSeti(f, in.u8() % 4 ? int(in.below(64)) : int(in.u32()), in.u32());
        (void)T->cuParamSetf(f, in.u8() % 4 ? int(in.below(64)) : int(in.u32()), 1.5f);
        // cuParamSetv reads NUMBYTES from PTR: the harness's arena, truthfully sized, or NULL.
        unsigned bytes = unsigned(in.u8() % 4 ? in.below(64) : in.u16());
        (void)T->cuParamSetv(f, in.u8() % 4 ? int(in.below(64)) : int(in.u32()), in.u8() % 8 ? rw() : nullptr, bytes);
        (void)T->cuParamSetTexRef(f, int(in.u32()), pick(in, P->texref));
        return;
    }
    case 4:
        if (in.flip())
            (void)T->cuLaunch(f);
        else if (in.flip())
            (void)T->cuLaunchGrid(f, int(pick_dim(in, true)), int(in.below(3)));
        else
            (void)T->cuLaunchGridAsync(f, int(pick_dim(in, true)), int(in.below(3)), pick_stream(in));
        return;
    default: {
        LaunchArgs a;
        void** params;
        void** extra;
        unsigned gx = pick_dim(in, true), gy = in.u8() % 8 ? 1 : pick_dim(in, true),
                 gz = in.u8() % 8 ? 1 : pick_dim(in, true);
        unsigned bx = pick_dim(in, false), by = in.u8() % 8 ? 1 : pick_dim(in, false),
                 bz = in.u8() % 8 ? 1 : pick_dim(in, false);
        unsigned shared = pick_shared(in);
        CUstream s = pick_stream(in);
        build_args(in, f, a, params, extra);
        switch (in.u8() % 4) {
        case 0:
            (void)T->cuLaunchCooperativeKernel(f, gx, gy, gz, bx, by, bz, shared, s, extra ? nullptr : params);
            return;
        case 1: {
            CUlaunchAttribute attrs[3];
            std::memset(attrs, 0, sizeof attrs);
            for (auto& at : attrs) {
                at.id = static_cast<CUlaunchAttributeID>(in.u8() % 4 ? in.below(12) : int(in.u32()));
                in.fill(&at.value, 16);
            }
            CUlaunchConfig cfg{gx,
                               gy,
                               gz,
                               bx,
                               by,
                               bz,
                               shared,
                               s,
                               in.u8() % 8 ? attrs : nullptr,
                               unsigned(in.u8() % 8 ? in.below(4) : in.u32())};
            if (cfg.attrs && cfg.numAttrs > 3) cfg.numAttrs = 3;
            (void)T->cuLaunchKernelEx(in.u8() % 16 ? &cfg : nullptr, f, params, extra);
            return;
        }
        default:
            (void)T->cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
            return;
        }
    }
    }
}

} // namespace fuzz_api
