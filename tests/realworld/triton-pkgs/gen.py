#!/usr/bin/env python3
"""Generate the third-party-Triton part of phasegate's real-world PTX corpus.

The kernels are NOT ours: they are the `@triton.jit` functions shipped in two PyPI
packages, imported from the installed packages at build time (no kernel source is
copied into this repository):

    liger-kernel==0.8.5   (module liger_kernel.ops.*)
    fla-core==0.6.0       (module fla.ops.*, flash-linear-attention's kernels)
    vllm==0.33.0          (fused MoE, attention and Mamba-2 kernels; see below)

Each job below names a kernel, the argument types and constexpr values of one
plausible call site (what the package's own launcher would pass for a typical
shape), and the Triton options.  The kernel is compiled ahead of time -- no GPU --
with `triton.compile(ASTSource(...), target=GPUTarget("cuda", CAP, 32))`, exactly
as `tests/realworld/triton/gen.py` does for our own kernels, and the PTX is written
next to this script as `<job>_<target>.ptx` (`.ptx.gz`, gzip level 9 with mtime 0,
when it is over 600 KB).  Autotune/heuristics wrappers are
unwrapped; the values they would choose are given explicitly in the job.

vLLM's kernel modules import most of vLLM (and torch) at the top, so for them gen.py
does not import the module: it reads the .py file from an unpacked vllm wheel
(--vllm-root), keeps only the top-level `@triton.jit` functions (and top-level
constants/`tl.constexpr` globals) of that file and of the helper files a job names,
writes them into one module under $TMPDIR/phasegate-vllm-kernels/ and imports that.
`float8_info` (torch.finfo of float8_e4m3fn in vLLM) is defined there as min=-448,
max=448.  The kernels' line info therefore points into those generated modules.

Usage (from the repository root):

    pip install triton==3.9.0 liger-kernel==0.8.5 fla-core==0.6.0 packaging einops
    pip install --no-deps ...   # torch is NOT needed: torchstub.py stands in for it
    unzip vllm-0.33.0-cp38-abi3-manylinux_2_28_x86_64.whl 'vllm/*.py' -d VLLM_ROOT
    python3 tests/realworld/triton-pkgs/gen.py [--only JOB ...] [--list] [--out DIR] [--vllm-root VLLM_ROOT]
"""

import argparse
import ast
import gzip
import importlib
import importlib.util
import json
import os
import re
import sys
import tempfile
import traceback

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="phasegate-triton-cache-")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torchstub  # noqa: E402,F401  (must come before the packages' imports)

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.runtime.autotuner import Autotuner, Heuristics  # noqa: E402

SM90 = ("sm90a", 90)
SM80 = ("sm80", 80)

INT_RE = re.compile(
    r"^(T|B|M|N|K|L|D|TQ|TK|TK_|E|n_.*|.*stride.*|sl|seq_len|hidden_size|channels_per_group|"
    r"rows_per_program|n_rows|n_cols|ignore_index|i_.*|n_blocks|n_tokens|n_tiles|.*_dim|"
    r"VLLM_IS_RATIO_STRIDE|loss_stride\d)$")
FLOAT_NAMES = {"eps", "scale", "offset", "alpha", "beta", "gate_multiplier", "softcap",
               "sum_non_ignore_weight", "weight_sum", "lse_square_scale", "label_smoothing"}


def J(job, kernel, targets=(SM90,), dtype="bf16", types=None, const=None, warps=4, stages=3,
      note="", **opts):
    return dict(job=job, kernel=kernel, targets=targets, dtype=dtype, types=types or {},
                const=const or {}, warps=warps, stages=stages, note=note, opts=opts)


# fla pointer arguments that hold fp32 (gates, states, softmax statistics) or int32
# (varlen offsets) rather than activations.
FLA_F32 = {n: "*fp32" for n in ["g", "g_gamma", "gk", "gv", "h0", "ht", "dh0", "dht", "lse",
                                "delta", "g_cumsum", "dg", "dgk", "dgv", "A", "Ai", "Akk",
                                "Aqk", "Akkd", "beta", "db", "dbeta", "z", "dz"]}
FLA_I32 = {n: "*i32" for n in ["cu_seqlens", "chunk_indices", "chunk_offsets", "split_offsets",
                               "cu_seqlens_q", "cu_seqlens_k", "token_indices_q", "token_indices",
                               "block_indices", "block_counts"]}
FLA = {**FLA_F32, **FLA_I32}
RMS = {"RSTD_ptr": "*fp32", "W_ptr": "*fp32", "dW_ptr": "*fp32"}

# vllm files (relative to an unpacked vllm-0.33.0 wheel) and per-family argument types
FM = "vllm/model_executor/layers/fused_moe/fused_moe.py"
UA = "vllm/v1/attention/ops/triton_attention_helpers.py+vllm/v1/attention/ops/triton_unified_attention.py"
DA = "vllm/v1/attention/ops/triton_decode_attention.py"
PP = "vllm/v1/attention/ops/prefix_prefill.py"
MS = "vllm/v1/attention/ops/triton_merge_attn_states.py"
CS = "vllm/model_executor/layers/mamba/ops/triton_helpers.py+vllm/model_executor/layers/mamba/ops/ssd_chunk_scan.py"
CST = "vllm/model_executor/layers/mamba/ops/triton_helpers.py+vllm/model_executor/layers/mamba/ops/ssd_chunk_state.py"
VMOE = {"topk_weights_ptr": "*fp32", "sorted_token_ids_ptr": "*i32", "expert_ids_ptr": "*i32",
        "num_tokens_post_padded_ptr": "*i32", "EM": "i32", "num_valid_tokens": "i32",
        "b_bias_ptr": "*bf16", "a_scale_ptr": "*fp32", "b_scale_ptr": "*fp32"}
