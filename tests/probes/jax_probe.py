"""JAX on our CPU device (under `zluda run`): the devices it lists, then jit of
elementwise, matmul, a reduction and an MLP training step, each against
NumPy. One line per case: PASS, WRONG (max abs error) or ERROR."""
import sys
import time
import traceback

import numpy as np

t0 = time.time()
try:
    import jax
    import jax.numpy as jnp
    print("jax", jax.__version__, "devices", jax.devices(), f"({time.time() - t0:.1f} s)", flush=True)
except Exception as e:  # noqa: BLE001
    print("ERROR import/devices:", str(e).splitlines()[0][:300], flush=True)
    traceback.print_exc(file=sys.stderr)
    sys.exit(0)

rng = np.random.default_rng(0)
x = rng.standard_normal((64, 32)).astype(np.float32)
w = rng.standard_normal((32, 16)).astype(np.float32)


def case(name, fn, ref, tol=1e-4):
    t = time.time()
    try:
        got = np.asarray(fn())
        err = float(np.max(np.abs(got - ref)))
        print(f"{'PASS' if err <= tol else 'WRONG':5} {name}: max error {err:.2e} ({time.time() - t:.1f} s)", flush=True)
    except Exception as e:  # noqa: BLE001
        print(f"ERROR {name}: {str(e).splitlines()[0][:300]} ({time.time() - t:.1f} s)", flush=True)
        traceback.print_exc(file=sys.stderr)


case("jit elementwise", lambda: jax.jit(lambda a: jnp.tanh(a) * 2 + 1)(x), np.tanh(x) * 2 + 1)
case("jit matmul", lambda: jax.jit(lambda a, b: a @ b)(x, w), x @ w, tol=1e-3)
case("jit reduction", lambda: jax.jit(lambda a: jnp.sum(a, axis=0))(x), x.sum(axis=0), tol=1e-4)
case("jit softmax", lambda: jax.jit(lambda a: jax.nn.softmax(a, axis=1))(x),
     np.exp(x) / np.exp(x).sum(axis=1, keepdims=True), tol=1e-5)


def mlp_step():
    def loss(params, a, y):
        h = jnp.maximum(a @ params[0], 0)
        return jnp.mean((h @ params[1] - y) ** 2)

    params = [jnp.asarray(w), jnp.asarray(rng.standard_normal((16, 1)).astype(np.float32))]
    y = jnp.asarray(rng.standard_normal((64, 1)).astype(np.float32))
    step = jax.jit(lambda p: [q - 0.01 * g for q, g in zip(p, jax.grad(loss)(p, jnp.asarray(x), y))])
    losses = []
    for _ in range(5):
        params = step(params)
        losses.append(float(loss(params, jnp.asarray(x), y)))
    return np.array(losses)


t = time.time()
try:
    gpu = mlp_step()
    with jax.default_device(jax.devices("cpu")[0]):
        rng = np.random.default_rng(0)
        x = rng.standard_normal((64, 32)).astype(np.float32)
        w = rng.standard_normal((32, 16)).astype(np.float32)
        cpu = mlp_step()
    # Relative to the losses (hundreds): float32 rounding in another summation order differs by a few ulps.
    err = float(np.max(np.abs(gpu - cpu)) / np.max(np.abs(cpu)))
    print(f"{'PASS' if err < 1e-5 else 'WRONG':5} MLP 5 SGD steps: losses {np.round(gpu, 4).tolist()}, max relative "
          f"difference from JAX's CPU {err:.2e} ({time.time() - t:.1f} s)", flush=True)
except Exception as e:  # noqa: BLE001
    print(f"ERROR MLP training: {str(e).splitlines()[0][:300]}", flush=True)
    traceback.print_exc(file=sys.stderr)
