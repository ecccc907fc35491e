// fuzz_cuda_api: the fixed kernels, fuzzed PTX, host callbacks and launch parameters.
#include "fuzz_api.h"

namespace fuzz_api {

// ---- Kernels ----------------------------------------------------------------------------------------

const char* kPtx = R"PTX(
.version 8.0
.target sm_90
.address_size 64

.global .align 4 .u32 counter = 5;
.global .align 8 .b8 table[64];
.extern .shared .align 4 .b8 dyn[];

.visible .entry add_one(.param .u64 p, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd2, %rd1, %rd3;
    ld.global.u32 %r6, [%rd2];
    add.s32 %r6, %r6, 1;
    st.global.u32 [%rd2], %r6;
DONE:
    ret;
}

.visible .entry store_at(.param .u64 p, .param .u32 v)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [v];
    st.global.u32 [%rd1], %r1;
    ret;
}

.visible .entry spin(.param .u64 p, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, 0;
    mov.u32 %r3, 0;
LOOP:
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra END;
    add.u32 %r3, %r3, %r2;
    add.u32 %r2, %r2, 1;
    bra LOOP;
END:
    st.global.u32 [%rd1], %r3;
    ret;
}

.visible .entry trapper()
{
    trap;
    ret;
}

.visible .entry uses_shared(.param .u64 p)
{
    .shared .align 4 .b8 buf[1024];
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    mov.u32 %r1, 7;
    st.shared.u32 [buf], %r1;
    st.shared.u32 [dyn], %r1;
    ld.shared.u32 %r2, [buf];
    ld.param.u64 %rd1, [p];
    st.global.u32 [%rd1], %r2;
    ret;
}

.visible .entry bump_counter()
{
    .reg .b32 %r<2>;
    ld.global.u32 %r1, [counter];
    add.u32 %r1, %r1, 1;
    st.global.u32 [counter], %r1;
    ret;
}

.visible .entry tex_read(.param .u64 out, .param .u64 tex, .param .u64 surf)
{
    .reg .b32 %r<6>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [tex];
    ld.param.u64 %rd3, [surf];
    mov.f32 %f1, 0f3F000000;
    tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd2, {%f1, %f1}];
    suld.b.2d.b32.trap {%r1}, [%rd3, {%r2, %r2}];
    st.global.f32 [%rd1], %f1;
    st.global.u32 [%rd1+4], %r1;
    ret;
}
)PTX";

const char* pick_name(Input& in, std::string& scratch) {
    switch (in.u8() % 8) {
    case 0:
        return nullptr;
    case 1:
        return "";
    case 2:
        return "counter";
    case 3:
        return "table";
    case 4: {
        scratch.assign(in.below(40), 'x');
        for (char& ch : scratch) ch = char(in.u8() | 1);
        return scratch.c_str();
    }
    default:
        return kKernels[in.below(std::size(kKernels))].name;
    }
}

// A PTX image from the input: NUL-terminated; never starting like an ELF or fatbin image, whose headers
// d4r would follow past the end of the bytes (an image's extent comes from its own headers).
std::string fuzzed_ptx(Input& in) {
    size_t len = in.u16() % 2048;
    std::string text;
    if (in.flip()) text = ".version 8.0\n.target sm_90\n.address_size 64\n";
    size_t k = std::min(len, in.n);
    text.append(reinterpret_cast<const char*>(in.p), k);
    in.p += k;
    in.n -= k;
    for (char& c : text)
        if (c == 0) c = ' ';
    // The fixed kernels' names belong to kPtx (is_fuzzed_function): a fuzzed entry of that name gets another.
    for (const KernelInfo& k : kKernels)
        for (size_t at = text.find(k.name); at != std::string::npos; at = text.find(k.name, at + 1)) text[at] = 'Z';
    if (!text.empty() &&
        (uint8_t(text[0]) == 0x7f || uint8_t(text[0]) == 0x50 || uint8_t(text[0]) == 0xb1 || uint8_t(text[0]) == 0xba))
        text[0] = ' ';
    return text;
}

// ---- Host callbacks ---------------------------------------------------------------------------------

void host_fn(void*) {}
// Synchronising from inside a callback waits for itself: d4r refuses it (NOT_PERMITTED) instead of
// deadlocking the context's worker (issue 14, item 12).
void host_fn_sync(void* stream) {
    (void)T->cuCtxSynchronize();
    (void)T->cuStreamSynchronize(static_cast<CUstream>(stream));
    (void)T->cuStreamQuery(static_cast<CUstream>(stream));
}
void stream_cb(CUstream, CUresult, void*) {}
size_t g_b2d_value = 0;
size_t b2d(int) { return g_b2d_value; }