VATT = {"sink_ptr": "*fp32", "block_tables_ptr": "*i32", "seq_lens_ptr": "*i32",
        "alibi_slopes_ptr": "*fp32", "qq_bias_ptr": "*fp32", "scale": "fp32", "q_scale": "*fp32",
        "k_scale": "*fp32", "v_scale": "*fp32", "out_scale": "*fp32", "softcap": "fp32",
        "per_seq_causal_ptr": "*i32", "mm_prefix_range_ptr": "*i32", "rswa_prefix_lens_ptr": "*i32",
        "query_start_len_ptr": "*i32", "num_seqs": "i32", "out_scale_inv": "fp32",
        "segm_output_ptr": "*fp32", "segm_max_ptr": "*fp32", "segm_expsum_ptr": "*fp32"}
VDEC = {"sm_scale": "fp32", "Req_to_tokens": "*i32", "B_Seqlen": "*i32", "Att_Out": "*fp32",
        "k_scale": "*fp32", "v_scale": "*fp32", "Mid_O": "*fp32", "lse": "*fp32"}
VPP = {"K": "*bf16", "sink_ptr": "*fp32", "B_Loc": "*i32", "sm_scale": "fp32", "k_scale": "*fp32",
       "v_scale": "*fp32", "out_scale_inv": "*fp32", "B_Start_Loc": "*i32", "B_Seqlen": "*i32"}
VSSD = {"dt_ptr": "*fp32", "dA_cumsum_ptr": "*fp32", "seq_idx_ptr": "*i32", "states_ptr": "*fp32",
        "D_ptr": "*fp32", "initstates_ptr": "*fp32", "cu_chunk_seqlens_ptr": "*i32",
        "cb_ptr": "*fp32"}

