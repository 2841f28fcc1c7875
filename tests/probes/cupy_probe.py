"""CuPy in its default mode (NVRTC compiles each kernel to a cubin for the
device's compute capability; our SASS front end lifts it) on our CPU device,
under `zluda run`: elementwise, reduction, RawKernel, sort, FFT, cuBLAS and
cuRAND calls against NumPy. One line per case: PASS, WRONG or ERROR."""
import sys
import time
import traceback

import numpy as np

t0 = time.time()
try:
    import cupy as cp
    print("cupy", cp.__version__, "device", cp.cuda.runtime.getDeviceProperties(0)["name"], f"({time.time() - t0:.1f} s)",
          flush=True)
except Exception as e:  # noqa: BLE001
    print("ERROR import:", str(e).splitlines()[0][:300], flush=True)
    sys.exit(0)

rng = np.random.default_rng(0)
a = rng.standard_normal(10000).astype(np.float32)
m = rng.standard_normal((64, 48)).astype(np.float32)


def case(name, fn, ref, tol=1e-4):
    t = time.time()
    try:
        got = cp.asnumpy(fn())
        err = float(np.max(np.abs(np.asarray(got, dtype=np.float64) - ref)))
        print(f"{'PASS' if err <= tol else 'WRONG':5} {name}: max error {err:.2e} ({time.time() - t:.1f} s)", flush=True)
    except Exception as e:  # noqa: BLE001
        print(f"ERROR {name}: {str(e).splitlines()[0][:300]} ({time.time() - t:.1f} s)", flush=True)
        traceback.print_exc(file=sys.stderr)


A = None
case("elementwise", lambda: cp.sin(cp.asarray(a)) * 2 + 1, np.sin(a) * 2 + 1, tol=1e-5)
case("sum", lambda: cp.asarray(a).sum(), a.astype(np.float64).sum(), tol=1e-2)
case("cumsum", lambda: cp.cumsum(cp.asarray(a)), np.cumsum(a.astype(np.float64)), tol=1e-2)
kern = None
try:
    kern = cp.RawKernel(r'''extern "C" __global__ void twice(const float* x, float* y, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2 * x[i]; }''', "twice")
except Exception as e:  # noqa: BLE001
    print("ERROR RawKernel compile:", str(e)[:200])


def raw():
    x = cp.asarray(a)
    y = cp.empty_like(x)
    kern(((a.size + 255) // 256,), (256,), (x, y, np.int32(a.size)))
    return y


case("RawKernel", raw, 2 * a)
case("sort", lambda: cp.sort(cp.asarray(a)), np.sort(a))
case("FFT", lambda: cp.abs(cp.fft.fft(cp.asarray(a[:1024]))), np.abs(np.fft.fft(a[:1024])), tol=1e-2)
case("matmul (cuBLAS)", lambda: cp.asarray(m) @ cp.asarray(m).T, m @ m.T, tol=1e-3)
case("random (cuRAND) mean", lambda: cp.random.default_rng(1).standard_normal(100000).mean(), 0.0, tol=0.02)
