#!/usr/bin/env bash
# Checks of the zluda command, one case per ctest test:
#   zluda_tool_test.sh CASE ZLUDA BUILD_DIR LLVM_NM SOURCE_DIR LLVM_READELF
set -uo pipefail
case_name=$1 zluda=$2 build=$3 nm=$4 src=$5 readelf=${6:-llvm-readelf}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ZLUDA_CACHE_DIR=$work/cache
fail() { echo "FAIL: $*"; exit 1; }

case $case_name in
compile_ptx)
  "$zluda" compile "$build/ptx-corpus/vector_add.compute_75.ptx" --target cpu -o "$work/va.o" || fail "compile"
  "$nm" "$work/va.o" | grep -q ' T _Z9vectorAddPKfS0_Pfi$' || fail "no kernel symbol in the object"
  "$zluda" compile "$build/ptx-corpus/vector_add.compute_75.ptx" --target cpu -o "$work/va.ll" --emit-llvm \
    || fail "emit-llvm"
  grep -q '^define .*@_Z9vectorAddPKfS0_Pfi(' "$work/va.ll" || fail "no kernel in the LLVM IR"
  "$zluda" compile "$build/ptx-corpus/vector_add.compute_75.ptx" --target cpu -o "$work/va.o" --disassemble \
    > "$work/dis.txt" || fail "disassemble"
  grep -q '<_Z9vectorAddPKfS0_Pfi>:' "$work/dis.txt" || fail "no disassembly of the kernel"
  ;;
compile_cubin)
  # Machine code: ptxas's cubin lifted by the SASS front end (--emit-ptx shows the PTX), then compiled.
  ptxas=$(dirname "$(command -v nvcc 2> /dev/null || echo /usr/local/cuda/bin/nvcc)")/ptxas
  [ -x "$ptxas" ] || ptxas=/usr/local/cuda/bin/ptxas
  "$ptxas" -arch=sm_86 "$build/ptx-corpus/vector_add.compute_75.ptx" -o "$work/va.cubin" || fail "ptxas"
  "$zluda" compile "$work/va.cubin" --target cpu -o "$work/va.ptx" --emit-ptx || fail "emit-ptx"
  grep -q '^\.visible \.entry _Z9vectorAddPKfS0_Pfi(' "$work/va.ptx" || fail "no kernel in the lifted PTX"
  grep -q 'lifted from machine code' "$work/va.ptx" || fail "not the SASS front end's PTX"
  "$zluda" compile "$work/va.cubin" --target cpu -o "$work/va.o" || fail "compile the cubin"
  "$nm" "$work/va.o" | grep -q ' T _Z9vectorAddPKfS0_Pfi$' || fail "no kernel symbol in the object"
  ;;
