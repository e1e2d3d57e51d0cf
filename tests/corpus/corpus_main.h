// Included at the end of every corpus kernel: under CORPUS_MAIN, a host main that launches the
// file's kernel once (KERNEL, GRID, BLOCK, CLUSTER, SMEM, N_ARG from the file) and reports.
#pragma once
#ifdef CORPUS_MAIN
#include <cstdio>
#include <vector>
#define STR2(x) #x
#define STR(x) STR2(x)
int main()
{
    std::vector<float> h(N_ELEMS);
    for (unsigned i = 0; i < N_ELEMS; ++i) h[i] = (float)((int)(i % 7) - 3);
    float *in = nullptr, *out = nullptr;
    cudaMalloc(&in, N_ELEMS * sizeof(float));
    cudaMalloc(&out, N_ELEMS * sizeof(float));
    cudaMemcpy(in, h.data(), N_ELEMS * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(out, 0, N_ELEMS * sizeof(float));
    if (SMEM > 48 * 1024) cudaFuncSetAttribute(KERNEL, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(GRID);
    cfg.blockDim = dim3(BLOCK);
    cfg.dynamicSmemBytes = SMEM;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = CLUSTER;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = CLUSTER > 1 ? 1 : 0;
    cudaError_t e = cudaLaunchKernelEx(&cfg, KERNEL, out, (const float*)in, (unsigned)N_ARG);
    cudaError_t s = cudaDeviceSynchronize();
    printf("%s: launch %s, sync %s\n", STR(KERNEL), cudaGetErrorString(e), cudaGetErrorString(s));
    return (e != cudaSuccess || s != cudaSuccess) ? 1 : 0;
}
#endif
