#!/usr/bin/env python3
"""Attention forward as PTX (phasegate) against torch's SDPA (cuDNN, and flash for reference).

    python bench.py --ptx KERNEL.ptx --smem N [options]           # the standard table
    python bench.py --ptx KERNEL.ptx --smem N --check-only        # small shapes, no timing

Runs on the GPU machine (torch with CUDA; no Rust, no nvcc needed). The PTX is loaded with the
CUDA driver API through ctypes (libcuda.so.1) in torch's primary context, JIT-compiled by the
driver (its ptxas report is printed), and launched with cuLaunchKernel on torch's current stream.

Kernel ABI (one entry per head dimension d; `--entry`, default `attention_hd{d}`):
  params  q, k, v, o : CUtensorMap by value (.param .align 64 .b8 [128])
          lse        : u64, device pointer to f32[b*h*s] (natural-log log-sum-exp per row)
          schedule   : u64, device pointer to u32 words: the query tiles each CTA takes
                       (`tile_schedule`, the port of examples/attention_hopper.rs's TileSchedule)
          seq        : u32
          causal     : u32 (0/1; key j > query i masked)
          scale_log2 : f32 = log2(e) / sqrt(d)
  tensors bf16 (f16 with --dtype f16) [b, h, s, d] contiguous; tensor maps rank 4, BFLOAT16
  (FLOAT16), globalDim
          [64, s, d/64, b*h], globalStrides [2d, 128, 2sd] bytes, boxDim q/k/v
          [64, ROWS, d/64, 1] (--q-rows/--kv-rows, 128), o [64, 64, 1, 1] (--o-rows), swizzle
          128B, L2 promotion 128B, no interleave, OOB fill none (zeros).
  launch  --grid auto: persistent, grid (min(SMs, ceil(s/ROWS) * b*h), 1, 1) (--cta-rows
          ROWS), each CTA taking the tiles the schedule lists for it; block (384,1,1)
          (--block), dynamic shared memory --smem (required).
Per-d options take `N` (every d) or `D=N` items, comma-separated: `--smem 64=160000,128=220000`.

Each shape: inputs randn bf16 (fixed seed); o (inside guard bands) and lse filled with NaN;
one checked launch (a watchdog ends the run if it does not finish in --timeout s); o and lse
against a float32 reference computed in chunks of query rows; cuDNN's and flash's outputs
against the same reference as a yardstick. FAIL (exit 1 at the end; other shapes still run)
if o's relative Frobenius error > 1e-2, any non-finite o or lse, lse max abs error > 1e-2, a
guard band written, or o/lse changed over the timed launches (a race).

Timing: --rounds rounds (7); in each, --warmup launches of every side, then --reps (20)
launches per side interleaved launch by launch (phasegate, cuDNN, flash; which goes first
rotates per round), each launch between two CUDA events, after a GPU spin (torch.cuda._sleep)
long enough for the CPU to queue the whole round ahead of the GPU; a round's time per side is
the median of its launches (--timing block: one event pair around each side's reps launches).
TFLOPS (4*b*h*s*s*d, halved for causal) from the median over rounds; ratio = median cuDNN time /
median phasegate time (> 1: phasegate faster) with a 95 % paired bootstrap interval over rounds
(2000 resamples, fixed seed); the same for flash. Reps are cut (to >= 3) for a shape whose
timed launches would take more than --shape-budget s (10), which only a slow kernel hits. So
no reduction for large s is needed: the standard table (16 shapes, each 16 k tokens x width
2048) is ~1.1e13 flop a side for one launch of every shape, ~0.1 s for all three sides at
300-500 TFLOPS, ~20 s for the 7 x 23 launches of the defaults on an H100; with start-up, JIT,
cuDNN plans and the references the whole table takes 1-3 minutes.

Output: per shape check lines, `ROUND` lines, and one machine-readable `ROW ...` line; at the
end a markdown table (also written to --markdown PATH). Exit status: 0 all passed; 1 a check
failed or a shape errored; 2 bad arguments or setup (driver, PTX JIT); 3 a launch hung.
"""
import argparse
import ctypes
import hashlib
import math
import os
import random
import re
import statistics
import sys
import time
import traceback
from dataclasses import dataclass, field

# ---- CUDA driver enums (cuda.h of CUDA 12.8-13.x; the values have not changed) ----------
CUDA_SUCCESS = 0
CUDA_ERROR_NOT_FOUND = 500
CUDA_ERROR_NOT_READY = 600
CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6
CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9
CU_TENSOR_MAP_INTERLEAVE_NONE = 0
CU_TENSOR_MAP_SWIZZLE_128B = 3
CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2
CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0
CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0
CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1
CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3
CU_FUNC_ATTRIBUTE_NUM_REGS = 4
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13  # kHz
CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16
CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97
CU_JIT_INFO_LOG_BUFFER = 3
CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4
CU_JIT_ERROR_LOG_BUFFER = 5
CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
CU_JIT_LOG_VERBOSE = 12

# The kernel's parameters: (name, bytes, alignment) as the PTX must declare them.
GRID_MODE = "auto"
ABI_PERSISTENT = [("q", 128, 64), ("k", 128, 64), ("v", 128, 64), ("o", 128, 64),
       ("lse", 8, None), ("schedule", 8, None), ("seq", 4, None), ("causal", 4, None),
       ("scale_log2", 4, None)]
# --grid tiles: one CTA per query tile and head, grid (ceil(s/128), b*h), no schedule.
ABI_TILES = [p for p in ABI_PERSISTENT if p[0] != "schedule"]
PTX_TYPE_BYTES = {".b8": 1, ".u8": 1, ".s8": 1, ".b16": 2, ".u16": 2, ".s16": 2, ".f16": 2,
                  ".bf16": 2, ".b32": 4, ".u32": 4, ".s32": 4, ".f32": 4, ".b64": 8, ".u64": 8,
                  ".s64": 8, ".f64": 8}
GUARD = -4096.0  # guard-band value, exact in bf16 and f32
LOG2E = 1.4426950408889634

EXIT_FAIL, EXIT_SETUP, EXIT_HANG = 1, 2, 3


# TileSchedule::L2_BYTES: the most bytes of keys and values the heads of the tiles dealt one
# by one may hold together.
L2_BYTES = 40 << 20