redirect)
  # Library redirection (src/redirect/): a program whose DT_RPATH names NVIDIA's folder (PyTorch's wheel finds
  # nvidia/*/lib that way; RPATH wins over LD_LIBRARY_PATH) and that dlopens NVIDIA's copies by full path gets
  # ours under `zluda run`; NVRTC, which we do not implement, stays NVIDIA's. Without the audit library
  # (--no-redirect) the RPATH copies load: what the test tells apart.
  nvcc=$(command -v nvcc 2> /dev/null || echo /usr/local/cuda/bin/nvcc)
  nvlib=$(realpath "$(dirname "$nvcc")/../lib64")
  for f in libcublas.so.13 libcublasLt.so.13 libcudart.so.13 libnvrtc.so.13 libcupti.so.13; do
    [ -e "$nvlib/$f" ] || { echo "SKIP: no $nvlib/$f in this CUDA toolkit"; exit 0; }
  done
  ours=$(cd "$build/lib" && pwd -P)
  c++ -O1 -o "$work/probe" "$src/redirect_probe.cpp" "$nvlib/libcublas.so.13" "$nvlib/libcudart.so.13" -ldl \
    -Wl,--disable-new-dtags,-rpath,"$nvlib" || fail "build the probe"
  readelf -d "$work/probe" | grep -q "(RPATH).*$nvlib" || fail "the probe has no DT_RPATH"
  "$zluda" run --no-redirect -- "$work/probe" "$nvlib" > "$work/plain.txt" 2>&1 || fail "probe without redirection: $(cat "$work/plain.txt")"
  grep -q "^cublas $nvlib/" "$work/plain.txt" || fail "without redirection RPATH should load NVIDIA's cuBLAS: $(cat "$work/plain.txt")"
  ZLUDA_LOG=debug "$zluda" run -- "$work/probe" "$nvlib" --call > "$work/run.txt" 2> "$work/run.err" \
    || fail "probe under zluda run: $(cat "$work/run.txt" "$work/run.err")"
  for l in cublas cudart cublasLt cuda cupti; do
    grep -q "^$l $ours/" "$work/run.txt" || fail "$l not ours under zluda run: $(cat "$work/run.txt")"
  done
  grep -q "^nvrtc $nvlib/" "$work/run.txt" || fail "NVRTC should stay NVIDIA's: $(cat "$work/run.txt")"
  grep -q "^call devices=[1-9][0-9]* rc=0 create=0 version=1[0-9]*" "$work/run.txt" || fail "calls: $(cat "$work/run.txt")"
  grep -q "redirect: .*libcublas.so.13 -> $ours/libcublas.so.13" "$work/run.err" || fail "no redirection logged: $(cat "$work/run.err")"
  # The audit library alone (no LD_LIBRARY_PATH) finds libcuda.so.1 by name too.
  env -u LD_LIBRARY_PATH LD_AUDIT="$ours/libzluda_redirect.so" "$work/probe" "$nvlib" > "$work/audit.txt" 2>&1 \
    || fail "probe with LD_AUDIT only: $(cat "$work/audit.txt")"
  grep -q "^cuda $ours/" "$work/audit.txt" || fail "libcuda.so.1 not ours with LD_AUDIT only: $(cat "$work/audit.txt")"
  ;;
vectorized)
  # Work-item loops vectorize across threads (issue: CPU device at full speed):
  # packed single-precision arithmetic in the per-block loops of vector add
  # and SAXPY, and in the SGEMM region loops (its 16x16 tile product).
  "$zluda" compile "$build/bench/kernels.ptx" --target cpu -o "$work/k.o" --disassemble > "$work/k.txt" \
    || fail "disassemble"
  fn() { awk -v f="<$1>:" '$2 == f { on = 1; next } /^[0-9a-f]+ <.*>:$/ { on = 0 } on' "$work/k.txt"; }
  packed='v?(add|mul|fmadd[0-9]*|sub)ps[[:space:]].*%[xyz]mm'
  # (grep reads everything: with -q it could stop early and fail the pipe)
  # The bounds check of vector add and SAXPY needs masked vector loads and
  # stores (AVX2 or AVX-512); without them LLVM keeps those loops scalar.
  if grep -qw avx2 /proc/cpuinfo; then
  fn vecAdd.block | grep -E "$packed" > /dev/null || fail "vector add's block loop is not vectorized"
  fn saxpy.block | grep -E "$packed" > /dev/null || fail "SAXPY's block loop is not vectorized"
  fi
  for p in 0 1 2; do fn sgemm.rgn.$p; done | grep -E "v?fmadd[0-9]*ps|mulps.*%[xyz]mm" > /dev/null \
    || fail "SGEMM's region loops are not vectorized"
  ;;
