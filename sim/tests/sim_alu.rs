//! Float min/max with `.NaN` (PTX ISA §9.7.3.10/11): the canonical NaN when either input is NaN.

use phasegate_sim::{ArgValue, Launch, simulate_ptx};

#[test]
fn min_and_max_with_nan_give_the_canonical_nan() {
    let ptx = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .f32 %f<8>;
    .reg .b64 %rd<2>;
    mov.f32 %f1, 0f7FC00001;
    mov.f32 %f2, 0f40000000;
    max.NaN.f32 %f3, %f1, %f2;
    min.NaN.f32 %f4, %f2, %f1;
    max.f32 %f5, %f1, %f2;
    max.NaN.f32 %f6, %f2, 0f3F800000;
    ld.param.u64 %rd1, [out];
    st.global.v4.f32 [%rd1], {%f3, %f4, %f5, %f6};
    ret;
}
"#;
    let mut args = [ArgValue::zeroed(16)];
    let outcome = simulate_ptx(ptx, "k", &Launch::default(), &mut args).expect("runs");
    assert!(outcome.is_completed(), "{:?}", outcome.report());
    let bits: Vec<u32> = args[0].read::<u32>();
    // A NaN operand: the canonical NaN, not the other operand (plain max returns 2.0).
    assert_eq!(
        bits,
        [0x7fff_ffff, 0x7fff_ffff, 2.0f32.to_bits(), 2.0f32.to_bits()]
    );
}

#[test]
fn cvt_pack_saturates_and_packs_b_below_a_below_c() {
    // CUTLASS packs four s32 into four s8 so: bytes [b0, a0] then [b1, a1] from `c`.
    let ptx = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<2>;
    mov.b32 %r1, 300;
    mov.b32 %r2, -200;
    cvt.pack.sat.s8.s32.b32 %r3, %r1, %r2, 4660;
    mov.b32 %r4, 70000;
    mov.b32 %r5, -5;
    cvt.pack.sat.u16.s32 %r6, %r4, %r5;
    cvt.pack.sat.u8.s32.b32 %r7, %r2, %r1, 0;
    ld.param.u64 %rd1, [out];
    st.global.v4.b32 [%rd1], {%r3, %r6, %r7, %r7};
    ret;
}
"#;
    let mut args = [ArgValue::zeroed(16)];
    let outcome = simulate_ptx(ptx, "k", &Launch::default(), &mut args).expect("runs");
    assert!(outcome.is_completed(), "{:?}", outcome.report());
    let words: Vec<u32> = args[0].read::<u32>();
    // 300 -> 127 (0x7f) above -200 -> -128 (0x80), 4660 = 0x1234 above both.
    assert_eq!(words[0], 0x1234_7f80);
    // 70000 -> 65535 above -5 -> 0.
    assert_eq!(words[1], 0xffff_0000);
    // u8: -200 -> 0 above 300 -> 255.
    assert_eq!(words[2], 0x0000_00ff);
}
