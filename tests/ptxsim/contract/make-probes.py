#!/usr/bin/env python3
"""Writes probes.ptx: one kernel per mul/add pattern, to see which ones NVIDIA's PTX assembler fuses.

Each kernel loads a, b, c, nc, x, y, c2 from its first parameter (an array of the probe's type), runs the
pattern (its body below) and stores r0 (and r1 for two-result probes) to its second. read-ptxas.sh
assembles the file with ptxas for sm_90 and records in expected.txt how many fused multiply-adds each
kernel became; tests/ptxsim/contract_test.cpp checks ptxsim's contraction against that.
Usage: make-probes.py > probes.ptx
"""
probes = {}
def P(name, ty, body, outs=1):
    probes[name]=(ty, body, outs)
F='f32'
# registers: %a %b %c %nc %x %y %c2 (loaded), %r0..%r3 outputs, %t %u %n %q scratch, %p pred
P('add_first', F, 'mul.f32 t, a, b; add.f32 r0, t, c;')
P('add_second', F, 'mul.f32 t, a, b; add.f32 r0, c, t;')
P('sub_first', F, 'mul.f32 t, a, b; sub.f32 r0, t, nc;')
P('sub_second', F, 'mul.f32 t, a, b; sub.f32 r0, nc, t;')
P('kept_stored', F, 'mul.f32 t, a, b; add.f32 r0, t, c; mov.f32 r1, t;', 2)
P('two_adds', F, 'mul.f32 t, a, b; add.f32 r0, t, c; add.f32 r1, t, c2;', 2)
P('add_and_sub', F, 'mul.f32 t, a, b; add.f32 r0, t, c; sub.f32 r1, t, nc;', 2)
P('add_and_addrn', F, 'mul.f32 t, a, b; add.f32 r0, t, c; add.rn.f32 r1, t, c2;', 2)
P('add_and_fma_addend', F, 'mul.f32 t, a, b; add.f32 r0, t, c; fma.rn.f32 r1, x, y, t;', 2)
P('add_and_mul', F, 'mul.f32 t, a, b; add.f32 r0, t, c; mul.f32 r1, t, x;', 2)
P('add_and_setp', F, 'mul.f32 t, a, b; add.f32 r0, t, c; setp.gt.f32 p, t, x; selp.f32 r1, x, y, p;', 2)
P('branch_plain', F, 'mul.f32 t, a, b; setp.ne.f32 p, c, 0f00000000; @p bra L1; add.f32 x, x, 0f3F800000; L1: add.f32 r0, t, c; mov.f32 r1, x;', 2)
P('branch_phi', F, 'mul.f32 t, a, b; mov.f32 u, c; setp.ne.f32 p, c, 0f00000000; @p bra L1; add.f32 u, u, 0f3F800000; L1: add.f32 r0, t, u;')
P('add_here_and_other_block', F, 'mul.f32 t, a, b; add.f32 r0, t, c; setp.ne.f32 p, c, 0f00000000; @p bra L1; add.f32 x, x, 0f3F800000; L1: add.f32 r1, t, x;', 2)
P('mul_rn', F, 'mul.rn.f32 t, a, b; add.f32 r0, t, c;')
P('add_rn', F, 'mul.f32 t, a, b; add.rn.f32 r0, t, c;')
P('sub_rn', F, 'mul.f32 t, a, b; sub.rn.f32 r0, t, nc;')
P('add_rz', F, 'mul.f32 t, a, b; add.rz.f32 r0, t, c;')
P('ftz_both', F, 'mul.ftz.f32 t, a, b; add.ftz.f32 r0, t, c;')
P('ftz_mul_only', F, 'mul.ftz.f32 t, a, b; add.f32 r0, t, c;')
P('ftz_add_only', F, 'mul.f32 t, a, b; add.ftz.f32 r0, t, c;')
P('add_sat', F, 'mul.f32 t, a, b; add.sat.f32 r0, t, c;')
P('mul_sat', F, 'mul.sat.f32 t, a, b; add.f32 r0, t, c;')
P('sub_sat', F, 'mul.f32 t, a, b; sub.sat.f32 r0, t, nc;')
P('neg_add', F, 'mul.f32 t, a, b; neg.f32 n, t; add.f32 r0, n, nc;')
P('neg_used_too', F, 'mul.f32 t, a, b; neg.f32 n, t; add.f32 r0, n, nc; mov.f32 r1, n;', 2)
P('neg_sub_both', F, 'mul.f32 t, a, b; neg.f32 n, t; sub.f32 r0, n, c;')
P('abs_add', F, 'mul.f32 t, a, b; abs.f32 n, t; add.f32 r0, n, c;')
P('mov_add', F, 'mul.f32 t, a, b; mov.f32 u, t; add.f32 r0, u, c;')
P('mov_used_too', F, 'mul.f32 t, a, b; mov.f32 u, t; add.f32 r0, u, c; mov.f32 r1, u;', 2)
P('two_products', F, 'mul.f32 t, a, b; mul.f32 u, x, y; add.f32 r0, t, u;')
P('two_products_swapped', F, 'mul.f32 t, a, b; mul.f32 u, x, y; add.f32 r0, u, t;')
P('two_products_later_first', F, 'mul.f32 u, x, y; mul.f32 t, a, b; add.f32 r0, t, u;')
P('two_products_sub', F, 'mul.f32 t, a, b; mul.f32 u, x, y; sub.f32 r0, t, u;')
P('two_products_one_rn', F, 'mul.rn.f32 t, a, b; mul.f32 u, x, y; add.f32 r0, t, u;')
P('two_products_first_kept', F, 'mul.f32 t, a, b; mul.f32 u, x, y; add.f32 r0, t, u; mov.f32 r1, t;', 2)
P('predicated_mul', F, 'mov.f32 t, 0f00000000; setp.ne.f32 p, c, 0f00000000; @p mul.f32 t, a, b; add.f32 r0, t, c;')
P('predicated_add', F, 'mov.f32 r0, 0f00000000; mul.f32 t, a, b; setp.ne.f32 p, c, 0f00000000; @p add.f32 r0, t, c;')
P('imm_mul', F, 'mul.f32 t, a, 0f3F800800; add.f32 r0, t, c;')
P('imm_add', F, 'mul.f32 t, a, b; add.f32 r0, t, 0fBF801000;')
P('bar_between', F, 'mul.f32 t, a, b; bar.sync 0; add.f32 r0, t, c;')
P('store_between', F, 'mul.f32 t, a, b; st.global.f32 [o+64], x; add.f32 r0, t, c;')
P('redefined', F, 'mov.f32 q, a; mul.f32 t, q, b; mov.f32 q, 0f40000000; add.f32 r0, t, c; mov.f32 r1, q;', 2)
P('redefined_self', F, 'mov.f32 q, a; mul.f32 q, q, b; add.f32 r0, q, c;')
P('loop_carried_source', F, 'mov.f32 q, a; mov.f32 r0, 0f00000000; mov.s32 i, 0; L1: mul.f32 t, q, b; add.f32 q, q, 0f00000000; sub.f32 r0, r0, nc; add.f32 r0, r0, t; add.s32 i, i, 1; setp.lt.s32 p, i, k; @p bra L1;')
P('loop_product_carried', F, 'mov.f32 q, a; mov.s32 i, 0; L1: mul.f32 q, q, b; add.f32 r0, q, c; add.s32 i, i, 1; setp.lt.s32 p, i, k; @p bra L1;')
P('loop', F, 'mov.f32 r0, 0f00000000; mov.s32 i, 0; L1: sub.f32 r0, r0, nc; mul.f32 t, a, b; add.f32 r0, r0, t; add.s32 i, i, 1; setp.lt.s32 p, i, k; @p bra L1;')
P('mul_outside_loop', F, 'mul.f32 t, a, b; mov.f32 r0, 0f00000000; mov.s32 i, 0; L1: sub.f32 r0, r0, nc; add.f32 r0, r0, t; add.s32 i, i, 1; setp.lt.s32 p, i, k; @p bra L1;')
P('add_self', F, 'mul.f32 t, a, b; add.f32 r0, t, t;')
P('chain', F, 'mul.f32 t, a, b; add.f32 u, t, c; mul.f32 n, u, x; add.f32 r0, n, y;')
P('add_result_then_mul', F, 'mul.f32 t, a, b; add.f32 u, t, c; mul.f32 r0, u, x;')
P('mad_rn', F, 'mad.rn.f32 r0, a, b, c;')
D='f64'
P('d_add', D, 'mul.f64 t, a, b; add.f64 r0, t, c;')
P('d_kept', D, 'mul.f64 t, a, b; add.f64 r0, t, c; mov.f64 r1, t;', 2)
P('d_sub_second', D, 'mul.f64 t, a, b; sub.f64 r0, nc, t;')
P('d_add_rn', D, 'mul.f64 t, a, b; add.rn.f64 r0, t, c;')
P('d_branch', D, 'mul.f64 t, a, b; setp.ne.f64 p, c, 0d0000000000000000; @p bra L1; add.f64 x, x, 0d3FF0000000000000; L1: add.f64 r0, t, c; mov.f64 r1, x;', 2)
P('d_two_products', D, 'mul.f64 t, a, b; mul.f64 u, x, y; add.f64 r0, u, t;')
H='f16'
P('h_add', H, 'mul.f16 t, a, b; add.f16 r0, t, c;')
P('h_kept', H, 'mul.f16 t, a, b; add.f16 r0, t, c; mov.b16 r1, t;', 2)
P('h_sub_second', H, 'mul.f16 t, a, b; sub.f16 r0, nc, t;')
P('h_ftz_mixed', H, 'mul.ftz.f16 t, a, b; add.f16 r0, t, c;')
P('h_add_sat', H, 'mul.f16 t, a, b; add.sat.f16 r0, t, c;')
P('h_neg', H, 'mul.f16 t, a, b; neg.f16 n, t; add.f16 r0, n, nc;')
P('h_branch', H, 'mul.f16 t, a, b; setp.ne.s32 p, k, 0; @p bra L1; add.f16 x, x, x; L1: add.f16 r0, t, c; mov.b16 r1, x;', 2)
P('h_redefined', H, 'mov.b16 q, a; mul.f16 t, q, b; mov.b16 q, c; add.f16 r0, t, c; mov.b16 r1, q;', 2)
H2='f16x2'
P('h2_add', H2, 'mul.f16x2 t, a, b; add.f16x2 r0, t, c;')
P('h2_sub', H2, 'mul.f16x2 t, a, b; sub.f16x2 r0, t, nc;')
B='bf16'
P('b_add', B, 'mul.bf16 t, a, b; add.bf16 r0, t, c;')
P('b_sub', B, 'mul.bf16 t, a, b; sub.bf16 r0, t, nc;')
P('b_kept', B, 'mul.bf16 t, a, b; add.bf16 r0, t, c; mov.b16 r1, t;', 2)
B2='bf16x2'
P('b2_add', B2, 'mul.bf16x2 t, a, b; add.bf16x2 r0, t, c;')