compile_amdgpu)
  # AMDGPU code objects: metadata and disassembly, for a 64-lane and a 32-lane processor.
  for t in gfx90a gfx1100; do
    "$zluda" compile "$build/ptx-corpus/vector_add.compute_75.ptx" --target $t -o "$work/va.$t" > "$work/out" \
      || fail "compile for $t"
    "$readelf" --notes "$work/va.$t" > "$work/notes" || fail "readelf $t"
    grep -q '.name: *_Z9vectorAddPKfS0_Pfi' "$work/notes" || fail "$t: kernel not in the metadata"
    grep -q '.kernarg_segment_size: *32' "$work/notes" || fail "$t: kernarg segment is not the 32-byte parameter buffer"
    want=32; [ $t = gfx90a ] && want=64
    grep -q ".wavefront_size: *$want" "$work/notes" || fail "$t: wavefront size is not $want"
    "$zluda" compile "$build/ptx-corpus/vector_add.compute_75.ptx" --target $t -o "$work/va.$t" --disassemble \
      > "$work/dis" || fail "disassemble $t"
    grep -q '<_Z9vectorAddPKfS0_Pfi>:' "$work/dis" && grep -q 's_endpgm' "$work/dis" || fail "$t: no disassembly"
    "$zluda" compile "$build/ptx-corpus/vector_add.compute_75.ptx" --target $t -o "$work/va.$t.ll" --emit-llvm \
      > /dev/null || fail "emit-llvm $t"
    grep -q '^define .*amdgpu_kernel void @_Z9vectorAddPKfS0_Pfi(' "$work/va.$t.ll" || fail "$t: no amdgpu_kernel in the IR"
  done
  "$zluda" compile "$build/ptx-corpus/vector_add.compute_75.ptx" --target gfx1030 -o "$work/a" | grep -q 'from the compile cache' \
    && fail "first AMDGPU compile hit the cache"
  "$zluda" compile "$build/ptx-corpus/vector_add.compute_75.ptx" --target gfx1030 -o "$work/b" | grep -q 'from the compile cache' \
    || fail "second AMDGPU compile missed the cache"
  cmp -s "$work/a" "$work/b" || fail "cached code object differs"
  # -O1: COMGR's level; its own cache entry, a valid code object.
  "$zluda" compile "$build/ptx-corpus/vector_add.compute_75.ptx" --target gfx1030 -O1 -o "$work/o1" | grep -q 'from the compile cache' \
    && fail "-O1 compile hit the -O3 cache entry"
  "$readelf" --notes "$work/o1" | grep -q '.name: *_Z9vectorAddPKfS0_Pfi' || fail "-O1: kernel not in the metadata"
  "$zluda" compile "$build/ptx-corpus/vector_add.compute_75.ptx" --target gfx1030 -O7 -o "$work/o7" > /dev/null 2>&1 \
    && fail "-O7 accepted"
  ;;
compile_fatbin)
  # zstd-compressed fat binary from nvcc -fatbin --compress-mode=size
  "$zluda" compile "$build/cuda-programs/scale_index.size.fatbin" --target cpu -o "$work/fb.o" || fail "compile"
  "$nm" "$work/fb.o" | grep -q ' T scaleIndex$' || fail "no kernel symbol in the object"
  ;;
compile_errors)
  "$zluda" compile "$src/bad.ptx" --target cpu -o "$work/x.o" 2> "$work/err"
  [ $? -eq 1 ] || fail "bad PTX must exit 1"
  grep -q 'bad.ptx:5:3: error: unknown instruction' "$work/err" || fail "no line:col error: $(cat "$work/err")"
  [ ! -e "$work/x.o" ] || fail "an output was written for bad input"
  "$zluda" compile "$src/bad.ptx" --target gfx1100 -o "$work/x.o" 2> "$work/err"
  [ $? -eq 1 ] && grep -q 'bad.ptx:5:3: error: unknown instruction' "$work/err" || fail "no line:col error for gfx1100"
  [ ! -e "$work/x.o" ] || fail "an output was written for bad input (gfx1100)"
  "$zluda" compile "$src/bad.ptx" --target gfx9999 -o "$work/x.o" 2> "$work/err"
  [ $? -eq 1 ] && grep -q "'gfx9999' is not a processor" "$work/err" || fail "unknown processor not refused clearly"
  "$zluda" compile 2> /dev/null
  [ $? -eq 2 ] || fail "usage error must exit 2"
  ;;
run)
  # No LD_LIBRARY_PATH: zluda run must point the program at our libcuda.
  env -u LD_LIBRARY_PATH ZLUDA_LOG=info "$zluda" run -- "$build/cuda-programs/vector_add.default" > "$work/out" 2>&1
  [ $? -eq 0 ] || fail "program failed: $(cat "$work/out")"
  grep -q 'cuInit: ZLUDA CPU device' "$work/out" || fail "not our driver: $(cat "$work/out")"
  grep -q 'vector_add: PASS' "$work/out" || fail "program did not pass"
  # No AMD GPU here: --backend hip fails the program's cuInit with a clear log;
  # auto falls back to the CPU device and says why.
  env -u LD_LIBRARY_PATH "$zluda" run --backend hip -- "$build/cuda-programs/vector_add.default" > "$work/out" 2>&1
  [ $? -ne 0 ] && grep -q 'ZLUDA_BACKEND=hip: no AMD GPU' "$work/out" || fail "hip backend: $(cat "$work/out")"
  env -u LD_LIBRARY_PATH ZLUDA_LOG=info "$zluda" run --backend auto -- "$build/cuda-programs/vector_add.default" \
    > "$work/out" 2>&1 || fail "auto backend failed: $(cat "$work/out")"
  grep -q 'no AMD GPU (.*): using the CPU device' "$work/out" && grep -q 'vector_add: PASS' "$work/out" \
    || fail "auto did not fall back: $(cat "$work/out")"
  "$zluda" run --backend cuda -- /bin/true 2> /dev/null
  [ $? -eq 2 ] || fail "unknown backend must be a usage error"
  ;;
