// 2D texture fetches through texture objects. Filtering, addressing, coordinate normalisation and
// the texel format are properties of the texture object (set by the case table), so these three
// entries serve every texture case: float coordinates (tex.2d.v4.f32.f32), integer coordinates
// (tex.2d.v4.f32.s32), gathers of each component (tld4.{r,g,b,a}.2d) and integer reads
// (tex.2d.v4.u32.f32, for read-as-integer textures).
// corpus-arch: sm_89
#include "common.cuh"

// xs, ys: coordinates (texels or normalised). out: 8 floats per thread (float coords, then the
// integer coordinates floor(x), floor(y)).
KERNEL void tex2d_f4(unsigned long long tex, const float* xs, const float* ys, float* out) {
    unsigned i = gtid();
    float x = xs[i], y = ys[i];
    float* o = out + i * 8;
    asm volatile("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
                 : "=f"(o[0]), "=f"(o[1]), "=f"(o[2]), "=f"(o[3]) : "l"(tex), "f"(x), "f"(y));
    int ix = (int)floorf(x), iy = (int)floorf(y);
    asm volatile("tex.2d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
                 : "=f"(o[4]), "=f"(o[5]), "=f"(o[6]), "=f"(o[7]) : "l"(tex), "r"(ix), "r"(iy));
}

#define TLD4(comp, o) \
    asm volatile("tld4." comp ".2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];" \
                 : "=f"((o)[0]), "=f"((o)[1]), "=f"((o)[2]), "=f"((o)[3]) : "l"(tex), "f"(x), "f"(y))

// out: 16 floats per thread (gathers of r, g, b, a).
KERNEL void tex2d_gather(unsigned long long tex, const float* xs, const float* ys, float* out) {
    unsigned i = gtid();
    float x = xs[i], y = ys[i];
    float* o = out + i * 16;
    TLD4("r", o);
    TLD4("g", o + 4);
    TLD4("b", o + 8);
    TLD4("a", o + 12);
}

// out: 4 words per thread.
KERNEL void tex2d_u4(unsigned long long tex, const float* xs, const float* ys, uint32_t* out) {
    unsigned i = gtid();
    uint32_t* o = out + i * 4;
    asm volatile("tex.2d.v4.u32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
                 : "=r"(o[0]), "=r"(o[1]), "=r"(o[2]), "=r"(o[3]) : "l"(tex), "f"(xs[i]), "f"(ys[i]));
}
