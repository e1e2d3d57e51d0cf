//! Tensor maps and tensor copies against an H100 (`tests/fixtures/tensormap/`, made by
//! `probe.cpp` there): the encoder reproduces every map `cuTensorMapEncodeTiled` wrote and
//! refuses the ones it refused; the simulator's `tensormap.replace` writes the bytes the GPU's
//! did; and every tensor copy of `tests/sim/tma.ptx` leaves the bytes the GPU left, or stops
//! with a finding where the GPU raised an error.

use phasegate_sim::{
    self as sim, ArgValue, FindingKind, Interleave, L2Promotion, Launch, OobFill, Outcome, Swizzle,
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

/// What a tensor load leaves in shared memory, computed from the PTX ISA's description
/// (§5.5.3, §5.5.7) and what the H100 showed: the box is dense in shared memory, rows along
/// dimension 0 padded to the swizzle span, each 16-byte chunk at `a ^ ((a >> 7) % n) << 4`
/// of its absolute address `a` (the dump starts at a 1024-byte boundary); elements outside
/// the tensor are the fill.
fn model_load(m: &TensorMap, tensor: &[u8], c: &[i64], dst_off: usize, dump: usize) -> Vec<u8> {
    let r = m.rank as usize;
    let e = m.dtype.bytes() as usize;
    let count = |i: usize| {
        if i == 0 {
            m.box_dims[0] as usize
        } else {
            (m.box_dims[i] as usize).div_ceil(m.element_strides[i] as usize)
        }
    };
    let span = match m.swizzle {
        Swizzle::None => 0,
        Swizzle::B32 => 32,
        Swizzle::B64 => 64,
        Swizzle::B128 => 128,
    };
    let pitch = (count(0) * e).max(span);
    let mut out = vec![0xee; dump];
    let rows: usize = (1..r).map(count).product();
    for row in 0..rows {
        // The box index of this row along dimensions 1..
        let mut idx = [0usize; 5];
        let mut rest = row;
        for (i, x) in idx.iter_mut().enumerate().take(r).skip(1) {
            *x = rest % count(i);
            rest /= count(i);
        }
        for k in 0..count(0) {
            idx[0] = k;
            let coord: Vec<i64> = (0..r)
                .map(|i| {
                    c[i] + idx[i] as i64
                        * if i == 0 {
                            1
                        } else {
                            m.element_strides[i] as i64
                        }
                })
                .collect();
            let inside = (0..r).all(|i| coord[i] >= 0 && (coord[i] as u64) < m.dims[i]);
            let value: Vec<u8> = if inside {
                let at = coord[0] as usize * e
                    + (1..r)
                        .map(|i| coord[i] as usize * m.strides[i - 1] as usize)
                        .sum::<usize>();
                let v = tensor[at..at + e].to_vec();
                if matches!(m.dtype, TmaDataType::Tf32 | TmaDataType::Tf32Ftz) {
                    let x = u32::from_le_bytes(v[..4].try_into().unwrap());
                    let exp = (x >> 23) & 0xff;
                    let y = if exp == 0xff {
                        x
                    } else {
                        x.wrapping_add(0x1000) & !0x1fff
                    };
                    y.to_le_bytes().to_vec()
                } else {
                    v
                }
            } else if m.oob_fill == OobFill::NanRequestZeroFma {
                [0xf7, 0x7f].repeat(4)[..e].to_vec()
            } else {
                vec![0; e]
            };
            let a = dst_off + row * pitch + k * e;
            let lines = match m.swizzle {
                Swizzle::None => 0,
                Swizzle::B32 => 1,
                Swizzle::B64 => 3,
                Swizzle::B128 => 7,
            };
            let a = a ^ (((a >> 7) & lines) << 4);
            if a + e <= dump {
                out[a..a + e].copy_from_slice(&value);
            }
        }
    }
    out
}

/// The model of a load agrees with the H100 on every load of `kernels.txt`, and the simulator
/// with the model on random loads the GPU never ran (every type, rank, swizzle, fill and
/// element stride, coordinates in and around the tensor).
#[test]
fn tensor_loads_agree_with_a_model_of_the_isa() {
    let text = fixture("kernels.txt");
    let mut checked = 0;
    for line in text.lines().filter(|l| l.starts_with("case ")) {
        let f = fields(line);
        let kernel = field(&f, "kernel");
        if !kernel.starts_with("tma_load") || field(&f, "rc") != "0" || line.contains("_wrongtx") {
            continue;
        }
        let (tb, tp) = field(&f, "tensor").split_once(':').unwrap();
        let tensor = pattern(tb.parse().unwrap(), tp);
        let m = map_of(field(&f, "map"), 0).unwrap();
        let args: Vec<&str> = field(&f, "args").split(';').collect();
        let dump: usize = args[2][4..].parse().unwrap();
        let dst_off: usize = args[3][4..].parse().unwrap();
        let c: Vec<i64> = args
            .iter()
            .filter_map(|a| a.strip_prefix("s32:"))
            .map(|x| x.parse().unwrap())
            .collect();
        let gpu = hex(field(&f, "buf1"));
        assert_eq!(
            model_load(&m, &tensor, &c, dst_off, dump),
            gpu[..dump],
            "{line}"
        );
        checked += 1;
    }
    assert!(checked >= 35, "{checked}");

    // Random loads through tma_load_{1..5}d.
    let code = ptx("tma.ptx");
    let module = phasegate_ptx::parse(&code).unwrap();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n.max(1)
    };
    let types = [
        TmaDataType::U8,
        TmaDataType::U16,
        TmaDataType::I32,
        TmaDataType::U64,
        TmaDataType::F16,
        TmaDataType::F32,
        TmaDataType::F64,
        TmaDataType::Bf16,
        TmaDataType::Tf32,
    ];
    let mut ran = 0;
    let mut swizzles = [0; 4];
    while ran < 80 {
        let dtype = types[rnd(types.len() as u64) as usize];
        let e = dtype.bytes() as u64;
        let rank = 1 + rnd(5) as usize;
        let swizzle = [Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128][rnd(4) as usize];
        let inner_max = match swizzle {
            Swizzle::None => 64,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 => 128,
        };
        let box0 = ((1 + rnd(inner_max / 16)) * 16 / e) as u32;
        let mut dims = vec![1 + rnd(80) + box0 as u64 / 2];
        let mut boxes = vec![box0];
        let mut estr = vec![1];
        for _ in 1..rank {
            dims.push(1 + rnd(6));
            boxes.push(1 + rnd(4) as u32);
            estr.push(1 + rnd(3) as u32);
        }
        let mut strides = Vec::new();
        let mut s = (dims[0] * e).div_ceil(16) * 16 + 16 * rnd(2);
        for d in dims.iter().skip(1) {
            strides.push(s);
            s *= d;
        }
        let fill = if dtype == TmaDataType::F16 || dtype == TmaDataType::F32 {
            [OobFill::Zero, OobFill::NanRequestZeroFma][rnd(2) as usize]
        } else {
            OobFill::Zero
        };
        let Ok(m) = TensorMap::tiled(dtype, 0, &dims, &strides, &boxes)
            .and_then(|m| m.with_swizzle(swizzle))
            .and_then(|m| m.with_element_strides(&estr))
            .and_then(|m| m.with_oob_fill(fill))
        else {
            continue;
        };
        let tensor = pattern((s as usize).max(16), "bytes");
        // Coordinates in and around the tensor; dimension 0's a multiple of 16 bytes.
        let per16 = (16 / e) as i64;
        let c: Vec<i64> = (0..rank)
            .map(|i| {
                if i == 0 {
                    (rnd(dims[0] + 2 * per16 as u64) as i64 / per16 - 1) * per16
                } else {
                    rnd(dims[i] + 3) as i64 - 1
                }
            })
            .collect();
        let bytes = m.box_bytes();
        let footprint = model_load(&m, &tensor, &c, 0, 16384)
            .iter()
            .rposition(|&b| b != 0xee)
            .map_or(0, |p| p + 1);
        let dst_off = 128 * rnd(4) as usize;
        let dump = (dst_off + footprint + 256).div_ceil(512) * 512;
        if dump > 16384 {
            continue;
        }
        let mut args = vec![
            ArgValue::from(TensorMapArg::owning(m.clone(), tensor.clone())),
            ArgValue::zeroed(dump + 16),
            ArgValue::U32(dump as u32),
            ArgValue::U32(dst_off as u32),
            ArgValue::U32(bytes as u32),
        ];
        args.extend(c.iter().map(|&x| ArgValue::U32(x as i32 as u32)));
        let launch = Launch {
            block: (128, 1, 1),
            ..Launch::default()
        };
        let kernel = format!("tma_load_{rank}d");
        sim::simulate_module(&module, &kernel, &launch, &mut args)
            .unwrap()
            .expect_completed();
        let ArgValue::Buffer(out) = &args[1] else {
            unreachable!()
        };
        assert_eq!(
            &out[..dump],
            &model_load(&m, &tensor, &c, dst_off, dump)[..],
            "{m:?} at {c:?} (+{dst_off})"
        );
        assert_eq!(out[dump], 1, "the mbarrier phase completed");
        ran += 1;
        swizzles[swizzle as usize] += 1;
    }
    assert!(swizzles.iter().all(|&n| n > 5), "{swizzles:?}");
}