trace)
  env -u LD_LIBRARY_PATH "$zluda" trace --dump "$work/dump" --log "$work/trace.log" -- \
    "$build/cuda-programs/vector_add.default" > "$work/out" 2>&1 || fail "program failed: $(cat "$work/out")"
  grep -q 'vector_add: PASS' "$work/out" || fail "program did not pass"
  # Every call with its arguments, what its output pointers received, its result and time.
  grep -Eq 'cuMemAlloc_v2\(P=0x[0-9a-f]+, Size=4194304\) -> 0 \*P=0x[0-9a-f]+ \([0-9.]+ us\)' "$work/trace.log" \
    || fail "no cuMemAlloc with arguments and result in the trace"
  ptr=$(grep -Eo 'cuMemAlloc_v2\(.*\*P=0x[0-9a-f]+' "$work/trace.log" | head -1 | grep -Eo '0x[0-9a-f]+$')
  grep -Eq "cuMemFree_v2\\(P=$ptr\\) -> 0 \\([0-9.]+ us\\)" "$work/trace.log" \
    || fail "the pointer cuMemAlloc returned ($ptr) is not freed in the trace"
  grep -Eq 'cuLaunchKernel\(Fn=0x[0-9a-f]+, GX=4096, GY=1, GZ=1, BX=256, BY=1, BZ=1, Shared=0, .* -> 0 .*\([0-9.]+ us\)' \
    "$work/trace.log" || fail "no launch with its geometry in the trace"
  grep -Eq 'cuDeviceGetName\(Name=0x[0-9a-f]+, Len=[0-9]+, Dev=0\) -> 0 Name="ZLUDA CPU device' "$work/trace.log" \
    || fail "no output string in the trace"
  # A -cudart shared program: our libcudart's calls are traced too.
  env -u LD_LIBRARY_PATH "$zluda" trace --log "$work/rt.log" -- "$build/cuda-programs/vector_add.shared" \
    > "$work/out" 2>&1 || fail "shared program failed: $(cat "$work/out")"
  grep -Eq 'cudaMalloc\(P=0x[0-9a-f]+, Size=4194304\) -> 0 \*P=0x[0-9a-f]+ \(' "$work/rt.log" \
    || fail "no traced cudaMalloc: $(head -5 "$work/rt.log")"
  grep -Eq 'cudaMemcpy\(D=0x[0-9a-f]+, S=0x[0-9a-f]+, N=4194304, K=[12]\) -> 0' "$work/rt.log" || fail "no traced cudaMemcpy"
  # The math libraries' calls (through the audit library): arguments by name, floats by value, failures' statuses.
  if [ -x "$build/cuda-programs/cublas_legacy.default" ]; then
    env -u LD_LIBRARY_PATH "$zluda" trace --log "$work/blas.log" -- "$build/cuda-programs/cublas_legacy.default" \
      > "$work/out" 2>&1 || fail "cublas_legacy failed under trace: $(tail -3 "$work/out")"
    grep -Eq 'cublasSgemm_v2\(H=0x[0-9a-f]+, Ta=0, Tb=1, M=7, N=5, K=6, Alpha=0x[0-9a-f]+, A=0x[0-9a-f]+, Lda=7, .* -> 0 \([0-9.]+ us\)' \
      "$work/blas.log" || fail "no traced cublasSgemm_v2: $(grep -m3 cublas "$work/blas.log")"
    grep -Eq 'cublasSscal\(N=42, Alpha=-2, X=0x[0-9a-f]+, Ix=1\) \([0-9.]+ us\)' "$work/blas.log" \
      || fail "no traced legacy cublasSscal with its float argument"
    grep -Eq 'cublasSgemm_v2\(.*Ta=-1, .* -> 7 \(' "$work/blas.log" || fail "the refused call's status is not traced"
    ! grep -Eq '^[^[]' "$work/blas.log" || fail "a line of the trace was cut: $(grep -m2 -E '^[^[]' "$work/blas.log")"
    env -u LD_LIBRARY_PATH ZLUDA_LOG=debug "$zluda" run -- "$build/cuda-programs/cublas_legacy.default" > "$work/out" 2>&1
    ! grep -q 'cublasSgemm_v2(' "$work/out" || fail "math-library calls traced without zluda trace"
  fi
  if [ -x "$build/cuda-programs/cudnn_backend.shared" ]; then
    env -u LD_LIBRARY_PATH "$zluda" trace --log "$work/dnn.log" -- "$build/cuda-programs/cudnn_backend.shared" \
      > "$work/out" 2>&1 || fail "cudnn_backend failed under trace"
    grep -Eq 'cudnnBackendSetAttribute\(D=0x[0-9a-f]+, Name=[0-9]+, Type=[0-9]+, Count=[0-9]+, Values=0x[0-9a-f]+\) -> 0' \
      "$work/dnn.log" || fail "no traced cudnnBackendSetAttribute"
  fi
  if [ -x "$build/cuda-programs/cupti_activity.shared" ]; then
    env -u LD_LIBRARY_PATH "$zluda" trace --log "$work/cupti.log" -- "$build/cuda-programs/cupti_activity.shared" \
      > "$work/out" 2>&1 || fail "cupti_activity failed under trace: $(tail -3 "$work/out")"
    grep -Eq 'cuptiActivityEnable\(Kind=10\) -> 0' "$work/cupti.log" || fail "no traced cuptiActivityEnable"
    grep -Eq 'cuptiActivityPushExternalCorrelationId\(Kind=3, Id=42\) -> 0' "$work/cupti.log" \
      || fail "no traced cuptiActivityPushExternalCorrelationId: $(grep -m3 cupti "$work/cupti.log")"
  fi
  ls "$work"/dump/module-*.ptx > /dev/null 2>&1 || fail "no module dumped"
  grep -q '^.visible .entry _Z9vectorAddPKfS0_Pfi' "$work"/dump/module-*.ptx || fail "dumped PTX lacks the kernel"
  grep -q '^define .*@_Z9vectorAddPKfS0_Pfi(' "$work"/dump/module-*.ll || fail "dumped LLVM IR lacks the kernel"
  ;;
