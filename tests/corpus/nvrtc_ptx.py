#!/usr/bin/env python3
"""Compile the corpus kernels to PTX with NVRTC (the nvidia-cuda-nvrtc-cu12 wheel), without a GPU
or nvcc: a syntax check and a preview of the PTX before the GPU machine makes the committed PTX
with nvcc. Usage: nvrtc_ptx.py OUT_DIR [FILE.cu...]"""
import ctypes, glob, os, sys

def lib():
    import nvidia.cuda_nvrtc as m
    base = list(m.__path__)[0]
    return ctypes.CDLL(os.path.join(base, "lib", "libnvrtc.so.12"))

def main():
    out = sys.argv[1]
    files = sys.argv[2:] or sorted(glob.glob(os.path.join(os.path.dirname(__file__) or ".", "*.cu")))
    os.makedirs(out, exist_ok=True)
    nvrtc = lib()
    here = os.path.abspath(os.path.dirname(__file__) or ".")
    failed = 0
    for path in files:
        src = open(path, "rb").read()
        prog = ctypes.c_void_p()
        name = os.path.abspath(path).encode()
        r = nvrtc.nvrtcCreateProgram(ctypes.byref(prog), src, name, 0, None, None)
        assert r == 0, r
        opts = [b"--gpu-architecture=sm_90a", b"-lineinfo", b"--std=c++17", ("--include-path=" + here).encode()]
        arr = (ctypes.c_char_p * len(opts))(*opts)
        r = nvrtc.nvrtcCompileProgram(prog, len(opts), arr)
        size = ctypes.c_size_t()
        nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        nvrtc.nvrtcGetProgramLog(prog, log)
        if r != 0:
            failed += 1
            print(f"{path}: FAILED\n{log.value.decode()}")
            continue
        nvrtc.nvrtcGetPTXSize(prog, ctypes.byref(size))
        ptx = ctypes.create_string_buffer(size.value)
        nvrtc.nvrtcGetPTX(prog, ptx)
        stem = os.path.splitext(os.path.basename(path))[0]
        open(os.path.join(out, stem + ".ptx"), "w").write(ptx.value.decode())
    print(f"{len(files) - failed} compiled, {failed} failed")
    sys.exit(1 if failed else 0)

main()