fn pipeline_args(ktiles: u32, wait_empty: bool) -> (Vec<ArgValue>, Vec<f32>) {
    let rows = 8 * ktiles as u64;
    let a: Vec<f32> = (0..rows * 48)
        .map(|i| ((i / 48 * 7 + i % 48) % 13) as f32 - 6.0)
        .collect();
    let want: Vec<f32> = (0..32)
        .map(|c| (0..rows as usize).map(|k| a[k * 48 + c]).sum())
        .collect();
    let map_a = TensorMap::tiled(TmaDataType::F32, 0, &[48, rows], &[192], &[32, 8])
        .unwrap()
        .with_swizzle(Swizzle::B128)
        .unwrap();
    let map_out = TensorMap::tiled(TmaDataType::F32, 0, &[32], &[], &[32]).unwrap();
    let ArgValue::Buffer(a) = ArgValue::buffer(&a) else {
        unreachable!()
    };
    (
        vec![
            TensorMapArg::owning(map_a, a).into(),
            TensorMapArg::owning(map_out, vec![0; 128]).into(),
            ArgValue::U32(ktiles),
            ArgValue::U32(wait_empty as u32),
        ],
        want,
    )
}

#[test]
fn a_warp_specialised_tma_pipeline_sums_its_tiles() {
    let code = ptx("tma_pipeline.ptx");
    let module = phasegate_ptx::parse(&code).unwrap();
    let launch = Launch {
        block: (256, 1, 1),
        ..Launch::default()
    };
    for ktiles in [1, 3, 7] {
        let (args, want) = pipeline_args(ktiles, true);
        // Under several schedules (the copies' completion times among them).
        let found = sim::explore(&module, "tma_pipeline", &launch, &args, 6).unwrap();
        assert!(found.failure.is_none(), "{:?}", found.failure);
        let mut args = args;
        sim::simulate_module(&module, "tma_pipeline", &launch, &mut args)
            .unwrap()
            .expect_completed();
        let ArgValue::TensorMap(out) = &args[1] else {
            unreachable!()
        };
        let got: Vec<f32> = out
            .data()
            .unwrap()
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(got, want, "{ktiles} tiles");
    }
    // Without the wait for a free stage the producer's copy overwrites a stage the consumers
    // have not finished: found under some schedule.
    let (args, _) = pipeline_args(7, false);
    let found = sim::explore(&module, "tma_pipeline", &launch, &args, 12).unwrap();
    let failure = found.failure.expect("a failure");
    assert!(
        matches!(
            failure.report.kind,
            FindingKind::SharedRace
                | FindingKind::AsyncReadBeforeWait
                | FindingKind::MbarrierInvalidPhase
                | FindingKind::MbarrierCountRange
        ),
        "{}",
        failure.report
    );
}