JOBS = [
    # ------------------------------------------------------------------ liger-kernel
    J("liger_rms_norm_fwd", "liger_kernel.ops.rms_norm._rms_norm_forward_kernel", (SM90, SM80),
      types=RMS, const=dict(casting_mode=1, elementwise_affine=True, BLOCK_SIZE=4096), warps=16),
    J("liger_rms_norm_bwd", "liger_kernel.ops.rms_norm._rms_norm_backward_kernel", (SM90, SM80),
      types=RMS, const=dict(X_dtype=tl.bfloat16, casting_mode=1, elementwise_affine=True, BLOCK_SIZE=4096),
      warps=16),
    J("liger_block_rms_norm_fwd", "liger_kernel.ops.rms_norm._block_rms_norm_forward_kernel",
      types=RMS, const=dict(casting_mode=0, elementwise_affine=True, BLOCK_SIZE=1024, BLOCK_ROW=16),
      warps=8),
    J("liger_block_rms_norm_bwd", "liger_kernel.ops.rms_norm._block_rms_norm_backward_kernel",
      types=RMS, const=dict(X_dtype=tl.bfloat16, casting_mode=0, elementwise_affine=True, BLOCK_SIZE=1024,
                            BLOCK_ROW=16), warps=8),
    J("liger_layer_norm_fwd", "liger_kernel.ops.layer_norm._layer_norm_forward_kernel", (SM90, SM80),
      types={"Mean_ptr": "*fp32", "RSTD_ptr": "*fp32"}, const=dict(BLOCK_SIZE=4096), warps=16),
    J("liger_layer_norm_bwd", "liger_kernel.ops.layer_norm._layer_norm_backward_kernel",
      types={"Mean_ptr": "*fp32", "RSTD_ptr": "*fp32", "DW_ptr": "*fp32", "DB_ptr": "*fp32"},
      const=dict(rows_per_program=32, BLOCK_SIZE=4096), warps=16),
    J("liger_cross_entropy", "liger_kernel.ops.cross_entropy.liger_cross_entropy_kernel", (SM90, SM80),
      types={"Y_ptr": "*i64", "weight_ptr": "*fp32", "loss_ptr": "*fp32", "z_loss_ptr": "*fp32",
             "token_accuracy_ptr": "*fp32", "predicted_tokens_ptr": "*i64", "n_non_ignore": "i32",
             "ignore_index": "i32"},
      const=dict(lse_square_scale=0.0, label_smoothing=0.0, reduction="mean", RETURN_Z_LOSS=False,
                 RETURN_TOKEN_ACCURACY=False, RETURN_PREDICTED_TOKENS=False, BLOCK_SIZE=32768,
                 HAS_WEIGHT=False, HAS_SOFTCAPPING=True, HAS_GRADIENTS=True), warps=32),
    J("liger_swiglu_fwd", "liger_kernel.ops.swiglu._swiglu_forward_kernel", (SM90, SM80),
      const=dict(n_cols=11008, BLOCK_SIZE=16384), warps=32),
    J("liger_swiglu_bwd", "liger_kernel.ops.swiglu._swiglu_backward_kernel",
      const=dict(n_cols=11008, BLOCK_SIZE=16384), warps=32),
    J("liger_geglu_fwd", "liger_kernel.ops.geglu._geglu_tanh_forward_kernel",
      const=dict(n_cols=8192, BLOCK_SIZE=8192), warps=16),
    J("liger_rope", "liger_kernel.ops.rope._triton_rope", (SM90, SM80),
      types={"cos": "*fp32", "sin": "*fp32"},
      const=dict(bs=4, cos_bs=1, n_qh=32, n_kh=8, hd=128, pad_n_qh=32, pad_n_kh=8, pad_hd=128,
                 pad_rd=128, rd=128, BLOCK_SIZE=128, BACKWARD_PASS=False), warps=4),
    J("liger_jsd", "liger_kernel.ops.jsd._jsd_kernel", types={"loss_ptr": "*fp32", "dX_ptr": "*fp32",
      "label_ptr": "*i64", "n_non_ignore": "i32"},
      const=dict(beta=0.5, ignore_index=-100, BLOCK_SIZE=32768, HAS_LABEL=True), warps=32),
    J("liger_kldiv_fwd", "liger_kernel.ops.kl_div._kldiv_kernel_forward", types={"loss_ptr": "*fp32"},
      const=dict(BLOCK_SIZE=16384, reduction=0, log_target=False), warps=32),
    J("liger_softmax_single_block_fwd", "liger_kernel.ops.softmax._softmax_single_block_forward_kernel",
      (SM90, SM80), const=dict(BLOCK_SIZE=4096), warps=16),
    J("liger_softmax_single_block_bwd", "liger_kernel.ops.softmax._softmax_single_block_backward_kernel",
      const=dict(BLOCK_SIZE=2048), warps=8),
    J("liger_group_norm_fwd", "liger_kernel.ops.group_norm._group_norm_forward_kernel",
      types={"Mean_ptr": "*fp32", "RSTD_ptr": "*fp32", "W_ptr": "*fp32", "B_ptr": "*fp32",
             "hidden_size": "i32", "channels_per_group": "i32"},
      const=dict(BLOCK_SIZE=4096), warps=16),
    J("liger_sparsemax_fwd", "liger_kernel.ops.sparsemax._sparsemax_forward_kernel",
      dtype="fp32", const=dict(BLOCK_SIZE=1024, num_warps=4), warps=4),
    J("liger_fused_add_rms_norm_bwd", "liger_kernel.ops.fused_add_rms_norm._fused_add_rms_norm_backward_kernel",
      types=RMS, const=dict(X_dtype=tl.bfloat16, rows_per_program=16, casting_mode=1, BLOCK_SIZE=4096,
                            has_dS_out=True), warps=16),
    J("liger_dyt_bwd", "liger_kernel.ops.dyt._dyt_bwd_kernel",
      types={"DA": "*fp32", "DG": "*fp32", "DB": "*fp32", "Alpha": "*fp32", "Gamma": "*fp32"},
      const=dict(HAVE_BETA=True, N=4096, BLOCK_N=1024), warps=8),
    J("liger_moe_router_histogram", "liger_kernel.ops.fused_moe_kernels._moe_router_histogram_kernel",
      types={"topk_indices_ptr": "*i32", "partial_sum_ptr": "*i32"},
      const=dict(E=64, TOKENS_PER_TILE=128, K_POW2=8, K=8, E_POW2=64), warps=4),
    J("liger_moe_up_proj_swiglu", "liger_kernel.ops.fused_moe_kernels._fused_up_proj_swiglu_kernel",
      (SM90, SM80),
      types={"x_gather_idx_ptr": "*i32", "expert_start_ptr": "*i32", "tile_row_start_ptr": "*i32",
             "tile_expert_ptr": "*i32"},
      const=dict(H_dim=2048, I_dim=1024, stride_x_H=1, stride_w_K=1, stride_pre_N=1, stride_post_N=1,
                 BLOCK_M=128, BLOCK_N=128, BLOCK_K=64), warps=8, stages=3),
    J("liger_moe_down_proj", "liger_kernel.ops.fused_moe_kernels._fused_down_proj_kernel",
      types={"expert_start_ptr": "*i32", "tile_row_start_ptr": "*i32", "tile_expert_ptr": "*i32"},
      const=dict(H_dim=2048, I_dim=1024, stride_post_I=1, stride_w_I=1, stride_Y_H=1,
                 BLOCK_M=128, BLOCK_N=128, BLOCK_K=64), warps=8, stages=4),
    J("liger_moe_bwd_dW1", "liger_kernel.ops.fused_moe_kernels._moe_bwd_dW1_kernel",
      types={"x_gather_idx_ptr": "*i32", "expert_start_ptr": "*i32", "dW1_ptr": "*fp32"},
      const=dict(H_dim=2048, I_dim=1024, stride_x_H=1, stride_d_pre_N=1, stride_dW1_H=1,
                 BLOCK_M=64, BLOCK_N=128, BLOCK_K=64), warps=4, stages=3),
    J("liger_neighborhood_attn_qk", "liger_kernel.ops.fused_neighborhood_attention._fused_neighborhood_attention_qk_kernel",
      (SM90, SM80), types={"mask_ptr": "*i1"},
      const=dict(batch_size=2, num_heads=8, seq_len=1024, head_dim=64, scale=0.125, kernel_size=7,
                 dilation=1, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, num_stages=2,
                 num_warps=4), warps=4, stages=2),
    J("liger_neighborhood_attn_av", "liger_kernel.ops.fused_neighborhood_attention._fused_neighborhood_attention_av_kernel",
      const=dict(batch_size=2, num_heads=8, seq_len=1024, head_dim=64, BLOCK_SIZE_M=64,
                 BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, num_stages=2, num_warps=4), warps=4, stages=2),
    J("liger_mhc_mm_norm_fwd", "liger_kernel.ops.mhc._mhc_mm_norm_fwd_kernel",
      types={"mix_ptr": "*fp32", "invr_ptr": "*fp32", "phi_ptr": "*fp32"},
      const=dict(N=8192, K=512, M=24, stride_xn=512, stride_xk=1, stride_phik=24, stride_phim=1,
                 stride_mn=24, stride_mm=1, eps=1e-6, BLOCK_N=64, BLOCK_K=64, BLOCK_M=32,
                 CAST_FP32=True), warps=4),
    J("liger_grpo_loss_fwd", "liger_kernel.ops.grpo_loss._grpo_loss_fwd_kernel",
      types={n: "*fp32" for n in ["OLD_LOGP", "REF_LOGP", "ADVANTAGES", "VLLM_IS_RATIO", "PHI_SEQ",
                                  "LOSS", "LSE", "KL"]} | {"INPUT_IDS": "*i64",
                                  "COMPLETION_MASK": "*i32", "IS_CLIPPED": "*i1"},
      const=dict(TEMPERATURE=1.0, BETA=0.04, EPS_LOW=0.2, EPS_HIGH=0.2, LOSS_TYPE=0,
                 SAPO_TEMP_POS=1.0, SAPO_TEMP_NEG=1.0, DELTA=0.0, USE_BIAS_CORRECTION_KL=False,
                 L=1024, N=32000, BLOCK_N=4096), warps=8),
    # ------------------------------------------------------------------ fla-core
    J("fla_chunk_fwd_h", "fla.ops.common.chunk_h.chunk_fwd_kernel_h", (SM90, SM80), types=FLA,
      const=dict(H=16, K=128, V=128, BT=64, BS=64, BK=64, BV=64, USE_G=True, USE_G_GAMMA=False,
                 USE_GK=False, USE_GV=False, USE_INITIAL_STATE=True, STORE_FINAL_STATE=True,
                 IS_VARLEN=False, STATE_V_FIRST=False), warps=4, stages=2),
    J("fla_chunk_bwd_dh", "fla.ops.common.chunk_h.chunk_bwd_kernel_dh", types=FLA,
      const=dict(HQ=16, H=16, K=128, V=128, BT=64, BS=64, BK=64, BV=64, NG=1, USE_G=True,
                 USE_G_GAMMA=False, USE_GK=False, USE_GV=False, STORE_INITIAL_STATE_GRADIENT=True,
                 USE_FINAL_STATE_GRADIENT=True, IS_VARLEN=True, STATE_V_FIRST=False), warps=4, stages=2),
    J("fla_chunk_fwd_o", "fla.ops.common.chunk_o.chunk_fwd_kernel_o", (SM90, SM80), types=FLA,
      const=dict(H=16, HV=16, K=128, V=128, BT=64, BK=64, BV=64, USE_G=True, USE_G_GAMMA=False,
                 STATE_V_FIRST=False, IS_VARLEN=False), warps=4, stages=3),
    J("fla_chunk_bwd_dqkwg", "fla.ops.common.chunk_o.chunk_bwd_kernel_dqkwg", types=FLA,
      const=dict(B=2, H=16, HV=16, K=128, V=128, BT=64, BK=64, BV=64, USE_G=True, USE_G_GAMMA=False,
                 USE_DW=True, STATE_V_FIRST=False, IS_VARLEN=False), warps=4, stages=2),
    J("fla_chunk_bwd_dv_local", "fla.ops.common.chunk_o.chunk_bwd_kernel_dv_local", types=FLA,
      const=dict(H=16, HV=16, K=128, V=128, BT=64, BK=64, BV=64, USE_G=True, USE_G_GAMMA=False,
                 USE_A=False, IS_VARLEN=True), warps=4, stages=2),
    J("fla_gdn_recompute_w_u", "fla.ops.gated_delta_rule.wy_fast.recompute_w_u_fwd_kernel",
      (SM90, SM80), types=FLA | {"A": "*bf16"},
      const=dict(H=16, HV=16, K=128, V=128, BT=64, BK=64, BV=64, USE_G=True, IS_VARLEN=False),
      warps=4, stages=3),
    J("fla_gdn_prepare_wy_bwd", "fla.ops.gated_delta_rule.wy_fast.prepare_wy_repr_bwd_kernel",
      types=FLA | {"A": "*bf16"}, const=dict(H=16, HV=16, K=128, V=128, BT=64, BK=64, BV=64, USE_G=True,
                            IS_VARLEN=False), warps=4, stages=2),
    J("fla_gdn_fwd_h_blockdim64", "fla.ops.common.chunk_delta_h.chunk_gated_delta_rule_fwd_kernel_h_blockdim64",
      (SM90, SM80), types=FLA,
      const=dict(H=16, HV=16, K=128, V=128, BT=64, BV=64, USE_G=True, USE_GK=False,
                 USE_INITIAL_STATE=True, STORE_FINAL_STATE=True, SAVE_NEW_VALUE=True,
                 STATE_V_FIRST=False, IS_VARLEN=True), warps=4, stages=2),
    J("fla_gdn_bwd_dhu_blockdim64", "fla.ops.common.chunk_delta_h.chunk_gated_delta_rule_bwd_kernel_dhu_blockdim64",
      types=FLA,
      const=dict(H=16, HV=16, K=128, V=128, BT=64, BV=64, USE_G=True, USE_GK=False,
                 USE_INITIAL_STATE=True, USE_FINAL_STATE_GRADIENT=True, STATE_V_FIRST=False,
                 IS_VARLEN=False), warps=4, stages=2),
    J("fla_scaled_dot_kkt", "fla.ops.common.chunk_scaled_dot_kkt.chunk_scaled_dot_kkt_fwd_kernel",
      types=FLA, const=dict(H=16, HV=16, K=128, BT=64, BK=64, IS_VARLEN=False, USE_G=True),
      warps=4, stages=3),
    J("fla_solve_tril_64", "fla.ops.utils.solve_tril.merge_16x16_to_64x64_inverse_kernel",
      (SM90, SM80), types=FLA,
      const=dict(H=16, BT=64, USE_TMA=False, IS_VARLEN=False, DOT_PRECISION="ieee"), warps=4, stages=2),
    J("fla_parallel_attn_fwd", "fla.ops.attn.parallel.parallel_attn_fwd_kernel", (SM90, SM80),
      types=FLA | {"sink_bias": "*fp32"},
      const=dict(W=0, B=2, H=8, HQ=32, G=4, K=128, V=128, BT=128, BS=64, BK=128, BV=128, USE_G=False,
                 USE_SINK_BIAS=False, USE_WINDOW=False, IS_VARLEN=False), warps=8, stages=2),
    J("fla_parallel_attn_fwd_window_varlen", "fla.ops.attn.parallel.parallel_attn_fwd_kernel",
      types=FLA | {"sink_bias": "*fp32"},
      const=dict(W=512, B=1, H=8, HQ=32, G=4, K=64, V=64, BT=64, BS=64, BK=64, BV=64, USE_G=True,
                 USE_SINK_BIAS=True, USE_WINDOW=True, IS_VARLEN=True), warps=4, stages=3),
    J("fla_parallel_attn_bwd_dq", "fla.ops.attn.parallel.parallel_attn_bwd_kernel_dq", types=FLA,
      const=dict(W=0, B=2, H=8, HQ=32, G=4, K=128, V=128, BT=64, BS=32, BK=128, BV=128, USE_G=False,
                 USE_WINDOW=False, IS_VARLEN=False), warps=4, stages=2),
    J("fla_parallel_attn_bwd_dkv", "fla.ops.attn.parallel.parallel_attn_bwd_kernel_dkv", types=FLA,
      const=dict(W=0, B=2, H=8, HQ=32, G=4, K=128, V=128, BT=64, BS=32, BK=128, BV=128, USE_G=False,
                 USE_WINDOW=False, IS_VARLEN=False), warps=4, stages=2),
    J("fla_simple_gla_parallel_fwd", "fla.ops.simple_gla.parallel.parallel_simple_gla_fwd_kernel",
      types=FLA | {"attn": "*fp32"},
      const=dict(B=2, H=16, K=128, V=128, BT=128, BS=32, BK=128, BV=64, NV=2,
                 OUTPUT_ATTENTIONS=False, IS_VARLEN=False, USE_G=True), warps=4, stages=2),
    J("fla_simple_gla_parallel_bwd", "fla.ops.simple_gla.parallel.parallel_simple_gla_bwd_kernel",
      types=FLA, const=dict(B=2, H=16, K=128, V=128, BT=64, BS=32, BK=64, BV=64, NV=2,
                            IS_VARLEN=False, USE_G=True), warps=4, stages=2),
    J("fla_fused_recurrent_fwd", "fla.ops.common.fused_recurrent.fused_recurrent_fwd_kernel",
      (SM90, SM80), types=FLA,
      const=dict(H=16, K=128, V=128, BK=128, BV=32, REVERSE=False, USE_G=False, USE_G_GAMMA=False,
                 USE_GK=True, USE_GV=False, USE_INITIAL_STATE=True, STORE_FINAL_STATE=True,
                 IS_VARLEN=True, STATE_V_FIRST=False), warps=1, stages=1),
    J("fla_gdn_fused_recurrent_fwd", "fla.ops.gated_delta_rule.fused_recurrent.fused_recurrent_gated_delta_rule_fwd_kernel",
      types=FLA | {"A_log": "*fp32", "dt_bias": "*fp32"},
      const=dict(H=16, HV=32, K=128, V=128, BK=128, BV=32, USE_G=True, USE_GK=False, USE_GV=False,
                 USE_QK_L2NORM_IN_KERNEL=True, IS_BETA_HEADWISE=True, USE_INITIAL_STATE=True,
                 STORE_FINAL_STATE=True, STATE_V_FIRST=False, IS_VARLEN=True,
                 USE_GATE_IN_KERNEL=True, HAS_DT_BIAS=True, APPLY_BETA_SIGMOID=True,
                 ALLOW_NEG_EIGVAL=False), warps=1, stages=3),
    J("fla_rwkv7_fused_recurrent_fwd", "fla.ops.rwkv7.fused_recurrent.fused_recurrent_rwkv7_fwd_kernel",
      types=FLA, const=dict(B=2, H=32, K=64, V=64, BK=64, BV=16, REVERSE=False, USE_INITIAL_STATE=True,
                            STORE_FINAL_STATE=True, IS_VARLEN=False, IS_DECODE=False), warps=2, stages=2),
    J("fla_cumsum_local_vector", "fla.ops.utils.cumsum.chunk_local_cumsum_vector_kernel",
      dtype="fp32", types=FLA_I32,
      const=dict(B=2, H=16, S=128, BT=64, BS=64, REVERSE=False, HAS_SCALE=False, IS_VARLEN=True),
      warps=4, stages=2),
    J("fla_cumsum_global_scalar", "fla.ops.utils.cumsum.chunk_global_cumsum_scalar_kernel",
      dtype="fp32", types=FLA_I32,
      const=dict(B=2, H=16, BT=64, REVERSE=True, HAS_SCALE=True, IS_VARLEN=False), warps=4, stages=2),
    J("fla_based_parallel_fwd", "fla.ops.based.parallel.parallel_based_fwd_kernel", types=FLA,
      const=dict(B=2, H=16, K=16, V=128, BTL=128, BTS=32, BK=16, BV=64), warps=4, stages=2),
    J("fla_based_parallel_bwd", "fla.ops.based.parallel.parallel_based_bwd_kernel", types=FLA,
      const=dict(B=2, H=16, K=16, V=128, BTL=64, BTS=32, BK=16, BV=32), warps=4, stages=2),
    J("fla_gla_fwd_A_intra_sub_inter", "fla.ops.gla.chunk.chunk_gla_fwd_A_kernel_intra_sub_inter",
      types=FLA, const=dict(H=16, K=128, BT=64, BC=16, BK=64, NC=4, IS_VARLEN=False), warps=4, stages=2),
    J("fla_gla_fwd_o", "fla.ops.gla.chunk.chunk_gla_fwd_kernel_o", types=FLA,
      const=dict(H=16, HV=16, K=128, V=128, BT=64, BK=64, BV=64, STATE_V_FIRST=False,
                 IS_VARLEN=False), warps=4, stages=3),
    J("fla_gla_bwd_inter", "fla.ops.gla.chunk.chunk_gla_bwd_kernel_inter", types=FLA | {"dq2": "*fp32",
      "dk2": "*fp32"}, const=dict(H=16, K=128, V=128, BT=64, BK=64, BV=64, IS_VARLEN=False,
                                   STATE_V_FIRST=False), warps=4, stages=2),
    J("fla_nsa_fwd", "fla.ops.nsa.parallel.parallel_nsa_fwd_kernel", (SM90, SM80), types=FLA,
      const=dict(H=4, HQ=64, G=16, K=128, V=128, S=16, BS=64, BK=128, BV=128, IS_VARLEN=False,
                 USE_BLOCK_COUNTS=True), warps=4, stages=2),
    J("fla_nsa_topk", "fla.ops.nsa.parallel.parallel_nsa_kernel_topk", types=FLA,
      const=dict(H=4, HQ=64, G=16, K=128, S=16, BC=64, BS=64, BK=128, IS_VARLEN=True), warps=4, stages=2),
    J("fla_matmul_act", "fla.ops.utils.matmul.matmul_kernel", (SM90, SM80),
      types={"M": "i32", "N": "i32", "K": "i32", "alpha": "*fp32", "beta": "*fp32"},
      const=dict(BM=128, BK=64, BN=128, G=4, ACTIVATION="sigmoid", HAS_INPUT=True, HAS_ALPHA=True,
                 HAS_BETA=True, ALLOW_TF32=False, X_DIM=1), warps=8, stages=3),
    J("fla_kda_fwd_inter_solve_fused", "fla.ops.kda.chunk_intra.chunk_kda_fwd_kernel_inter_solve_fused",
      types=FLA, const=dict(H=16, HV=16, K=128, BT=64, BC=16, NC=4, BK=32, IS_VARLEN=False,
                            USE_SAFE_GATE=True), warps=4, stages=2),
    # ------------------------------------------------------------------ vllm (0.33.0)
    J("vllm_fused_moe_bf16", "vllm:" + FM + "::fused_moe_kernel", (SM90, SM80), types=VMOE,
      const=dict(group_n=0, group_k=0, naive_block_assignment=False, BLOCK_SIZE_M=64, BLOCK_SIZE_N=128,
                 BLOCK_SIZE_K=64, GROUP_SIZE_M=8, SPLIT_K=1, MUL_ROUTED_WEIGHT=False, top_k=2,
                 compute_type=tl.bfloat16, use_fp8_w8a8=False, use_int8_w8a8=False,
                 use_int8_w8a16=False, per_channel_quant=False, HAS_BIAS=False, SWAP_AB=False,
                 USE_TD=False), warps=4, stages=3),
    J("vllm_fused_moe_fp8_block128", "vllm:" + FM + "::fused_moe_kernel",
      types=VMOE | {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "a_scale_ptr": "*fp32",
                    "b_scale_ptr": "*fp32"},
      const=dict(group_n=128, group_k=128, naive_block_assignment=False, BLOCK_SIZE_M=64,
                 BLOCK_SIZE_N=128, BLOCK_SIZE_K=128, GROUP_SIZE_M=32, SPLIT_K=1,
                 MUL_ROUTED_WEIGHT=True, top_k=8, compute_type=tl.bfloat16, use_fp8_w8a8=True,
                 use_int8_w8a8=False, use_int8_w8a16=False, per_channel_quant=False, HAS_BIAS=False,
                 SWAP_AB=False, USE_TD=False), warps=4, stages=3),
    J("vllm_fused_moe_gptq_awq_int4", "vllm:" + FM + "::fused_moe_kernel_gptq_awq",
      types=VMOE | {"b_ptr": "*u8", "b_scale_ptr": "*bf16", "b_zp_ptr": "*u8"},
      const=dict(N=4096, K=2048, block_k_diviable=True, group_size=128, BLOCK_SIZE_M=32,
                 BLOCK_SIZE_N=64, BLOCK_SIZE_K=128, GROUP_SIZE_M=1, SPLIT_K=1,
                 MUL_ROUTED_WEIGHT=False, top_k=8, compute_type=tl.bfloat16, has_zp=True,
                 use_int4_w4a16=True, use_int8_w8a16=False), warps=4, stages=3),
    J("vllm_unified_attention_2d", "vllm:" + UA + "::kernel_unified_attention", (SM90, SM80),
      types=VATT,
      const=dict(num_query_heads=32, num_queries_per_kv=4, BLOCK_SIZE=16, TILE_SIZE=32,
                 HEAD_SIZE=128, HEAD_SIZE_PADDED=128, USE_ALIBI_SLOPES=False, USE_ALIBI_SQRT=False,
                 USE_QQ_BIAS=False, USE_SOFTCAP=False, USE_SINKS=False, SLIDING_WINDOW=0,
                 USE_CAUSAL=True, USE_PER_SEQ_CAUSAL=False, USE_MM_PREFIX=False, MAX_MM_RANGES=0,
                 R_SWA_WINDOW=0, USE_R_SWA=False, stride_k_cache_3=1, stride_v_cache_3=1, BLOCK_Q=16,
                 BLOCK_M=64, NUM_SEGMENTS_PER_SEQ=1, USE_FP8=False, IS_3D=False), warps=4, stages=3),
    J("vllm_unified_attention_3d_swa_softcap", "vllm:" + UA + "::kernel_unified_attention",
      types=VATT | {"segm_output_ptr": "*fp32", "segm_max_ptr": "*fp32", "segm_expsum_ptr": "*fp32"},
      const=dict(num_query_heads=64, num_queries_per_kv=8, BLOCK_SIZE=16, TILE_SIZE=16,
                 HEAD_SIZE=256, HEAD_SIZE_PADDED=256, USE_ALIBI_SLOPES=False, USE_ALIBI_SQRT=False,
                 USE_QQ_BIAS=False, USE_SOFTCAP=True, USE_SINKS=True, SLIDING_WINDOW=4096,
                 USE_CAUSAL=True, USE_PER_SEQ_CAUSAL=False, USE_MM_PREFIX=False, MAX_MM_RANGES=0,
                 R_SWA_WINDOW=0, USE_R_SWA=False, stride_k_cache_3=1, stride_v_cache_3=1, BLOCK_Q=2,
                 BLOCK_M=16, NUM_SEGMENTS_PER_SEQ=16, USE_FP8=False, IS_3D=True), warps=4, stages=2),
    J("vllm_unified_attention_reduce_segments", "vllm:" + UA + "::reduce_segments", types=VATT,
      const=dict(num_query_heads=64, TILE_SIZE=16, HEAD_SIZE=256, HEAD_SIZE_PADDED=256, BLOCK_Q=2,
                 NUM_SEGMENTS_PER_SEQ=16, USE_FP8=False), warps=4, stages=2),
    J("vllm_decode_attention_grouped_stage1_mla", "vllm:" + DA + "::_fwd_grouped_kernel_stage1",
      types=VDEC,
      const=dict(kv_group_num=16, q_head_num=16, BLOCK_DMODEL=512, BLOCK_DPE=64, BLOCK_DV=512,
                 BLOCK_N=32, BLOCK_H=16, NUM_KV_SPLITS=8, PAGE_SIZE=64, logit_cap=0.0, Lk=576,
                 Lv=512, IS_MLA=True), warps=4, stages=2),
    J("vllm_decode_attention_stage2", "vllm:" + DA + "::_fwd_kernel_stage2", types=VDEC,
      const=dict(NUM_KV_SPLITS=8, BLOCK_DV=128, Lv=128, OUTPUT_FP16=1), warps=4, stages=2),
    J("vllm_prefix_prefill_fwd", "vllm:" + PP + "::_fwd_kernel", (SM90, SM80), types=VPP,
      const=dict(x=8, stride_k_cache_bl=8, num_queries_per_kv=4, IN_PRECISION=None, BLOCK_M=128,
                 BLOCK_DMODEL=128, BLOCK_DMODEL_PADDED=128, BLOCK_SIZE=16, PHYSICAL_BLOCK_SIZE=16,
                 BLOCK_N=64, SLIDING_WINDOW=0, num_unroll_cache=4, num_unroll_request=1,
                 SKIP_DECODE=False, USE_SINKS=False, USE_FP8=False), warps=4, stages=1),
    J("vllm_merge_attn_states", "vllm:" + MS + "::merge_attn_states_kernel",
      types={"output_lse": "*fp32", "prefix_lse": "*fp32", "suffix_lse": "*fp32",
             "output_scale": "*fp32", "prefill_tokens_with_context": "i32"},
      const=dict(HEAD_SIZE=128, PADDED_HEAD_SIZE=128, OUTPUT_LSE=True, USE_FP8=False),
      warps=4, stages=2),
    J("vllm_mamba2_chunk_scan_fwd", "vllm:" + CS + "::_chunk_scan_fwd_kernel", types=VSSD,
      const=dict(chunk_size=256, hdim=64, dstate=128, nheads_ngroups_ratio=16, stride_cb_csize_k=1,
                 stride_x_hdim=1, stride_z_hdim=1, stride_out_hdim=1, stride_dt_csize=1,
                 stride_dA_cs_csize=1, stride_seq_idx_chunk=1, stride_C_dstate=1,
                 stride_states_dstate=1, stride_init_states_dstate=1, stride_D_head=1,
                 IS_CAUSAL=True, HAS_D=True, D_HAS_HDIM=False, HAS_Z=True, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64,
                 BLOCK_SIZE_K=32, BLOCK_SIZE_DSTATE=128, IS_TRITON_22=True, HAS_INITSTATES=True),
      warps=4, stages=2),
    J("vllm_mamba2_chunk_state_fwd", "vllm:" + CST + "::_chunk_state_fwd_kernel", types=VSSD,
      const=dict(hdim=64, dstate=128, chunk_size=256, nheads_ngroups_ratio=16, stride_x_hdim=1,
                 stride_b_dstate=1, stride_states_dstate=1, stride_dt_csize=1, stride_dA_cs_csize=1,
                 BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=64), warps=4, stages=3),
]