regty={'f32':('.f32',4,'f32'),'f64':('.f64',8,'f64'),'f16':('.b16',2,'b16'),'f16x2':('.b32',4,'b32'),'bf16':('.b16',2,'b16'),'bf16x2':('.b32',4,'b32')}
def kernel(name, ty, body, outs):
    rt, sz, lt = regty[ty]
    names=['a','b','c','nc','x','y','c2']
    s=[f'.visible .entry {name}(.param .u64 pv, .param .u64 po, .param .s32 pk)','{',
       f'    .reg {rt} a, b, c, nc, x, y, c2, t, u, n, q, r0, r1;','    .reg .pred p;','    .reg .s32 i, k;','    .reg .b64 v, o;',
       '    ld.param.u64 v, [pv];','    ld.param.u64 o, [po];','    ld.param.s32 k, [pk];',
       '    cvta.to.global.u64 v, v;','    cvta.to.global.u64 o, o;']
    for j,nm in enumerate(names): s.append(f'    ld.global.{lt} {nm}, [v+{j*sz}];')
    s.append(f'    mov.{lt} r1, 0;' if lt!='f32' and lt!='f64' else f'    mov.{lt} r1, 0{"f" if lt=="f32" else "d"}{"0"*(8 if lt=="f32" else 16)};')
    for stmt in body.split(';'):
        stmt=stmt.strip()
        if not stmt: continue
        if stmt.startswith('L1:'):
            s.append('L1:'); stmt=stmt[3:].strip()
        s.append('    '+stmt+';')
    for j in range(outs): s.append(f'    st.global.{lt} [o+{j*sz}], r{j};')
    s.append('    ret;'); s.append('}')
    return '\n'.join(s)
print('// Generated by make-probes.py; see README there. Our own PTX, written for this test.')
print('.version 8.0\n.target sm_90\n.address_size 64\n')
for n,(ty,body,outs) in probes.items(): print(kernel(n,ty,body,outs)); print()