/// A kernel `k(params)` with the registers, a 4 KiB tile and an mbarrier `bar`.
fn kernel(params: &str, body: &str) -> String {
    format!(
        ".version 8.6\n.target sm_90a\n.address_size 64\n.visible .entry k({params})\n{{\n\t.reg .pred %p<8>;\n\t.reg .b32 %r<40>;\n\t.reg .b64 %rd<16>;\n\t.reg .f32 %f<4>;\n\t.shared .align 1024 .b8 tile[4096];\n\t.shared .align 8 .b64 bar;\n{body}\tret;\n}}\n"
    )
}

fn run(code: &str, threads: u32, args: &mut [ArgValue]) -> Outcome {
    let launch = Launch {
        block: (threads, 1, 1),
        ..Launch::default()
    };
    sim::simulate_ptx(code, "k", &launch, args).unwrap_or_else(|e| panic!("{e}\n{code}"))
}

fn finding(code: &str, threads: u32, args: &mut [ArgValue], kind: FindingKind) -> String {
    let r = run(code, threads, args).expect_finding();
    assert_eq!(r.kind, kind, "{r}");
    r.to_string()
}

fn map_16x8() -> TensorMap {
    TensorMap::tiled(TmaDataType::F32, 0, &[40, 30], &[160], &[16, 8]).unwrap()
}

