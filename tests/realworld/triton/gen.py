#!/usr/bin/env python3
"""Generate the Triton part of phasegate's real-world PTX corpus.

Every kernel below was written for this corpus (in the spirit of the public
Triton tutorials, but not copied from them).  Each one is compiled ahead of
time -- no GPU is needed -- with ``triton.compile`` for one or more CUDA
capabilities, and the resulting PTX is written next to this script as
``<job>_<target>.ptx`` (e.g. ``matmul_sm80.ptx``, ``matmul_sm90a.ptx``).

Usage (run from the repository root so the ``.file`` paths that Triton bakes
into the line info are relative and reproducible):

    pip install triton==3.9.0
    python3 tests/realworld/triton/gen.py            # everything
    python3 tests/realworld/triton/gen.py --only matmul attn_fwd
    python3 tests/realworld/triton/gen.py --list

A ``manifest.json`` describing every emitted file (signature, constexprs,
options, Triton metadata such as shared-memory and global-scratch sizes) is
written alongside the PTX files.
"""

import argparse
import json
import os
import sys
import tempfile
import traceback

# Keep the build hermetic and quiet: private cache, explicit FP-fusion default
# (Triton 3.9 warns when it is unset; 1 == the 3.9 default behaviour).
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="phasegate-triton-cache-")

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.language.extra.cuda import gdc_launch_dependents, gdc_wait  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------
# Elementwise / reductions
# ---------------------------------------------------------------------------


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    # One program handles BLOCK consecutive elements; the tail is masked.
    pid = tl.program_id(axis=0)
    idx = pid * BLOCK + tl.arange(0, BLOCK)
    in_bounds = idx < n_elements
    a = tl.load(x_ptr + idx, mask=in_bounds)
    b = tl.load(y_ptr + idx, mask=in_bounds)
    tl.store(out_ptr + idx, a + b, mask=in_bounds)


