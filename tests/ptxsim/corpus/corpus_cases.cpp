// The case table of the golden corpus. Each case's buffer sizes follow its kernel's comment in
// kernels/<module>.cu ("out: K words per thread"); check_case_against_ptx() verifies the parameter
// list against the PTX, and the guard bytes catch a size that is too small.
#include "corpus.h"

#include <utility>

namespace d4r::corpus {
namespace {

class CaseBuilder {
public:
    CaseBuilder(std::string name, std::string module, std::string entry = "") {
        m_case.name = std::move(name);
        m_case.module = std::move(module);
        m_case.entry = entry.empty() ? m_case.module : std::move(entry);
    }
    CaseBuilder& grid(uint32_t x, uint32_t y = 1, uint32_t z = 1) {
        m_case.grid = {x, y, z};
        return *this;
    }
    CaseBuilder& block(uint32_t x, uint32_t y = 1, uint32_t z = 1) {
        m_case.block = {x, y, z};
        return *this;
    }
    CaseBuilder& smem(uint32_t bytes) {
        m_case.dynamic_smem = bytes;
        return *this;
    }
    CaseBuilder& summary(std::string s) {
        m_case.summary = std::move(s);
        return *this;
    }
    CaseBuilder& in(std::string name, Elem e, size_t count, Gen g) {
        return buffer(std::move(name), e, count, g, Dir::in, "");
    }
    CaseBuilder& inout(std::string name, Elem e, size_t count, Gen g) {
        return buffer(std::move(name), e, count, g, Dir::inout, "");
    }
    CaseBuilder& out(std::string name, Elem e, size_t count, std::string compare = "") {
        return buffer(std::move(name), e, count, Gen{}, Dir::out, std::move(compare));
    }
    CaseBuilder& image(std::string name, const ImageParam& im) {
        Param p;
        p.kind = ParamKind::image;
        p.name = std::move(name);
        p.image = im;
        m_case.params.push_back(std::move(p));
        return *this;
    }
    size_t threads() const { return size_t(m_case.grid.total() * m_case.block.total()); }
    Case build() { return m_case; }

private:
    CaseBuilder& buffer(std::string name, Elem e, size_t count, Gen g, Dir dir, std::string compare) {
        Param p;
        p.kind = ParamKind::buffer;
        p.name = std::move(name);
        p.buffer.elem = e;
        p.buffer.count = count;
        p.buffer.gen = g;
        p.buffer.dir = dir;
        p.buffer.compare = std::move(compare);
        m_case.params.push_back(std::move(p));
        return *this;
    }
    Case m_case;
};

// 1024 threads in 4 blocks of 256: the shape of the per-thread ALU cases.
CaseBuilder alu(const char* name, const char* module) {
    return std::move(CaseBuilder(name, module).grid(4).block(256));
}

ImageParam texture(Format f, uint32_t w, uint32_t h, Gen g, Filter filter, Address address, bool normalized) {
    ImageParam im;
    im.kind = ImageKind::texture_array;
    im.format = f;
    im.width = w;
    im.height = h;
    im.gen = g;
    im.filter = filter;
    im.address = address;
    im.normalized = normalized;
    return im;
}

ImageParam surface(Format f, uint32_t w, uint32_t h, Gen g, Dir dir) {
    ImageParam im;
    im.kind = ImageKind::surface;
    im.format = f;
    im.width = w;
    im.height = h;
    im.gen = g;
    im.dir = dir;
    return im;
}

const size_t N = 1024; // threads of the alu() shape

void add_integer_cases(std::vector<Case>& v) {
    const Gen full = gen::full();
    v.push_back(alu("int_addsub", "int_addsub")
                    .summary("add/sub wrap and .sat, add.cc/addc/sub.cc/subc chains, abs/neg, sad")
                    .in("a", Elem::u32, N, full)
                    .in("b", Elem::u32, N, full)
                    .in("c", Elem::u32, N, full)
                    .in("x", Elem::u64, N, full)
                    .in("y", Elem::u64, N, full)
                    .out("out32", Elem::u32, N * 12)
                    .out("out64", Elem::u64, N * 4)
                    .build());
    v.push_back(alu("int_mul", "int_mul")
                    .summary("mul.lo/hi/wide, mul24, mad.hi(.sat), mad24, mad.wide, 64-bit mul.hi")
                    .in("a", Elem::u32, N, full)
                    .in("b", Elem::u32, N, full)
                    .in("c", Elem::u32, N, full)
                    .in("x", Elem::u64, N, full)
                    .in("y", Elem::u64, N, full)
                    .out("out32", Elem::u32, N * 10)
                    .out("out64", Elem::u64, N * 8)
                    .build());
    v.push_back(alu("int_divrem", "int_divrem")
                    .summary("div/rem s32/u32/s64/u64 incl. division by 0 and INT_MIN/-1")
                    .in("a", Elem::u32, N, full)
                    .in("b_full", Elem::u32, N, full)
                    .in("b_small", Elem::s32, N, gen::range(-9, 9))
                    .in("x", Elem::u64, N, full)
                    .in("y_full", Elem::u64, N, full)
                    .in("y_small", Elem::s64, N, gen::range(-9, 9))
                    .out("out32", Elem::u32, N * 8)
                    .out("out64", Elem::u64, N * 8)
                    .build());
    v.push_back(alu("int_shift", "int_shift")
                    .summary("shl/shr with amounts past the width, shf.l/r wrap/clamp, 64-bit shifts")
                    .in("a", Elem::u32, N, full)
                    .in("b", Elem::u32, N, full)
                    .in("s", Elem::u32, N, gen::range(0, 80, 0.1))
                    .in("x", Elem::u64, N, full)
                    .out("out32", Elem::u32, N * 7)
                    .out("out64", Elem::u64, N * 3)
                    .build());
    v.push_back(alu("int_bits", "int_bits")
                    .summary("bfe/bfi 32/64 (pos/len past the width), popc, clz, brev, bfind(.shiftamt), fns")
                    .in("a", Elem::u32, N, full)
                    .in("b", Elem::u32, N, full)
                    .in("pos", Elem::u32, N, gen::range(0, 70, 0.15))
                    .in("len", Elem::u32, N, gen::range(0, 70, 0.15))
                    .in("x", Elem::u64, N, full)
                    .in("y", Elem::u64, N, full)
                    .out("out32", Elem::u32, N * 13)
                    .out("out64", Elem::u64, N * 4)
                    .build());
    v.push_back(alu("int_prmt_lop3", "int_prmt_lop3")
                    .summary("prmt in all modes, lop3 with 12 lookup tables")
                    .in("a", Elem::u32, N, full)
                    .in("b", Elem::u32, N, full)
                    .in("sel", Elem::u32, N, full)
                    .out("out", Elem::u32, N * 19)
                    .build());
    v.push_back(alu("int_minmax", "int_minmax")
                    .summary("min/max u32/s32/u64/s64, .relu, packed 16x2, dp4a/dp2a all signedness forms")
                    .in("a", Elem::u32, N, full)
                    .in("b", Elem::u32, N, full)
                    .in("c", Elem::u32, N, full)
                    .in("x", Elem::u64, N, full)
                    .in("y", Elem::u64, N, full)
                    .out("out32", Elem::u32, N * 17)
                    .out("out64", Elem::u64, N * 2)
                    .build());
    v.push_back(alu("int_cvt", "int_cvt")
                    .summary("integer cvt: truncation, sign/zero extension, .sat narrowing")
                    .in("a", Elem::u32, N, full)
                    .in("x", Elem::u64, N, full)
                    .out("out32", Elem::u32, N * 19)
                    .out("out64", Elem::u64, N * 4)
                    .build());
}

void add_float_cases(std::vector<Case>& v) {
    const Gen sp = gen::special();
    const Gen edges = gen::edges();
    v.push_back(alu("f32_addmul", "f32_addmul")
                    .summary("f32 add/sub/mul .rn/.rz/.rm/.rp, .ftz, .sat")
                    .in("a", Elem::f32, N, sp)
                    .in("b", Elem::f32, N, sp)
                    .out("out", Elem::f32, N * 18)
                    .build());
    v.push_back(alu("f32_addmul_near", "f32_addmul")
                    .summary("f32 add/sub/mul on operands of similar magnitude (cancellation, ties)")
                    .in("a", Elem::f32, N, gen::exp(-3, 3, 0.02))
                    .in("b", Elem::f32, N, gen::exp(-3, 3, 0.02))
                    .out("out", Elem::f32, N * 18)
                    .build());
    v.push_back(alu("f32_fma", "f32_fma")
                    .summary("f32 fma/mad .rn/.rz/.rm/.rp, .ftz, .sat")
                    .in("a", Elem::f32, N, sp)
                    .in("b", Elem::f32, N, sp)
                    .in("c", Elem::f32, N, sp)
                    .out("out", Elem::f32, N * 10)
                    .build());
    v.push_back(alu("f32_fma_near", "f32_fma")
                    .summary("f32 fma where product and addend nearly cancel")
                    .in("a", Elem::f32, N, gen::exp(-2, 2))
                    .in("b", Elem::f32, N, gen::exp(-2, 2))
                    .in("c", Elem::f32, N, gen::exp(-3, 3, 0.05))
                    .out("out", Elem::f32, N * 10)
                    .build());
    v.push_back(alu("f32_div", "f32_div")
                    .summary("f32 div .rn/.rz/.rm/.rp/.ftz exact; div.approx and div.full within bounds")
                    .in("a", Elem::f32, N, sp)
                    .in("b", Elem::f32, N, sp)
                    .out("exact", Elem::f32, N * 6)
                    .out("approx", Elem::f32, N * 2, "div.approx.f32")
                    .out("full", Elem::f32, N * 2, "div.full.f32")
                    .build());
    v.push_back(alu("f32_rcp_sqrt", "f32_rcp_sqrt")
                    .summary("f32 rcp/sqrt in every rounding mode; rcp/sqrt/rsqrt .approx within bounds")
                    .in("a", Elem::f32, N, sp)
                    .out("exact", Elem::f32, N * 10)
                    .out("rcp_a", Elem::f32, N * 2, "rcp.approx.f32")
                    .out("sqrt_a", Elem::f32, N * 2, "sqrt.approx.f32")
                    .out("rsqrt_a", Elem::f32, N * 2, "rsqrt.approx.f32")
                    .build());
    v.push_back(alu("f32_minmax", "f32_minmax")
                    .summary("f32 min/max (.ftz, .NaN, .xorsign.abs), abs/neg/copysign, testp")
                    .in("a", Elem::f32, N, sp)
                    .in("b", Elem::f32, N, sp)
                    .out("out", Elem::u32, N * 14)
                    .build());
    v.push_back(alu("f32_minmax_edges", "f32_minmax")
                    .summary("f32 min/max/testp on edge values only (+-0 pairs, NaN payloads, equal operands)")
                    .in("a", Elem::f32, N, edges)
                    .in("b", Elem::f32, N, edges)
                    .out("out", Elem::u32, N * 14)
                    .build());
    v.push_back(alu("f32_setp", "f32_setp")
                    .summary("setp with all 14 operators, .ftz, .and/.or combining, set, selp")
                    .in("a", Elem::f32, N, sp)
                    .in("b", Elem::f32, N, sp)
                    .out("out", Elem::u32, N * 5)
                    .build());
    v.push_back(alu("f32_setp_edges", "f32_setp")
                    .summary("setp/set on edge values only (equal operands, +-0, NaN, denormals under .ftz)")
                    .in("a", Elem::f32, N, edges)
                    .in("b", Elem::f32, N, edges)
                    .out("out", Elem::u32, N * 5)
                    .build());
    v.push_back(alu("f32_approx", "f32_approx")
                    .summary("sin/cos/lg2/ex2/tanh .approx(.ftz) within the ISA bounds")
                    .in("a", Elem::f32, N, gen::range(-10, 10, 0.05))
                    .in("b", Elem::f32, N, gen::exp(-20, 7, 0.1))
                    .out("sin", Elem::f32, N * 2, "sin.approx.f32")
                    .out("cos", Elem::f32, N * 2, "cos.approx.f32")
                    .out("lg2", Elem::f32, N * 2, "lg2.approx.f32")
                    .out("ex2", Elem::f32, N * 2, "ex2.approx.f32")
                    .out("tanh", Elem::f32, N * 2, "tanh.approx.f32")
                    .build());
    v.push_back(alu("f32_round", "f32_round")
                    .summary("cvt.rni/rzi/rmi/rpi f32 and f64, cvt.sat.f32, f64<->f32 in every mode")
                    .in("a", Elem::f32, N, sp)
                    .in("d", Elem::f64, N, sp)
                    .out("of", Elem::f32, N * 13)
                    .out("od", Elem::f64, N * 6)
                    .build());
    v.push_back(alu("f32_round_ties", "f32_round")
                    .summary("round-to-integral on halves and quarters; f64->f32 near f32 limits")
                    .in("a", Elem::f32, N, gen::range(-40, 40, 0.02, 0.25))
                    .in("d", Elem::f64, N, gen::exp(-150, 130, 0.05))
                    .out("of", Elem::f32, N * 13)
                    .out("od", Elem::f64, N * 6)
                    .build());
    v.push_back(alu("f64_arith", "f64_arith")
                    .summary("f64 add/sub/mul/fma in every rounding mode, min/max, abs/neg, setp/testp")
                    .in("a", Elem::f64, N, sp)
                    .in("b", Elem::f64, N, sp)
                    .in("c", Elem::f64, N, sp)
                    .out("out", Elem::u64, N * 18)
                    .build());
    v.push_back(alu("f64_arith_near", "f64_arith")
                    .summary("f64 arithmetic on operands of similar magnitude")
                    .in("a", Elem::f64, N, gen::exp(-3, 3, 0.02))
                    .in("b", Elem::f64, N, gen::exp(-3, 3, 0.02))
                    .in("c", Elem::f64, N, gen::exp(-4, 4, 0.02))
                    .out("out", Elem::u64, N * 18)
                    .build());
    v.push_back(alu("f64_divsqrt", "f64_divsqrt")
                    .summary("f64 div/rcp/sqrt in every rounding mode; rcp.approx.ftz.f64, rsqrt.approx.f64")
                    .in("a", Elem::f64, N, sp)
                    .in("b", Elem::f64, N, sp)
                    .out("exact", Elem::f64, N * 12)
                    .out("rcp_a", Elem::f64, N, "rcp.approx.ftz.f64")
                    .out("rsqrt_a", Elem::f64, N, "rsqrt.approx.f64")
                    .build());
}

void add_cvt_cases(std::vector<Case>& v) {
    const Gen sp = gen::special();
    v.push_back(alu("cvt_f2i", "cvt_f2i")
                    .summary("f32 -> s/u 8/16/32/64 with .rni/.rzi/.rmi/.rpi (saturating, NaN -> 0)")
                    .in("a", Elem::f32, N, sp)
                    .out("o32", Elem::u32, N * 10)
                    .out("o64", Elem::u64, N * 8)
                    .out("o16", Elem::u16, N * 8)
                    .build());
    v.push_back(alu("cvt_f2i_range", "cvt_f2i")
                    .summary("f32 -> integers with magnitudes spanning every destination's limits")
                    .in("a", Elem::f32, N, gen::exp(-2, 66, 0.1))
                    .out("o32", Elem::u32, N * 10)
                    .out("o64", Elem::u64, N * 8)
                    .out("o16", Elem::u16, N * 8)
                    .build());
    v.push_back(alu("cvt_d2i", "cvt_d2i")
                    .summary("f64 -> s32/u32/s64/u64 with .rni/.rzi/.rmi/.rpi")
                    .in("a", Elem::f64, N, sp)
                    .out("o32", Elem::u32, N * 8)
                    .out("o64", Elem::u64, N * 8)
                    .build());
    v.push_back(alu("cvt_d2i_range", "cvt_d2i")
                    .summary("f64 -> integers with magnitudes spanning 32- and 64-bit limits")
                    .in("a", Elem::f64, N, gen::exp(-2, 66, 0.1))
                    .out("o32", Elem::u32, N * 8)
                    .out("o64", Elem::u64, N * 8)
                    .build());
    v.push_back(alu("cvt_i2f", "cvt_i2f")
                    .summary("s/u 8/16/32/64 -> f32/f64/f16 in every rounding mode")
                    .in("a", Elem::u32, N, gen::full())
                    .in("x", Elem::u64, N, gen::full())
                    .out("of", Elem::f32, N * 16)
                    .out("od", Elem::f64, N * 7)
                    .out("oh", Elem::u16, N * 4)
                    .build());
    v.push_back(alu("cvt_f2h", "cvt_f2h")
                    .summary("f32 -> f16/bf16/tf32 every mode, .relu, .satfinite; f64 -> f16/bf16; widening")
                    .in("a", Elem::f32, N, sp)
                    .in("d", Elem::f64, N, sp)
                    .in("h", Elem::f16, N, sp)
                    .in("b", Elem::bf16, N, sp)
                    .out("o16", Elem::u16, N * 16)
                    .out("o32", Elem::u32, N * 8)
                    .build());
    v.push_back(alu("cvt_f2h_range", "cvt_f2h")
                    .summary("narrowing to f16/bf16 around the f16 range (overflow, denormals, ties)")
                    .in("a", Elem::f32, N, gen::exp(-27, 17, 0.05))
                    .in("d", Elem::f64, N, gen::exp(-27, 17, 0.05))
                    .in("h", Elem::f16, N, gen::edges())
                    .in("b", Elem::bf16, N, gen::edges())
                    .out("o16", Elem::u16, N * 16)
                    .out("o32", Elem::u32, N * 8)
                    .build());
    v.push_back(alu("cvt_packed", "cvt_packed")
                    .summary("f32x2 -> f16x2/bf16x2, f32x2/f16x2 -> e4m3x2/e5m2x2 .satfinite(.relu), fp8x2 -> f16x2")
                    .in("a", Elem::f32, N, gen::exp(-26, 17, 0.15))
                    .in("b", Elem::f32, N, gen::exp(-26, 17, 0.15))
                    .in("h", Elem::f16, N * 2, gen::special())
                    .in("q", Elem::u16, N, gen::index(0, 0x9e37))
                    .out("o32", Elem::u32, N * 11)
                    .out("o16", Elem::u16, N * 7)
                    .build());
    v.push_back(alu("f16_arith", "f16_arith")
                    .summary("f16 add/sub/mul/fma (.ftz/.sat/.relu), neg/abs, min/max(.NaN), setp; ex2/tanh .approx")
                    .in("a", Elem::f16, N, sp)
                    .in("b", Elem::f16, N, sp)
                    .in("c", Elem::f16, N, sp)
                    .out("out", Elem::u16, N * 19)
                    .out("ex2", Elem::u16, N, "ex2.approx.f16")
                    .out("tanh", Elem::u16, N, "tanh.approx.f16")
                    .build());
    v.push_back(alu("f16_arith_near", "f16_arith")
                    .summary("f16 arithmetic on operands of similar magnitude (rounding, overflow to inf)")
                    .in("a", Elem::f16, N, gen::exp(-4, 8, 0.02))
                    .in("b", Elem::f16, N, gen::exp(-4, 8, 0.02))
                    .in("c", Elem::f16, N, gen::exp(-4, 12, 0.02))
                    .out("out", Elem::u16, N * 19)
                    .out("ex2", Elem::u16, N, "ex2.approx.f16")
                    .out("tanh", Elem::u16, N, "tanh.approx.f16")
                    .build());
    v.push_back(alu("f16x2_arith", "f16x2_arith")
                    .summary("f16x2 add/sub/mul/fma (.ftz/.sat/.relu), min/max, set/setp; ex2.approx.f16x2")
                    .in("a", Elem::f16, N * 2, sp)
                    .in("b", Elem::f16, N * 2, sp)
                    .in("c", Elem::f16, N * 2, sp)
                    .out("out", Elem::u32, N * 15)
                    .out("ex2", Elem::u32, N, "ex2.approx.f16x2")
                    .build());
    v.push_back(alu("bf16_arith", "bf16_arith")
                    .summary("bf16/bf16x2 add/sub/mul/fma(.relu), min/max(.NaN), neg/abs; ex2.approx.ftz.bf16")
                    .in("a", Elem::bf16, N, sp)
                    .in("b", Elem::bf16, N, sp)
                    .in("c", Elem::bf16, N, sp)
                    .in("x", Elem::bf16, N * 2, sp)
                    .in("y", Elem::bf16, N * 2, sp)
                    .in("z", Elem::bf16, N * 2, sp)
                    .out("o16", Elem::u16, N * 11)
                    .out("o32", Elem::u32, N * 7)
                    .out("ex2", Elem::u16, N, "ex2.approx.ftz.bf16")
                    .build());
}

void add_control_cases(std::vector<Case>& v) {
    const Gen full = gen::full();
    v.push_back(alu("ctrl_loop", "ctrl_loop")
                    .summary("per-lane trip counts, data-dependent break, switch, brx.idx, nested loops, early return")
                    .in("trips", Elem::u32, N, gen::range(0, 100))
                    .in("seed", Elem::u32, N, full)
                    .out("out", Elem::u32, N * 5)
                    .build());
    v.push_back(alu("ctrl_exit", "ctrl_exit")
                    .summary("early exit, then activemask/ballot/all/any among the surviving lanes")
                    .in("v", Elem::u32, N, full)
                    .out("out", Elem::u32, N * 4)
                    .build());
    v.push_back(CaseBuilder("barrier", "barrier")
                    .grid(8)
                    .block(128)
                    .summary("bar.sync, bar.red.popc/and/or, named barriers with counts, bar.arrive handoff")
                    .in("in", Elem::u32, N, full)
                    .out("out", Elem::u32, N * 7)
                    .build());
    v.push_back(alu("smem_static", "smem_static")
                    .summary("static shared memory: f32 tree sum, u32 reduction, padded transpose")
                    .in("a", Elem::f32, N, gen::exp(-10, 10))
                    .in("u", Elem::u32, N, full)
                    .out("of", Elem::f32, N * 2)
                    .out("ou", Elem::u32, N * 3)
                    .build());
    v.push_back(CaseBuilder("smem_dynamic", "smem_dynamic")
                    .grid(4)
                    .block(16, 8)
                    .smem(4096)
                    .summary("dynamic shared memory (4 KiB), %dynamic_smem_size, f32 and u16 views, 2D block")
                    .in("a", Elem::f32, 4 * 1024, gen::exp(-10, 10, 0.01))
                    .out("out", Elem::u32, 512 * 4)
                    .build());
    v.push_back(alu("local_mem", "local_mem")
                    .summary("local arrays with data-dependent indices, insertion sort, local doubles")
                    .in("idx", Elem::u32, N, full)
                    .in("v", Elem::u32, N, full)
                    .out("out", Elem::u32, N * 6)
                    .build());
    v.push_back(alu("func_call", "func_call")
                    .summary(".func calls: scalars, struct return, local pointer argument, nested, indirect via table")
                    .in("u", Elem::u32, N, full)
                    .in("f", Elem::f32, N, gen::exp(-10, 10, 0.02))
                    .out("out", Elem::u32, N * 6)
                    .build());
    v.push_back(CaseBuilder("special_regs", "special_regs")
                    .grid(3, 2, 2)
                    .block(10, 3, 2)
                    .smem(256)
                    .summary("%tid/%ntid/%ctaid/%nctaid/%laneid/%lanemask_*/%dynamic_smem_size, partial warps")
                    .out("out", Elem::u32, 12 * 60 * 20)
                    .build());
    v.push_back(CaseBuilder("generic_addr", "generic_addr")
                    .grid(8)
                    .block(128)
                    .summary("generic pointers into global/shared/local, isspacep, cvta round trips")
                    .in("in", Elem::u32, N, full)
                    .out("out", Elem::u32, N * 4)
                    .build());
    v.push_back(alu("const_global", "const_global")
                    .summary("__constant__ tables and initialised __device__ arrays, module scratch globals")
                    .in("idx", Elem::u32, N, full)
                    .out("out", Elem::u32, N * 3)
                    .build());
    v.push_back(CaseBuilder("mem_ops", "mem_ops")
                    .grid(16)
                    .block(64)
                    .summary("vector ld/st, ld.global.nc, s8/s16 loads, volatile/relaxed/acquire/release, fences, "
                             "warp-to-warp flag handoff")
                    .in("v", Elem::u32, N * 4, full)
                    .out("out", Elem::u32, N * 10)
                    .out("flags", Elem::u32, N)
                    .build());
}

void add_warp_and_atomic_cases(std::vector<Case>& v) {
    const Gen full = gen::full();
    v.push_back(CaseBuilder("warp_shfl", "warp_shfl")
                    .grid(8)
                    .block(128)
                    .summary("shfl.sync idx/up/down/bfly, widths 32/16/8/4, partial member masks, predicates")
                    .in("v", Elem::u32, N, full)
                    .in("b", Elem::u32, N, gen::range(0, 40))
                    .out("out", Elem::u32, N * 13)
                    .build());
    v.push_back(CaseBuilder("warp_vote", "warp_vote")
                    .grid(8)
                    .block(128)
                    .summary("vote.sync all/any/uni/ballot, activemask under nested divergence, partial masks")
                    .in("v", Elem::u32, N, full)
                    .out("out", Elem::u32, N * 8)
                    .build());
    v.push_back(CaseBuilder("warp_match_redux", "warp_match_redux")
                    .grid(8)
                    .block(128)
                    .summary("match.any/all.sync b32/b64, redux.sync add/min/max/and/or/xor, partial masks")
                    .in("v", Elem::u32, N, full)
                    .in("w", Elem::u64, N, full)
                    .out("out", Elem::u32, N * 12)
                    .build());
    v.push_back(
        CaseBuilder("warp_groups", "warp_groups")
            .grid(8)
            .block(128)
            .summary("one redux/shfl/vote/match/bar.warp.sync run together by groups with different member masks")
            .in("v", Elem::u32, N, full)
            .out("out", Elem::u32, N * 8)
            .build());
    v.push_back(CaseBuilder("clock_spin", "clock_spin")
                    .grid(2)
                    .block(64)
                    .summary("spins on %clock64; flags: count reached, increasing reads, %clock/%clock_hi halves, "
                             "%globaltimer advanced")
                    .in("cycles", Elem::u32, 128, gen::ints(1000, 200000))
                    .out("out", Elem::u32, 128 * 4)
                    .build());
    v.push_back(CaseBuilder("atom_global", "atom_global")
                    .grid(8)
                    .block(128)
                    .summary("global atomics add/min/max/and/or/xor/inc/dec/exch/cas, f32/f64 add, CAS-loop max")
                    .in("v", Elem::u32, N, full)
                    .in("w", Elem::u64, N, full)
                    .in("fv", Elem::f32, N, gen::ints(-1024, 1024))
                    .inout("c32", Elem::u32, 256, full)
                    .inout("c64", Elem::u64, 96, full)
                    .inout("cf", Elem::f32, 64, gen::ints(-1024, 1024, 0.0625))
                    .inout("cd", Elem::f64, 32, gen::ints(-1024, 1024, 0.0625))
                    .inout("slots", Elem::u32, N * 3, full)
                    .out("olds", Elem::u32, N * 3)
                    .build());
    v.push_back(alu("atom_shared", "atom_shared")
                    .summary("shared atomics add/max/min/xor/inc/exch/cas, f32 add, CAS-loop min")
                    .in("init", Elem::u32, 4 * 128, full)
                    .in("v", Elem::u32, N, full)
                    .in("fv", Elem::f32, N, gen::ints(-1000, 1000))
                    .out("out", Elem::u32, N * 3)
                    .build());
    v.push_back(alu("atom_red", "atom_red")
                    .summary("red.global add/min/max/and/or/xor, red f32/f64/f16/bf16/f16x2/bf16x2 add, red.shared")
                    .in("u", Elem::u32, N, full)
                    .in("h", Elem::f16, N * 2, gen::ints(-8, 8))
                    .in("bq", Elem::bf16, N * 2, gen::ints(-4, 4))
                    .inout("c32", Elem::u32, 384, full)
                    .inout("c64", Elem::u64, 64, full)
                    .inout("cf", Elem::f32, 64, gen::ints(-1000, 1000, 0.125))
                    .inout("cd", Elem::f64, 64, gen::ints(-1000, 1000, 0.001953125))
                    .inout("ch", Elem::f16, 128, gen::ints(-8, 8))
                    .inout("cb", Elem::bf16, 128, gen::ints(-4, 4))
                    .inout("hs", Elem::f16, 64, gen::ints(-8, 8))
                    .inout("bs", Elem::bf16, 64, gen::ints(-4, 4))
                    .out("out", Elem::u32, N)
                    .build());
}

void add_tensor_cases(std::vector<Case>& v) {
    const size_t L = 256; // lanes: 2 blocks of 128 = 8 warps, one mma per warp and shape
    auto f16_case = [&](const char* name, Gen ab, Gen c, Gen h, const char* what) {
        return CaseBuilder(name, "mma_f16")
            .grid(2)
            .block(128)
            .summary(what)
            .in("a", Elem::f16, L * 8, ab)
            .in("b", Elem::f16, L * 4, ab)
            .in("c", Elem::f32, L * 4, c)
            .in("h", Elem::f16, L * 4, h)
            .out("d32", Elem::f32, L * 8)
            .out("d16", Elem::u32, L * 4)
            .build();
    };
    v.push_back(f16_case("mma_f16", gen::exp(-6, 6), gen::exp(-4, 8), gen::exp(-4, 6),
                         "mma.sync m16n8k16/m16n8k8 f16 inputs, f32 and f16 accumulators"));
    v.push_back(f16_case("mma_f16_special", gen::special(), gen::special(), gen::special(),
                         "mma.sync f16 with NaN/inf/denormal inputs and accumulators"));
    auto bf16_case = [&](const char* name, Gen ab, Gen c, const char* what) {
        return CaseBuilder(name, "mma_bf16")
            .grid(2)
            .block(128)
            .summary(what)
            .in("a", Elem::bf16, L * 8, ab)
            .in("b", Elem::bf16, L * 4, ab)
            .in("c", Elem::f32, L * 4, c)
            .out("d", Elem::f32, L * 8)
            .build();
    };
    v.push_back(bf16_case("mma_bf16", gen::exp(-10, 10), gen::exp(-5, 10), "mma.sync m16n8k16/m16n8k8 bf16 -> f32"));
    v.push_back(bf16_case("mma_bf16_special", gen::special(), gen::special(),
                          "mma.sync bf16 with NaN/inf/denormal inputs and accumulators"));
    auto fp8_case = [&](const char* name, Elem e, Gen ab, Gen c, Gen h, const char* what) {
        return CaseBuilder(name, "mma_fp8")
            .grid(2)
            .block(128)
            .summary(what)
            .in("a", e, L * 16, ab)
            .in("b", e, L * 8, ab)
            .in("c", Elem::f32, L * 4, c)
            .in("h", Elem::f16, L * 4, h)
            .out("d", Elem::f32, L * 16)
            .out("d16", Elem::u32, L * 2)
            .build();
    };
    // e4m3 bytes with exponents -4..4 stay finite when read as e5m2 too (exponent field <= 23).
    v.push_back(fp8_case("mma_fp8", Elem::e4m3, gen::exp(-4, 4), gen::exp(-4, 8), gen::exp(-4, 6),
                         "mma.sync m16n8k32 e4m3/e5m2 (all pairings) -> f32, e4m3 -> f16"));
    v.push_back(fp8_case("mma_fp8_special", Elem::u8, gen::full(), gen::special(), gen::special(),
                         "mma.sync m16n8k32 on every fp8 byte (NaN, inf, denormals) and special accumulators"));
    v.push_back(CaseBuilder("ldmatrix", "ldmatrix")
                    .grid(2)
                    .block(128)
                    .summary("ldmatrix m8n8 x1/x2/x4 and .trans with data-driven row addresses")
                    .in("src", Elem::u32, 8 * 512, gen::full())
                    .in("rows", Elem::u32, L, gen::full())
                    .out("out", Elem::u32, L * 14)
                    .build());
    // One warpgroup a block (two blocks); a, b: the blocks' matrices; c, af, h: per thread (16 f32, 4 and 8 words).
    v.push_back(CaseBuilder("wgmma_f16", "wgmma")
                    .grid(2)
                    .block(128)
                    .summary("wgmma.mma_async m64n32k16 f16: A by descriptor and in registers, f32/f16 accumulators, "
                             "scale-d 0, imm-scale -1, two descriptor layouts")
                    .in("a", Elem::f16, 2 * 64 * 16, gen::exp(-6, 6))
                    .in("b", Elem::f16, 2 * 32 * 16, gen::exp(-4, 8))
                    .in("c", Elem::f32, L * 16, gen::exp(-4, 8))
                    .in("af", Elem::f16, L * 8, gen::exp(-6, 6))
                    .in("h", Elem::f16, L * 16, gen::exp(-4, 6))
                    .out("d32", Elem::f32, L * 16)
                    .out("d16", Elem::u32, L * 8)
                    .out("d32z", Elem::f32, L * 16)
                    .build());
    v.push_back(CaseBuilder("cp_async", "cp_async")
                    .grid(4)
                    .block(128)
                    .summary("cp.async ca/cg 4/8/16 bytes, src-size zero fill, commit/wait_group, wait_all")
                    .in("src", Elem::u32, 512 * 8, gen::full())
                    .in("sizes", Elem::u32, 512, gen::full())
                    .out("out", Elem::u32, 512 * 9)
                    .build());
}

void add_image_cases(std::vector<Case>& v) {
    const size_t T = 512; // 2 blocks of 256 texture fetches
    auto tex_case = [&](const char* name, const char* entry, ImageParam im, Gen xs, Gen ys, size_t out_per,
                        Elem out_elem, const char* what) {
        return CaseBuilder(name, "tex2d", entry)
            .grid(2)
            .block(256)
            .summary(what)
            .image("tex", im)
            .in("xs", Elem::f32, T, xs)
            .in("ys", Elem::f32, T, ys)
            .out("out", out_elem, T * out_per)
            .build();
    };
    // Coordinates: texel units spanning past every edge, or normalised [-1.5, 2.5]; half of them on
    // a 1/64 (1/256) grid so exact texel centres and filter-weight boundaries occur.
    const Gen ux = gen::range(-4, 41, 0.02, 1.0 / 64), uy = gen::range(-4, 27, 0.02, 1.0 / 64);
    const Gen nx = gen::range(-1.5, 2.5, 0.02, 1.0 / 256), ny = gen::range(-1.5, 2.5, 0.02, 1.0 / 256);
    const Gen h_fin = gen::exp(-6, 6, 0.0), h_sp = gen::special();
    auto f4 = [&](const char* name, ImageParam im, bool norm, const char* what) {
        return tex_case(name, "tex2d_f4", im, norm ? nx : ux, norm ? ny : uy, 8, Elem::f32, what);
    };
    v.push_back(f4("tex_rgba16f_point_clamp",
                   texture(Format::rgba16f, 37, 23, h_sp, Filter::point, Address::clamp, false), false,
                   "RGBA16F array, point, clamp, texel coordinates, special texels"));
    v.push_back(f4("tex_rgba16f_linear_clamp",
                   texture(Format::rgba16f, 37, 23, h_fin, Filter::linear, Address::clamp, false), false,
                   "RGBA16F array, bilinear, clamp, texel coordinates"));
    v.push_back(f4("tex_rgba16f_linear_wrap_norm",
                   texture(Format::rgba16f, 37, 23, h_fin, Filter::linear, Address::wrap, true), true,
                   "RGBA16F array, bilinear, wrap, normalised coordinates"));
    v.push_back(f4("tex_rg16f_point_mirror_norm",
                   texture(Format::rg16f, 33, 17, h_sp, Filter::point, Address::mirror, true), true,
                   "RG16F array, point, mirror, normalised coordinates"));
    ImageParam border = texture(Format::rg16f, 33, 17, h_fin, Filter::linear, Address::border, false);
    border.border[0] = 0.25f;
    border.border[1] = -2.0f;
    border.border[2] = 1000.0f;
    border.border[3] = 0.5f;
    v.push_back(
        f4("tex_rg16f_linear_border", border, false, "RG16F array, bilinear, border colour, texel coordinates"));
    ImageParam r32_border = texture(Format::r32f, 29, 31, gen::special(), Filter::point, Address::border, false);
    r32_border.border[0] = -7.5f;
    r32_border.border[3] = 2.0f;
    v.push_back(f4("tex_r32f_point_border", r32_border, false, "R32F array, point, border, special texels"));
    v.push_back(f4("tex_r32f_linear_mirror_norm",
                   texture(Format::r32f, 29, 31, gen::exp(-20, 20), Filter::linear, Address::mirror, true), true,
                   "R32F array, bilinear, mirror, normalised coordinates"));
    v.push_back(f4("tex_rgba8_linear_wrap_norm",
                   texture(Format::rgba8, 40, 24, gen::full(), Filter::linear, Address::wrap, true), true,
                   "RGBA8 array read as normalised float, bilinear, wrap, normalised coordinates"));
    v.push_back(f4("tex_rgb10a2_linear_clamp",
                   texture(Format::rgb10a2, 40, 24, gen::full(), Filter::linear, Address::clamp, false), false,
                   "RGB10A2 (unorm 10:10:10:2) array, bilinear, clamp, texel coordinates"));
    ImageParam as_int = texture(Format::rgba8, 40, 24, gen::full(), Filter::point, Address::clamp, false);
    as_int.read_as_integer = true;
    v.push_back(tex_case("tex_rgba8_point_int", "tex2d_u4", as_int, ux, uy, 4, Elem::u32,
                         "RGBA8 array read as integers, point, clamp"));
    v.push_back(tex_case("tex_rgba16f_gather", "tex2d_gather",
                         texture(Format::rgba16f, 37, 23, h_fin, Filter::point, Address::clamp, false), ux, uy, 16,
                         Elem::f32, "tld4 gather of each component, RGBA16F, clamp"));
    ImageParam pitch = texture(Format::r32f, 45, 21, gen::exp(-8, 8, 0.02), Filter::linear, Address::clamp, false);
    pitch.kind = ImageKind::texture_pitch2d;
    v.push_back(f4("tex_r32f_pitch_linear", pitch, false, "R32F pitch-linear memory, bilinear, clamp"));
    ImageParam pitch16 = texture(Format::rgba16f, 24, 18, h_fin, Filter::point, Address::wrap, true);
    pitch16.kind = ImageKind::texture_pitch2d;
    v.push_back(f4("tex_rgba16f_pitch_point_wrap_norm", pitch16, true,
                   "RGBA16F pitch-linear memory, point, wrap, normalised coordinates"));

    // Surfaces: 32x16 destination, one thread per texel; source reads at coordinates past every edge.
    auto surf_case = [&](const char* name, const char* entry, Format f, Gen g, size_t out_per, const char* what) {
        return CaseBuilder(name, "surf2d", entry)
            .grid(2, 1)
            .block(16, 16)
            .summary(what)
            .image("src", surface(f, 40, 20, g, Dir::in))
            .image("dst", surface(f, 32, 16, Gen{}, Dir::out))
            .in("xs", Elem::s32, T, gen::range(-4, 44))
            .in("ys", Elem::s32, T, gen::range(-3, 23))
            .out("out", Elem::u32, T * out_per)
            .build();
    };
    v.push_back(surf_case("surf_rgba16f", "surf2d_b64", Format::rgba16f, gen::special(), 4,
                          "suld.b/sust.b 2D on RGBA16F, .clamp/.zero/.trap"));
    v.push_back(surf_case("surf_r32f", "surf2d_b32", Format::r32f, gen::special(), 3,
                          "suld.b/sust.b 2D on R32F, .clamp/.zero, v4.b8 loads"));
    v.push_back(surf_case("surf_rgba8", "surf2d_b32", Format::rgba8, gen::full(), 3,
                          "suld.b/sust.b 2D on RGBA8, .clamp/.zero, v4.b8 loads"));
}

std::vector<Case> build_all() {
    std::vector<Case> v;
    add_integer_cases(v);
    add_float_cases(v);
    add_cvt_cases(v);
    add_control_cases(v);
    add_warp_and_atomic_cases(v);
    add_tensor_cases(v);
    add_image_cases(v);
    return v;
}

} // namespace

const std::vector<Case>& all_cases() {
    static const std::vector<Case> cases = build_all();
    return cases;
}

} // namespace d4r::corpus
