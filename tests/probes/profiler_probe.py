"""torch.profiler on the 'cuda' device under `zluda run`: does a profile with
CUDA activities complete, and which CUDA events (kernels, copies) it lists.
PyTorch's CUDA activities come from CUPTI (libcupti.so.13 of the wheel)."""
import torch

x = torch.randn(256, 256, device="cuda")
acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
try:
    with torch.profiler.profile(activities=acts) as prof:
        y = (x @ x).relu().sum()
        y.item()
    events = prof.key_averages()
    cuda = [e for e in events if getattr(e, "device_time_total", 0) > 0]
    print(f"PASS profile completed: {len(events)} event kinds, {len(cuda)} with device time", flush=True)
    print(events.table(sort_by="cpu_time_total", row_limit=8), flush=True)
    # The device events themselves (kernels, copies, memsets) and the operators they were linked to.
    kernels = [e for e in prof.events() if getattr(e, "device_type", None) == torch.autograd.DeviceType.CUDA]
    print(f"device events: {len(kernels)}", flush=True)
    for e in kernels[:12]:
        print(f"  {e.name[:90]}  {e.device_time_total:.1f} us", flush=True)
    linked = sorted({e.key for e in events if e.device_time_total > 0 and e.key.startswith("aten::")})
    print("operators with device time:", " ".join(linked), flush=True)
except Exception as e:  # noqa: BLE001
    print(f"ERROR profiler: {str(e).splitlines()[0][:300]}", flush=True)
with open("/proc/self/maps") as f:
    print("mapped:", " ".join(sorted({line.split()[-1] for line in f if "cupti" in line})))
