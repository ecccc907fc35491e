// fuzz_cuda_api: arrays, mipmapped arrays, texture and surface objects.
#include "fuzz_api.h"

namespace fuzz_api {

void op_array(Input& in) {
    switch (in.u8() % 10) {
    case 0:
    case 1: {
        if (P->array.live.size() >= 16) return;
        CUarray a = nullptr;
        CUDA_ARRAY3D_DESCRIPTOR d;
        fill_array3d(in, d);
        CUresult r;
        if (in.flip()) {
            CUDA_ARRAY_DESCRIPTOR d2{d.Width, d.Height, d.Format, d.NumChannels};
            r = T->cuArrayCreate_v2(in.u8() % 16 ? &a : nullptr, in.u8() % 16 ? &d2 : nullptr);
        } else {
            r = T->cuArray3DCreate_v2(in.u8() % 16 ? &a : nullptr, in.u8() % 16 ? &d : nullptr);
        }
        if (r == CUDA_SUCCESS) {
            CHECK(a != nullptr);
            P->array.add(a);
        }
        return;
    }
    case 2: {
        CUarray a = pick(in, P->array);
        if (T->cuArrayDestroy(a) == CUDA_SUCCESS) P->array.kill(a);
        return;
    }
    case 3: {
        CUDA_ARRAY_DESCRIPTOR d;
        CUDA_ARRAY3D_DESCRIPTOR d3;
        (void)T->cuArrayGetDescriptor_v2(in.flip() ? &d : nullptr, pick(in, P->array));
        (void)T->cuArray3DGetDescriptor_v2(in.flip() ? &d3 : nullptr, pick(in, P->array));
        return;
    }
    case 4: {
        if (P->mipmap.live.size() >= 8) return;
        CUDA_ARRAY3D_DESCRIPTOR d;
        fill_array3d(in, d);
        CUmipmappedArray m = nullptr;
        if (T->cuMipmappedArrayCreate(in.u8() % 16 ? &m : nullptr, in.u8() % 16 ? &d : nullptr,
                                      in.u8() % 4 ? 1 + in.below(4) : in.u32()) == CUDA_SUCCESS) {
            CHECK(m != nullptr);
            P->mipmap.add(m);
        }
        return;
    }
    case 5: {
        CUarray level;
        (void)T->cuMipmappedArrayGetLevel(in.flip() ? &level : nullptr, pick(in, P->mipmap),
                                          in.u8() % 4 ? in.below(4) : in.u32());
        CUmipmappedArray m = pick(in, P->mipmap);
        if (in.u8() % 4 == 0 && T->cuMipmappedArrayDestroy(m) == CUDA_SUCCESS) P->mipmap.kill(m);
        return;
    }
    case 6:
    case 7: {
        if (P->tex.live.size() >= 16) return;
        CUDA_RESOURCE_DESC res;
        fill_resource(in, res);
        CUDA_TEXTURE_DESC td;
        in.fill(&td, sizeof td);
        if (in.flip()) std::memset(td.reserved, 0, sizeof td.reserved);
        for (auto& m : td.addressMode) m = static_cast<CUaddress_mode>(in.u8() % 4 ? in.below(4) : in.u32());
        td.filterMode = static_cast<CUfilter_mode>(in.u8() % 4 ? in.below(2) : in.u32());
        CUDA_RESOURCE_VIEW_DESC vd;
        in.fill(&vd, sizeof vd);
        CUtexObject t = 0;
        if (T->cuTexObjectCreate(in.u8() % 16 ? &t : nullptr, in.u8() % 16 ? &res : nullptr,
                                 in.u8() % 8 ? &td : nullptr, in.u8() % 4 ? nullptr : &vd) == CUDA_SUCCESS) {
            CHECK(t != 0);
            P->tex.add(t);
        }
        return;
    }
    case 8: {
        if (P->surf.live.size() >= 16) return;
        CUDA_RESOURCE_DESC res;
        fill_resource(in, res);
        CUsurfObject s = 0;
        if (T->cuSurfObjectCreate(in.u8() % 16 ? &s : nullptr, in.u8() % 16 ? &res : nullptr) == CUDA_SUCCESS) {
            CHECK(s != 0);
            P->surf.add(s);
        }
        return;
    }
    default: {
        CUDA_RESOURCE_DESC res;
        CUtexObject t = pick(in, P->tex);
        CUsurfObject s = pick(in, P->surf);
        (void)T->cuTexObjectGetResourceDesc(in.flip() ? &res : nullptr, t);
        (void)T->cuSurfObjectGetResourceDesc(in.flip() ? &res : nullptr, s);
        if (in.flip() && T->cuTexObjectDestroy(t) == CUDA_SUCCESS) P->tex.kill(t);
        if (in.flip() && T->cuSurfObjectDestroy(s) == CUDA_SUCCESS) P->surf.kill(s);
        return;
    }
    }
}

} // namespace fuzz_api