@triton.jit
def vector_add_pdl(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    # Same as vector_add, but cooperates with programmatic dependent launch:
    # wait for the producer grid before reading, let the consumer grid start
    # as soon as our loads are issued.
    gdc_wait()
    pid = tl.program_id(axis=0)
    idx = pid * BLOCK + tl.arange(0, BLOCK)
    in_bounds = idx < n_elements
    a = tl.load(x_ptr + idx, mask=in_bounds)
    b = tl.load(y_ptr + idx, mask=in_bounds)
    gdc_launch_dependents()
    tl.store(out_ptr + idx, a + b, mask=in_bounds)


@triton.jit
def softmax_rows(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols, BLOCK: tl.constexpr,
                 STAGES: tl.constexpr):
    # Persistent row softmax: each program walks rows pid, pid+G, pid+2G, ...
    # A whole row must fit into BLOCK columns.
    first = tl.program_id(0)
    step = tl.num_programs(0)
    cols = tl.arange(0, BLOCK)
    col_ok = cols < n_cols
    for row in tl.range(first, n_rows, step, num_stages=STAGES):
        x = tl.load(in_ptr + row * in_row_stride + cols, mask=col_ok, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        e = tl.exp(x)
        y = e / tl.sum(e, axis=0)
        tl.store(out_ptr + row * out_row_stride + cols, y, mask=col_ok)


@triton.jit
def layernorm_fwd(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, row_stride, n_cols, eps, BLOCK: tl.constexpr):
    # One program per row; the row is streamed in BLOCK-wide chunks three
    # times (mean, variance, normalise+affine) so any width works.
    row = tl.program_id(0)
    x_row = x_ptr + row * row_stride
    y_row = y_ptr + row * row_stride

    part = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        c = start + tl.arange(0, BLOCK)
        part += tl.load(x_row + c, mask=c < n_cols, other=0.0).to(tl.float32)
    mu = tl.sum(part, axis=0) / n_cols

    sq = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        c = start + tl.arange(0, BLOCK)
        v = tl.load(x_row + c, mask=c < n_cols, other=0.0).to(tl.float32)
        d = tl.where(c < n_cols, v - mu, 0.0)
        sq += d * d
    inv_std = 1.0 / tl.sqrt(tl.sum(sq, axis=0) / n_cols + eps)
    tl.store(mean_ptr + row, mu)
    tl.store(rstd_ptr + row, inv_std)

    for start in range(0, n_cols, BLOCK):
        c = start + tl.arange(0, BLOCK)
        ok = c < n_cols
        gamma = tl.load(w_ptr + c, mask=ok)
        beta = tl.load(b_ptr + c, mask=ok)
        v = tl.load(x_row + c, mask=ok, other=0.0).to(tl.float32)
        out = (v - mu) * inv_std * gamma + beta
        tl.store(y_row + c, out.to(y_ptr.dtype.element_ty), mask=ok)


@triton.jit
def layernorm_bwd_dx(dx_ptr, dy_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr, dw_part_ptr, db_part_ptr, lock_ptr, row_stride,
                     n_cols, GROUPS: tl.constexpr, BLOCK: tl.constexpr):
    # dx for one row, plus a contribution to a per-group partial dW/dB buffer.
    # Rows are hashed into GROUPS slots; each slot is guarded by a spin lock
    # (lock_ptr[g]) and a "first writer" flag (lock_ptr[GROUPS + g]).
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    ok = c < n_cols
    x = tl.load(x_ptr + row * row_stride + c, mask=ok, other=0).to(tl.float32)
    g_out = tl.load(dy_ptr + row * row_stride + c, mask=ok, other=0).to(tl.float32)
    gamma = tl.load(w_ptr + c, mask=ok).to(tl.float32)
    mu = tl.load(mean_ptr + row)
    inv_std = tl.load(rstd_ptr + row)

    xhat = tl.where(ok, (x - mu) * inv_std, 0.0)
    wdy = tl.where(ok, gamma * g_out, 0.0)
    k1 = tl.sum(xhat * wdy, axis=0) / n_cols
    k2 = tl.sum(wdy, axis=0) / n_cols
    dx = (wdy - (xhat * k1 + k2)) * inv_std
    tl.store(dx_ptr + row * row_stride + c, dx.to(dx_ptr.dtype.element_ty), mask=ok)

    my_dw = (g_out * xhat).to(dw_part_ptr.dtype.element_ty)
    my_db = g_out.to(db_part_ptr.dtype.element_ty)
    slot = row % GROUPS
    lock = lock_ptr + slot
    seen = lock_ptr + GROUPS + slot
    slot_cols = slot * n_cols + c
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    if tl.load(seen) == 0:
        tl.atomic_xchg(seen, 1)
    else:
        my_dw += tl.load(dw_part_ptr + slot_cols, mask=ok)
        my_db += tl.load(db_part_ptr + slot_cols, mask=ok)
    tl.store(dw_part_ptr + slot_cols, my_dw, mask=ok)
    tl.store(db_part_ptr + slot_cols, my_db, mask=ok)
    tl.debug_barrier()
    tl.atomic_xchg(lock, 0)


@triton.jit
def layernorm_bwd_dwdb(dw_part_ptr, db_part_ptr, dw_ptr, db_ptr, n_groups, n_cols, BLOCK_G: tl.constexpr,
                       BLOCK_N: tl.constexpr):
    # Column-block reduction of the GROUPS x n_cols partial buffers.
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    acc_w = tl.zeros([BLOCK_G, BLOCK_N], dtype=tl.float32)
    acc_b = tl.zeros([BLOCK_G, BLOCK_N], dtype=tl.float32)
    for g0 in range(0, n_groups, BLOCK_G):
        g = g0 + tl.arange(0, BLOCK_G)
        m = (g[:, None] < n_groups) & (cols[None, :] < n_cols)
        off = g[:, None] * n_cols + cols[None, :]
        acc_w += tl.load(dw_part_ptr + off, mask=m, other=0.0)
        acc_b += tl.load(db_part_ptr + off, mask=m, other=0.0)
    tl.store(dw_ptr + cols, tl.sum(acc_w, axis=0), mask=cols < n_cols)
    tl.store(db_ptr + cols, tl.sum(acc_b, axis=0), mask=cols < n_cols)


# ---------------------------------------------------------------------------
# Matrix multiplication
# ---------------------------------------------------------------------------


@triton.jit
def _swizzle_tile(tile, M, N, BM: tl.constexpr, BN: tl.constexpr, GROUP: tl.constexpr):
    # Map a linear tile id to (tile_m, tile_n) walking GROUP rows of tiles at a
    # time, so that consecutive programs share A/B panels in L2.
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_band = GROUP * tiles_n
    band = tile // per_band
    row0 = band * GROUP
    rows = min(tiles_m - row0, GROUP)
    tm = row0 + (tile % per_band) % rows
    tn = (tile % per_band) // rows
    return tm, tn


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr, ACT: tl.constexpr):
    # C = act(A @ B) with fp32 accumulation; K loop is software-pipelined by
    # the compiler according to num_stages.
    tm, tn = _swizzle_tile(tl.program_id(0), M, N, BM, BN, GROUP)
    rm = (tm * BM + tl.arange(0, BM)) % M
    rn = (tn * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a_tile = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_tile = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kk in range(0, tl.cdiv(K, BK)):
        k_left = K - kk * BK
        a = tl.load(a_tile, mask=rk[None, :] < k_left, other=0.0)
        b = tl.load(b_tile, mask=rk[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += BK * stride_ak
        b_tile += BK * stride_bk
    if ACT == "leaky_relu":
        acc = tl.where(acc >= 0, acc, 0.01 * acc)
    out = acc.to(c_ptr.dtype.element_ty)
    cm = tm * BM + tl.arange(0, BM)
    cn = tn * BN + tl.arange(0, BN)
    tl.store(c_ptr + cm[:, None] * stride_cm + cn[None, :] * stride_cn, out, mask=(cm[:, None] < M) & (cn[None, :] < N))


@triton.jit
def matmul_persistent(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr,
                      NUM_SMS: tl.constexpr):
    # Launch exactly NUM_SMS programs; each strides over the output tiles.
    first = tl.program_id(0)
    n_tiles = tl.cdiv(M, BM) * tl.cdiv(N, BN)
    k_steps = tl.cdiv(K, BK)
    rk = tl.arange(0, BK)
    for tile in tl.range(first, n_tiles, NUM_SMS, flatten=True):
        tm, tn = _swizzle_tile(tile, M, N, BM, BN, GROUP)
        rm = tm * BM + tl.arange(0, BM)
        rn = tn * BN + tl.arange(0, BN)
        rm_c = tl.where(rm < M, rm, 0)
        rn_c = tl.where(rn < N, rn, 0)
        rm_c = tl.max_contiguous(tl.multiple_of(rm_c, BM), BM)
        rn_c = tl.max_contiguous(tl.multiple_of(rn_c, BN), BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for kk in range(k_steps):
            ks = kk * BK + rk
            a = tl.load(a_ptr + rm_c[:, None] * stride_am + ks[None, :] * stride_ak, mask=ks[None, :] < K, other=0.0)
            b = tl.load(b_ptr + ks[:, None] * stride_bk + rn_c[None, :] * stride_bn, mask=ks[:, None] < K, other=0.0)
            acc = tl.dot(a, b, acc)
        ok = (rm[:, None] < M) & (rn[None, :] < N)
        tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc.to(c_ptr.dtype.element_ty), mask=ok)


@triton.jit
def matmul_tma(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               GROUP: tl.constexpr, WS: tl.constexpr):
    # Device-side tensor descriptors (TMA on sm_90+).  A is MxK row-major,
    # B is given as its transpose (NxK row-major), C is MxN row-major.
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    tm, tn = _swizzle_tile(tl.program_id(0), M, N, BM, BN, GROUP)
    om = tm * BM
    on = tn * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kk in tl.range(0, tl.cdiv(K, BK), warp_specialize=WS):
        a = a_desc.load([om, kk * BK])
        b = b_desc.load([on, kk * BK])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([om, on], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def matmul_tma_persistent(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                          GROUP: tl.constexpr, NUM_SMS: tl.constexpr, WS: tl.constexpr):
    # Host-side tensor descriptors (CUtensorMap passed by value as kernel
    # parameters) + persistent tile loop.
    n_tiles = tl.cdiv(M, BM) * tl.cdiv(N, BN)
    for tile in tl.range(tl.program_id(0), n_tiles, NUM_SMS, flatten=True, warp_specialize=WS):
        tm, tn = _swizzle_tile(tile, M, N, BM, BN, GROUP)
        om = tm * BM
        on = tn * BN
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for kk in range(tl.cdiv(K, BK)):
            a = a_desc.load([om, kk * BK])
            b = b_desc.load([on, kk * BK])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([om, on], acc.to(c_desc.dtype))


# ---------------------------------------------------------------------------
# Attention
# ---------------------------------------------------------------------------


@triton.jit
def attn_fwd(Q, K, V, O, LSE, sm_scale, stride_z, stride_h, stride_m, H, N_CTX, HEAD_DIM: tl.constexpr,
             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    # Online-softmax attention.  Q/K/V/O are [Z, H, N_CTX, HEAD_DIM] with a
    # unit stride on the last axis; LSE receives log2-sum-exp per query row.
    pid_m = tl.program_id(0)
    zh = tl.program_id(1)
    base = (zh // H).to(tl.int64) * stride_z + (zh % H).to(tl.int64) * stride_h
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + base + rows[:, None] * stride_m + dims[None, :], mask=rows[:, None] < N_CTX, other=0.0)
    scale2 = sm_scale * 1.4426950408889634  # fold log2(e) so we can use exp2

    run_max = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    run_sum = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    if CAUSAL:
        stop = tl.minimum((pid_m + 1) * BLOCK_M, N_CTX)
    else:
        stop = N_CTX
    for n0 in range(0, stop, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        kt = tl.load(K + base + cols[None, :] * stride_m + dims[:, None], mask=cols[None, :] < N_CTX, other=0.0)
        s = tl.dot(q, kt) * scale2
        keep = cols[None, :] < N_CTX
        if CAUSAL:
            keep = keep & (rows[:, None] >= cols[None, :])
        s = tl.where(keep, s, -1.0e6)
        new_max = tl.maximum(run_max, tl.max(s, axis=1))
        p = tl.math.exp2(s - new_max[:, None])
        corr = tl.math.exp2(run_max - new_max)
        run_sum = run_sum * corr + tl.sum(p, axis=1)
        v = tl.load(V + base + cols[:, None] * stride_m + dims[None, :], mask=cols[:, None] < N_CTX, other=0.0)
        acc = acc * corr[:, None] + tl.dot(p.to(v.dtype), v)
        run_max = new_max
    acc = acc / run_sum[:, None]
    tl.store(LSE + zh * N_CTX + rows, run_max + tl.math.log2(run_sum), mask=rows < N_CTX)
    tl.store(O + base + rows[:, None] * stride_m + dims[None, :], acc.to(O.dtype.element_ty), mask=rows[:, None] < N_CTX)


@triton.jit
def attn_fwd_tma(Q, K, V, O, LSE, sm_scale, Z, H, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                 BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr, WS: tl.constexpr):
    # Descriptor-based variant: Q/K/V/O viewed as 2-D [Z*H*N_CTX, HEAD_DIM];
    # N_CTX must be a multiple of BLOCK_M and BLOCK_N.
    rows_total = Z * H * N_CTX
    qd = tl.make_tensor_descriptor(Q, shape=[rows_total, HEAD_DIM], strides=[HEAD_DIM, 1],
                                   block_shape=[BLOCK_M, HEAD_DIM])
    kd = tl.make_tensor_descriptor(K, shape=[rows_total, HEAD_DIM], strides=[HEAD_DIM, 1],
                                   block_shape=[BLOCK_N, HEAD_DIM])
    vd = tl.make_tensor_descriptor(V, shape=[rows_total, HEAD_DIM], strides=[HEAD_DIM, 1],
                                   block_shape=[BLOCK_N, HEAD_DIM])
    od = tl.make_tensor_descriptor(O, shape=[rows_total, HEAD_DIM], strides=[HEAD_DIM, 1],
                                   block_shape=[BLOCK_M, HEAD_DIM])
    pid_m = tl.program_id(0)
    zh = tl.program_id(1)
    row0 = zh * N_CTX
    qrow = row0 + pid_m * BLOCK_M
    q = qd.load([qrow, 0])
    scale2 = sm_scale * 1.4426950408889634
    run_max = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    run_sum = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    stop = (pid_m + 1) * BLOCK_M if CAUSAL else N_CTX
    for n0 in tl.range(0, stop, BLOCK_N, warp_specialize=WS):
        k = kd.load([row0 + n0, 0])
        s = tl.dot(q, k.T) * scale2
        if CAUSAL:
            cols = n0 + tl.arange(0, BLOCK_N)
            s = tl.where(offs_m[:, None] >= cols[None, :], s, -1.0e6)
        new_max = tl.maximum(run_max, tl.max(s, axis=1))
        p = tl.math.exp2(s - new_max[:, None])
        corr = tl.math.exp2(run_max - new_max)
        run_sum = run_sum * corr + tl.sum(p, axis=1)
        v = vd.load([row0 + n0, 0])
        acc = acc * corr[:, None] + tl.dot(p.to(v.dtype), v)
        run_max = new_max
    acc = acc / run_sum[:, None]
    tl.store(LSE + zh * N_CTX + offs_m, run_max + tl.math.log2(run_sum))
    od.store([qrow, 0], acc.to(O.dtype.element_ty))


@triton.jit
def attn_bwd_preprocess(O, DO, Delta, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr):
    # Delta[zh, m] = sum_d O[zh, m, d] * dO[zh, m, d]   (contiguous layout)
    pid_m = tl.program_id(0)
    zh = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD_DIM)
    off = zh.to(tl.int64) * N_CTX * HEAD_DIM + rows[:, None] * HEAD_DIM + dims[None, :]
    o = tl.load(O + off).to(tl.float32)
    do = tl.load(DO + off).to(tl.float32)
    tl.store(Delta + zh * N_CTX + rows, tl.sum(o * do, axis=1))


@triton.jit
def attn_bwd(Q, K, V, DO, DQ, DK, DV, LSE, Delta, sm_scale, H, N_CTX, HEAD_DIM: tl.constexpr,
             BLOCK_KV: tl.constexpr, BLOCK_Q: tl.constexpr, CAUSAL: tl.constexpr):
    # Program (j, zh): computes dK/dV for key block j by sweeping all query
    # blocks, then dQ for query block j by sweeping all key blocks.
    # Tensors are contiguous [Z, H, N_CTX, HEAD_DIM]; LSE is in log2 units
    # (as written by attn_fwd) and Delta comes from attn_bwd_preprocess.
    LOG2E: tl.constexpr = 1.4426950408889634
    j = tl.program_id(0)
    zh = tl.program_id(1)
    head = zh.to(tl.int64) * N_CTX * HEAD_DIM
    Q += head
    K += head
    V += head
    DO += head
    DQ += head
    DK += head
    DV += head
    LSE += zh * N_CTX
    Delta += zh * N_CTX
    dims = tl.arange(0, HEAD_DIM)
    scale2 = sm_scale * LOG2E

    # ---- dK, dV for keys [j*BLOCK_KV, (j+1)*BLOCK_KV) ----
    kv_rows = j * BLOCK_KV + tl.arange(0, BLOCK_KV)
    k = tl.load(K + kv_rows[:, None] * HEAD_DIM + dims[None, :])
    v = tl.load(V + kv_rows[:, None] * HEAD_DIM + dims[None, :])
    dk = tl.zeros([BLOCK_KV, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BLOCK_KV, HEAD_DIM], dtype=tl.float32)
    q_start = (j * BLOCK_KV // BLOCK_Q) * BLOCK_Q if CAUSAL else 0
    for m0 in range(q_start, N_CTX, BLOCK_Q):
        q_rows = m0 + tl.arange(0, BLOCK_Q)
        qT = tl.load(Q + q_rows[None, :] * HEAD_DIM + dims[:, None])
        lse = tl.load(LSE + q_rows)
        pT = tl.math.exp2(tl.dot(k, qT) * scale2 - lse[None, :])
        if CAUSAL:
            pT = tl.where(q_rows[None, :] >= kv_rows[:, None], pT, 0.0)
        do = tl.load(DO + q_rows[:, None] * HEAD_DIM + dims[None, :])
        dv += tl.dot(pT.to(do.dtype), do)
        dpT = tl.dot(v, tl.trans(do))
        dsT = pT * (dpT - tl.load(Delta + q_rows)[None, :])
        dk += tl.dot(dsT.to(qT.dtype), tl.trans(qT))
    tl.store(DV + kv_rows[:, None] * HEAD_DIM + dims[None, :], dv.to(DV.dtype.element_ty))
    tl.store(DK + kv_rows[:, None] * HEAD_DIM + dims[None, :], (dk * sm_scale).to(DK.dtype.element_ty))

    # ---- dQ for queries [j*BLOCK_Q, (j+1)*BLOCK_Q) ----
    q_rows = j * BLOCK_Q + tl.arange(0, BLOCK_Q)
    q = tl.load(Q + q_rows[:, None] * HEAD_DIM + dims[None, :])
    do = tl.load(DO + q_rows[:, None] * HEAD_DIM + dims[None, :])
    lse = tl.load(LSE + q_rows)
    delta = tl.load(Delta + q_rows)
    dq = tl.zeros([BLOCK_Q, HEAD_DIM], dtype=tl.float32)
    kv_stop = (j + 1) * BLOCK_Q if CAUSAL else N_CTX
    for n0 in range(0, kv_stop, BLOCK_KV):
        cols = n0 + tl.arange(0, BLOCK_KV)
        kT = tl.load(K + cols[None, :] * HEAD_DIM + dims[:, None])
        vT = tl.load(V + cols[None, :] * HEAD_DIM + dims[:, None])
        p = tl.math.exp2(tl.dot(q, kT) * scale2 - lse[:, None])
        if CAUSAL:
            p = tl.where(q_rows[:, None] >= cols[None, :], p, 0.0)
        ds = p * (tl.dot(do, vT) - delta[:, None])
        dq += tl.dot(ds.to(kT.dtype), tl.trans(kT))
    tl.store(DQ + q_rows[:, None] * HEAD_DIM + dims[None, :], (dq * sm_scale).to(DQ.dtype.element_ty))


# ---------------------------------------------------------------------------
# Job table
# ---------------------------------------------------------------------------

CAP_SUFFIX = {80: "sm80", 90: "sm90a", 100: "sm100a"}
REPO_ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def _repo_relative_line_info():
    # Triton records fn.__code__.co_filename (absolute in Python >= 3.9) in the
    # .loc/.file line info.  Point our kernels at the repo-relative path instead
    # so the output does not depend on where the checkout lives.  (Helpers from
    # triton/language/standard.py keep Triton's own absolute site-packages path.)
    rel = os.path.relpath(os.path.abspath(__file__), REPO_ROOT)
    for obj in list(globals().values()):
        if isinstance(obj, triton.runtime.jit.JITFunction):
            obj.file_name = rel


_repo_relative_line_info()


class Job:

    def __init__(self, name, fn, signature, constexprs, caps, num_warps=4, num_stages=3, aligned=(), extra=None,
                 note=""):
        self.name = name
        self.fn = fn
        self.signature = dict(signature)
        self.constexprs = dict(constexprs)
        for k in self.constexprs:
            self.signature[k] = "constexpr"
        # keep the jit function's argument order
        order = fn.arg_names
        missing = [a for a in order if a not in self.signature]
        assert not missing, (name, missing)
        self.signature = {a: self.signature[a] for a in order}
        self.caps = caps
        self.num_warps = num_warps
        self.num_stages = num_stages
        # Arguments that Triton's launcher would specialise as "divisible by
        # 16" at a typical call site: every pointer, plus the listed integers.
        self.aligned = [a for a, t in self.signature.items() if t.startswith("*")] + list(aligned)
        self.extra = dict(extra or {})
        self.note = note

    def attrs(self):
        idx = self.fn.arg_names
        return {(idx.index(a), ): [["tt.divisibility", 16]] for a in self.aligned}

    def options(self):
        opts = {"num_warps": self.num_warps, "num_stages": self.num_stages}
        opts.update(self.extra)
        return opts


F16MM = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"}
STRIDES = {s: "i32" for s in ("stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn")}
# Triton's launcher specialises integer arguments equal to 1 into constexprs;
# we do the same for the unit (innermost) strides of row-major A, B and C.
UNIT = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1}
ATTN_PTRS = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "O": "*fp16", "LSE": "*fp32"}

JOBS = [
    Job("vector_add", vector_add, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n_elements": "i32"},
        {"BLOCK": 1024}, [80, 90], num_warps=4),
    Job("vector_add_pdl", vector_add_pdl, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n_elements": "i32"},
        {"BLOCK": 1024}, [90], num_warps=4, extra={"launch_pdl": True},
        note="griddepcontrol (programmatic dependent launch); sm_90+ only"),
    Job("softmax", softmax_rows, {
        "out_ptr": "*fp32", "in_ptr": "*fp32", "in_row_stride": "i32", "out_row_stride": "i32", "n_rows": "i32",
        "n_cols": "i32"
    }, {"BLOCK": 1024, "STAGES": 4}, [80, 90], num_warps=8, aligned=("in_row_stride", "out_row_stride")),
    Job("softmax_maxnreg", softmax_rows, {
        "out_ptr": "*fp16", "in_ptr": "*fp16", "in_row_stride": "i32", "out_row_stride": "i32", "n_rows": "i32",
        "n_cols": "i32"
    }, {"BLOCK": 2048, "STAGES": 2}, [80], num_warps=4, extra={"maxnreg": 128},
        note="fp16 rows, maxnreg=128 option -> .maxnreg directive"),
    Job("layernorm_fwd", layernorm_fwd, {
        "x_ptr": "*fp16", "y_ptr": "*fp16", "w_ptr": "*fp32", "b_ptr": "*fp32", "mean_ptr": "*fp32",
        "rstd_ptr": "*fp32", "row_stride": "i32", "n_cols": "i32", "eps": "fp32"
    }, {"BLOCK": 1024}, [80, 90], num_warps=8, aligned=("row_stride", "n_cols")),
    Job("layernorm_bwd_dx", layernorm_bwd_dx, {
        "dx_ptr": "*fp16", "dy_ptr": "*fp16", "x_ptr": "*fp16", "w_ptr": "*fp32", "mean_ptr": "*fp32",
        "rstd_ptr": "*fp32", "dw_part_ptr": "*fp32", "db_part_ptr": "*fp32", "lock_ptr": "*i32", "row_stride": "i32",
        "n_cols": "i32"
    }, {"GROUPS": 64, "BLOCK": 1024}, [80, 90], num_warps=8, aligned=("row_stride", )),
    Job("layernorm_bwd_dwdb", layernorm_bwd_dwdb, {
        "dw_part_ptr": "*fp32", "db_part_ptr": "*fp32", "dw_ptr": "*fp32", "db_ptr": "*fp32", "n_groups": "i32",
        "n_cols": "i32"
    }, {"BLOCK_G": 32, "BLOCK_N": 128}, [80, 90], num_warps=4, aligned=("n_cols", )),
    Job("matmul", matmul, {**F16MM, **STRIDES}, {"BM": 128, "BN": 128, "BK": 64, "GROUP": 8, "ACT": "", **UNIT}, [80, 90],
        num_warps=8, num_stages=4, aligned=("M", "N", "K", "stride_am", "stride_bk", "stride_cm")),
    Job("matmul_leakyrelu", matmul, {**F16MM, **STRIDES}, {
        "BM": 64, "BN": 128, "BK": 32, "GROUP": 8, "ACT": "leaky_relu", **UNIT
    }, [80, 90], num_warps=4, num_stages=3, aligned=("M", "N", "K", "stride_am", "stride_bk", "stride_cm"),
        note="bias-free fused epilogue, smaller 64x128x32 tile"),
    Job("matmul_bf16", matmul, {**F16MM, "a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*bf16", **STRIDES}, {
        "BM": 128, "BN": 256, "BK": 64, "GROUP": 8, "ACT": "", **UNIT
    }, [90], num_warps=8, num_stages=3, aligned=("M", "N", "K", "stride_am", "stride_bk", "stride_cm"),
        note="bf16 inputs, 128x256 tile -> wgmma n=256"),
    Job("matmul_fp8", matmul, {**F16MM, "a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", **STRIDES}, {
        "BM": 128, "BN": 128, "BK": 128, "GROUP": 8, "ACT": "", **UNIT
    }, [90], num_warps=8, num_stages=4, aligned=("M", "N", "K", "stride_am", "stride_bk", "stride_cm"),
        note="fp8 e4m3 inputs (sm_89+/sm_90 only), fp16 output"),
    Job("matmul_persistent", matmul_persistent, {**F16MM, **STRIDES}, {
        "BM": 128, "BN": 128, "BK": 64, "GROUP": 8, "NUM_SMS": 132, **UNIT
    }, [80, 90], num_warps=8, num_stages=3, aligned=("M", "N", "K", "stride_am", "stride_bk", "stride_cm")),
    Job("matmul_tma", matmul_tma, F16MM, {
        "BM": 128, "BN": 128, "BK": 64, "GROUP": 8, "WS": False
    }, [80, 90], num_warps=8, num_stages=4, aligned=("M", "N", "K"),
        note="device-side tl.make_tensor_descriptor; on sm_80 Triton rewrites descriptors to plain pointer math"),
    Job("matmul_tma_ws", matmul_tma, F16MM, {
        "BM": 128, "BN": 128, "BK": 64, "GROUP": 8, "WS": True
    }, [90, 100], num_warps=4, num_stages=4, aligned=("M", "N", "K"),
        note="tl.range(..., warp_specialize=True)"),
    Job("matmul_tma_persistent", matmul_tma_persistent, {
        "a_desc": "tensordesc<fp16[128, 64]>", "b_desc": "tensordesc<fp16[128, 64]>",
        "c_desc": "tensordesc<fp16[128, 128]>", "M": "i32", "N": "i32", "K": "i32"
    }, {"BM": 128, "BN": 128, "BK": 64, "GROUP": 8, "NUM_SMS": 132, "WS": False}, [80, 90], num_warps=8,
        num_stages=3, aligned=("M", "N", "K"),
        note="host-side TMA descriptors (tensordesc<...> signature type)"),
    Job("matmul_tma_persistent_ws", matmul_tma_persistent, {
        "a_desc": "tensordesc<fp16[128, 64]>", "b_desc": "tensordesc<fp16[128, 64]>",
        "c_desc": "tensordesc<fp16[128, 128]>", "M": "i32", "N": "i32", "K": "i32"
    }, {"BM": 128, "BN": 128, "BK": 64, "GROUP": 8, "NUM_SMS": 148, "WS": True}, [90, 100], num_warps=4,
        num_stages=3, aligned=("M", "N", "K"), note="host-side TMA descriptors + warp_specialize=True"),
    Job("attn_fwd", attn_fwd, {
        **ATTN_PTRS, "sm_scale": "fp32", "stride_z": "i32", "stride_h": "i32", "stride_m": "i32", "H": "i32",
        "N_CTX": "i32"
    }, {"HEAD_DIM": 64, "BLOCK_M": 128, "BLOCK_N": 64, "CAUSAL": False}, [80, 90], num_warps=4, num_stages=3,
        aligned=("stride_z", "stride_h", "stride_m")),
    Job("attn_fwd_causal_d128", attn_fwd, {
        **ATTN_PTRS, "sm_scale": "fp32", "stride_z": "i32", "stride_h": "i32", "stride_m": "i32", "H": "i32",
        "N_CTX": "i32"
    }, {"HEAD_DIM": 128, "BLOCK_M": 128, "BLOCK_N": 64, "CAUSAL": True}, [80, 90], num_warps=8, num_stages=3,
        aligned=("stride_z", "stride_h", "stride_m")),
    Job("attn_fwd_tma", attn_fwd_tma, {
        **ATTN_PTRS, "sm_scale": "fp32", "Z": "i32", "H": "i32", "N_CTX": "i32"
    }, {"HEAD_DIM": 128, "BLOCK_M": 128, "BLOCK_N": 128, "CAUSAL": True, "WS": False}, [90], num_warps=8,
        num_stages=2, aligned=("N_CTX", ), note="device-side descriptors, causal, d=128"),
    Job("attn_fwd_tma_ws", attn_fwd_tma, {
        **ATTN_PTRS, "sm_scale": "fp32", "Z": "i32", "H": "i32", "N_CTX": "i32"
    }, {"HEAD_DIM": 64, "BLOCK_M": 128, "BLOCK_N": 64, "CAUSAL": False, "WS": True}, [90, 100], num_warps=4,
        num_stages=3, aligned=("N_CTX", ), note="device-side descriptors + warp_specialize=True"),
    Job("attn_bwd_preprocess", attn_bwd_preprocess, {
        "O": "*fp16", "DO": "*fp16", "Delta": "*fp32", "N_CTX": "i32"
    }, {"HEAD_DIM": 64, "BLOCK_M": 128}, [80, 90], num_warps=4, num_stages=1, aligned=("N_CTX", )),
    Job("attn_bwd", attn_bwd, {
        "Q": "*fp16", "K": "*fp16", "V": "*fp16", "DO": "*fp16", "DQ": "*fp16", "DK": "*fp16", "DV": "*fp16",
        "LSE": "*fp32", "Delta": "*fp32", "sm_scale": "fp32", "H": "i32", "N_CTX": "i32"
    }, {"HEAD_DIM": 64, "BLOCK_KV": 128, "BLOCK_Q": 32, "CAUSAL": True}, [80, 90], num_warps=8, num_stages=3,
        aligned=("N_CTX", )),
]


def compile_job(job, cap):
    src = triton.compiler.ASTSource(fn=job.fn, signature=job.signature, constexprs=job.constexprs,
                                    attrs=job.attrs())
    compiled = triton.compile(src, target=GPUTarget("cuda", cap, 32), options=job.options())
    return compiled


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=HERE, help="output directory (default: next to this script)")
    ap.add_argument("--only", nargs="*", help="job names to build")
    ap.add_argument("--list", action="store_true", help="list jobs and exit")
    ap.add_argument("--max-bytes", type=int, default=2_000_000, help="skip PTX files larger than this")
    args = ap.parse_args()

    if args.list:
        for j in JOBS:
            print(f"{j.name:28s} {j.fn.__name__:24s} caps={j.caps}")
        return 0

    os.makedirs(args.out, exist_ok=True)
    manifest_path = os.path.join(args.out, "manifest.json")
    manifest = {}
    if args.only and os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
    failures = []
    for job in JOBS:
        if args.only and job.name not in args.only:
            continue
        for cap in job.caps:
            fname = f"{job.name}_{CAP_SUFFIX[cap]}.ptx"
            try:
                compiled = compile_job(job, cap)
            except Exception as e:  # keep going; report at the end
                msg = f"{type(e).__name__}: {e}".strip().splitlines()
                failures.append((fname, msg[0][:300] if msg else type(e).__name__))
                traceback.print_exc(limit=2)
                continue
            ptx = compiled.asm["ptx"]
            if len(ptx.encode()) > args.max_bytes:
                failures.append((fname, f"PTX too large ({len(ptx)} bytes)"))
                continue
            with open(os.path.join(args.out, fname), "w") as f:
                f.write(ptx)
            md = compiled.metadata
            manifest[fname] = {
                "job": job.name,
                "kernel": job.fn.__name__,
                "entry": md.name,
                "capability": cap,
                "signature": job.signature,
                "constexprs": job.constexprs,
                "divisibility_16": job.aligned,
                "options": job.options(),
                "num_warps_total": md.num_warps,
                "shared_bytes": md.shared,
                "global_scratch_size": md.global_scratch_size,
                "global_scratch_align": md.global_scratch_align,
                "profile_scratch_size": md.profile_scratch_size,
                "tensordesc_meta": md.tensordesc_meta,
                "lines": ptx.count("\n"),
                "bytes": len(ptx.encode()),
                "note": job.note,
            }
            print(f"ok   {fname:40s} {manifest[fname]['lines']:7d} lines  warps={md.num_warps} shared={md.shared}"
                  f" gscratch={md.global_scratch_size}")
    manifest["_generator"] = {
        "triton": triton.__version__,
        "python": sys.version.split()[0],
        "command": "python3 tests/realworld/triton/gen.py",
    }
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1, default=str)
    for fname, why in failures:
        print(f"FAIL {fname}: {why}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
