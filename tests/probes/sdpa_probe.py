"""Scaled-dot-product attention (PyTorch's memory-efficient backend, f32,
head size 64: fmha_cutlassF_f32_aligned_64x64_rf_sm80) on the 'cuda' device
over shapes that separate its paths (one key tile or several, partial tiles,
causal masks), each against a float64 reference on the host. One line per
shape: the max error overall, per 64-query block and per 64-key prefix.
With an argument (a folder), each shape's inputs are saved there as raw f32
(q<n>.bin, k<n>.bin, v<n>.bin, contiguous batch x heads x length x 64) and
the device addresses printed with the output's strides, so a launch dumped
by ZLUDA_DUMP_LAUNCH can be replayed elsewhere (tests/probes/fmha_replay.cpp)."""
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

SHAPES = [  # batch, heads, queries, keys, causal
    (1, 1, 64, 64, False),
    (1, 1, 64, 128, False),
    (1, 1, 128, 64, False),
    (1, 1, 100, 100, False),
    (1, 1, 128, 128, True),
    (2, 3, 77, 45, False),
]


def reference(q, k, v, causal):
    q, k, v = q.double(), k.double(), v.double()
    s = (q @ k.transpose(-1, -2)) / q.shape[-1] ** 0.5
    if causal:
        L, S = s.shape[-2:]
        s = s.masked_fill(torch.ones(L, S, dtype=torch.bool).tril().logical_not(), float("-inf"))
    return torch.softmax(s, -1) @ v


def main():
    torch.manual_seed(0)
    save = sys.argv[1] if len(sys.argv) > 1 else None
    for n, (B, H, L, S, causal) in enumerate(SHAPES):
        q, k, v = (torch.randn(B, H, n_, 64) for n_ in (L, S, S))
        dq, dk, dv = q.cuda(), k.cuda(), v.cuda()
        try:
            with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
                out = torch.nn.functional.scaled_dot_product_attention(dq, dk, dv, is_causal=causal)
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001
            print(f"{B}x{H}x{L}x{S} causal={causal}: ERROR {str(e).splitlines()[0]}", flush=True)
            continue
        got = out.cpu().double()
        err = (got - reference(q, k, v, causal)).abs()
        blocks = " ".join(f"{err[:, :, i:i + 64].max().item():.2g}" for i in range(0, L, 64))
        print(f"{B}x{H}x{L}x{S} causal={causal}: max {err.max().item():.3g}; per 64 queries {blocks}; "
              f"worst column {err.amax(dim=(0, 1, 2)).argmax().item()}", flush=True)
        if save:
            for name, t in (("q", q), ("k", k), ("v", v)):
                t.numpy().tofile(f"{save}/{name}{n}.bin")
            print(f"shape {n} addresses q {dq.data_ptr():#x} k {dk.data_ptr():#x} v {dv.data_ptr():#x} "
                  f"out {out.data_ptr():#x} out-strides {' '.join(map(str, out.stride()))}", flush=True)

main()
