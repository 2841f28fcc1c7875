#!/usr/bin/env bash
# The portable release (scripts/release): built from this build tree, unpacked
# into a scratch folder and used from there alone.
#   tarball_test.sh SOURCE_DIR BUILD_DIR
# Checks: at most 40 MiB compressed; no file needs ROCm or a shared LLVM; every
# library each file loads resolves inside the folder or to glibc, libstdc++ or
# libgcc_s; RUNPATH $ORIGIN; stripped, debug info in the second archive; the
# main job's programs run from it under `env -i` (nothing of this machine's
# environment); libcuda.so.1 exports no LLVM symbol.
set -uo pipefail
src=$1
build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# xz level 3: quicker, and a larger file than the real release's (level 9), so the size check holds for both.
ZLUDA_RELEASE_XZ_LEVEL=3 "$src/scripts/release" "$build" "$work/dist" > "$work/release.log" 2>&1 || fail "release: $(tail -5 "$work/release.log")"
cat "$work/release.log" | tail -1
tarball=$(ls "$work"/dist/zluda-*-linux-x86_64.tar.xz | grep -v -- -debug | head -1)
[ -n "$tarball" ] || fail "no tarball"
size=$(stat -c %s "$tarball")
[ "$size" -le $((40 * 1048576)) ] || fail "tarball is $((size / 1048576)) MiB (goal: at most 40)"
ls "$work"/dist/zluda-*-debug.tar.xz > /dev/null 2>&1 || fail "no debug archive"
mkdir "$work/root"
tar -C "$work/root" -xJf "$tarball" || fail "cannot unpack"
root=$(ls -d "$work"/root/zluda-*)
for f in bin/zluda lib/libcuda.so.1 lib/libcudart.so.13 lib/libcublas.so.13 lib/libcublasLt.so.13 lib/libnvidia-ml.so.1 lib/libzluda_redirect.so lib/libcupti.so.13 \
  lib/libcufft.so.12 lib/libcufftw.so.12 lib/libcurand.so.10 lib/libcusparse.so.12 lib/libcusolver.so.12; do
  [ -e "$root/$f" ] || fail "$f missing from the tarball"
done
n=0
for f in "$root"/bin/* "$root"/lib/*.so*; do
  [ -L "$f" ] && continue
  head -c 4 "$f" | grep -q ELF || continue
  n=$((n + 1))
  b=${f#"$root"/}
  readelf -S "$f" | grep -q '\.debug_info' && fail "$b is not stripped"
  readelf -d "$f" | grep NEEDED | grep -Eq 'amd_comgr|amdhip|libLLVM|libz3|libxml2|libicu' && fail "$b needs ROCm or a shared LLVM: $(readelf -d "$f" | grep NEEDED)"
  case "$b" in
    lib/*) readelf -d "$f" | grep -Eq '(RUNPATH|RPATH).*\[\$ORIGIN\]' || fail "$b has no \$ORIGIN run path" ;;
  esac
  # Resolved with nothing of this machine's library path: the folder, or the system's C and C++ runtimes.
  env -i ldd "$f" > "$work/ldd" 2>&1
  grep -q 'not found' "$work/ldd" && fail "$b: $(grep 'not found' "$work/ldd" | head -3)"
  while read -r lib path; do
    case "$path" in
      "$root"/*) ;;
      *) case "$lib" in
           libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|libresolv.so.*|libstdc++.so.*|libgcc_s.so.*) ;;
           *) fail "$b loads $lib from $path, outside the release" ;;
         esac ;;
    esac
  done < <(awk '/=> \//{print $1, $3}' "$work/ldd")
done
[ "$n" -ge 10 ] || fail "only $n ELF files"
nm -D --defined-only "$root/lib/libcuda.so.1" | grep -q '_ZN4llvm' && fail "libcuda.so.1 exports LLVM symbols"
# The glibc floor (scripts/release): nothing asks for a GLIBC_ version newer than 2.34.
for f in "$root"/bin/* "$root"/lib/*.so*; do
  [ -L "$f" ] && continue
  head -c 4 "$f" | grep -q ELF || continue
  newer=$(objdump -T "$f" | grep -o 'GLIBC_2\.[0-9]*' | sort -u | awk -F. '$2 > 34')
  [ -z "$newer" ] || fail "${f#"$root"/} needs $newer (the release's floor is glibc 2.34)"
done
# The main job's programs, from the unpacked release with an empty environment.
export_env="HOME=$work/home ZLUDA_CACHE_DIR=$work/cache PATH=/usr/bin:/bin"
mkdir -p "$work/home"
for p in vector_add.default vector_add.shared thrust_cub.default; do
  [ -x "$build/cuda-programs/$p" ] || fail "$build/cuda-programs/$p is not built"
  env -i $export_env "$root/bin/zluda" run -- "$build/cuda-programs/$p" > "$work/out" 2>&1 || fail "$p: $(tail -5 "$work/out")"
  grep -q "PASS" "$work/out" || fail "$p did not pass: $(tail -3 "$work/out")"
done
# Without the tool: the library folder first on the loader's path.
env -i $export_env LD_LIBRARY_PATH="$root/lib" "$build/cuda-programs/vector_add.default" > "$work/out" 2>&1 \
  || fail "vector_add with LD_LIBRARY_PATH: $(tail -3 "$work/out")"
# No COMGR on this path: an AMDGPU compile says so clearly.
printf '.version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k() { ret; }\n' > "$work/k.ptx"
env -i $export_env ZLUDA_COMGR_LIBRARY=/nonexistent/libamd_comgr.so.2 "$root/bin/zluda" compile "$work/k.ptx" \
  --target gfx90a -o "$work/k.co" > "$work/out" 2>&1 && fail "compile without COMGR succeeded"
grep -q "COMGR is not available" "$work/out" || fail "no clear COMGR message: $(cat "$work/out")"
echo PASS
