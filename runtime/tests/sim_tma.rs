//! Tensor maps and tensor copies against an H100 (`tests/fixtures/tensormap/`, made by
//! `probe.cpp` there): the encoder reproduces every map `cuTensorMapEncodeTiled` wrote and
//! refuses the ones it refused; the simulator's `tensormap.replace` writes the bytes the GPU's
//! did; and every tensor copy of `tests/sim/tma.ptx` leaves the bytes the GPU left, or stops
//! with a finding where the GPU raised an error.

use phasegate_runtime::sim::{
    self, ArgValue, FindingKind, Interleave, L2Promotion, Launch, OobFill, Outcome, Swizzle,
    TensorMap, TensorMapArg, TmaDataType,
};

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/../tests/fixtures/tensormap/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn ptx(name: &str) -> String {
    let path = format!("{}/../tests/sim/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len() / 2)
        .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

/// The `key=value` words of a fixture line.
fn fields(line: &str) -> Vec<(&str, &str)> {
    line.split_whitespace()
        .filter_map(|kv| kv.split_once('='))
        .collect()
}

fn field<'a>(f: &[(&'a str, &'a str)], key: &str) -> &'a str {
    f.iter()
        .find(|(k, _)| *k == key)
        .unwrap_or_else(|| panic!("no {key}"))
        .1
}

fn nums<T: std::str::FromStr>(text: &str) -> Vec<T>
where
    T::Err: std::fmt::Debug,
{
    if text == "-" {
        return Vec::new();
    }
    text.split('x')
        .map(|x| x.parse().expect("number"))
        .collect()
}

/// A map as the fixtures write it: `dtype:rank:dims:strides:box:estr:il:sw:l2:oob` (the
/// driver's numbering); `None` for values no sm_90 map has (the driver refused them too).
fn map_of(text: &str, address: u64) -> Option<TensorMap> {
    let p: Vec<&str> = text.split(':').collect();
    let rank: usize = p[1].parse().unwrap();
    let mut m = TensorMap {
        dtype: TmaDataType::from_driver_code(p[0].parse().unwrap())?,
        rank: rank as u32,
        address,
        dims: [1; 5],
        strides: [0; 4],
        box_dims: [1; 5],
        element_strides: [1; 5],
        interleave: [Interleave::None, Interleave::B16, Interleave::B32]
            [p[6].parse::<usize>().unwrap()],
        swizzle: *[Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128]
            .get(p[7].parse::<usize>().unwrap())?,
        l2_promotion: [
            L2Promotion::None,
            L2Promotion::B64,
            L2Promotion::B128,
            L2Promotion::B256,
        ][p[8].parse::<usize>().unwrap()],
        oob_fill: [OobFill::Zero, OobFill::NanRequestZeroFma][p[9].parse::<usize>().unwrap()],
    };
    m.dims[..rank].copy_from_slice(&nums::<u64>(p[2]));
    m.strides[..rank - 1].copy_from_slice(&nums::<u64>(p[3]));
    m.box_dims[..rank].copy_from_slice(&nums::<u32>(p[4]));
    m.element_strides[..rank].copy_from_slice(&nums::<u32>(p[5]));
    Some(m)
}

#[test]
fn the_encoder_writes_what_the_driver_wrote() {
    let text = fixture("encodings.txt");
    let (mut same, mut refused) = (0, 0);
    for line in text.lines().filter(|l| l.starts_with("enc ")) {
        let name = line.split_whitespace().nth(1).unwrap();
        let f = fields(line);
        let addr = u64::from_str_radix(field(&f, "addr"), 16).unwrap();
        let map = map_of(field(&f, "map"), addr);
        if field(&f, "rc") != "0" {
            // The driver refused it: so does the encoder's check.
            if let Some(m) = map {
                assert!(m.validate().is_err(), "{name}: the driver refused {m:?}");
            }
            refused += 1;
            continue;
        }
        let m = map.unwrap_or_else(|| panic!("{name}: the driver took it"));
        m.validate()
            .unwrap_or_else(|e| panic!("{name}: the driver took it, the check says {e}"));
        let bytes = hex(field(&f, "bytes"));
        assert_eq!(m.encode().to_vec(), bytes, "{name}");
        let back = TensorMap::decode(&bytes.try_into().unwrap()).unwrap();
        assert_eq!(back, m, "{name}");
        same += 1;
    }
    assert!(
        same >= 600 && refused >= 90,
        "{same} encoded, {refused} refused"
    );
    // The maps of the kernel cases, over real allocations.
    let text = fixture("kernels.txt");
    for line in text.lines().filter(|l| l.starts_with("case ")) {
        let f = fields(line);
        if field(&f, "enc") != "0" {
            continue;
        }
        let addr = u64::from_str_radix(field(&f, "addr"), 16).unwrap();
        let m = map_of(field(&f, "map"), addr).unwrap();
        assert_eq!(m.encode().to_vec(), hex(field(&f, "mapbytes")), "{line}");
    }
}

#[test]
fn tensormap_replace_writes_what_the_gpu_wrote() {
    let text = fixture("replace.txt");
    let base = text
        .lines()
        .find(|l| l.starts_with("replace_base"))
        .map(|l| hex(field(&fields(l), "bytes")))
        .unwrap();
    let slots = text.lines().filter(|l| l.starts_with("replace ")).count() / 2;
    for (from, start) in [("zero", vec![0u8; 128]), ("base2", base)] {
        let mut args = [ArgValue::Buffer(start.repeat(512))];
        let launch = Launch {
            block: (32, 1, 1),
            ..Launch::default()
        };
        sim::simulate_ptx(
            &ptx("tensormap_replace.ptx"),
            "tensormap_replace_probe",
            &launch,
            &mut args,
        )
        .unwrap()
        .expect_completed();
        let ArgValue::Buffer(out) = &args[0] else {
            unreachable!()
        };
        let mut checked = 0;
        for line in text
            .lines()
            .filter(|l| l.starts_with(&format!("replace from={from} ")))
        {
            let f = fields(line);
            let slot: usize = field(&f, "slot").parse().unwrap();
            let mut want = start.clone();
            for w in field(&f, "words").split(',').filter(|w| *w != "-") {
                let (i, v) = w.split_once(':').unwrap();
                let i: usize = i.parse().unwrap();
                want[i * 8..i * 8 + 8]
                    .copy_from_slice(&u64::from_str_radix(v, 16).unwrap().to_le_bytes());
            }
            assert_eq!(
                &out[slot * 128..slot * 128 + 128],
                &want[..],
                "{from}: {line}"
            );
            checked += 1;
        }
        assert_eq!(checked, slots);
    }
}

/// The input patterns of probe.cpp.
fn pattern(n: usize, name: &str) -> Vec<u8> {
    let mut b = vec![0u8; n];
    fn f2h(f: f32) -> u16 {
        // Exact values only, as probe.cpp's.
        let x = f.to_bits();
        let sign = ((x >> 16) & 0x8000) as u16;
        if x & 0x7fff_ffff == 0 {
            return sign;
        }
        let exp = ((x >> 23) & 0xff) as i32 - 127 + 15;
        let man = (x >> 13) & 0x3ff;
        if exp <= 0 {
            return sign | ((0x400 | man) >> (1 - exp)) as u16;
        }
        sign | ((exp as u32) << 10 | man) as u16
    }
    let mut put = |i: usize, bytes: &[u8]| {
        if i + bytes.len() <= n {
            b[i..i + bytes.len()].copy_from_slice(bytes);
        }
    };
    match name {
        "zero" => {}
        "bytes" => (0..n).for_each(|i| put(i, &[(i * 37 + 11) as u8])),
        "iota16" => (0..n / 2).for_each(|i| put(2 * i, &(i as u16).to_le_bytes())),
        "iota32" => (0..n / 4).for_each(|i| put(4 * i, &(i as u32).to_le_bytes())),
        "iota64" => (0..n / 8).for_each(|i| put(8 * i, &(i as u64).to_le_bytes())),
        "f32" => (0..n / 4).for_each(|i| put(4 * i, &(i as f32 * 0.25 - 64.0).to_le_bytes())),
        "f16" => {
            (0..n / 2).for_each(|i| put(2 * i, &f2h((i % 512) as f32 * 0.5 - 128.0).to_le_bytes()))
        }
        "bf16" => (0..n / 2).for_each(|i| {
            let f = (i % 64) as f32 * 0.5 - 16.0;
            put(2 * i, &((f.to_bits() >> 16) as u16).to_le_bytes())
        }),
        "s32" => (0..n / 4).for_each(|i| put(4 * i, &(i as i32 * 37 - 1000).to_le_bytes())),
        "u32hi" => (0..n / 4).for_each(|i| {
            put(
                4 * i,
                &0xffff_fff0u32.wrapping_add((i % 32) as u32).to_le_bytes(),
            )
        }),
        "s64" => (0..n / 8).for_each(|i| {
            put(
                8 * i,
                &(i as i64 * 3_000_000_000 - 40_000_000_000).to_le_bytes(),
            )
        }),
        other => panic!("unknown pattern {other}"),
    }
    b
}

/// Every case of `kernels.txt`: the simulator leaves the bytes the H100 left (and the
/// completion flags it wrote), or stops with a finding where the H100 raised an error.
#[test]
fn tensor_copies_leave_what_the_gpu_left() {
    let text = fixture("kernels.txt");
    let code = ptx("tma.ptx");
    let module = phasegate_ptx::parse(&code).unwrap();
    let mut ran = 0;
    for line in text.lines().filter(|l| l.starts_with("case ")) {
        let name = line.split_whitespace().nth(1).unwrap();
        let f = fields(line);
        let kernel = field(&f, "kernel");
        let (tbytes, tpat) = field(&f, "tensor").split_once(':').unwrap();
        let tensor = pattern(tbytes.parse().unwrap(), tpat);
        let map = map_of(field(&f, "map"), 0).unwrap();
        let mut specs: Vec<&str> = field(&f, "args").split(';').collect();
        let by_map = specs.iter().any(|a| *a == "map" || *a == "gmap");
        if by_map {
            assert_eq!(specs.pop(), Some("tensor"));
        }
        let mut args: Vec<ArgValue> = specs
            .iter()
            .map(|a| {
                let (kind, rest) = a.split_once(':').unwrap_or((a, ""));
                match kind {
                    "map" | "gmap" => TensorMapArg {
                        in_global: kind == "gmap",
                        ..TensorMapArg::owning(map.clone(), tensor.clone())
                    }
                    .into(),
                    "tensor" => ArgValue::Buffer(tensor.clone()),
                    "out" | "ws" => ArgValue::zeroed(rest.parse().unwrap()),
                    "in" => {
                        let (n, p) = rest.split_once(':').unwrap();
                        ArgValue::Buffer(pattern(n.parse().unwrap(), p))
                    }
                    "u32" => ArgValue::U32(rest.parse().unwrap()),
                    "s32" => ArgValue::U32(rest.parse::<i32>().unwrap() as u32),
                    "u64" => ArgValue::U64(rest.parse().unwrap()),
                    other => panic!("{name}: argument {other}"),
                }
            })
            .collect();
        let launch = Launch {
            grid: (field(&f, "grid").parse().unwrap(), 1, 1),
            block: (128, 1, 1),
            ..Launch::default()
        };
        let outcome = sim::simulate_module(&module, kernel, &launch, &mut args)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        ran += 1;
        let rc = field(&f, "rc");
        if name.ends_with("_wrongtx") {
            // The kernel expects 16 bytes more than the box has: on the GPU its wait gave up
            // (flag 0); the simulator sees the wait can never succeed.
            let r = outcome.expect_finding();
            assert_eq!(r.kind, FindingKind::Deadlock, "{name}: {r}");
            continue;
        }
        if rc != "0" {
            let r = match outcome {
                Outcome::Finding(r) => r,
                Outcome::Completed(_) => {
                    panic!("{name}: the GPU raised error {rc}, the run completed")
                }
            };
            assert!(
                matches!(r.kind, FindingKind::Misaligned | FindingKind::TensorCopy),
                "{name}: {r}"
            );
            continue;
        }
        if let Outcome::Finding(r) = &outcome {
            panic!("{name}: the GPU ran it, the simulator found:\n{r}");
        }
        for (key, value) in &f {
            if let Some(i) = key.strip_prefix("buf") {
                let i: usize = i.parse().unwrap();
                let ArgValue::Buffer(got) = &args[i] else {
                    panic!("{name}: argument {i} is not a buffer")
                };
                let want = hex(value);
                // A tensor map's first 8 bytes hold the GPU's address of the tensor.
                let from = if specs[i].starts_with("ws:") { 8 } else { 0 };
                assert_eq!(got.len(), want.len(), "{name}: buf{i}");
                if let Some(k) = (from..got.len()).find(|&k| got[k] != want[k]) {
                    panic!(
                        "{name}: buf{i} differs from byte {k}: simulator {:02x?}, GPU {:02x?}",
                        &got[k..(k + 16).min(got.len())],
                        &want[k..(k + 16).min(want.len())]
                    );
                }
            }
            if let Some(i) = key.strip_prefix("patch") {
                let i: usize = i.parse().unwrap();
                let mut want = tensor.clone();
                for run in value.split(',').filter(|r| *r != "-") {
                    let (at, bytes) = run.split_once(':').unwrap();
                    let at: usize = at.parse().unwrap();
                    let bytes = hex(bytes);
                    want[at..at + bytes.len()].copy_from_slice(&bytes);
                }
                let got = if i == specs.len() {
                    // The map's own tensor.
                    let ArgValue::TensorMap(t) = args
                        .iter()
                        .find(|a| matches!(a, ArgValue::TensorMap(_)))
                        .unwrap()
                    else {
                        unreachable!()
                    };
                    t.data().unwrap().to_vec()
                } else {
                    match &args[i] {
                        ArgValue::Buffer(b) => b.clone(),
                        _ => panic!("{name}: argument {i}"),
                    }
                };
                if let Some(k) = (0..got.len()).find(|&k| got[k] != want[k]) {
                    panic!(
                        "{name}: the tensor differs from byte {k}: simulator {:02x?}, GPU {:02x?}",
                        &got[k..(k + 16).min(got.len())],
                        &want[k..(k + 16).min(want.len())]
                    );
                }
            }
        }
    }
    assert!(ran >= 80, "{ran} cases");
}
