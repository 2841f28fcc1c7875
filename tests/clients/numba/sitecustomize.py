# Client-side set-up for Numba 0.56 with the CUDA 13 toolkit (not ours to
# fix in the driver; see docs/CLIENTS.md). Active only when
# ZLUDA_NUMBA_SHIM=1, which tests/clients/numba.sh sets.
import os

if os.environ.get("ZLUDA_NUMBA_SHIM") == "1":
    # 0.56 binds every driver function as name_v2 first; CUDA 13 gave
    # cuCtxGetDevice_v2 and cuCtxSynchronize_v2 new signatures (they take a
    # context), so those two must be bound by their plain names.
    import numba.cuda.cudadrv.driver as _driver

    _find_api = _driver.Driver._find_api

    def _find_api_cuda13(self, fname):
        if fname in ("cuCtxGetDevice", "cuCtxSynchronize"):
            return getattr(self.lib, fname)
        return _find_api(self, fname)

    _driver.Driver._find_api = _find_api_cuda13

    # 0.56 stamps NVVM IR 1.6; NVVM 13 accepts 2.0 only.
    import numba.cuda.cudadrv.nvvm as _nvvm
    from llvmlite import ir as _ir

    def _add_ir_version(mod):
        i32 = _ir.IntType(32)
        mod.add_named_metadata("nvvmir.version", mod.add_metadata([i32(2), i32(0), i32(3), i32(1)]))

    _nvvm.add_ir_version = _add_ir_version
