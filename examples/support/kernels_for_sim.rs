//! The example kernels with small launches and inputs, for tests that run them in the
//! simulator (the GPU differential harness has its own, larger ones).

#[path = "../cluster_exchange.rs"]
#[allow(dead_code)]
mod cluster_exchange;
#[path = "../dot.rs"]
#[allow(dead_code)]
mod dot;
#[path = "../multicast.rs"]
#[allow(dead_code)]
mod multicast;
#[path = "../popc_count.rs"]
#[allow(dead_code)]
mod popc_count;
#[path = "../producer_consumer.rs"]
#[allow(dead_code)]
mod producer_consumer;
#[path = "../scale.rs"]
#[allow(dead_code)]
mod scale;
#[path = "../transpose.rs"]
#[allow(dead_code)]
mod transpose;

use phasegate::runtime::KernelSpec;
use phasegate::runtime::sim::{ArgValue, Launch};

fn floats(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 7919) % 1000) as f32 / 500.0 - 1.0)
        .collect()
}

fn launch(grid: (u32, u32, u32), block: (u32, u32, u32)) -> Launch {
    Launch {
        grid,
        block,
        ..Launch::default()
    }
}

/// (name, kernel, launch, arguments) for each example but the bulk-copy pipeline.
pub fn cases() -> Vec<(&'static str, KernelSpec, Launch, Vec<ArgValue>)> {
    vec![
        (
            "scale",
            scale::scale::SPEC,
            launch((2, 1, 1), (64, 1, 1)),
            vec![
                ArgValue::buffer(&floats(100)),
                ArgValue::zeroed(400),
                ArgValue::F32(2.0),
                ArgValue::U32(100),
            ],
        ),
        (
            "transpose",
            transpose::transpose::SPEC,
            launch((2, 2, 1), (32, 8, 1)),
            vec![
                ArgValue::buffer(&floats(40 * 33)),
                ArgValue::zeroed(40 * 33 * 4),
                ArgValue::U32(40),
                ArgValue::U32(33),
            ],
        ),
        (
            "dot",
            dot::dot::SPEC,
            launch((2, 1, 1), (256, 1, 1)),
            vec![
                ArgValue::buffer(&floats(700)),
                ArgValue::buffer(&floats(700)),
                ArgValue::zeroed(8),
                ArgValue::U32(700),
            ],
        ),
        (
            "popc_count",
            popc_count::popc_count::SPEC,
            launch((2, 1, 1), (64, 1, 1)),
            vec![
                ArgValue::buffer(&floats(100)),
                ArgValue::zeroed(8),
                ArgValue::F32(0.0),
                ArgValue::U32(100),
            ],
        ),
        (
            "producer_consumer",
            producer_consumer::producer_consumer::SPEC,
            launch((1, 1, 1), (64, 1, 1)),
            vec![ArgValue::zeroed(4 * 32 * 4), ArgValue::U32(4)],
        ),
        (
            "cluster_exchange",
            cluster_exchange::cluster_exchange::SPEC,
            Launch {
                cluster: Some((2, 1, 1)),
                ..launch((2, 1, 1), (128, 1, 1))
            },
            vec![ArgValue::buffer(&floats(256)), ArgValue::zeroed(1024)],
        ),
        (
            "multicast_tile",
            multicast::multicast_tile::SPEC,
            Launch {
                cluster: Some((2, 1, 1)),
                ..launch((4, 1, 1), (128, 1, 1))
            },
            vec![ArgValue::buffer(&floats(256)), ArgValue::zeroed(2048)],
        ),
    ]
}
