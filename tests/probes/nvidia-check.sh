# Runs on the device machine: the corpus programs whose expectations were
# written without a GPU at hand, on NVIDIA's driver and runtime, to confirm
# that they pass there too (the texture rules, stream attributes, graph
# memory, managed attachment, unrolled wmma). Writes $OUT/nvidia-check.txt.
mkdir -p /tmp/nc
{
  for t in textures streams_async graphs_more managed_memory wmma_half mem_pool; do
    nvcc -arch=native -Itests/cuda -o /tmp/nc/$t tests/cuda/$t.cu > /tmp/nc/$t.build 2>&1 || { echo "$t: build failed"; tail -5 /tmp/nc/$t.build; continue; }
    timeout 120 /tmp/nc/$t 2>&1 | tail -5
  done
} > $OUT/nvidia-check.txt 2>&1
cat $OUT/nvidia-check.txt
