// Cooperative groups: thread-block tiles and a grid-wide sync.
#include <cstdio>
#include <vector>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

__global__ void tileSum(const int *in, int *out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int v = in[block.group_index().x * block.size() + block.thread_rank()];
  int s = cg::reduce(tile, v, cg::plus<int>());
  if (tile.thread_rank() == 0) atomicAdd(out, s);
}

__global__ void gridSync(int *data, int *out, int n) {
  cg::grid_group grid = cg::this_grid();
  int i = grid.thread_rank();
  if (i < n) data[i] = i;
  grid.sync();
  if (i < n) out[i] = data[n - 1 - i];
}

int main() {
  const int n = 1024;
  std::vector<int> h(n);
  long long ref = 0;
  for (int i = 0; i < n; ++i) { h[i] = i % 13; ref += h[i]; }
  int *din, *dout;
  cudaMalloc(&din, n * 4); cudaMalloc(&dout, n * 4);
  cudaMemcpy(din, h.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemset(dout, 0, 4);
  tileSum<<<n / 128, 128>>>(din, dout);
  int s; cudaMemcpy(&s, dout, 4, cudaMemcpyDeviceToHost);
  int bad = s != ref;
  int nn = n;
  void *args[] = {&din, &dout, &nn};
  if (cudaLaunchCooperativeKernel((void *)gridSync, n / 256, 256, args) != cudaSuccess) bad++;
  std::vector<int> o(n);
  cudaMemcpy(o.data(), dout, n * 4, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) bad += o[i] != n - 1 - i;
  std::printf("coop_groups: %s (%d mismatches)\n", bad ? "FAIL" : "PASS", bad);
  return bad ? 1 : 0;
}
