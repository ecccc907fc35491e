// Round-to-integral cvt on f32 and f64 (.rni/.rzi/.rmi/.rpi, .ftz) and f32<->f64 conversion in every
// rounding mode (.ftz, .sat).
// corpus-arch: sm_89
#include "common.cuh"

F32_UN(rni, "cvt.rni.f32.f32")
F32_UN(rzi, "cvt.rzi.f32.f32")
F32_UN(rmi, "cvt.rmi.f32.f32")
F32_UN(rpi, "cvt.rpi.f32.f32")
F32_UN(rni_ftz, "cvt.rni.ftz.f32.f32")
F32_UN(rmi_ftz, "cvt.rmi.ftz.f32.f32")
F32_UN(sat_f32, "cvt.sat.f32.f32")
F64_UN(rni_d, "cvt.rni.f64.f64")
F64_UN(rzi_d, "cvt.rzi.f64.f64")
F64_UN(rmi_d, "cvt.rmi.f64.f64")
F64_UN(rpi_d, "cvt.rpi.f64.f64")

#define F64_TO_F32(name, instr) \
    __device__ __forceinline__ float name(double a) { float r; asm(instr " %0, %1;" : "=f"(r) : "d"(a)); return r; }
F64_TO_F32(d2f_rn, "cvt.rn.f32.f64")
F64_TO_F32(d2f_rz, "cvt.rz.f32.f64")
F64_TO_F32(d2f_rm, "cvt.rm.f32.f64")
F64_TO_F32(d2f_rp, "cvt.rp.f32.f64")
F64_TO_F32(d2f_rn_ftz, "cvt.rn.ftz.f32.f64")
F64_TO_F32(d2f_rn_sat, "cvt.rn.sat.f32.f64")
__device__ __forceinline__ double f2d(float a) { double r; asm("cvt.f64.f32 %0, %1;" : "=d"(r) : "f"(a)); return r; }
__device__ __forceinline__ double f2d_ftz(float a) { double r; asm("cvt.ftz.f64.f32 %0, %1;" : "=d"(r) : "f"(a)); return r; }

// of: 13 floats per thread; od: 6 doubles per thread.
KERNEL void f32_round(const float* a, const double* d, float* of, double* od) {
    unsigned i = gtid();
    float x = a[i];
    double y = d[i];
    float* o = of + i * 13;
    o[0] = rni(x);
    o[1] = rzi(x);
    o[2] = rmi(x);
    o[3] = rpi(x);
    o[4] = rni_ftz(x);
    o[5] = rmi_ftz(x);
    o[6] = sat_f32(x);
    o[7] = d2f_rn(y);
    o[8] = d2f_rz(y);
    o[9] = d2f_rm(y);
    o[10] = d2f_rp(y);
    o[11] = d2f_rn_ftz(y);
    o[12] = d2f_rn_sat(y);
    double* p = od + i * 6;
    p[0] = rni_d(y);
    p[1] = rzi_d(y);
    p[2] = rmi_d(y);
    p[3] = rpi_d(y);
    p[4] = f2d(x);
    p[5] = f2d_ftz(x);
}
