#!/usr/bin/env bash
# Builds the Debian package from this build tree, unpacks it into a scratch
# root and runs CUDA programs from the unpacked files only.
#   deb_test.sh BUILD_DIR
set -uo pipefail
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/pkg" > "$work/cpack.log" 2>&1 \
  || fail "cpack: $(tail -5 "$work/cpack.log")"
deb=$(ls "$work"/pkg/zluda_*_amd64.deb 2> /dev/null | head -1)
[ -n "$deb" ] || fail "no package written"
dpkg-deb --info "$deb" > "$work/info" || fail "not a valid package"
grep -q '^ Package: zluda$' "$work/info" || fail "package name"
# Every dependency must be a package this (Debian 12) machine has installed.
deps=$(dpkg-deb --field "$deb" Depends | tr ',' '\n' | sed 's/(.*)//; s/|.*//; s/ //g')
[ -n "$deps" ] || fail "no Depends field"
# (a name may be virtual: provided by an installed package)
installed=$(dpkg-query -W -f='${Status}|${Package} ${Provides}\n' | grep '^install ok installed|' | cut -d'|' -f2 \
  | tr ',' ' ' | sed 's/([^)]*)//g')
for d in $deps; do
  echo " $installed " | tr '\n' ' ' | grep -q " ${d%%:*} " || fail "dependency $d is not installed"
done
root=$work/root
dpkg-deb -x "$deb" "$root" || fail "cannot unpack"
for f in usr/bin/zluda usr/bin/zluda-ptx usr/lib/zluda/libcuda.so.1 usr/lib/zluda/libcudart.so.13 \
  usr/lib/zluda/libcublas.so.13 usr/lib/zluda/libcublasLt.so.13 usr/lib/zluda/libnvidia-ml.so.1 usr/lib/zluda/libzluda_redirect.so usr/lib/zluda/libcupti.so.13 \
  usr/lib/zluda/libcufft.so.12 usr/lib/zluda/libcurand.so.10 usr/lib/zluda/libcusparse.so.12 \
  usr/lib/zluda/libcusolver.so.12 usr/lib/zluda/libcufftw.so.12; do
  [ -e "$root/$f" ] || fail "$f missing from the package"
done
readelf -d "$root/usr/lib/zluda/libcudart.so.13" | grep -q 'R.*PATH.*\$ORIGIN' || fail "libcudart has no \$ORIGIN run path"
export ZLUDA_CACHE_DIR=$work/cache
"$root/usr/bin/zluda" info > "$work/out" 2>&1 || fail "zluda info: $(cat "$work/out")"
grep -q "^libraries: $root/usr/lib/zluda$" "$work/out" || fail "zluda info does not use the packaged libraries"
# A program on NVIDIA's static cudart, and one on our (packaged) libcudart.
for p in vector_add.default vector_add.shared; do
  env -u LD_LIBRARY_PATH ZLUDA_LOG=info "$root/usr/bin/zluda" run -- "$build/cuda-programs/$p" > "$work/out" 2>&1 \
    || fail "$p: $(cat "$work/out")"
  grep -q 'vector_add: PASS' "$work/out" || fail "$p did not pass"
done
env -u LD_LIBRARY_PATH "$root/usr/bin/zluda" run -- ldd "$build/cuda-programs/vector_add.shared" > "$work/ldd"
grep -Eq "([[:space:]]|=> )$root/usr/lib/zluda/libcudart.so.13 \(" "$work/ldd" || fail "not the packaged libcudart"
# A cuBLAS program on the packaged libcublas.
env -u LD_LIBRARY_PATH "$root/usr/bin/zluda" run -- "$build/cuda-programs/cublas_basic.default" > "$work/out" 2>&1 \
  || fail "cublas_basic: $(cat "$work/out")"
grep -q 'cublas_basic: PASS' "$work/out" || fail "cublas_basic did not pass"
env -u LD_LIBRARY_PATH "$root/usr/bin/zluda" run -- ldd "$build/cuda-programs/cublas_basic.default" > "$work/ldd"
grep -Eq "([[:space:]]|=> )$root/usr/lib/zluda/libcublas.so.13 \(" "$work/ldd" || fail "not the packaged libcublas"
# The part-2 math libraries, packaged: a cuFFT and a cuRAND program.
for p in cufft_basic curand_device; do
  env -u LD_LIBRARY_PATH "$root/usr/bin/zluda" run -- "$build/cuda-programs/$p.default" > "$work/out" 2>&1 \
    || fail "$p: $(cat "$work/out")"
  grep -q "$p: PASS" "$work/out" || fail "$p did not pass"
done
# As root on a machine without the package (CI's fresh machine): a real
# install with dpkg, a program run from /usr, and the package removed again.
if [ "$(id -u)" = 0 ] && ! dpkg-query -W -f="\${Status}" zluda 2> /dev/null | grep -q " installed$"; then
  trap 'dpkg -P zluda > /dev/null 2>&1; rm -rf "$work"' EXIT
  dpkg -i "$deb" > "$work/dpkg.log" 2>&1 || fail "dpkg -i: $(tail -5 "$work/dpkg.log")"
  dpkg -s zluda | grep -q '^Status: install ok installed' || fail "not installed cleanly"
  env -u LD_LIBRARY_PATH /usr/bin/zluda run -- "$build/cuda-programs/vector_add.default" > "$work/out" 2>&1 \
    || fail "installed zluda run: $(cat "$work/out")"
  grep -q 'vector_add: PASS' "$work/out" || fail "program did not pass from the installed package"
  dpkg -P zluda > "$work/dpkg.log" 2>&1 || fail "dpkg -P: $(tail -5 "$work/dpkg.log")"
  [ ! -e /usr/bin/zluda ] || fail "dpkg -P left /usr/bin/zluda"
  echo "installed with dpkg -i, ran, removed"
fi
echo PASS