info)
  "$zluda" info > "$work/out" || fail "info"
  grep -q '^device 0:  ZLUDA CPU device' "$work/out" || fail "no device: $(cat "$work/out")"
  grep -Eq 'warp size +32$' "$work/out" || fail "no warp size"
  grep -q '^backends:  cpu (available), hip (.*no AMD GPU' "$work/out" || fail "no hip backend line: $(cat "$work/out")"
  grep -q '^amdgpu:    zluda compile targets (COMGR [^)]*):.* gfx90a .*gfx1030' "$work/out" || fail "no AMDGPU targets line"
  grep -q "cache:     $work/cache/cache.sqlite3: 0 entries" "$work/out" || fail "no cache line: $(cat "$work/out")"
  # With a HIP runtime that has a GPU (the test one), programs see that GPU.
  if [ -f "$build/lib/libzluda_fake_hip.so" ]; then
    ZLUDA_HIP_LIBRARY="$build/lib/libzluda_fake_hip.so" "$zluda" info > "$work/out" || fail "info (hip)"
    grep -q '^device 0:  Fake AMD Instinct MI210' "$work/out" || fail "no HIP device: $(cat "$work/out")"
    grep -q 'gfx90a:sramecc+:xnack- (104 CUs, wave64); programs run on \[0\]' "$work/out" ||
      fail "no hip device line: $(cat "$work/out")"
    grep -Eq 'multiprocessors +104$' "$work/out" || fail "no HIP multiprocessors"
  fi
  ;;
smi)
  # What nvidia-smi prints, from our NVML: the device, its memory, this command among the processes.
  "$zluda" smi > "$work/out" || fail "smi: $(cat "$work/out")"
  grep -q 'CUDA Version: 13\.' "$work/out" || fail "no CUDA version: $(cat "$work/out")"
  grep -Eq '^\|   0  ZLUDA CPU device' "$work/out" || fail "no device row: $(cat "$work/out")"
  grep -Eq '[0-9]+MiB / [0-9]+MiB' "$work/out" || fail "no memory usage: $(cat "$work/out")"
  grep -Eq '^\|    0 +[0-9]+   .*zluda' "$work/out" || fail "zluda is not among the processes: $(cat "$work/out")"
  ;;
