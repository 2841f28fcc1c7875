"""PyTorch tensor operations on the 'cuda' device (ours, under `zluda run`),
each compared with the same operation on PyTorch's CPU backend. One line per
operation: PASS, WRONG (max abs error) or ERROR (the exception's first line),
with its time. Used on the device machine (tests/probes/pytorch-sass.sh),
where PyTorch's wheel ships machine code only."""
import sys
import time
import traceback

import torch

torch.manual_seed(0)
dev = "cuda"


def a(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=dtype)


OPS = [
    ("fill (zeros/ones)", lambda d: torch.ones(1000, device=d) * 0 + torch.zeros(1000, device=d)),
    ("arange", lambda d: torch.arange(1000, device=d, dtype=torch.float32)),
    ("add", lambda d: X.to(d) + Y.to(d)),
    ("mul scalar", lambda d: X.to(d) * 3.5),
    ("div", lambda d: X.to(d) / (Y.to(d).abs() + 1)),
    ("relu", lambda d: torch.relu(X.to(d))),
    ("gelu", lambda d: torch.nn.functional.gelu(X.to(d))),
    ("sigmoid", lambda d: torch.sigmoid(X.to(d))),
    ("tanh", lambda d: torch.tanh(X.to(d))),
    ("exp/log", lambda d: torch.log(torch.exp(X.to(d)) + 1)),
    ("pow", lambda d: torch.pow(X.to(d).abs(), 1.7)),
    ("where", lambda d: torch.where(X.to(d) > 0, X.to(d), Y.to(d))),
    ("clamp", lambda d: X.to(d).clamp(-0.5, 0.5)),
    ("sum", lambda d: X.to(d).sum()),
    ("sum dim", lambda d: M.to(d).sum(dim=1)),
    ("mean/var", lambda d: torch.stack([M.to(d).mean(), M.to(d).var()])),
    ("max dim", lambda d: M.to(d).max(dim=0).values),
    ("argmax", lambda d: M.to(d).argmax(dim=1)),
    ("cumsum", lambda d: X.to(d).cumsum(0)),
    ("softmax", lambda d: torch.softmax(M.to(d), dim=1)),
    ("log_softmax", lambda d: torch.log_softmax(M.to(d), dim=1)),
    ("layer_norm", lambda d: torch.nn.functional.layer_norm(M.to(d), (M.shape[1],))),
    ("sort", lambda d: torch.sort(X.to(d)).values),
    ("topk", lambda d: torch.topk(X.to(d), 10).values),
    ("index_select", lambda d: X.to(d)[IDX.to(d)]),
    ("gather", lambda d: torch.gather(M.to(d), 1, GI.to(d))),
    ("scatter_add", lambda d: torch.zeros(64, device=d).scatter_add(0, SI.to(d), X.to(d)[:256])),
    ("index_put", lambda d: torch.zeros(1000, device=d).index_put((IDX.to(d),), X.to(d)[:100], accumulate=True)),
    ("transpose copy", lambda d: M.to(d).t().contiguous()),
    ("cat", lambda d: torch.cat([X.to(d), Y.to(d)])),
    ("half mul", lambda d: (X.to(d).half() * Y.to(d).half()).float()),
    ("bfloat16 add", lambda d: (X.to(d).bfloat16() + Y.to(d).bfloat16()).float()),
    ("double sum", lambda d: X.to(d).double().sum()),
    ("int64 ops", lambda d: (IDX.to(d) * 3 + 7) % 11),
    ("bool ops", lambda d: ((X.to(d) > 0) & (Y.to(d) < 0)).sum()),
    ("matmul", lambda d: M.to(d) @ M.to(d).t()),
    ("linear+bias", lambda d: torch.nn.functional.linear(M.to(d), W.to(d), B.to(d))),
    ("embedding", lambda d: torch.nn.functional.embedding(IDX.to(d) % 32, M.to(d))),
    ("dropout eval", lambda d: torch.nn.functional.dropout(X.to(d), 0.5, training=False)),
    ("randn (philox)", lambda d: torch.randn(1000, device=d, generator=torch.Generator(d).manual_seed(1)).abs().mean() * 0 + 1),
    ("nonzero", lambda d: torch.nonzero(X.to(d) > 1).float()),
    ("unique", lambda d: torch.unique(IDX.to(d) % 17).float()),
    ("mlp backward", None),
    ("adam mlp 50 steps", "adam"),
    ("conv2d (cudnn)", lambda d: torch.nn.functional.conv2d(IMG.to(d), KER.to(d), padding=1)),
    ("conv2d (native)", "native_conv"),
    ("batch_norm train", lambda d: torch.nn.functional.batch_norm(IMG.to(d), None, None, training=True)),
    ("sdpa (math)", "sdpa_math"),
    ("sdpa (default)", lambda d: torch.nn.functional.scaled_dot_product_attention(Q.to(d), K.to(d), V.to(d))),
    ("cnn adam 50 steps", "cnn"),
    ("transformer layer", "transformer"),
    ("transformer adam 50 steps", "transformer_train"),
    ("torch.compile", "compiled"),
]

