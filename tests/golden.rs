//! Golden PTX of the example kernels: any change to the code generation shows up here as a
//! reviewable diff (`cargo insta review`, or `INSTA_UPDATE=always` and `git diff`).

#[path = "../examples/dot.rs"]
#[allow(dead_code)]
mod dot;
#[path = "../examples/pipeline.rs"]
#[allow(dead_code)]
mod pipeline;
#[path = "../examples/scale.rs"]
#[allow(dead_code)]
mod scale;
#[path = "../examples/transpose.rs"]
#[allow(dead_code)]
mod transpose;

#[test]
fn scale_ptx() {
    insta::assert_snapshot!(scale::scale::PTX);
}

#[test]
fn transpose_ptx() {
    insta::assert_snapshot!(transpose::transpose::PTX);
}

#[test]
fn dot_ptx() {
    insta::assert_snapshot!(dot::dot::PTX);
}

#[test]
fn pipeline_ptx() {
    insta::assert_snapshot!(pipeline::scale_pipeline::PTX);
}