VLLM_ROOT = None
VLLM_HEADER = ["import types", "import triton", "import triton.language as tl",
               "from triton.language.extra import libdevice",
               "float8_info = types.SimpleNamespace(min=-448.0, max=448.0)"]


def vllm_module(files):
    """One importable module holding the @triton.jit functions of the given vllm files."""
    parts = list(VLLM_HEADER)
    for rel in files:
        src = open(os.path.join(VLLM_ROOT, rel)).read()
        tree = ast.parse(src)
        parts.append(f"# ---- from {rel}")
        for node in tree.body:
            seg = ast.get_source_segment(src, node)
            if isinstance(node, ast.FunctionDef):
                decs = [ast.get_source_segment(src, d) for d in node.decorator_list]
                jit = [d for d in decs if d.startswith("triton.jit")]
                if jit:
                    parts.append("@" + jit[0] + "\n" + seg)
            elif isinstance(node, ast.AnnAssign) and "constexpr" in ast.get_source_segment(src, node.annotation):
                parts.append(seg)
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                parts.append(seg)
    name = "pg_vllm_" + "__".join(os.path.splitext(os.path.basename(f))[0] for f in files)
    d = os.path.join(tempfile.gettempdir(), "phasegate-vllm-kernels")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, name + ".py")
    with open(path, "w") as f:
        f.write("\n\n".join(parts) + "\n")
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def resolve(path):
    if path.startswith("vllm:"):
        files, name = path[len("vllm:"):].split("::")
        fn = getattr(vllm_module(files.split("+")), name)
        return fn
    mod, name = path.rsplit(".", 1)
    fn = getattr(importlib.import_module(mod), name)
    while isinstance(fn, (Autotuner, Heuristics)):
        fn = fn.fn
    return fn