X, Y = a(1000), a(1000)
M = a(32, 64)
W, B = a(48, 64), a(48)
IDX = torch.randint(0, 1000, (100,))
GI = torch.randint(0, 64, (32, 8))
SI = torch.randint(0, 64, (256,))


def mlp(d):
    torch.manual_seed(3)
    net = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)).to(d)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    x, y = M.to(d), torch.arange(32, device=d) % 4
    for _ in range(3):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
    return loss.detach()


IMG, KER = a(2, 3, 16, 16), a(8, 3, 3, 3)


def adam_losses(net, x, y, steps):
    """Trains \p net on (x, y) with Adam for \p steps steps: the loss curve, step by step."""
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return torch.stack(losses)


def adam(d):
    """50 Adam steps of a small MLP."""
    torch.manual_seed(5)
    net = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.GELU(), torch.nn.Linear(32, 4)).to(d)
    return adam_losses(net, M.to(d), torch.arange(32, device=d) % 4, 50)


def native_conv(d):
    with torch.backends.cudnn.flags(enabled=False):
        return torch.nn.functional.conv2d(IMG.to(d), KER.to(d), padding=1)


Q, K, V = a(2, 4, 16, 8), a(2, 4, 16, 8), a(2, 4, 16, 8)


def sdpa_math(d):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    with sdpa_kernel(SDPBackend.MATH):
        return torch.nn.functional.scaled_dot_product_attention(Q.to(d), K.to(d), V.to(d), is_causal=True)


def cnn(d):
    """50 Adam steps of a small CNN (convolution, batch norm, ReLU, pooling, linear)."""
    torch.manual_seed(7)
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
                              torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(8 * 8 * 8, 4)).to(d)
    return adam_losses(net, IMG.repeat(4, 1, 1, 1).to(d), torch.arange(8, device=d) % 4, 50)


def transformer(d):
    torch.manual_seed(9)
    layer = torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True).to(d).eval()
    return layer(Q.reshape(2, 16, 32).to(d))


class TinyTransformer(torch.nn.Module):
    """One encoder layer (attention, feed-forward, layer norms), mean-pooled into a 4-way classifier."""

    def __init__(self):
        super().__init__()
        self.layer = torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
        self.head = torch.nn.Linear(32, 4)

    def forward(self, x):
        return self.head(self.layer(x).mean(dim=1))


def transformer_train(d):
    """50 Adam steps of a small transformer (training: attention forward and backward)."""
    torch.manual_seed(11)
    net = TinyTransformer().to(d)
    x = torch.cat([Q, K, V, Q.flip(0)]).reshape(8, 16, 32)
    return adam_losses(net, x.to(d), torch.arange(8, device=d) % 4, 50)


def compiled(d):
    f = torch.compile(lambda x, y: torch.relu(x * y + 1.5).sum(dim=-1))
    return f(M.to(d), M.to(d).flip(0))


NAMED = {"adam": adam, "native_conv": native_conv, "sdpa_math": sdpa_math, "cnn": cnn,
         "transformer": transformer, "transformer_train": transformer_train, "compiled": compiled}
counts = {"PASS": 0, "WRONG": 0, "ERROR": 0}
only = [a for a in sys.argv[1:] if not a.startswith("--")]  # names to run (substrings); all when none
for name, fn in OPS:
    if only and not any(o in name for o in only):
        continue
    fn = NAMED.get(fn, fn) if isinstance(fn, str) else (fn or mlp)
    t0 = time.time()
    try:
        want = fn("cpu")
        got = fn(dev)
        torch.cuda.synchronize()
        got = got.cpu()
        err = (got.double() - want.double()).abs().max().item() if got.numel() else 0.0
        tol = 2e-2 if got.dtype != torch.float64 else 1e-9
        tol = max(tol, 1e-3 * want.double().abs().max().item())
        status = "PASS" if got.shape == want.shape and err <= tol else "WRONG"
        detail = f"max error {err:.3g}" + ("" if got.shape == want.shape else f" shape {tuple(got.shape)} vs {tuple(want.shape)}")
    except Exception as e:  # noqa: BLE001 - the probe reports every failure
        status, detail = "ERROR", (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
        if "--trace" in sys.argv:
            traceback.print_exc()
    counts[status] += 1
    print(f"{status:5} {name:18} {time.time() - t0:7.1f}s  {detail}", flush=True)
print("summary:", counts, flush=True)
# Which CUDA libraries the process runs on (ours from the release, or the wheel's own).
with open("/proc/self/maps") as maps:
    libs = sorted({line.split()[-1] for line in maps if any(k in line for k in ("libcu", "libnv", "libcudnn"))})
print("libraries:", *libs, sep="\n  ", flush=True)
