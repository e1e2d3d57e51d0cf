//! By-value struct arguments ([`StructArg`]) with pointer relocations onto a buffer of the
//! struct's own and onto a buffer argument of the launch (at a byte offset into it), read by
//! name and through a register holding the parameter's `.param` address (PTX ISA §5.1.6.1,
//! as nvcc reads CUTLASS's `Params`). The CUTLASS kernels' tensor-map relocations are tested
//! in `sim_cutlass.rs`.

use phasegate_ptx::{SmVersion, ptxas};
use phasegate_sim::{ArgValue, Launch, Outcome, RelocTarget, StructArg, simulate_ptx};

/// `struct { const u32* in; u32* out; u32 n; u32 scale; }` by value and one buffer argument:
/// `out[i] = scale * in[i]` for `i < n`.
const KERNEL: &str = r#".version 8.0
.target sm_90
.address_size 64

.visible .entry scale_struct(
    .param .align 8 .b8 s[24],
    .param .u64 extra
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<9>;
    mov.u32 %r1, %tid.x;
    mov.b64 %rd1, s;
    ld.param.u32 %r2, [%rd1+16];
    ld.param.u32 %r3, [s+20];
    setp.ge.u32 %p1, %r1, %r2;
    @%p1 bra DONE;
    ld.param.u64 %rd2, [s];
    ld.param.u64 %rd3, [%rd1+8];
    cvta.to.global.u64 %rd4, %rd2;
    cvta.to.global.u64 %rd5, %rd3;
    mul.wide.u32 %rd6, %r1, 4;
    add.s64 %rd7, %rd4, %rd6;
    ld.global.u32 %r4, [%rd7];
    mul.lo.u32 %r5, %r4, %r3;
    add.s64 %rd8, %rd5, %rd6;
    st.global.u32 [%rd8], %r5;
DONE:
    ret;
}
"#;

fn params(n: u32, scale: u32) -> Vec<u8> {
    let mut b = vec![0xeeu8; 24]; // the host's stale addresses: overwritten by the relocations
    b[16..20].copy_from_slice(&n.to_le_bytes());
    b[20..24].copy_from_slice(&scale.to_le_bytes());
    b
}

#[test]
fn the_kernel_assembles() {
    let ptxas = ptxas::locate().unwrap_or_else(|e| panic!("{e}"));
    let r = ptxas::assemble(&ptxas, KERNEL, SmVersion::arch_specific(90)).unwrap();
    assert!(r.clean, "{}", r.log);
}

#[test]
fn pointers_into_own_and_argument_buffers() {
    let mut s = StructArg::new(params(8, 3));
    let out = s.buffer("out", vec![0; 32]);
    // `in` is the buffer argument from its second element on.
    s.pointer(0, RelocTarget::Arg(1), 4)
        .pointer(8, RelocTarget::Own(out), 0);
    let input: Vec<u32> = (10..20).collect();
    let mut args = [ArgValue::from(s), ArgValue::buffer(&input)];
    let launch = Launch {
        block: (32, 1, 1),
        ..Launch::default()
    };
    match simulate_ptx(KERNEL, "scale_struct", &launch, &mut args) {
        Ok(Outcome::Completed(_)) => {}
        other => panic!("{other:?}"),
    }
    let ArgValue::Struct(s) = &args[0] else {
        panic!("the struct comes back")
    };
    let got: Vec<u32> = s
        .data("out")
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(got, [33, 36, 39, 42, 45, 48, 51, 54]);
    // The buffer argument comes back too, unchanged.
    assert_eq!(args[1].read::<u32>(), input);
}

#[test]
fn a_pointer_past_the_end_is_out_of_bounds() {
    // `in` at the end of a 16-byte buffer: the first load reads past it.
    let mut s = StructArg::new(params(4, 1));
    let a = s.buffer("a", vec![0; 16]);
    let out = s.buffer("out", vec![0; 16]);
    s.pointer(0, RelocTarget::Own(a), 16)
        .pointer(8, RelocTarget::Own(out), 0);
    let mut args = [ArgValue::from(s), ArgValue::zeroed(4)];
    let launch = Launch {
        block: (32, 1, 1),
        ..Launch::default()
    };
    match simulate_ptx(KERNEL, "scale_struct", &launch, &mut args) {
        Ok(Outcome::Finding(r)) => {
            let text = r.to_string();
            assert!(
                text.contains("4 bytes at offset 16 of buffer `a` of argument 0 (`s`) (16 bytes)"),
                "{text}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn pointer_targets_must_be_buffers() {
    let mut s = StructArg::new(params(4, 1));
    s.pointer(0, RelocTarget::Arg(1), 0);
    let mut args = [ArgValue::from(s), ArgValue::U64(0)];
    let e = simulate_ptx(KERNEL, "scale_struct", &Launch::default(), &mut args).unwrap_err();
    assert!(
        e.to_string()
            .contains("argument 0 (struct): ptr at 0x0: argument 1 is a u64, not a buffer"),
        "{e}"
    );
}