/// Thread 0 loads the box at (0, 0) of `map` (the generic address in %rd2) into tile and
/// everyone waits; `READ` marks where the tile is read.
const LOAD_AND_WAIT: &str = "\tmov.u32 %r1, %tid.x;
\tsetp.eq.u32 %p1, %r1, 0;
\t@%p1 mbarrier.init.shared::cta.b64 [bar], 1;
\tbar.sync 0;
\t@!%p1 bra WAIT;
\tmbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 512;
\tmov.u32 %r2, 0;
\tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd2, {%r2, %r2}], [bar];
WAIT:
\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
\t@!%p2 bra WAIT;
\tld.shared.f32 %f1, [tile];
";

#[test]
fn setmaxnreg_is_checked_per_warpgroup() {
    let uniform = kernel("", "\tsetmaxnreg.dec.sync.aligned.u32 40;\n");
    run(&uniform, 256, &mut []).expect_completed();
    // A warpgroup of 3 warps.
    let r = finding(&uniform, 96, &mut [], FindingKind::Setmaxnreg);
    assert!(r.contains("3 of its 4 warps"), "{r}");
    // Warp 0 gives up fewer registers than the other warps of its warpgroup.
    let differ = kernel(
        "",
        "\tmov.u32 %r1, %tid.x;
\tsetp.lt.u32 %p1, %r1, 32;
\t@%p1 bra FIRST;
\tsetmaxnreg.dec.sync.aligned.u32 40;
\tbra DONE;
FIRST:
\tsetmaxnreg.dec.sync.aligned.u32 48;
DONE:
",
    );
    let r = finding(&differ, 128, &mut [], FindingKind::Setmaxnreg);
    assert!(r.contains(".dec 40") && r.contains(".dec 48"), "{r}");
    let odd = kernel("", "\tsetmaxnreg.inc.sync.aligned.u32 100;\n");
    finding(&odd, 128, &mut [], FindingKind::Setmaxnreg);
    // Part of a warp: an aligned instruction reached divergently.
    let part = kernel(
        "",
        "\tmov.u32 %r1, %tid.x;
\tsetp.lt.u32 %p1, %r1, 16;
\t@%p1 setmaxnreg.dec.sync.aligned.u32 40;
",
    );
    finding(&part, 128, &mut [], FindingKind::DivergentAlignedBarrier);
}

