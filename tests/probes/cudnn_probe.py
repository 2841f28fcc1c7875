"""PyTorch's cuDNN calls on our libcudnn (under `zluda run`, which redirects
the wheel's nvidia/cudnn libraries to ours): each operation on the 'cuda'
device against PyTorch's CPU backend, forward and backward. One line per
case: PASS, WRONG (max abs error) or ERROR (the exception's first line).
Then which libcudnn the process mapped."""
import sys
import time
import traceback

import torch
import torch.nn.functional as F

torch.manual_seed(0)
print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version(), "available", torch.backends.cudnn.is_available())


def grads(fn, *inputs):
    """The output and the gradients of its sum of squares with respect to each input."""
    ins = [t.detach().clone().requires_grad_(True) for t in inputs]
    out = fn(*ins)
    (out.float() ** 2).sum().backward()
    return [out.detach()] + [t.grad for t in ins]


def case(name, fn, *inputs, tol=1e-3, dtype=None):
    t0 = time.time()
    try:
        cpu = grads(fn, *[t.float() for t in inputs])
        gpu = grads(fn, *[(t.to(dtype) if dtype else t).cuda() for t in inputs])
        err = max(float((g.float().cpu() - c).abs().max() / (c.abs().max() + 1)) for g, c in zip(gpu, cpu))
        status = "PASS" if err <= tol else "WRONG"
        print(f"{status:5} {name}: max rel error {err:.2e} ({time.time() - t0:.1f} s)", flush=True)
    except Exception as e:  # noqa: BLE001
        print(f"ERROR {name}: {str(e).splitlines()[0][:300]} ({time.time() - t0:.1f} s)", flush=True)
        traceback.print_exc(file=sys.stderr)


x = torch.randn(2, 3, 16, 16)
w = torch.randn(8, 3, 3, 3)
b = torch.randn(8)
case("conv2d 3x3 pad 1 + bias", lambda x, w, b: F.conv2d(x, w, b, padding=1), x, w, b)
case("conv2d stride 2 dilation 2", lambda x, w: F.conv2d(x, w, stride=2, dilation=2), x, w)
case("conv2d groups (depthwise)", lambda x, w: F.conv2d(x, w, padding=1, groups=3), x, torch.randn(6, 1, 3, 3))
case("conv2d 1x1", lambda x, w: F.conv2d(x, w), x, torch.randn(5, 3, 1, 1))
case("conv1d", lambda x, w: F.conv1d(x, w, padding=2), torch.randn(2, 4, 30), torch.randn(6, 4, 5))
case("conv3d", lambda x, w: F.conv3d(x, w, padding=1), torch.randn(1, 2, 6, 6, 6), torch.randn(3, 2, 3, 3, 3))
case("conv_transpose2d", lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1), x, torch.randn(3, 4, 3, 3))
case("conv2d channels_last", lambda x, w: F.conv2d(x.to(memory_format=torch.channels_last), w, padding=1), x, w)
case("conv2d f16", lambda x, w: F.conv2d(x, w, padding=1), x, w, tol=2e-2, dtype=torch.half)
case("conv2d bf16", lambda x, w: F.conv2d(x, w, padding=1), x, w, tol=5e-2, dtype=torch.bfloat16)
case("conv + relu (fused by cudnn)", lambda x, w, b: torch.relu(F.conv2d(x, w, b, padding=1)), x, w, b)
case("batch_norm training", lambda x, g, bb: F.batch_norm(x, None, None, g, bb, training=True), x, torch.rand(3) + 0.5,
     torch.randn(3))


def bn_eval(x, g, bb):
    return F.batch_norm(x, torch.zeros(3, device=x.device) + 0.1, torch.ones(3, device=x.device) * 1.5, g, bb,
                        training=False)


case("batch_norm eval", bn_eval, x, torch.rand(3) + 0.5, torch.randn(3))


def rnn_case(name, make, x):
    """A recurrent module's output and input/weight gradients on the device against the CPU (same weights)."""
    t0 = time.time()
    try:
        torch.manual_seed(3)
        cpu_mod = make()
        gpu_mod = make().cuda()
        gpu_mod.load_state_dict(cpu_mod.state_dict())
        outs = []
        for mod, dev in ((cpu_mod, "cpu"), (gpu_mod, "cuda")):
            xi = x.detach().clone().to(dev).requires_grad_(True)
            y = mod(xi)[0]
            (y ** 2).sum().backward()
            outs.append([y.detach().cpu(), xi.grad.cpu()] + [p.grad.cpu() for p in mod.parameters()])
        err = max(float((g - c).abs().max() / (c.abs().max() + 1)) for g, c in zip(outs[1], outs[0]))
        print(f"{'PASS' if err < 1e-4 else 'WRONG':5} {name}: max rel error {err:.2e} ({time.time() - t0:.1f} s)", flush=True)
    except Exception as e:  # noqa: BLE001
        print(f"ERROR {name}: {str(e).splitlines()[0][:300]} ({time.time() - t0:.1f} s)", flush=True)
        traceback.print_exc(file=sys.stderr)


rnn_case("LSTM 2 layers bidirectional (cuDNN RNN)", lambda: torch.nn.LSTM(5, 4, 2, bidirectional=True), torch.randn(6, 3, 5))
rnn_case("GRU (cuDNN RNN)", lambda: torch.nn.GRU(5, 4, 1), torch.randn(6, 3, 5))


def sdpa_cudnn(q, k, v):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    if q.device.type == "cpu":
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


for dt in (torch.half, torch.bfloat16):
    case(f"SDPA cuDNN attention causal {str(dt)[6:]}", sdpa_cudnn, torch.randn(2, 4, 40, 64), torch.randn(2, 4, 40, 64),
         torch.randn(2, 4, 40, 64), tol=3e-2, dtype=dt)


def cnn_losses(device, steps=15):
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
                                torch.nn.MaxPool2d(2), torch.nn.Conv2d(8, 8, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.Flatten(), torch.nn.Linear(8 * 8 * 8, 10)).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(2)
    data = torch.randn(16, 3, 16, 16, generator=g).to(device)
    labels = torch.randint(0, 10, (16,), generator=g).to(device)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(data), labels)
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out


t0 = time.time()
try:
    cpu, gpu = cnn_losses("cpu"), cnn_losses("cuda")
    err = max(abs(a - b) for a, b in zip(cpu, gpu))
    print(f"{'PASS' if err < 1e-4 else 'WRONG'} CNN 15 Adam steps (cuDNN conv + batch norm): max loss difference "
          f"{err:.2e}, last loss {gpu[-1]:.4f} ({time.time() - t0:.1f} s)", flush=True)
except Exception as e:  # noqa: BLE001
    print(f"ERROR CNN training: {str(e).splitlines()[0][:300]}", flush=True)
    traceback.print_exc(file=sys.stderr)

with open("/proc/self/maps") as f:
    libs = sorted({line.split()[-1] for line in f if "libcudnn" in line})
print("mapped:", " ".join(libs))