CUhostFn pick_host_fn(Input& in) {
    switch (in.u8() % 4) {
    case 0:
        return nullptr;
    case 1:
        return host_fn_sync;
    default:
        return host_fn;
    }
}

// ---- Launch parameters ------------------------------------------------------------------------------

// Whether F's parameter layout is unknown to the harness. d4r reads one kernelParams entry per parameter
// and each entry's parameter size, so kernelParams goes only to the fixed kernels: a function (or a
// CUkernel, resolved in the current context) named like one of them. Fuzzed PTX never defines those names
// (fuzzed_ptx mangles them), so the name settles it even for a handle whose address was reused.
bool is_fuzzed_function(CUfunction f) {
    const char* name = nullptr;
    if (T->cuFuncGetName(&name, f) != CUDA_SUCCESS || !name) return true;
    for (const KernelInfo& k : kKernels)
        if (std::strcmp(name, k.name) == 0) return false;
    return true;
}

// Fills kernelParams / extra for F and returns which to pass (either may be NULL, both set is refused).
void build_args(Input& in, CUfunction f, LaunchArgs& a, void**& params, void**& extra) {
    std::memset(&a, 0, sizeof a);
    for (int i = 0; i < kMaxParams + 5; ++i) {
        uint64_t v;
        switch (in.u8() % 4) {
        case 0:
            v = pick_dptr(in);
            break;
        case 1:
            v = in.u32() % 64;
            break;
        case 2:
            v = !P->tex.live.empty() ? P->tex.live[in.below(P->tex.live.size())] : in.u64();
            break;
        default:
            v = in.u64();
            break;
        }
        std::memcpy(a.values[i], &v, 8);
        a.params[i] = in.u8() % 16 == 0 ? nullptr : a.values[i];
    }
    in.fill(a.buffer, 64);
    a.buffer_size = sizeof a.buffer;
    size_t claimed = sizeof a.buffer;
    switch (in.u8() % 6) {
    case 0:
        claimed = 0;
        break;
    case 1:
        claimed = in.below(32);
        break;
    case 2:
        claimed = 1ull << 40;
        break; // a lie about the buffer: d4r reads only the parameter block
    default:
        break;
    }
    if (is_fuzzed_function(f) && claimed > sizeof a.buffer) claimed = sizeof a.buffer;
    a.buffer_size = claimed;
    int e = 0;
    uint8_t shape = in.u8() % 8;
    if (shape != 1) {
        a.extra[e++] = D4R_CU_LAUNCH_PARAM_BUFFER_POINTER;
        a.extra[e++] = shape == 2 ? nullptr : a.buffer;
    }
    if (shape != 3) {
        a.extra[e++] = D4R_CU_LAUNCH_PARAM_BUFFER_SIZE;
        a.extra[e++] = shape == 4 ? nullptr : &a.buffer_size;
    }
    if (shape == 5) {
        a.extra[e++] = reinterpret_cast<void*>(0x77); // an unknown marker
        a.extra[e++] = nullptr;
    }
    a.extra[e] = D4R_CU_LAUNCH_PARAM_END;
    params = extra = nullptr;
    switch (in.u8() % 6) {
    case 0:
        break;
    case 1:
    case 2:
        extra = a.extra;
        break;
    case 3:
        if (!is_fuzzed_function(f)) {
            params = a.params;
            extra = a.extra;
        }
        break;
    default:
        if (!is_fuzzed_function(f))
            params = a.params;
        else
            extra = a.extra;
    }
}

unsigned pick_dim(Input& in, bool grid) {
    switch (in.u8() % 12) {
    case 0:
        return 0;
    case 1:
        return grid ? 2147483648u : 1025;
    case 2:
        return grid ? 65536 : 65;
    case 3:
        return in.u32();
    case 4:
        return grid ? 2147483647u : 1024;
    case 5:
        return 32;
    default:
        return 1 + in.below(4);
    }
}

unsigned pick_shared(Input& in) {
    static const unsigned values[] = {0, 0, 0, 4, 1024, 48 * 1024, 48 * 1024 + 1, 227 * 1024, 1u << 20, ~0u};
    return values[in.below(std::size(values))];
}

} // namespace fuzz_api