#[test]
fn a_replaced_tensor_map_is_fenced_before_a_copy_reads_it() {
    // Thread 0 shrinks the box to 4 rows in the map in global memory, then loads with it.
    let body = |fenced: bool| {
        format!(
            "\tld.param.u64 %rd2, [gmap];
\tmov.u32 %r1, %tid.x;
\tsetp.eq.u32 %p1, %r1, 0;
\t@%p1 tensormap.replace.tile.box_dim.global.b1024.b32 [%rd2], 1, 4;
{}\t@%p1 mbarrier.init.shared::cta.b64 [bar], 1;
\tbar.sync 0;
\t@!%p1 bra WAIT;
\tmbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 256;
\tmov.u32 %r2, 0;
\tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd2, {{%r2, %r2}}], [bar];
WAIT:
\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
\t@!%p2 bra WAIT;
",
            if fenced {
                "\t@%p1 fence.proxy.tensormap::generic.release.gpu;\n\t@%p1 fence.proxy.tensormap::generic.acquire.gpu [%rd2], 128;\n"
            } else {
                ""
            }
        )
    };
    let args = || {
        let tensor = pattern(4800, "f32");
        vec![ArgValue::from(TensorMapArg {
            in_global: true,
            ..TensorMapArg::owning(map_16x8(), tensor)
        })]
    };
    let r = finding(
        &kernel(".param .u64 gmap", &body(false)),
        32,
        &mut args(),
        FindingKind::ProxyFenceMissing,
    );
    assert!(r.contains("fence.proxy.tensormap::generic"), "{r}");
    // Fenced, the copy takes the new box: 4 rows, the 256 bytes the mbarrier expects.
    run(&kernel(".param .u64 gmap", &body(true)), 32, &mut args()).expect_completed();
}

