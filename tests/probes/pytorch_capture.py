"""A full reduction (sum), an argmax and a cumsum of known data on the 'cuda'
device, with the data and output addresses printed: with ZLUDA_DUMP_LAUNCH
and ZLUDA_DUMP_DIR set, our driver leaves the launches' parameter buffers to
replay the same kernels elsewhere (tests/probes/pytorch-sass.sh capture)."""
import torch

x = (torch.arange(1000, dtype=torch.float32, device="cuda") % 13) * 0.25 - 1
o = torch.empty((), device="cuda")
torch.sum(x, 0, out=o)
torch.cuda.synchronize()
print("sum x", hex(x.data_ptr()), "out", hex(o.data_ptr()), "got", o.item(), "want", x.cpu().double().sum().item())