cache)
  ptx=$build/ptx-corpus/vector_add.compute_75.ptx
  "$zluda" compile "$ptx" --target cpu -o "$work/a.o" | grep -q 'from the compile cache' && fail "first compile hit"
  "$zluda" compile "$ptx" --target cpu -o "$work/b.o" | grep -q 'from the compile cache' || fail "second compile missed"
  cmp -s "$work/a.o" "$work/b.o" || fail "cached object differs from the compiled one"
  # Two entries: the module's description and its one object file.
  "$zluda" cache stats | grep -q '^entries: 2$' || fail "stats: $("$zluda" cache stats)"
  "$zluda" cache clear | grep -q '^removed 2 entries' || fail "clear"
  "$zluda" cache stats | grep -q '^entries: 0$' || fail "not empty after clear"
  ZLUDA_CACHE_DIR=off "$zluda" cache stats 2> /dev/null && fail "stats with the cache off must fail"
  ;;
precompile)
  # zluda precompile fills the compile cache from programs' fat binaries and PTX
  # files, so that a program's first run compiles nothing.
  progs=$work/progs
  mkdir -p "$progs/sub"
  cp "$build/cuda-programs/vector_add.default" "$build/cuda-programs/atomics.default" "$progs/"
  cp "$build/ptx-corpus/vector_add.compute_75.ptx" "$progs/sub/"
  printf 'not a CUDA file\n' > "$progs/sub/readme.txt"
  # Control: without it, the first run compiles its kernel (lazily, on first launch).
  ZLUDA_CACHE_DIR=$work/cold ZLUDA_LOG=debug env -u LD_LIBRARY_PATH "$zluda" run -- "$progs/vector_add.default" \
    > "$work/cold.txt" 2>&1 || fail "cold run: $(cat "$work/cold.txt")"
  grep -q 'compiled on first use' "$work/cold.txt" || fail "the control run compiled nothing: $(cat "$work/cold.txt")"
  "$zluda" precompile -j 2 "$progs" > "$work/out" 2> "$work/err" || fail "precompile: $(cat "$work/out" "$work/err")"
  grep -Eq '^precompile: 4 file\(s\), 3 PTX module\(s\)( \([0-9]+ fat binaries with machine code only\))?, targets: cpu$' "$work/out" || fail "scan: $(cat "$work/out")"
  grep -Eq '^precompile: 3 module\(s\), [1-9][0-9]* kernel\(s\), [1-9][0-9]* compiled now .* 0 module\(s\) failed' \
    "$work/out" || fail "summary: $(cat "$work/out")"
  grep -q '\[3/3\] 100%' "$work/err" || fail "no progress: $(cat "$work/err")"
  ZLUDA_LOG=debug env -u LD_LIBRARY_PATH "$zluda" run -- "$progs/vector_add.default" > "$work/warm.txt" 2>&1 \
    || fail "warm run: $(cat "$work/warm.txt")"
  grep -q 'vector_add: PASS' "$work/warm.txt" || fail "warm run did not pass"
  grep -q 'compiled on first use' "$work/warm.txt" && fail "a kernel was compiled at run time after precompile"
  "$zluda" precompile "$progs" | grep -Eq ' 0 compiled now \(the rest were cached\), 0 module' \
    || fail "a second precompile compiled again"
  # AMDGPU targets; a module that does not compile is named with its line and fails the command.
  printf '.version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n  bogus.u32 %%r1;\n}\n' \
    > "$work/bad.ptx"
  "$zluda" precompile --target cpu,gfx1100 "$progs/sub" "$work/bad.ptx" > "$work/out" 2>&1 && fail "bad PTX passed"
  grep -q "error: $work/bad.ptx:6:" "$work/out" || fail "the error does not name the line: $(cat "$work/out")"
  grep -Eq '2 module\(s\), .* 1 module\(s\) failed' "$work/out" || fail "summary: $(cat "$work/out")"
  ZLUDA_CACHE_DIR=off "$zluda" precompile "$progs" 2> /dev/null && fail "precompile with the cache off must fail"
  ;;
*)
  fail "unknown case $case_name" ;;
esac
echo PASS