#[test]
fn tensor_copy_misuse_is_reported() {
    let by_value = ".param .align 64 .b8 map[128]";
    let get_map = "\tmov.b64 %rd1, map;\n\tcvta.param.u64 %rd2, %rd1;\n";
    let map = || TensorMapArg::owning(map_16x8(), pattern(4800, "f32"));
    // The correct load.
    let ok = kernel(by_value, &format!("{get_map}{LOAD_AND_WAIT}"));
    run(&ok, 32, &mut [map().into()]).expect_completed();
    // Reading the tile before the wait.
    let early = kernel(
        by_value,
        &format!(
            "{get_map}{}",
            LOAD_AND_WAIT.replace("WAIT:\n", "\tld.shared.f32 %f2, [tile];\nWAIT:\n")
        ),
    );
    finding(
        &early,
        32,
        &mut [map().into()],
        FindingKind::AsyncReadBeforeWait,
    );
    // A map whose tensor is larger than its buffer.
    let small = TensorMapArg::owning(map_16x8(), pattern(1024, "f32"));
    let r = finding(&ok, 32, &mut [small.into()], FindingKind::OutOfBounds);
    assert!(r.contains("not in global memory"), "{r}");
    // A 2D map used by a 3D copy.
    let three = kernel(
        by_value,
        &format!(
            "{get_map}{}",
            LOAD_AND_WAIT
                .replace("[%rd2, {%r2, %r2}]", "[%rd2, {%r2, %r2, %r2}]")
                .replace("tensor.2d", "tensor.3d")
        ),
    );
    finding(&three, 32, &mut [map().into()], FindingKind::TensorCopy);
    // An mbarrier never initialised.
    let uninit = kernel(
        by_value,
        &format!(
            "{get_map}{}",
            LOAD_AND_WAIT.replace("\t@%p1 mbarrier.init.shared::cta.b64 [bar], 1;\n", "")
        ),
    );
    finding(
        &uninit,
        32,
        &mut [map().into()],
        FindingKind::MbarrierUninitialized,
    );
    // A store of shared memory written without fence.proxy.async.
    let store = |fence: &str| {
        kernel(
            by_value,
            &format!(
                "{get_map}\tmov.u32 %r1, %tid.x;
\tshl.b32 %r3, %r1, 4;
\tmov.u32 %r4, tile;
\tadd.u32 %r5, %r4, %r3;
\tmov.b32 %r6, 0f3F800000;
\tst.shared.v4.b32 [%r5], {{%r6, %r6, %r6, %r6}};
{fence}\tbar.sync 0;
\tsetp.ne.u32 %p1, %r1, 0;
\t@%p1 bra DONE;
\tmov.u32 %r2, 0;
\tcp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd2, {{%r2, %r2}}], [tile];
\tcp.async.bulk.commit_group;
\tcp.async.bulk.wait_group 0;
DONE:
"
            ),
        )
    };
    finding(
        &store(""),
        32,
        &mut [map().into()],
        FindingKind::ProxyFenceMissing,
    );
    let mut args = [map().into()];
    run(&store("\tfence.proxy.async.shared::cta;\n"), 32, &mut args).expect_completed();
    let ArgValue::TensorMap(t) = &args[0] else {
        unreachable!()
    };
    let out = t.data().unwrap();
    // Rows 0..8, columns 0..16 are 1.0, the rest of the tensor as it was.
    let f = |i: usize| f32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!(
        (f(0), f(15), f(16), f(40 * 7 + 15), f(40 * 8)),
        (1.0, 1.0, -60.0, 1.0, 16.0)
    );
    // A map that does not fit its parameter, or over an argument that is not a buffer.
    let err = sim::simulate_ptx(
        &ok,
        "k",
        &Launch::default(),
        &mut [TensorMapArg {
            in_global: true,
            ..map()
        }
        .into()],
    )
    .unwrap_err();
    assert!(err.to_string().contains("8-byte pointer"), "{err}");
    let err = sim::simulate_ptx(
        &ok,
        "k",
        &Launch::default(),
        &mut [TensorMapArg::over_arg(map_16x8(), 0).into()],
    )
    .unwrap_err();
    assert!(err.to_string().contains("not a buffer"), "{err}");
    // A map at an offset the driver refuses: the launch fails, the buffer stays with its data.
    let two = kernel(".param .u64 buf, .param .align 64 .b8 map[128]", "");
    let mut args = [
        ArgValue::Buffer(vec![7; 4800]),
        TensorMapArg {
            offset: 8,
            ..TensorMapArg::over_arg(map_16x8(), 0)
        }
        .into(),
    ];
    let err = sim::simulate_ptx(&two, "k", &Launch::default(), &mut args).unwrap_err();
    assert!(err.to_string().contains("16-byte aligned"), "{err}");
    assert_eq!(args[0], ArgValue::Buffer(vec![7; 4800]));
}

/// Warp 1 writes the 512-byte box at `tile` (a quad a lane), every thread meets at `bar.sync
/// 0`, and each lane of warp 0 stores the box (as each lane of CUTLASS's storing warp does),
/// `FENCE` before its store; `SECOND` is what warp 1 does after the barrier.
const BOX_STORED_BY_EACH_LANE: &str = "\tmov.u32 %r1, %tid.x;
\tshr.u32 %r7, %r1, 5;
\tmov.u32 %r4, tile;
\tsetp.eq.u32 %p2, %r7, 1;
\t@!%p2 bra MET;
\tand.b32 %r3, %r1, 31;
\tshl.b32 %r3, %r3, 4;
\tadd.u32 %r5, %r4, %r3;
\tmov.b32 %r6, 0f3F800000;
\tst.shared.v4.b32 [%r5], {%r6, %r6, %r6, %r6};
MET:
\tbar.sync 0;
\t@%p2 bra SECOND;
FENCE\tmov.u32 %r2, 0;
\tcp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd2, {%r2, %r2}], [tile];
\tcp.async.bulk.commit_group;
\tcp.async.bulk.wait_group.read 0;
\tbra.uni DONE;
SECOND:
SECOND_BODY
DONE:
";

