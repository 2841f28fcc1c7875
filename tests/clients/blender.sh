#!/usr/bin/env bash
# Blender 3.4 (Debian's package) renders a scene with Cycles on the CUDA
# device (our libcuda, the CPU device where no AMD GPU exists) and on its own
# CPU path; the two images must agree (see docs/CLIENTS.md).
# Debian ships Cycles' kernel sources but no compiled kernels, and Blender
# would build SASS (nvcc --cubin) we cannot run: this script builds the PTX
# from those sources with the toolkit's nvcc (as Blender's own command line
# does, with -arch=compute_86 --ptx) and places it where Cycles looks for a
# prebuilt kernel, for the duration of the run (root, or sudo, needed there).
# Usage: tests/clients/blender.sh [--samples N] [--size WxH]
source "$(dirname "$0")/common.sh"
install_packages blender
SAMPLES=8
SIZE=96x72
while [ $# -gt 0 ]; do
  case "$1" in
    --samples) SAMPLES="$2"; shift 2 ;;
    --size) SIZE="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
CYCLES=/usr/share/blender/scripts/addons/cycles
PTX="$CYCLES/lib/kernel_compute_86.ptx"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
if [ -e "$PTX" ]; then
  echo "$PTX already exists: not touching it" >&2
  exit 2
fi
echo "building Cycles' kernels as PTX (nvcc, about a minute)..."
"$CUDA_ROOT/bin/nvcc" -arch=compute_86 --ptx "$CYCLES/source/kernel/device/cuda/kernel.cu" -o "$WORK/kernel.ptx" \
  -m64 --use_fast_math -DNVCC -I"$CYCLES/source" -Wno-deprecated-gpu-targets
$SUDO mkdir -p "$CYCLES/lib"
$SUDO cp "$WORK/kernel.ptx" "$PTX"
trap '$SUDO rm -f "$PTX"; rm -rf "$WORK"' EXIT

cat > "$WORK/render.py" <<'PY'
import bpy, sys
device, out, samples, size = sys.argv[sys.argv.index("--") + 1:]
w, h = (int(x) for x in size.split("x"))
scene = bpy.context.scene
scene.render.engine = 'CYCLES'
scene.cycles.samples = int(samples)
scene.cycles.use_adaptive_sampling = False
scene.cycles.use_denoising = False  # Debian's build has no OIDN
scene.cycles.seed = 1
scene.render.resolution_x, scene.render.resolution_y = w, h
scene.render.resolution_percentage = 100
scene.render.image_settings.file_format = 'OPEN_EXR'
scene.render.image_settings.color_depth = '32'
prefs = bpy.context.preferences.addons['cycles'].preferences
if device == 'CUDA':
    prefs.compute_device_type = 'CUDA'
    prefs.get_devices()
    used = [d.name for d in prefs.devices if d.type == 'CUDA']
    for d in prefs.devices:
        d.use = d.type == 'CUDA'
    if not used:
        sys.exit("no CUDA device listed")
    print("CUDA devices:", used)
    scene.cycles.device = 'GPU'
else:
    scene.cycles.device = 'CPU'
scene.render.filepath = out
bpy.ops.render.render(write_still=True)
PY
cat > "$WORK/compare.py" <<'PY'
import bpy, math, sys
a_path, b_path = sys.argv[sys.argv.index("--") + 1:]
a = list(bpy.data.images.load(a_path).pixels)
b = list(bpy.data.images.load(b_path).pixels)
assert len(a) == len(b) and a, "image sizes differ"
d = [abs(x - y) for x, y in zip(a, b)]
mse = sum(x * x for x in d) / len(d)
psnr = 10 * math.log10(1.0 / mse) if mse > 0 else float("inf")
print("COMPARE pixels=%d mean_abs=%.3g max_abs=%.3g psnr=%.1f" % (len(a) // 4, sum(d) / len(d), max(d), psnr))
PY
render() { # device output
  blender -b --factory-startup -noaudio --python "$WORK/render.py" -- "$1" "$2" "$SAMPLES" "$SIZE" > "$WORK/$1.log" 2>&1
}
lists_device() {
  LD_LIBRARY_PATH="$ZLUDA_LIB" render CUDA "$WORK/cuda.exr" && grep -q "CUDA devices:.*ZLUDA" "$WORK/CUDA.log"
}
renders_like_cpu() {
  render CPU "$WORK/cpu.exr" || return 1
  [ -s "$WORK/cuda.exr" ] || return 1
  blender -b --factory-startup -noaudio --python "$WORK/compare.py" -- "$WORK/cpu.exr" "$WORK/cuda.exr" 2>&1 |
    grep "^COMPARE" | tee "$WORK/compare.txt"
  # The same path tracer on two devices: only float rounding (fast math) may
  # differ. Tolerance: PSNR >= 40 dB and no pixel channel off by more than 0.05.
  awk '{ split($4, m, "="); split($5, p, "="); exit !(m[2] <= 0.05 && (p[2] == "inf" || p[2] >= 40)) }' "$WORK/compare.txt"
}
START=$(date +%s)
check "Cycles renders on the ZLUDA CUDA device from PTX" lists_device
check "the CUDA render matches Cycles' CPU render" renders_like_cpu
echo "blender: CUDA render took $(( $(date +%s) - START )) s (first run compiles the kernels; the compile cache keeps them)"
[ "$FAILED" -eq 0 ] || tail -20 "$WORK/CUDA.log"
verdict
