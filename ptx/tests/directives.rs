//! `Directive::dims` and `Function::directive_dims`: the launch-shape directives as the
//! simulator and the analyzer read them.

use phasegate_ptx::parse;

fn entry(directives: &str) -> phasegate_ptx::Function {
    let text = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry k()\n{directives}\n{{\n\tret;\n}}\n"
    );
    let module = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    module.entries().next().expect("one entry").clone()
}

#[test]
fn dimensions_default_to_one_and_must_be_integers() {
    let f = entry(".reqntid 160\n.maxntid 64, 2\n.reqnctapercluster 2, 1, 1");
    assert_eq!(f.directive_dims("reqntid"), Some((160, 1, 1)));
    assert_eq!(f.directive_dims("maxntid"), Some((64, 2, 1)));
    assert_eq!(f.directive_dims("reqnctapercluster"), Some((2, 1, 1)));
    assert_eq!(f.directive_dims("minnctapersm"), None);
    let f = entry(".maxntid 5000000000, 1, 1\n.pragma \"nounroll\"");
    assert_eq!(f.directive_dims("maxntid"), None, "does not fit u32");
    assert_eq!(
        f.directive_dims("pragma"),
        None,
        "a string is not a dimension"
    );
}