/// The reads of a TMA store's box whose race-check needs the first lane's store found
/// (`Race::async_read_box`, kept for the next lanes' stores of the same box) must still
/// report what each lane's own check reports: warp 1's writes of the box are ordered before
/// every lane's store by the barrier, but fenced for the async proxy only by lane 0's own
/// `fence.proxy.async` (the issuer's fence, which counts for lane 0's store alone): lane 1's
/// store reads the writes unfenced. And a generic write into the box by warp 1 after the
/// barrier, unordered with the stores' reads, is a race.
#[test]
fn the_lanes_stores_of_one_box_check_each_lane() {
    let by_value = ".param .align 64 .b8 map[128]";
    let get_map = "\tmov.b64 %rd1, map;\n\tcvta.param.u64 %rd2, %rd1;\n";
    let map = || TensorMapArg::owning(map_16x8(), pattern(4800, "f32"));
    let code = |fence: &str, second: &str| {
        kernel(
            by_value,
            &format!(
                "{get_map}{}",
                BOX_STORED_BY_EACH_LANE
                    .replace("FENCE", fence)
                    .replace("SECOND_BODY", second)
            ),
        )
    };
    let every_lane = "\tfence.proxy.async.shared::cta;\n";
    let lane_0 = "\tsetp.eq.u32 %p3, %r1, 0;\n\t@%p3 fence.proxy.async.shared::cta;\n";
    // Every lane fenced, nothing after: the stores complete.
    run(&code(every_lane, ""), 64, &mut [map().into()]).expect_completed();
    // Lane 0 fenced alone: lane 1's store is the first whose read is unfenced.
    let r = run(&code(lane_0, ""), 64, &mut [map().into()]).expect_finding();
    assert_eq!(r.kind, FindingKind::ProxyFenceMissing, "{r}");
    assert_eq!((r.sites[0].warp, r.sites[0].tid), (0, (1, 0, 0)), "{r}");
    // Warp 1's lane 3 writes into the box after the barrier, after a few instructions of its
    // own; under random schedules the lanes' stores complete before it, or some before and
    // some after (then the next lane's read finds the box's needs kept and the write changed).
    let write = "\tmov.u32 %r9, 0;\nSPIN:\n\tadd.u32 %r9, %r9, 1;\n\tsetp.lt.u32 %p5, %r9, 8;\n\t@%p5 bra SPIN;\n\tsetp.eq.u32 %p4, %r1, 35;\n\t@%p4 st.shared.f32 [tile+52], %f1;\n";
    let mut later_lanes = 0;
    for seed in 1..=24 {
        let launch = Launch {
            block: (64, 1, 1),
            schedule: sim::Schedule {
                policy: sim::Policy::Random,
                seed,
            },
            ..Launch::default()
        };
        let r = sim::simulate_ptx(&code(every_lane, write), "k", &launch, &mut [map().into()])
            .unwrap()
            .expect_finding();
        // Or, where a store read the cell before the write and has not completed: the write
        // while the operation may still read.
        assert!(
            matches!(
                r.kind,
                FindingKind::SharedRace | FindingKind::AsyncReadBeforeWait
            ),
            "{r}"
        );
        assert!(r.message.contains("shared memory `tile`+52"), "{r}");
        let copy = r
            .sites
            .iter()
            .find(|s| s.warp == 0)
            .expect("a lane's store");
        let write = r.sites.iter().find(|s| s.warp == 1).expect("the write");
        assert_eq!(write.tid, (35, 0, 0), "{r}");
        later_lanes += (r.kind == FindingKind::SharedRace && copy.tid.0 > 0) as u32;
    }
    assert!(
        later_lanes > 12,
        "races found at a lane after the first: {later_lanes}"
    );
}
