// The library-redirection probe (tool.zluda.redirect): linked against NVIDIA's libcublas.so.13 and
// libcudart.so.13 with a DT_RPATH naming NVIDIA's folder (as PyTorch's wheel finds its nvidia/*/lib), it
// prints the file each library's functions come from, one line per library:
//   redirect_probe NVIDIA_LIB_DIR [--call]
// and also loads libcublasLt, CUPTI and NVRTC by their full paths in NVIDIA's folder, and libcuda.so.1 by name.
// With --call it also runs a cuBLAS call through the library that answered (our CPU device).
#include <dlfcn.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int cublasCreate_v2(void **);
extern "C" int cublasDestroy_v2(void *);
extern "C" int cublasGetVersion_v2(void *, int *);
extern "C" int cudaGetDeviceCount(int *);

static std::string fileOf(void *Fn) {
  Dl_info I;
  if (!Fn || !dladdr(Fn, &I) || !I.dli_fname)
    return "(none)";
  char Real[PATH_MAX];
  return realpath(I.dli_fname, Real) ? Real : I.dli_fname;
}

static void *symbolOf(const std::string &Path, const char *Name) {
  void *H = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  return H ? dlsym(H, Name) : nullptr;
}

int main(int Argc, char **Argv) {
  if (Argc < 2)
    return 2;
  std::string Nv = Argv[1];
  std::printf("cublas %s\n", fileOf(reinterpret_cast<void *>(&cublasCreate_v2)).c_str());
  std::printf("cudart %s\n", fileOf(reinterpret_cast<void *>(&cudaGetDeviceCount)).c_str());
  std::printf("cublasLt %s\n", fileOf(symbolOf(Nv + "/libcublasLt.so.13", "cublasLtCreate")).c_str());
  std::printf("cuda %s\n", fileOf(symbolOf("libcuda.so.1", "cuInit")).c_str());
  std::printf("cupti %s\n", fileOf(symbolOf(Nv + "/libcupti.so.13", "cuptiGetVersion")).c_str());
  std::printf("nvrtc %s\n", fileOf(symbolOf(Nv + "/libnvrtc.so.13", "nvrtcVersion")).c_str());
  if (Argc > 2 && std::string(Argv[2]) == "--call") {
    int Devices = 0, Version = 0;
    void *H = nullptr;
    int Rc = cudaGetDeviceCount(&Devices);
    int Rb = cublasCreate_v2(&H);
    int Rv = H ? cublasGetVersion_v2(H, &Version) : -1;
    std::printf("call devices=%d rc=%d create=%d version=%d\n", Devices, Rc, Rb, Version);
    if (H)
      cublasDestroy_v2(H);
  }
  return 0;
}