def arg_type(name, job, annotation=""):
    if name in job["types"]:
        return job["types"][name]
    ann = str(annotation or "")
    if "int64" in ann:
        return "i64"
    if "int32" in ann:
        return "i32"
    if name in FLOAT_NAMES:
        return "fp32"
    if INT_RE.match(name):
        return "i32"
    return "*" + job["dtype"]


def compile_job(job, target):
    fn = resolve(job["kernel"])
    signature, constexprs, attrs = {}, {}, {}
    for i, p in enumerate(fn.params):
        if p.is_constexpr:
            signature[p.name] = "constexpr"
            if p.name in job["const"]:
                constexprs[p.name] = job["const"][p.name]
            elif p.has_default:
                constexprs[p.name] = p.default
            else:
                raise KeyError(f"no value for constexpr {p.name}")
        elif p.has_default and p.default is None and p.name not in job["types"]:
            # an optional argument the call site leaves out: Triton specialises None
            signature[p.name] = "constexpr"
            constexprs[p.name] = None
        else:
            t = arg_type(p.name, job, getattr(p, "annotation", ""))
            signature[p.name] = t
            if t.startswith("*"):
                attrs[(i,)] = [["tt.divisibility", 16]]
    src = triton.compiler.ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs)
    opts = {"num_warps": job["warps"], "num_stages": job["stages"], **job["opts"]}
    k = triton.compile(src, target=GPUTarget("cuda", target[1], 32), options=opts)
    md = k.metadata
    meta = {k2: getattr(md, k2) for k2 in ("num_warps", "shared", "global_scratch_size")
            if hasattr(md, k2)}
    return k.asm["ptx"], signature, constexprs, opts, meta


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--vllm-root", default=os.environ.get("PHASEGATE_VLLM_ROOT"))
    a = ap.parse_args()
    global VLLM_ROOT
    VLLM_ROOT = a.vllm_root
    if a.list:
        for j in JOBS:
            print(j["job"], j["kernel"], [t[0] for t in j["targets"]])
        return
    os.makedirs(a.out, exist_ok=True)
    manifest, failed = {}, []
    for job in JOBS:
        if a.only and job["job"] not in a.only:
            continue
        if job["kernel"].startswith("vllm:") and not VLLM_ROOT:
            print(f"skip {job['job']}: no --vllm-root")
            continue
        for target in job["targets"]:
            name = f"{job['job']}_{target[0]}"
            try:
                ptx, sig, const, opts, meta = compile_job(job, target)
            except Exception as e:  # noqa: BLE001
                failed.append(name)
                lines = [x for x in str(e).splitlines() if x.strip()]
                print(f"FAIL {name}: {type(e).__name__}: {' | '.join(lines[-4:])[:500]}")
                if os.environ.get("GEN_TRACE"):
                    traceback.print_exc()
                continue
            fname = name + ".ptx"
            if len(ptx.encode()) > 600_000:  # the corpus stores big files compressed
                fname += ".gz"
                with open(os.path.join(a.out, fname), "wb") as f:
                    f.write(gzip.compress(ptx.encode(), compresslevel=9, mtime=0))
            else:
                with open(os.path.join(a.out, fname), "w") as f:
                    f.write(ptx)
            manifest[fname] = dict(kernel=job["kernel"], target=target[0], signature=sig,
                                           constexprs={k: repr(v) for k, v in const.items()},
                                           options=opts, metadata=meta, note=job["note"])
            print(f"ok   {name} ({len(ptx)} bytes)")
    mpath = os.path.join(a.out, "manifest.json")
    old = json.load(open(mpath)) if a.only and os.path.exists(mpath) else {}
    old.update(manifest)
    with open(mpath, "w") as f:
        json.dump(dict(sorted(old.items())), f, indent=1)
    if failed:
        print("failed:", " ".join(failed))
        sys.exit(1)


if __name__ == "__main__":
    main()
