#!/usr/bin/env bash
# hashcat 6.2.6 (Debian's package) on our libcuda: it compiles its kernels
# with NVIDIA's NVRTC and links them with cuLinkCreate. Checks: the device
# list, a real crack of md5("hello") with a mask, and (unless --quick) the
# MD5 benchmark, whose speed is printed.
# Usage: tests/clients/hashcat.sh [--quick]
source "$(dirname "$0")/common.sh"
install_packages hashcat
export HOME="$WORK/home"
mkdir -p "$HOME"
export LD_LIBRARY_PATH="$ZLUDA_LIB:$CUDA_ROOT/lib64"
HC=(hashcat --backend-ignore-opencl --potfile-disable --quiet)

device_list() {
  hashcat -I --backend-ignore-opencl > "$WORK/devices.txt" 2>&1
  grep -q "ZLUDA" "$WORK/devices.txt"
}
crack() {
  local hash
  hash=$(printf hello | md5sum | cut -d' ' -f1)
  timeout 600 "${HC[@]}" -m 0 -a 3 -o "$WORK/cracked.txt" "$hash" '?l?l?l?l?l' > "$WORK/crack.log" 2>&1 || true
  grep -qx "$hash:hello" "$WORK/cracked.txt" 2>/dev/null
}
bench() {
  timeout 600 hashcat -b -m 0 --backend-ignore-opencl > "$WORK/bench.log" 2>&1
  grep "Speed.#1" "$WORK/bench.log"
}
check "device list names the ZLUDA device" device_list
check "cracks md5(hello) with mask ?l?l?l?l?l" crack
[ "${1:-}" = "--quick" ] || check "benchmark -m 0 (MD5)" bench
verdict
