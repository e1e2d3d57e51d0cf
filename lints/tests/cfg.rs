//! The control-flow graph on forms whose targets are not plain labels.

mod common;
use phasegate_lints::cfg::Cfg;
use phasegate_ptx::{Opcode, Statement};

/// `brx.idx` through a `.branchtargets` table (Triton's warp-specialised partitions) goes to
/// the table's labels, not to the label the table stands under (here the kernel's first
/// statement, which would make a loop of the whole prologue).
#[test]
fn a_jump_table_goes_to_its_labels_not_to_the_table() {
    let text = common::module(
        "",
        "
JT:
	.branchtargets ROLE0, ROLE1;
	mov.u32 %r1, %tid.x;
	bar.sync 0;
	shr.u32 %r2, %r1, 7;
	and.b32 %r3, %r2, 1;
	brx.idx %r3, JT;
ROLE0:
	bar.sync 1, 128;
	bra.uni DONE;
ROLE1:
	bar.sync 2, 128;
DONE:
	ret;",
    );
    let module = phasegate_ptx::parse(&text).expect("parses");
    let body = module
        .entries()
        .next()
        .and_then(|f| f.body.as_ref())
        .expect("body");
    let cfg = Cfg::new(body);
    let (brx, _) = body
        .iter()
        .find(|(_, s)| matches!(s, Statement::Instruction(i) if i.opcode == Opcode::Other("brx".into())))
        .expect("brx");
    let label_block = |name: &str| {
        let (id, _) = body
            .iter()
            .find(|(_, s)| matches!(s, Statement::Label(l) if l == name))
            .expect("label");
        cfg.block_of(id)
    };
    let mut succs = cfg.succs(cfg.block_of(brx)).to_vec();
    succs.sort_unstable();
    assert_eq!(succs, vec![label_block("ROLE0"), label_block("ROLE1")]);
}
