// d4r-rj-run self-test probes shared by gfx11 and gfx12: cross-lane operations, LDS with barriers across two
// waves, and the hidden kernel arguments (code object v5) a HIP kernel reads for blockDim and gridDim.
// Compiled without HIP headers (clang-19 -x hip -nogpuinc -nogpulib): kernels are extern "C" and use builtins.
#pragma once

#define KERNEL extern "C" __attribute__((global))
#define DEVICE __attribute__((device))

typedef unsigned int u32;
typedef unsigned short u16;

DEVICE static inline void sync_workgroup() {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// ds_swizzle in bit mode, xor 1: out[l] = in[l ^ 1].
KERNEL void k_swizzle(const int* in, int* out) {
    u32 l = __builtin_amdgcn_workitem_id_x();
    out[l] = __builtin_amdgcn_ds_swizzle(in[l], 0x041F);
}

// v_permlanex16 with identity selects reads the other row: out[l] = in[l ^ 16].
KERNEL void k_permlanex16(const int* in, int* out) {
    u32 l = __builtin_amdgcn_workitem_id_x();
    out[l] = __builtin_amdgcn_permlanex16(0, in[l], 0x76543210u, 0xFEDCBA98u, false, false);
}

// DPP row_shr:1 with bound_ctrl: out[l] = l % 16 == 0 ? 0 : in[l - 1].
KERNEL void k_dpp_row_shr1(const int* in, int* out) {
    u32 l = __builtin_amdgcn_workitem_id_x();
    out[l] = __builtin_amdgcn_update_dpp(0, in[l], 0x111, 0xF, 0xF, true);
}

// Saturating integer arithmetic, which LLVM selects as VOP3 v_sub_nc_u32 / v_add_nc_i32 with the clamp bit (the
// refine network's half_to_e4m3 gets one): out[l] = max(in[l] - 130, 0) and min(in[l] + (2^31 - 1 - 120), 2^31 - 1).
KERNEL void k_usub_sat(const int* in, int* out) {
    u32 l = __builtin_amdgcn_workitem_id_x();
    out[l] = int(__builtin_elementwise_sub_sat(u32(in[l]), 130u));
}
KERNEL void k_sadd_sat(const int* in, int* out) {
    u32 l = __builtin_amdgcn_workitem_id_x();
    out[l] = __builtin_elementwise_add_sat(in[l], 0x7fffffff - 120);
}

// 64 threads (two waves) reverse the data twice through LDS with three barriers: out[l] = (in[l] + 1) * 10.
KERNEL void k_lds_2barriers(const int* in, int* out) {
    __attribute__((shared)) static int s[64];
    u32 l = __builtin_amdgcn_workitem_id_x();
    s[l] = in[l];
    sync_workgroup();
    int v = s[63 - l];
    sync_workgroup();
    s[l] = v + 1;
    sync_workgroup();
    out[l] = s[63 - l] * 10;
}

// Every thread of a 16 x 4 x 2 block writes its work-item ids: out[t] = x | y << 8 | z << 16, t the linear id.
// gfx11 and gfx12 pass them packed in v0 (x | y << 10 | z << 20).
KERNEL void k_tid(int* out) {
    u32 x = __builtin_amdgcn_workitem_id_x(), y = __builtin_amdgcn_workitem_id_y(),
        z = __builtin_amdgcn_workitem_id_z();
    out[(z * 4 + y) * 16 + x] = int(x | (y << 8) | (z << 16));
}

// The parameter block passed by value, as d4r's kernels take theirs.
struct HiddenParams {
    u32* out;
    u32 tag;
    u32 pad;
};

// Each workgroup's first thread writes 8 words at out[8 * (wg.y * gridDim.x + wg.x)]: the hidden arguments
// block_count x/y/z (offset 0, 4, 8), group_size x/y (12, 14), grid_dims (64), the workgroup ids and the tag.
KERNEL void k_hidden(HiddenParams p) {
    const u32* implicit = (const u32*)__builtin_amdgcn_implicitarg_ptr();
    const u16* implicit16 = (const u16*)implicit;
    u32 wx = __builtin_amdgcn_workgroup_id_x(), wy = __builtin_amdgcn_workgroup_id_y();
    if (__builtin_amdgcn_workitem_id_x() != 0 || __builtin_amdgcn_workitem_id_y() != 0) return;
    u32* o = p.out + 8 * (wy * implicit[0] + wx);
    o[0] = implicit[0];
    o[1] = implicit[1];
    o[2] = implicit[2];
    o[3] = implicit16[6];
    o[4] = implicit16[7];
    o[5] = implicit16[32];
    o[6] = wx | (wy << 16);
    o[7] = p.tag;
}