def tile_schedule(q_rows, kv_rows, s, d, bh, causal, ctas):
    """The kernel's `schedule` words for a launch of `ctas` CTAs: examples/attention_hopper.rs's
    `TileSchedule::new(..).words()`, step for step (tests/attention.rs compares the two). A
    head's items are its tiles t and T-1-t under a causal mask (the middle one of an odd T
    alone), else its tiles, dealt round robin. Under a causal mask the partial last wave and up
    to 3 more may be taken as single tiles, the longest first, each by the least loaded CTA:
    whichever gives the model (key tiles + 1 a tile) strictly less time than dealing every item,
    as long as their heads' keys and values fit in L2_BYTES. Words 3c, 3c+1, 3c+2: CTA c's tile count, the
    index of its first tile's word, and that first tile again; then the tiles."""
    import heapq
    t = -(-s // q_rows)
    all_keys = -(-s // kv_rows)

    def cost(u):
        tile = u % t
        return 1 + (min(-(-((tile + 1) * q_rows) // kv_rows), all_keys) if causal else all_keys)

    per = -(-t // 2) if causal else t
    items = []
    for h in range(bh):
        for last in range(per):
            first = t - 1 - last if causal else last
            items.append([h * t + last] if first == last else [h * t + last, h * t + first])
    waves = len(items) // ctas
    most = min(waves, 3) if causal else 0
    head_bytes = 2 * 2 * s * d
    best = None
    dealings = [len(items)] + ([(waves - broken) * ctas for broken in range(most + 1)] if causal else [])
    for n, dealt in enumerate(dealings):
        if n > 1 and ((len(items) - 1) // per - dealt // per + 1) * head_bytes > L2_BYTES:
            break
        lists = [[] for _ in range(ctas)]
        load = [0] * ctas
        for i, item in enumerate(items[:dealt]):
            lists[i % ctas].extend(item)
            load[i % ctas] += sum(cost(u) for u in item)
        singles = sorted((u for item in items[dealt:] for u in item), key=lambda u: (-cost(u), u))
        least = [(load[c], c) for c in range(ctas)]
        heapq.heapify(least)
        for u in singles:
            l, c = heapq.heappop(least)
            lists[c].append(u)
            heapq.heappush(least, (l + cost(u), c))
        span = max(l for l, _ in least)
        if best is None or span < best[0]:
            best = (span, lists)
    lists = best[1]
    words = []
    at = 3 * ctas
    for lst in lists:
        words += [len(lst), at, lst[0] if lst else 0]
        at += len(lst)
    for lst in lists:
        words.extend(lst)
    return words


def say(*a):
    print(*a, flush=True)


class CudaError(Exception):
    def __init__(self, call, code, name, text):
        super().__init__(f"{call}: {name} ({code}): {text}")
        self.call, self.code, self.name = call, code, name


class SetupError(Exception):
    pass


class Hang(Exception):
    pass


# ---- the driver through ctypes ---------------------------------------------------------------
class Driver:
    def __init__(self):
        try:
            self.lib = ctypes.CDLL("libcuda.so.1")
        except OSError as e:
            raise SetupError(f"cannot load libcuda.so.1: {e}")
        P, c = ctypes.POINTER, ctypes
        sig = {
            "cuGetErrorName": [c.c_int, P(c.c_char_p)],
            "cuGetErrorString": [c.c_int, P(c.c_char_p)],
            "cuInit": [c.c_uint],
            "cuDriverGetVersion": [P(c.c_int)],
            "cuDeviceGet": [P(c.c_int), c.c_int],
            "cuDeviceGetAttribute": [P(c.c_int), c.c_int, c.c_int],
            "cuDevicePrimaryCtxRetain": [P(c.c_void_p), c.c_int],
            "cuCtxGetCurrent": [P(c.c_void_p)],
            "cuCtxSetCurrent": [c.c_void_p],
            "cuCtxSynchronize": [],
            "cuModuleLoadDataEx": [P(c.c_void_p), c.c_char_p, c.c_uint, P(c.c_int), P(c.c_void_p)],
            "cuModuleGetFunction": [P(c.c_void_p), c.c_void_p, c.c_char_p],
            "cuFuncSetAttribute": [c.c_void_p, c.c_int, c.c_int],
            "cuFuncGetAttribute": [P(c.c_int), c.c_int, c.c_void_p],
            "cuTensorMapEncodeTiled": [c.c_void_p, c.c_int, c.c_uint32, c.c_void_p, P(c.c_uint64),
                                       P(c.c_uint64), P(c.c_uint32), P(c.c_uint32), c.c_int,
                                       c.c_int, c.c_int, c.c_int],
            "cuLaunchKernel": [c.c_void_p, c.c_uint, c.c_uint, c.c_uint, c.c_uint, c.c_uint,
                               c.c_uint, c.c_uint, c.c_void_p, P(c.c_void_p), P(c.c_void_p)],
            "cuStreamQuery": [c.c_void_p],
        }
        for name, args in sig.items():
            try:
                f = getattr(self.lib, name)
            except AttributeError:
                raise SetupError(f"libcuda.so.1 has no {name} (driver too old?)")
            f.argtypes, f.restype = args, c.c_int
            setattr(self, name, f)

    def error_name(self, code):
        n, s = ctypes.c_char_p(), ctypes.c_char_p()
        name = n.value.decode() if self.cuGetErrorName(code, ctypes.byref(n)) == 0 and n.value else f"CUresult {code}"
        text = s.value.decode() if self.cuGetErrorString(code, ctypes.byref(s)) == 0 and s.value else "?"
        return name, text

    def check(self, call, code):
        if code != CUDA_SUCCESS:
            name, text = self.error_name(code)
            raise CudaError(call, code, name, text)

    def call(self, name, *args):
        self.check(name, getattr(self, name)(*args))

    def device_attr(self, dev, attr, default=None):
        v = ctypes.c_int()
        r = self.cuDeviceGetAttribute(ctypes.byref(v), attr, dev)
        if r != CUDA_SUCCESS:
            if default is not None:
                return default
            self.check("cuDeviceGetAttribute", r)
        return v.value

    def func_attr(self, func, attr):
        v = ctypes.c_int()
        self.call("cuFuncGetAttribute", ctypes.byref(v), attr, func)
        return v.value

    def context_alive(self):
        """None if the context still works, else the sticky error's name."""
        r = self.cuCtxSynchronize()
        return None if r == CUDA_SUCCESS else self.error_name(r)[0]


class Aligned:
    """A zeroed host buffer of `size` bytes at an `align`-byte boundary (kept alive)."""

    def __init__(self, size, align):
        self.raw = (ctypes.c_uint8 * (size + align))()
        base = ctypes.addressof(self.raw)
        self.ptr = base + (-base) % align


# ---- the PTX entry's declaration -------------------------------------------------------------
def ptx_entry(ptx_text, name):
    """(params, directives) of `.entry name`, params as [(bytes, align, decl)], or None if the
    PTX has no such entry; params None if the list could not be read."""
    m = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\(([^)]*)\)([^{]*)\{", ptx_text)
    if not m:
        if re.search(r"\.entry\s+" + re.escape(name) + r"\b", ptx_text):
            return None, ""
        return None
    directives = " ".join(m.group(2).split())
    params = []
    for decl in (p.strip() for p in m.group(1).split(",")):
        if not decl:
            continue
        toks = decl.split()
        if not toks or toks[0] != ".param":
            return None, directives
        ty = next((t for t in toks[1:] if t in PTX_TYPE_BYTES), None)
        if ty is None:
            return None, directives
        align = None
        if ".align" in toks and toks.index(".align") < toks.index(ty):
            align = int(toks[toks.index(".align") + 1])
        count = 1
        for n in re.findall(r"\[(\d+)\]", toks[-1]):
            count *= int(n)
        params.append((PTX_TYPE_BYTES[ty] * count, align, decl))
    return params, directives


def abi_problems(params):
    ABI = ABI_TILES if GRID_MODE == "tiles" else ABI_PERSISTENT
    if len(params) != len(ABI):
        return [f"{len(params)} parameters, expected {len(ABI)} ({', '.join(n for n, _, _ in ABI)})"]
    out = []
    for (name, size, align), (psize, palign, decl) in zip(ABI, params):
        if psize != size or (align is not None and (palign or 0) < align):
            want = f"{size} bytes" + (f", .align {align}" if align else "")
            out.append(f"{name}: `{decl}` is {psize} bytes, .align {palign}; expected {want}")
    return out


# ---- options ---------------------------------------------------------------------------------
def per_d(text, what):
    """`N` or `D=N` items -> function d -> int (None if unset)."""
    default, table = None, {}
    for item in filter(None, (x.strip() for x in str(text).split(","))):
        try:
            if "=" in item:
                k, v = item.split("=", 1)
                table[int(k)] = int(v, 0)
            else:
                default = int(item, 0)
        except ValueError:
            raise SetupError(f"--{what}: cannot read `{item}` (N or D=N, comma-separated)")
    return lambda d: table.get(d, default)


def entry_names(text):
    table = {}
    template = "attention_hd{d}"
    for item in filter(None, (x.strip() for x in text.split(","))):
        if "=" in item:
            k, v = item.split("=", 1)
            table[int(k)] = v
        else:
            template = item
    return lambda d: table.get(d, template.replace("{d}", str(d)))


def int_list(text, what):
    try:
        return [int(x, 0) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SetupError(f"--{what}: expected comma-separated integers, got `{text}`")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ptx", required=True, help="the PTX file")
    p.add_argument("--entry", default="attention_hd{d}",
                   help="entry name template ({d}: head dim) and/or D=NAME items (attention_hd{d})")
    p.add_argument("--smem", required=True, help="dynamic shared memory bytes: N or D=N,... (required)")
    p.add_argument("--q-rows", default="128", help="q box rows: N or D=N,... (128)")
    p.add_argument("--kv-rows", default="128", help="k/v box rows: N or D=N,... (128)")
    p.add_argument("--o-rows", default="64", help="o box rows: N or D=N,... (64)")
    p.add_argument("--cta-rows", default="128", help="query rows per CTA, grid.x = ceil(s/N) (128)")
    p.add_argument("--block", default="384", help="threads per CTA: N or D=N,... (384)")
    p.add_argument("--dims", default="64,128,256", help="head dims (64,128,256; a d without entry is skipped)")
    p.add_argument("--seqs", default=None, help="sequence lengths (512,2048,8192,16384; --check-only: 128,200,384)")
    p.add_argument("--causal", default="0,1", help="causal settings (0,1)")
    p.add_argument("--tokens", type=int, default=16384, help="b = tokens / s (16384)")
    p.add_argument("--width", type=int, default=2048, help="h = width / d (2048)")
    p.add_argument("--batch", type=int, default=None, help="fixed b (overrides --tokens)")
    p.add_argument("--heads", type=int, default=None, help="fixed h (overrides --width)")
    p.add_argument("--check-only", action="store_true",
                   help="correctness only, s in 128,200,384, b=2, h=2 (unless --seqs/--batch/--heads)")
    p.add_argument("--grid", choices=["auto", "persistent", "units", "tiles"], default="auto",
                   help="with a `schedule` parameter: persistent (auto), grid (min(SMs, query tiles)); units, one CTA per tile. tiles: grid (ceil(s/128), b*h), no `schedule` parameter (auto)")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--reps", type=int, default=20, help="timed launches per side and round (20)")
    p.add_argument("--warmup", type=int, default=3, help="untimed launches per side and round (3)")
    p.add_argument("--timing", choices=["interleaved", "block"], default="interleaved")
    p.add_argument("--shape-budget", type=float, default=10.0,
                   help="seconds of timed launches per shape before reps are cut (10)")
    p.add_argument("--no-flash", action="store_true", help="leave the flash side out")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds before a launch counts as hung (30)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dtype", choices=["bf16", "f16"], default="bf16",
                   help="Q, K, V and O element type, for the kernel and cuDNN alike (bf16)")
    p.add_argument("--ref-rows", type=int, default=1024, help="query rows per chunk of the float32 reference (1024)")
    p.add_argument("--no-abi-check", action="store_true",
                   help="launch even if the entry's PTX parameters do not match the ABI")
    p.add_argument("--markdown", default=None, help="also write the final table to this file")
    a = p.parse_args(argv)
    for what in ("rounds", "reps", "ref_rows"):
        if getattr(a, what) < 1:
            raise SetupError(f"--{what} must be >= 1")
    return a


# ---- statistics ------------------------------------------------------------------------------
def median(xs):
    return statistics.median(xs)


def ratio_ci(num, den, seed=12345, resamples=2000):
    """median(num)/median(den) over rounds and a 95 % paired bootstrap interval."""
    r = median(num) / median(den)
    n = len(num)
    if n < 2:
        return r, (float("nan"), float("nan"))
    rng = random.Random(seed)
    boots = []
    for _ in range(resamples):
        idx = [rng.randrange(n) for _ in range(n)]
        boots.append(median([num[i] for i in idx]) / median([den[i] for i in idx]))
    boots.sort()
    return r, (boots[int(0.025 * (resamples - 1))], boots[int(math.ceil(0.975 * (resamples - 1)))])


# ---- results ---------------------------------------------------------------------------------
@dataclass
class Errors:
    max_abs: float = float("nan")
    where: str = ""
    rel_fro: float = float("nan")
    nonfinite: int = 0
    nonfinite_rows: int = 0
    first_nonfinite: str = ""
    lse_err: float = float("nan")
    lse_nonfinite: int = 0


@dataclass
class Row:
    d: int
    s: int
    causal: int
    b: int
    h: int
    ok: bool = True
    notes: list = field(default_factory=list)
    pg: Errors = None
    yard: dict = field(default_factory=dict)  # side -> Errors
    ms: dict = field(default_factory=dict)  # side -> [ms per round]
    flops: float = 0.0
    reps: int = 0

    def tflops(self, side):
        return self.flops / (median(self.ms[side]) * 1e9) if side in self.ms else None

    def ratio(self, side):
        if side not in self.ms or "phasegate" not in self.ms:
            return None
        return ratio_ci(self.ms[side], self.ms["phasegate"])


def fmt(x, spec=".4g"):
    if x is None:
        return "na"
    return format(x, spec)


# ---- the harness -----------------------------------------------------------------------------
class Bench:
    def __init__(self, args):
        self.args = args
        try:  # deferred so that --help works without torch
            import torch
            import torch.nn.functional as F
            from torch.nn.attention import SDPBackend, sdpa_kernel
        except ImportError as ex:
            raise SetupError(f"cannot import torch's SDPA API: {ex}")
        self.torch, self.F, self.SDPBackend, self.sdpa_kernel = torch, F, SDPBackend, sdpa_kernel
        self.dtype = torch.float16 if args.dtype == "f16" else torch.bfloat16
        self.map_type = (CU_TENSOR_MAP_DATA_TYPE_FLOAT16 if args.dtype == "f16"
                         else CU_TENSOR_MAP_DATA_TYPE_BFLOAT16)
        if not torch.cuda.is_available():
            raise SetupError("torch sees no CUDA device")
        torch.cuda.init()
        torch.set_float32_matmul_precision("highest")  # the reference: true float32, no TF32
        self.dev_index = torch.cuda.current_device()
        torch.empty(1, device="cuda")  # makes sure torch's (primary) context exists
        self.drv = drv = Driver()
        drv.call("cuInit", 0)
        v = ctypes.c_int()
        drv.call("cuDriverGetVersion", ctypes.byref(v))
        self.driver_version = v.value
        dev = ctypes.c_int()
        drv.call("cuDeviceGet", ctypes.byref(dev), self.dev_index)
        self.dev = dev.value
        ctx, cur = ctypes.c_void_p(), ctypes.c_void_p()
        drv.call("cuDevicePrimaryCtxRetain", ctypes.byref(ctx), self.dev)
        drv.call("cuCtxGetCurrent", ctypes.byref(cur))
        if cur.value != ctx.value:
            say(f"note: current context {cur.value} is not the primary context {ctx.value}; making it current")
            drv.call("cuCtxSetCurrent", ctx)
        self.ctx = ctx
        self.clock_hz = drv.device_attr(self.dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 2_000_000) * 1000.0
        self.smem_optin = drv.device_attr(self.dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
        self.sms = drv.device_attr(self.dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        self.device_name = torch.cuda.get_device_name(self.dev_index)
        cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
        say(f"device {self.device_name} ({self.sms} SMs, max clock {self.clock_hz / 1e6:.0f} MHz, "
            f"{self.smem_optin} B shared/block opt-in); driver {self.driver_version // 1000}."
            f"{self.driver_version % 1000 // 10}; torch {torch.__version__} (CUDA {torch.version.cuda}), "
            f"cuDNN {cudnn}")
        self.versions = f"torch {torch.__version__}, CUDA {torch.version.cuda}, cuDNN {cudnn}"

        with open(args.ptx, "rb") as f:
            self.ptx = f.read()
        self.ptx_text = self.ptx.decode("utf-8", errors="replace")
        self.ptx_sha = hashlib.sha256(self.ptx).hexdigest()[:16]
        say(f"PTX {args.ptx} ({len(self.ptx)} bytes, sha256 {self.ptx_sha}...)")
        self.module = self.load_module()
        self.funcs = {}

    def stream(self):
        return self.torch.cuda.current_stream().cuda_stream

    def load_module(self):
        drv = self.drv
        size = 1 << 20
        info, err = ctypes.create_string_buffer(size), ctypes.create_string_buffer(size)
        opts = (ctypes.c_int * 5)(CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                                  CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                                  CU_JIT_LOG_VERBOSE)
        vals = (ctypes.c_void_p * 5)(ctypes.cast(info, ctypes.c_void_p), ctypes.c_void_p(size),
                                     ctypes.cast(err, ctypes.c_void_p), ctypes.c_void_p(size),
                                     ctypes.c_void_p(1))
        mod = ctypes.c_void_p()
        t0 = time.perf_counter()
        r = drv.cuModuleLoadDataEx(ctypes.byref(mod), self.ptx + b"\0", 5, opts, vals)
        if r != CUDA_SUCCESS:
            name, text = drv.error_name(r)
            say(f"FAIL cuModuleLoadDataEx (driver JIT of {self.args.ptx}): {name}: {text}")
            for line in err.value.decode(errors="replace").splitlines():
                say(f"  jit error: {line}")
            raise SetupError("the PTX did not load")
        say(f"PTX JIT-compiled in {time.perf_counter() - t0:.2f} s")
        for line in info.value.decode(errors="replace").splitlines():
            if line.strip():
                say(f"  jit: {line}")
        return mod

    def function(self, d):
        """(func, config) for head dim d, or None (entry absent; said why)."""
        if d in self.funcs:
            return self.funcs[d]
        a, drv = self.args, self.drv
        name = entry_names(a.entry)(d)
        cfg = {k: per_d(getattr(a, k.replace("-", "_")), k)(d)
               for k in ("smem", "q-rows", "kv-rows", "o-rows", "cta-rows", "block")}
        self.funcs[d] = None
        if d % 64 != 0:
            say(f"SKIP d={d}: the tensor-map layout needs d to be a multiple of 64")
            return None
        decl = ptx_entry(self.ptx_text, name)
        func = ctypes.c_void_p()
        r = drv.cuModuleGetFunction(ctypes.byref(func), self.module, name.encode())
        if r == CUDA_ERROR_NOT_FOUND:
            say(f"SKIP d={d}: no entry `{name}` in the PTX")
            return None
        drv.check(f"cuModuleGetFunction({name})", r)
        for k, v in cfg.items():
            if v is None or v <= 0:
                raise SetupError(f"--{k} gives no (positive) value for d={d}")
        if decl is None:
            say(f"warning: `.entry {name}` not found in the PTX text, though the driver has it; ABI unchecked")
        else:
            params, directives = decl
            if params is None:
                say(f"warning: could not read the parameter list of `{name}`; ABI unchecked")
            else:
                probs = abi_problems(params)
                for pr in probs:
                    say(f"ABI MISMATCH {name}: {pr}")
                if probs and not a.no_abi_check:
                    say(f"SKIP d={d}: `{name}` does not declare the kernel ABI (--no-abi-check launches anyway)")
                    raise AbiMismatch()
            if directives:
                say(f"  {name} directives: {directives}")
                if re.search(r"\.(explicitcluster|reqnctapercluster)", directives):
                    say(f"warning: {name} asks for a cluster launch; this harness launches without cluster dims")
                m = re.search(r"\.reqntid\s+(\d+)", directives)
                if m and int(m.group(1)) != cfg["block"]:
                    say(f"warning: {name} declares .reqntid {m.group(1)} but --block is {cfg['block']}")
        regs = drv.func_attr(func, CU_FUNC_ATTRIBUTE_NUM_REGS)
        local = drv.func_attr(func, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
        static = drv.func_attr(func, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
        maxthr = drv.func_attr(func, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
        say(f"entry {name} (d={d}): {regs} registers, {local} B local memory per thread (spills), "
            f"{static} B static shared + {cfg['smem']} B dynamic, max {maxthr} threads/CTA; "
            f"boxes q {cfg['q-rows']} k/v {cfg['kv-rows']} o {cfg['o-rows']} rows, "
            f"{cfg['cta-rows']} query rows per CTA, {cfg['block']} threads")
        if local:
            say(f"warning: {name} uses local memory ({local} B/thread): register spills?")
        if maxthr < cfg["block"]:
            say(f"SKIP d={d}: {name} allows at most {maxthr} threads per CTA ({regs} registers each), "
                f"the launch needs {cfg['block']}")
            return None
        if static + cfg["smem"] > self.smem_optin:
            say(f"SKIP d={d}: {static} + {cfg['smem']} B of shared memory exceed the device's "
                f"{self.smem_optin} B per CTA")
            return None
        drv.check(f"cuFuncSetAttribute({name}, MAX_DYNAMIC_SHARED_SIZE_BYTES, {cfg['smem']})",
                 drv.cuFuncSetAttribute(func, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, cfg["smem"]))
        self.funcs[d] = (func, name, cfg)
        return self.funcs[d]

    # -- tensor maps and launch -----------------------------------------------------------------
    def tensor_map(self, what, t, s, d, bh, box_rows, box_chunks):
        m = Aligned(128, 64)
        gdim = (ctypes.c_uint64 * 4)(64, s, d // 64, bh)
        gstride = (ctypes.c_uint64 * 3)(d * 2, 128, s * d * 2)
        box = (ctypes.c_uint32 * 4)(64, box_rows, box_chunks, 1)
        estride = (ctypes.c_uint32 * 4)(1, 1, 1, 1)
        r = self.drv.cuTensorMapEncodeTiled(
            ctypes.c_void_p(m.ptr), self.map_type, 4, ctypes.c_void_p(t.data_ptr()),
            gdim, gstride, box, estride, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
            CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
        self.drv.check(f"cuTensorMapEncodeTiled({what}: address {t.data_ptr():#x}, globalDim "
                       f"{list(gdim)}, globalStrides {list(gstride)}, boxDim {list(box)}, {self.args.dtype}, "
                       f"swizzle 128B, L2 128B)", r)
        return m

    def launcher(self, func, name, cfg, q, k, v, o, lse, s, d, bh, causal):
        maps = [self.tensor_map("q", q, s, d, bh, cfg["q-rows"], d // 64),
                self.tensor_map("k", k, s, d, bh, cfg["kv-rows"], d // 64),
                self.tensor_map("v", v, s, d, bh, cfg["kv-rows"], d // 64),
                self.tensor_map("o", o, s, d, bh, cfg["o-rows"], 1)]
        units = -(-s // cfg["cta-rows"]) * bh
        if GRID_MODE == "tiles":
            grid = (-(-s // cfg["cta-rows"]), bh, 1)
        elif GRID_MODE == "units":
            # One CTA per query tile (each CTA's schedule lists one).
            grid = (units, 1, 1)
        else:
            # Persistent: one CTA per SM, or per query tile if there are fewer
            # (examples/attention_hopper.rs, `grid`).
            sms = self.torch.cuda.get_device_properties(self.dev_index).multi_processor_count
            grid = (min(units, sms), 1, 1)
        words = tile_schedule(cfg["cta-rows"], cfg["kv-rows"], s, d, bh, causal, grid[0])
        schedule = self.torch.tensor(words, dtype=self.torch.int32, device=lse.device)
        scalars = [ctypes.c_uint64(lse.data_ptr()), ctypes.c_uint64(schedule.data_ptr()),
                   ctypes.c_uint32(s), ctypes.c_uint32(causal),
                   ctypes.c_float(LOG2E / math.sqrt(d))]
        if GRID_MODE == "tiles":
            del scalars[1]
        params = (ctypes.c_void_p * (4 + len(scalars)))(
            *[m.ptr for m in maps], *[ctypes.addressof(x) for x in scalars])
        block, smem = cfg["block"], cfg["smem"]
        fn, check = self.drv.cuLaunchKernel, self.drv.check
        stream = ctypes.c_void_p(self.stream())
        keep = (maps, scalars, params, schedule)

        def launch():
            _ = keep
            r = fn(func, grid[0], grid[1], grid[2], block, 1, 1, smem, stream, params, None)
            if r != CUDA_SUCCESS:
                check(f"cuLaunchKernel({name}, grid {grid}, block ({block},1,1), smem {smem})", r)
        launch.grid = grid
        return launch

    def wait(self, what, timeout):
        """Waits for the stream with a watchdog: Hang if it has not drained in `timeout` s."""
        t0 = time.monotonic()
        stream = ctypes.c_void_p(self.stream())
        delay = 1e-4
        while True:
            r = self.drv.cuStreamQuery(stream)
            if r == CUDA_SUCCESS:
                return
            if r != CUDA_ERROR_NOT_READY:
                self.drv.check(f"cuStreamQuery (after {what})", r)
            if time.monotonic() - t0 > timeout:
                raise Hang(f"{what} did not finish within {timeout:.0f} s (a deadlock?)")
            time.sleep(delay)
            delay = min(delay * 2, 0.01)

    # -- reference and comparison ---------------------------------------------------------------
    def reference(self, q, k, v, causal, scale):
        torch = self.torch
        b, h, s, d = q.shape
        bh = b * h
        qf = q.reshape(bh, s, d)
        kt = k.reshape(bh, s, d).float().transpose(1, 2)
        vf = v.reshape(bh, s, d).float()
        o = torch.empty(bh, s, d, dtype=torch.float32, device=q.device)
        lse = torch.empty(bh, s, dtype=torch.float32, device=q.device)
        rows = max(1, min(s, self.args.ref_rows, (1 << 29) // (bh * s)))  # chunk scores <= 2 GiB
        cols = torch.arange(s, device=q.device)
        for i0 in range(0, s, rows):
            i1 = min(s, i0 + rows)
            sc = torch.matmul(qf[:, i0:i1].float(), kt).mul_(scale)
            if causal:
                mask = cols[None, :] > torch.arange(i0, i1, device=q.device)[:, None]
                sc.masked_fill_(mask, float("-inf"))
            l = torch.logsumexp(sc, dim=-1)
            sc.sub_(l[..., None]).exp_()
            o[:, i0:i1] = torch.matmul(sc, vf)
            lse[:, i0:i1] = l
            del sc
        return o.view(b, h, s, d), lse.view(b, h, s)

    def compare(self, o, ref, lse=None, ref_lse=None):
        torch = self.torch
        e = Errors()
        of = o.float()
        finite = torch.isfinite(of)
        e.nonfinite = int((~finite).sum())
        diff = torch.where(finite, of - ref, torch.zeros((), device=of.device))
        ad = diff.abs()
        i = int(ad.argmax())
        e.max_abs = float(ad.view(-1)[i])
        b, h, s, d = o.shape
        e.where = f"(b {i // (h * s * d)}, h {i // (s * d) % h}, row {i // d % s}, col {i % d})"
        e.rel_fro = float(torch.linalg.vector_norm(diff) / torch.linalg.vector_norm(ref))
        if e.nonfinite == b * h * s * d:  # nothing finite to measure
            e.max_abs, e.rel_fro, e.where = float("nan"), float("nan"), "(none finite)"
        if e.nonfinite:
            bad_rows = (~finite).any(dim=-1)
            e.nonfinite_rows = int(bad_rows.sum())
            j = int(bad_rows.view(-1).nonzero()[0])
            e.first_nonfinite = f"(b {j // (h * s)}, h {j // s % h}, row {j % s})"
        if lse is not None:
            lfin = torch.isfinite(lse)
            e.lse_nonfinite = int((~lfin).sum())
            ld = torch.where(lfin, lse - ref_lse, torch.zeros((), device=lse.device)).abs()
            e.lse_err = float(ld.max()) if e.lse_nonfinite < b * h * s else float("nan")
        return e

    def report(self, who, e, with_lse):
        line = (f"  {who:<9} max_abs {e.max_abs:.3e} at {e.where}, rel_fro {e.rel_fro:.3e} (finite elements), "
                f"non-finite {e.nonfinite}")
        if e.nonfinite:
            line += f" in {e.nonfinite_rows} rows, first {e.first_nonfinite}"
        if with_lse:
            line += f"; lse max_abs {e.lse_err:.3e}, non-finite {e.lse_nonfinite}"
        say(line)

    # -- one shape ------------------------------------------------------------------------------
    def shape(self, d, s, causal, b, h, timing):
        torch, a = self.torch, self.args
        func, name, cfg = self.funcs[d]
        row = Row(d, s, causal, b, h)
        bh = b * h
        row.flops = 4.0 * b * h * s * s * d / (2 if causal else 1)
        scale = 1.0 / math.sqrt(d)
        say(f"== d={d} s={s} causal={causal} b={b} h={h}: {name}, units {-(-s // cfg['cta-rows']) * bh} (persistent), "
            f"block {cfg['block']}, smem {cfg['smem']}, {row.flops / 1e12:.3f} Tflop")
        g = torch.Generator(device="cuda").manual_seed(a.seed * 1000003 + d * 7919 + s * 31 + causal)
        q, k, v = (torch.randn(b, h, s, d, generator=g, device="cuda", dtype=torch.float32)
                   .to(self.dtype) for _ in range(3))
        # o and lse inside guard bands (each 64 KiB, which keeps o and lse 128-byte aligned).
        n_o, n_l, go, gl = bh * s * d, bh * s, 32768, 16384
        o_buf = torch.empty(n_o + 2 * go, dtype=self.dtype, device="cuda")
        l_buf = torch.empty(n_l + 2 * gl, dtype=torch.float32, device="cuda")
        o = o_buf[go:go + n_o].view(b, h, s, d)
        lse = l_buf[gl:gl + n_l].view(b, h, s)
        o_buf.fill_(GUARD)
        l_buf.fill_(GUARD)
        o.fill_(float("nan"))
        lse.fill_(float("nan"))
        launch = self.launcher(func, name, cfg, q, k, v, o, lse, s, d, bh, causal)

        launch()
        self.wait(f"the checked launch of {name} (d={d} s={s} causal={causal})", a.timeout)
        ref_o, ref_lse = self.reference(q, k, v, causal, scale)
        e = self.compare(o, ref_o, lse, ref_lse)
        row.pg = e
        guards = bool((o_buf[:go] == GUARD).all() and (o_buf[go + n_o:] == GUARD).all()
                      and (l_buf[:gl] == GUARD).all() and (l_buf[gl + n_l:] == GUARD).all())
        fails = []
        if e.rel_fro > 1e-2:
            fails.append(f"o relative Frobenius {e.rel_fro:.3e} > 1e-2")
        if e.nonfinite:
            fails.append(f"{e.nonfinite} non-finite o elements")
        if e.lse_nonfinite:
            fails.append(f"{e.lse_nonfinite} non-finite lse values")
        if not e.lse_err <= 1e-2:
            fails.append(f"lse max abs error {e.lse_err:.3e} > 1e-2")
        if not guards:
            fails.append("wrote outside o or lse (guard bands changed)")
        say(f"check {'PASS' if not fails else 'FAIL'} phasegate{': ' + '; '.join(fails) if fails else ''}")
        self.report("phasegate", e, True)
        row.ok = not fails
        row.notes += fails
        o_first = o.clone()
        lse_first = lse.clone()

        sides = [("phasegate", launch)]
        backends = [("cudnn", self.SDPBackend.CUDNN_ATTENTION)]
        if not a.no_flash:
            backends.append(("flash", self.SDPBackend.FLASH_ATTENTION))
        for side, backend in backends:
            def run(backend=backend):
                with self.sdpa_kernel([backend]):
                    return self.F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal), scale=scale)
            try:
                out = run()
                self.wait(f"{side} SDPA", a.timeout)
            except RuntimeError as ex:
                msg = str(ex).strip().splitlines()[0] if str(ex).strip() else type(ex).__name__
                say(f"  {side:<9} unavailable: {msg}")
                row.notes.append(f"{side} unavailable")
                dead = self.drv.context_alive()
                if dead:
                    raise CudaError(f"{side} SDPA", 0, dead, "the CUDA context is broken")
                continue
            ye = self.compare(out, ref_o)
            row.yard[side] = ye
            self.report(side, ye, False)
            sides.append((side, run))
            del out
        del ref_o, ref_lse
        if not timing:
            return row

        # Timing.
        n = len(sides)
        evs = lambda: (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
        # A probe: one warm timed launch per side, to size the rounds.
        probe = []
        for _, fn in sides:
            fn()
            e0, e1 = evs()
            e0.record()
            fn()
            e1.record()
            probe.append((e0, e1))
        self.wait("the timing probe", a.timeout)
        per_set = sum(e0.elapsed_time(e1) for e0, e1 in probe) / 1e3
        reps = a.reps
        if a.rounds * (a.reps + a.warmup) * per_set > a.shape_budget:
            reps = max(3, int(a.shape_budget / (a.rounds * per_set)) - a.warmup)
            if reps < a.reps:
                say(f"  reps cut to {reps} (a launch of every side takes {per_set * 1e3:.1f} ms; "
                    f"--shape-budget {a.shape_budget:g} s)")
        wait_s = max(a.timeout, 20 * (reps + a.warmup) * per_set + 1)
        spin = getattr(torch.cuda, "_sleep", None)
        ms = {side: [] for side, _ in sides}
        events = [[evs() for _ in range(reps)] for _ in range(n)]
        block_events = [evs() for _ in range(n)]
        for rnd in range(a.rounds):
            order = sides[rnd % n:] + sides[:rnd % n]
            t0 = time.perf_counter()
            for _ in range(a.warmup):
                for _, fn in order:
                    fn()
            enqueue = (time.perf_counter() - t0) / max(1, a.warmup)  # CPU seconds per set
            # Keeps the GPU busy while the CPU queues the round (so that no launch waits on it).
            if spin:
                spin(int(min(0.5, 2.0 * enqueue * reps + 0.002) * self.clock_hz))
            if a.timing == "interleaved":
                for i in range(reps):
                    for j, (_, fn) in enumerate(order):
                        e0, e1 = events[j][i]
                        e0.record()
                        fn()
                        e1.record()
            else:
                for j, (_, fn) in enumerate(order):
                    e0, e1 = block_events[j]
                    e0.record()
                    for _ in range(reps):
                        fn()
                    e1.record()
            self.wait(f"timing round {rnd}", wait_s)
            line = [f"ROUND {rnd}"]
            for j, (side, _) in enumerate(order):
                if a.timing == "interleaved":
                    t = median([e0.elapsed_time(e1) for e0, e1 in events[j]])
                else:
                    t = block_events[j][0].elapsed_time(block_events[j][1]) / reps
                ms[side].append(t)
            for side, _ in sides:
                line.append(f"{side}_ms={ms[side][-1]:.4f}")
            for side, _ in sides[1:]:
                line.append(f"ratio_vs_{side}={ms[side][-1] / ms['phasegate'][-1]:.4f}")
            say(" ".join(line))
        row.ms = ms
        row.reps = reps
        # After all those launches on the same inputs, the output must be the checked one.
        same = (o.view(torch.int16).equal(o_first.view(torch.int16))
                and lse.view(torch.int32).equal(lse_first.view(torch.int32)))
        total = 1 + 2 + a.rounds * (reps + a.warmup)
        say(f"check {'PASS' if same else 'FAIL'} phasegate o and lse after {total} launches are "
            f"{'bit-identical to' if same else 'DIFFERENT from'} the checked launch's")
        if not same:
            row.ok = False
            row.notes.append("output changed across launches (race?)")
        return row


def row_line(r, timing):
    e = r.pg
    parts = ["ROW" if timing else "CHECK", f"d={r.d}", f"s={r.s}", f"causal={r.causal}", f"b={r.b}", f"h={r.h}"]
    if timing:
        parts += [f"pg_tflops={fmt(r.tflops('phasegate'), '.1f')}",
                  f"cudnn_tflops={fmt(r.tflops('cudnn'), '.1f')}",
                  f"flash_tflops={fmt(r.tflops('flash'), '.1f')}"]
        for side, key in (("cudnn", "ci"), ("flash", "ci_flash")):
            rc = r.ratio(side)
            if rc:
                parts += [f"ratio_vs_{side}={rc[0]:.4f}", f"{key}=[{rc[1][0]:.4f},{rc[1][1]:.4f}]"]
            else:
                parts += [f"ratio_vs_{side}=na", f"{key}=na"]
        parts.append(f"reps={r.reps}")
    if e is not None:
        parts += [f"max_abs={e.max_abs:.3e}", f"rel_fro={e.rel_fro:.3e}", f"lse_err={e.lse_err:.3e}",
                  f"nonfinite={e.nonfinite + e.lse_nonfinite}"]
    for side in ("cudnn", "flash"):
        if side in r.yard:
            parts.append(f"{side}_rel_fro={r.yard[side].rel_fro:.3e}")
    parts.append(f"status={'PASS' if r.ok else 'FAIL'}")
    return " ".join(parts)


def markdown(rows, bench, args, timing, errors):
    name = bench.device_name if bench else "?"
    what = "timing and check" if timing else "check only"
    if timing:
        bh = (f"b = {args.batch}" if args.batch else f"b = {args.tokens}/s") + ", " + \
             (f"h = {args.heads}" if args.heads else f"h = {args.width}/d")
    else:
        bh = f"b = {args.batch or 2}, h = {args.heads or 2}"
    lines = [f"### Attention forward, phasegate PTX vs torch SDPA (cuDNN; flash for reference) on {name}", "",
             f"{what}; {args.dtype} [b, h, s, d], {bh}"
             + (f"; {args.rounds} rounds x {args.reps} reps ({args.timing})" if timing else "")
             + (f"; {bench.versions}; PTX sha256 {bench.ptx_sha}..." if bench else ""),
             "ratio = cuDNN (or flash) time / phasegate time, median over rounds, 95 % bootstrap interval; "
             "> 1: phasegate faster.", ""]
    if timing:
        lines += ["| d | s | causal | b | h | phasegate TFLOPS | cuDNN TFLOPS | flash TFLOPS | cuDNN/pg [95 % CI] "
                  "| flash/pg [95 % CI] | rel. Frobenius | lse err | cuDNN rel. Frob. | check |",
                  "|--:|--:|:-:|--:|--:|--:|--:|--:|:-:|:-:|--:|--:|--:|:-:|"]
    else:
        lines += ["| d | s | causal | b | h | max abs | rel. Frobenius | lse err | non-finite | cuDNN rel. Frob. | check |",
                  "|--:|--:|:-:|--:|--:|--:|--:|--:|--:|--:|:-:|"]
    for r in rows:
        e = r.pg
        cud = fmt(r.yard["cudnn"].rel_fro, ".2e") if "cudnn" in r.yard else "na"
        status = "PASS" if r.ok else "**FAIL**"
        if timing:
            def rr(side):
                rc = r.ratio(side)
                return f"{rc[0]:.3f} [{rc[1][0]:.3f}, {rc[1][1]:.3f}]" if rc else "na"
            lines.append(f"| {r.d} | {r.s} | {r.causal} | {r.b} | {r.h} | {fmt(r.tflops('phasegate'), '.1f')} | "
                         f"{fmt(r.tflops('cudnn'), '.1f')} | {fmt(r.tflops('flash'), '.1f')} | {rr('cudnn')} | "
                         f"{rr('flash')} | {fmt(e and e.rel_fro, '.2e')} | {fmt(e and e.lse_err, '.2e')} | {cud} | {status} |")
        else:
            lines.append(f"| {r.d} | {r.s} | {r.causal} | {r.b} | {r.h} | {fmt(e and e.max_abs, '.2e')} | "
                         f"{fmt(e and e.rel_fro, '.2e')} | {fmt(e and e.lse_err, '.2e')} | "
                         f"{(e.nonfinite + e.lse_nonfinite) if e else 'na'} | {cud} | {status} |")
    cut = [f"d={r.d} s={r.s} causal={r.causal}: {r.reps}" for r in rows if timing and r.ms and r.reps < args.reps]
    if cut:
        lines.append(f"\nreps cut (--shape-budget) for {'; '.join(cut)}")
    for msg in errors:
        lines.append(f"\n{msg}")
    return "\n".join(lines) + "\n"


class AbiMismatch(Exception):
    pass


def main(argv):
    try:
        args = parse_args(argv)
        global GRID_MODE
        GRID_MODE = args.grid
        dims = int_list(args.dims, "dims")
        causals = int_list(args.causal, "causal")
        if any(c not in (0, 1) for c in causals):
            raise SetupError("--causal takes 0 and/or 1")
        timing = not args.check_only
        seqs = int_list(args.seqs or ("512,2048,8192,16384" if timing else "128,200,384"), "seqs")
        if not os.path.isfile(args.ptx):
            raise SetupError(f"no PTX file {args.ptx}")
        bench = Bench(args)
    except SetupError as ex:
        say(f"FAIL setup: {ex}")
        return EXIT_SETUP
    except CudaError as ex:
        say(f"FAIL setup: {ex}")
        return EXIT_SETUP

    t_start = time.perf_counter()
    rows, errors, status = [], [], 0
    usable = []
    for d in dims:
        try:
            if bench.function(d):
                usable.append(d)
        except AbiMismatch:
            status = EXIT_FAIL
        except (CudaError, SetupError) as ex:
            say(f"FAIL d={d}: {ex}")
            errors.append(f"d={d}: {ex}")
            status = EXIT_FAIL
    if not usable:
        say("FAIL no head dimension has a usable entry in the PTX")
        return EXIT_FAIL

    def finish(code):
        md = markdown(rows, bench, args, timing, errors)
        say("")
        say(md)
        if args.markdown:
            with open(args.markdown, "w") as f:
                f.write(md)
        say(f"total {time.perf_counter() - t_start:.1f} s; "
            f"{sum(r.ok for r in rows)} of {len(rows)} shapes passed{'' if not errors else f', {len(errors)} errors'}")
        return code

    for d in usable:
        for s in seqs:
            for causal in causals:
                if args.check_only:
                    b, h = args.batch or 2, args.heads or 2
                else:
                    b = args.batch or max(1, args.tokens // s)
                    h = args.heads or max(1, args.width // d)
                try:
                    r = bench.shape(d, s, causal, b, h, timing)
                    rows.append(r)
                    say(row_line(r, timing))
                    if not r.ok:
                        status = EXIT_FAIL
                except Hang as ex:
                    say(f"FAIL d={d} s={s} causal={causal}: {ex}")
                    errors.append(f"d={d} s={s} causal={causal}: HUNG: {ex}")
                    finish(EXIT_HANG)
                    sys.stdout.flush()
                    os._exit(EXIT_HANG)  # a hung kernel: leave without waiting for it
                except (CudaError, RuntimeError) as ex:
                    msg = str(ex).strip().splitlines()[0] if str(ex).strip() else type(ex).__name__
                    say(f"FAIL d={d} s={s} causal={causal}: {msg}")
                    if not isinstance(ex, CudaError):  # from torch: where it came from may matter
                        say(traceback.format_exc().rstrip())
                    errors.append(f"d={d} s={s} causal={causal}: {msg}")
                    status = EXIT_FAIL
                    dead = bench.drv.context_alive()
                    if dead:
                        say(f"FAIL the CUDA context is broken ({dead}); the remaining shapes cannot run")
                        errors.append(f"context broken ({dead}) after d={d} s={s} causal={causal}; run stopped")
                        finish(EXIT_FAIL)
                        sys.stdout.flush()
                        os._exit(EXIT_FAIL)
                    bench.torch.cuda.empty_cache()
                except Exception:  # a bug of this script: show where, go on with the next shape
                    say(f"FAIL d={d} s={s} causal={causal}: unexpected error")
                    say(traceback.format_exc().rstrip())
                    errors.append(f"d={d} s={s} causal={causal}: unexpected error (traceback above)")
                    status = EXIT_FAIL
    return finish(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
