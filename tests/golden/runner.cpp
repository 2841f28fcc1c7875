// The PTX conformance oracle's runner, a plain driver-API program:
//   runner --record OUTDIR FILE.golden...   runs every case and writes each
//       file to OUTDIR with the outputs filled in (on NVIDIA hardware: the
//       golden data; scripts/golden-record runs it through the device tool)
//   runner --check [--known LIST] FILE.golden...   runs every case and
//       compares with the recorded outputs: bit for bit, or within the PTX
//       ISA's bound for approximate instructions (cmp=rel:X / abs:X)
// Each kernel is loaded as a module of its own, so one form our compiler
// refuses does not hide the others. File format: tests/golden/gen.py.
#include <cuda.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Kernel {
  std::string Name, Cmp, HeaderLine, Tex;
  std::string WantError; ///< the CUDA error NVIDIA's launch ended with ("" when it ran)
  bool Isolate = false;  ///< a launch that may fail: run in a process of its own (a failed launch ends the context)
  unsigned Ins = 0, Outs = 0, Block = 64;
  std::vector<std::string> Types;
  std::string Ptx;
  std::vector<std::vector<uint64_t>> In, Out; // Out empty until recorded
};

struct GoldenFile {
  std::string Family, Header;
  std::vector<Kernel> Kernels;
};

std::vector<std::string> split(const std::string &S, char D) {
  std::vector<std::string> R;
  std::stringstream SS(S);
  std::string X;
  while (std::getline(SS, X, D))
    R.push_back(X);
  return R;
}

std::vector<uint64_t> hexList(const std::string &S) {
  std::vector<uint64_t> R;
  std::stringstream SS(S);
  std::string X;
  while (SS >> X)
    R.push_back(std::strtoull(X.c_str(), nullptr, 16));
  return R;
}

bool parse(const std::string &Path, GoldenFile &G) {
  std::ifstream In(Path);
  if (!In)
    return false;
  std::string L;
  Kernel *K = nullptr;
  bool InPtx = false;
  while (std::getline(In, L)) {
    if (InPtx) {
      if (L == "endptx")
        InPtx = false;
      else
        K->Ptx += L + "\n";
      continue;
    }
    if (L.rfind("family ", 0) == 0) {
      G.Family = L.substr(7);
    } else if (L.rfind("header ", 0) == 0) {
      for (const std::string &H : split(L.substr(7), '|'))
        G.Header += H + "\n";
    } else if (L.rfind("kernel ", 0) == 0) {
      G.Kernels.emplace_back();
      K = &G.Kernels.back();
      K->HeaderLine = L;
      std::stringstream SS(L.substr(7));
      SS >> K->Name;
      std::string KV;
      while (SS >> KV) {
        auto Eq = KV.find('=');
        std::string Key = KV.substr(0, Eq), V = KV.substr(Eq + 1);
        if (Key == "ins")
          K->Ins = std::stoul(V);
        else if (Key == "outs")
          K->Outs = std::stoul(V);
        else if (Key == "block")
          K->Block = std::stoul(V);
        else if (Key == "cmp")
          K->Cmp = V;
        else if (Key == "types")
          K->Types = split(V, ',');
        else if (Key == "tex")
          K->Tex = V;
        else if (Key == "isolate")
          K->Isolate = V == "1";
      }
    } else if (L == "ptx") {
      InPtx = true;
    } else if (L.rfind("in", 0) == 0 && K) {
      auto Arrow = L.find("=>");
      K->In.push_back(hexList(L.substr(2, Arrow == std::string::npos ? std::string::npos : Arrow - 2)));
      std::string Rest = Arrow == std::string::npos ? "" : L.substr(Arrow + 2);
      std::stringstream RS(Rest);
      std::string First, Err;
      RS >> First;
      if (First == "error") {
        RS >> Err; // recorded as "error NAME" when the launch itself failed on NVIDIA's GPU
        if (!Err.empty())
          K->WantError = Err;
        K->Out.emplace_back(); // a row with no outputs is not compared
      } else if (Arrow != std::string::npos) {
        K->Out.push_back(hexList(Rest));
      }
    }
  }
  return true;
}

bool initCuda() {
  static CUresult Init = [] {
    CUresult R = cuInit(0);
    CUdevice Dev;
    CUcontext Ctx;
    if (!R && !(R = cuDeviceGet(&Dev, 0)) && !(R = cuDevicePrimaryCtxRetain(&Ctx, Dev)))
      R = cuCtxSetCurrent(Ctx);
    return R;
  }();
  return Init == CUDA_SUCCESS;
}

/// CUDA arrays a kernel's texture or surface was made over; freed after it ran.
std::vector<CUarray> Arrays;
std::vector<CUmipmappedArray> Mipmaps;
bool Surface = false; ///< the handle is a CUsurfObject

uint16_t toHalf(float F) { // exact for the values used below
  uint32_t X;
  std::memcpy(&X, &F, 4);
  uint32_t S = (X >> 16) & 0x8000, E = (X >> 23) & 0xff, M = X & 0x7fffff;
  if (F == 0)
    return static_cast<uint16_t>(S);
  return static_cast<uint16_t>(S | ((E - 112) << 10) | (M >> 13));
}

CUresult fillArray(CUarray A, const void *Host, size_t RowBytes, size_t Rows, size_t Slices) {
  CUDA_MEMCPY3D C = {};
  C.srcMemoryType = CU_MEMORYTYPE_HOST;
  C.srcHost = Host;
  C.srcPitch = RowBytes;
  C.srcHeight = Rows;
  C.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  C.dstArray = A;
  C.WidthInBytes = RowBytes;
  C.Height = Rows;
  C.Depth = Slices;
  return cuMemcpy3D(&C);
}

/// Textures and surfaces over CUDA arrays (tex=arr2d..., layered, cube, arr3d,
/// mip..., surf...), the texels of each kind are in gen.py's comment.
CUresult makeArrayTexture(const std::string &Kind, CUtexObject &Tex) {
  auto has = [&](const char *S) { return Kind.find(S) != std::string::npos; };
  CUDA_ARRAY3D_DESCRIPTOR D = {};
  std::vector<unsigned char> Bytes;
  size_t RowBytes = 0, Rows = 1, Slices = 1;
  unsigned Levels = 1;
  if (has("cube")) {
    D = {32, 32, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP};
    std::vector<float> V(32 * 32 * 6);
    for (size_t I = 0; I < V.size(); ++I)
      V[I] = float(I); // face * 1024 + y * 32 + x
    Bytes.assign(reinterpret_cast<unsigned char *>(V.data()), reinterpret_cast<unsigned char *>(V.data() + V.size()));
    RowBytes = 32 * 4, Rows = 32, Slices = 6;
  } else if (has("arr3d")) {
    D = {16, 16, 16, CU_AD_FORMAT_FLOAT, 1, 0};
    std::vector<float> V(16 * 16 * 16);
    for (size_t I = 0; I < V.size(); ++I)
      V[I] = float(I);
    Bytes.assign(reinterpret_cast<unsigned char *>(V.data()), reinterpret_cast<unsigned char *>(V.data() + V.size()));
    RowBytes = 16 * 4, Rows = 16, Slices = 16;
  } else if (has("mip")) {
    D = {32, 32, 0, CU_AD_FORMAT_FLOAT, 1, 0};
    Levels = 6;
  } else if (has("surf1d")) {
    D = {64, 0, 0, CU_AD_FORMAT_UNSIGNED_INT32, 1, CUDA_ARRAY3D_SURFACE_LDST};
    std::vector<uint32_t> V(64);
    for (size_t I = 0; I < V.size(); ++I)
      V[I] = 0x2000 + uint32_t(I);
    Bytes.assign(reinterpret_cast<unsigned char *>(V.data()), reinterpret_cast<unsigned char *>(V.data() + V.size()));
    RowBytes = 256;
  } else if (has("surf3d")) {
    D = {8, 8, 8, CU_AD_FORMAT_UNSIGNED_INT16, 1, CUDA_ARRAY3D_SURFACE_LDST};
    std::vector<uint16_t> V(512);
    for (size_t I = 0; I < V.size(); ++I)
      V[I] = static_cast<uint16_t>(0x3000 + I);
    Bytes.assign(reinterpret_cast<unsigned char *>(V.data()), reinterpret_cast<unsigned char *>(V.data() + V.size()));
    RowBytes = 16, Rows = 8, Slices = 8;
  } else if (has("surfl")) {
    D = {32, 32, 4, CU_AD_FORMAT_UNSIGNED_INT32, 1, CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_LAYERED};
    std::vector<uint32_t> V(32 * 32 * 4);
    for (size_t I = 0; I < V.size(); ++I)
      V[I] = 0x4000 + uint32_t(I);
    Bytes.assign(reinterpret_cast<unsigned char *>(V.data()), reinterpret_cast<unsigned char *>(V.data() + V.size()));
    RowBytes = 128, Rows = 32, Slices = 4;
  } else if (has("surf.half")) {
    D = {32, 32, 0, CU_AD_FORMAT_HALF, 1, CUDA_ARRAY3D_SURFACE_LDST};
    Bytes.assign(32 * 32 * 2, 0);
    RowBytes = 64, Rows = 32;
  } else if (has("surf")) {
    D = {32, 32, 0, CU_AD_FORMAT_UNSIGNED_INT32, 1, CUDA_ARRAY3D_SURFACE_LDST};
    std::vector<uint32_t> V(32 * 32);
    for (size_t I = 0; I < V.size(); ++I)
      V[I] = 0x1000 + uint32_t(I);
    Bytes.assign(reinterpret_cast<unsigned char *>(V.data()), reinterpret_cast<unsigned char *>(V.data() + V.size()));
    RowBytes = 128, Rows = 32;
  } else { // arr2d and layered: 32x32 texels (4 layers), four channels
    bool Layered = has("layered");
    Slices = Layered ? 4 : 1;
    size_t N = 32 * 32 * Slices;
    if (has(".u8")) {
      D = {32, 32, Slices > 1 ? Slices : 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, Layered ? CUDA_ARRAY3D_LAYERED : 0u};
      for (size_t I = 0; I < N; ++I)
        for (unsigned C = 0; C < 4; ++C)
          Bytes.push_back(static_cast<unsigned char>(I * 7 + C * 53));
      RowBytes = 32 * 4;
    } else if (has(".half")) {
      D = {32, 32, Slices > 1 ? Slices : 0, CU_AD_FORMAT_HALF, 4, Layered ? CUDA_ARRAY3D_LAYERED : 0u};
      for (size_t I = 0; I < N; ++I)
        for (unsigned C = 0; C < 4; ++C) {
          uint16_t H = toHalf(float((I * 3 + C) % 2048) / 16.0f);
          Bytes.push_back(static_cast<unsigned char>(H));
          Bytes.push_back(static_cast<unsigned char>(H >> 8));
        }
      RowBytes = 32 * 8;
    } else if (has(".u32")) {
      D = {32, 32, Slices > 1 ? Slices : 0, CU_AD_FORMAT_UNSIGNED_INT32, 4, Layered ? CUDA_ARRAY3D_LAYERED : 0u};
      for (size_t I = 0; I < N; ++I)
        for (uint32_t C = 0; C < 4; ++C) {
          uint32_t V = 0x80000001u + uint32_t(I) * 0x10001u + C * 0x01000000u; // beyond a float's 24 bits
          for (int B = 0; B < 4; ++B)
            Bytes.push_back(static_cast<unsigned char>(V >> (8 * B)));
        }
      RowBytes = 32 * 16;
    } else {
      D = {32, 32, Slices > 1 ? Slices : 0, CU_AD_FORMAT_FLOAT, 4, Layered ? CUDA_ARRAY3D_LAYERED : 0u};
      for (size_t I = 0; I < N; ++I)
        for (unsigned C = 0; C < 4; ++C) {
          float F = float(I) + float(C) / 4;
          unsigned char B[4];
          std::memcpy(B, &F, 4);
          Bytes.insert(Bytes.end(), B, B + 4);
        }
      RowBytes = 32 * 16;
    }
    Rows = 32;
  }
  CUDA_RESOURCE_DESC Res = {};
  if (Levels > 1) {
    CUmipmappedArray M;
    if (CUresult R = cuMipmappedArrayCreate(&M, &D, Levels))
      return R;
    Mipmaps.push_back(M);
    for (unsigned L = 0; L < Levels; ++L) {
      CUarray A;
      if (CUresult R = cuMipmappedArrayGetLevel(&A, M, L))
        return R;
      size_t W = 32u >> L;
      std::vector<float> V(W * W);
      for (size_t I = 0; I < V.size(); ++I)
        V[I] = float(L * 1000 + I);
      if (CUresult R = fillArray(A, V.data(), W * 4, W, 1))
        return R;
    }
    Res.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
    Res.res.mipmap.hMipmappedArray = M;
  } else {
    CUarray A;
    if (CUresult R = cuArray3DCreate(&A, &D))
      return R;
    Arrays.push_back(A);
    if (CUresult R = fillArray(A, Bytes.data(), RowBytes, Rows, Slices))
      return R;
    Res.resType = CU_RESOURCE_TYPE_ARRAY;
    Res.res.array.hArray = A;
  }
  if (has("surf")) {
    Surface = true;
    return cuSurfObjectCreate(&Tex, &Res);
  }
  CUDA_TEXTURE_DESC Desc = {};
  CUaddress_mode Mode = has(".border")   ? CU_TR_ADDRESS_MODE_BORDER
                        : has(".wrap")   ? CU_TR_ADDRESS_MODE_WRAP
                        : has(".mirror") ? CU_TR_ADDRESS_MODE_MIRROR
                                         : CU_TR_ADDRESS_MODE_CLAMP;
  for (CUaddress_mode &M : Desc.addressMode)
    M = Mode;
  Desc.filterMode = has(".linear") ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT;
  Desc.flags = (has(".norm") || has("cube") || has("mip") ? CU_TRSF_NORMALIZED_COORDINATES : 0) |
               (has(".int") ? CU_TRSF_READ_AS_INTEGER : 0) | (has(".srgb") ? CU_TRSF_SRGB : 0);
  if (has(".border")) {
    const float Border[4] = {0.5f, -2.0f, 1000.0f, 7.25f};
    std::memcpy(Desc.borderColor, Border, sizeof Border);
  }
  if (Levels > 1) {
    Desc.mipmapFilterMode = has(".miplinear") ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT;
    Desc.maxMipmapLevelClamp = float(Levels - 1);
    Desc.minMipmapLevelClamp = 0;
    Desc.mipmapLevelBias = 0;
  }
  return cuTexObjectCreate(&Tex, &Res, &Desc, nullptr);
}

/// The texture a kernel with tex=KIND reads (gen.py): 1024 float4 texels
/// i + c/4 in linear memory ("linear"), or 32x32 texels in pitched memory
/// read with the address mode and coordinates KIND names; ".u32": texels
/// 4i + c as unsigned integers. Array kinds: makeArrayTexture.
CUresult makeTexture(const std::string &Kind, CUdeviceptr &Data, CUtexObject &Tex) {
  Surface = false;
  if (Kind.rfind("arr", 0) == 0 || Kind.rfind("layered", 0) == 0 || Kind.rfind("cube", 0) == 0 ||
      Kind.rfind("mip", 0) == 0 || Kind.rfind("surf", 0) == 0)
    return makeArrayTexture(Kind, Tex);
  bool Int = Kind.find(".u32") != std::string::npos;
  std::vector<uint32_t> Texels(1024 * 4);
  for (uint32_t I = 0; I < 1024; ++I)
    for (uint32_t C = 0; C < 4; ++C) {
      float F = float(I) + float(C) / 4;
      std::memcpy(&Texels[I * 4 + C], &F, 4);
      if (Int)
        Texels[I * 4 + C] = I * 4 + C;
    }
  if (CUresult R = cuMemAlloc(&Data, Texels.size() * 4))
    return R;
  cuMemcpyHtoD(Data, Texels.data(), Texels.size() * 4);
  CUDA_RESOURCE_DESC Res = {};
  CUDA_TEXTURE_DESC Desc = {};
  CUarray_format Format = Int ? CU_AD_FORMAT_UNSIGNED_INT32 : CU_AD_FORMAT_FLOAT;
  if (Kind == "linear") {
    Res.resType = CU_RESOURCE_TYPE_LINEAR;
    Res.res.linear.devPtr = Data;
    Res.res.linear.format = Format;
    Res.res.linear.numChannels = 4;
    Res.res.linear.sizeInBytes = Texels.size() * 4;
  } else {
    Res.resType = CU_RESOURCE_TYPE_PITCH2D;
    Res.res.pitch2D.devPtr = Data;
    Res.res.pitch2D.format = Format;
    Res.res.pitch2D.numChannels = 4;
    Res.res.pitch2D.width = 32;
    Res.res.pitch2D.height = 32;
    Res.res.pitch2D.pitchInBytes = 32 * 16;
  }
  CUaddress_mode Mode = Kind.find(".border") != std::string::npos ? CU_TR_ADDRESS_MODE_BORDER
                        : Kind.find(".wrap") != std::string::npos ? CU_TR_ADDRESS_MODE_WRAP
                        : Kind.find(".mirror") != std::string::npos ? CU_TR_ADDRESS_MODE_MIRROR
                                                                    : CU_TR_ADDRESS_MODE_CLAMP;
  for (CUaddress_mode &M : Desc.addressMode)
    M = Mode;
  Desc.filterMode = CU_TR_FILTER_MODE_POINT;
  Desc.flags = (Kind.find(".norm") != std::string::npos ? CU_TRSF_NORMALIZED_COORDINATES : 0) |
               (Int ? CU_TRSF_READ_AS_INTEGER : 0);
  return cuTexObjectCreate(&Tex, &Res, &Desc, nullptr);
}

std::string errName(CUresult R) {
  const char *S = nullptr;
  cuGetErrorName(R, &S);
  return S ? S : std::to_string(int(R));
}

/// Runs \p K's cases; fills \p Got (poison 0xA5 where nothing was written).
/// Returns "" or why the kernel could not run.
/// GOLDEN_SASS=NN (the SASS front end's oracle): each kernel is compiled by
/// ptxas (GOLDEN_PTXAS) for sm_NN and loaded as a cubin. Empty when unset or
/// ptxas refuses the kernel for that architecture ("" then means: skip).
std::string sassImage(const std::string &Ptx, bool &Skip) {
  Skip = false;
  const char *Arch = std::getenv("GOLDEN_SASS");
  if (!Arch || !*Arch)
    return {};
  const char *PtxAs = std::getenv("GOLDEN_PTXAS");
  std::string Dir = "/tmp/golden-sass-" + std::to_string(getpid());
  std::string In = Dir + ".ptx", Out = Dir + ".cubin";
  {
    std::ofstream O(In);
    std::string T = Ptx;
    size_t P = T.find(".target ");
    if (P != std::string::npos)
      T.replace(P, T.find_first_of("\n|", P) - P, std::string(".target sm_") + Arch);
    O << T;
  }
  std::string Cmd = std::string(PtxAs && *PtxAs ? PtxAs : "/usr/local/cuda/bin/ptxas") + " -arch=sm_" + Arch + " " +
                    In + " -o " + Out + " > /dev/null 2>&1";
  std::string Bytes;
  if (std::system(Cmd.c_str()) == 0) {
    std::ifstream C(Out, std::ios::binary);
    std::stringstream SS;
    SS << C.rdbuf();
    Bytes = SS.str();
  } else {
    Skip = true;
  }
  std::remove(In.c_str());
  std::remove(Out.c_str());
  return Bytes;
}

/// GOLDEN_SASS: one ptxas run and one module for a whole golden file (ptxas
/// starts in ~50 ms, so one run per kernel was most of the test's time). The
/// kernels are self-contained and their names distinct, so sharing a module
/// changes nothing they compute. Kernels ptxas refuses for the architecture
/// (found by the line of its error) are left out and listed in \p Refused;
/// isolated kernels keep a process and a module of their own.
struct FileModule {
  CUmodule M = nullptr;
  std::set<std::string> Refused;
};

FileModule sassFileModule(const GoldenFile &G) {
  FileModule FM;
  const char *Arch = std::getenv("GOLDEN_SASS");
  if (!Arch || !*Arch)
    return FM;
  const char *PtxAs = std::getenv("GOLDEN_PTXAS");
  std::string Base = "/tmp/golden-sass-file-" + std::to_string(getpid());
  std::string Header = G.Header;
  size_t P = Header.find(".target ");
  if (P != std::string::npos)
    Header.replace(P, Header.find('\n', P) - P, std::string(".target sm_") + Arch);
  std::set<std::string> Out; // left out: refused by ptxas
  for (int Try = 0; Try < 16; ++Try) {
    std::string Text = Header;
    std::vector<std::pair<size_t, std::string>> Starts; // first line of each kernel
    auto lines = [](const std::string &S) { return static_cast<size_t>(std::count(S.begin(), S.end(), '\n')); };
    for (const Kernel &K : G.Kernels) {
      if (K.Isolate || Out.count(K.Name))
        continue;
      Starts.push_back({lines(Text) + 1, K.Name});
      Text += K.Ptx;
    }
    if (Starts.empty())
      break;
    std::ofstream(Base + ".ptx") << Text;
    std::string Cmd = std::string(PtxAs && *PtxAs ? PtxAs : "/usr/local/cuda/bin/ptxas") + " -arch=sm_" + Arch + " " +
                      Base + ".ptx -o " + Base + ".cubin > " + Base + ".log 2>&1";
    if (std::system(Cmd.c_str()) == 0) {
      std::ifstream C(Base + ".cubin", std::ios::binary);
      std::stringstream SS;
      SS << C.rdbuf();
      std::string Cubin = SS.str();
      if (cuModuleLoadData(&FM.M, Cubin.data()) != CUDA_SUCCESS)
        FM.M = nullptr; // each kernel alone, as without a file module
      else
        FM.Refused = Out;
      break;
    }
    // "ptxas FILE, line N; error   : ...": leave out the kernels the errors are in.
    std::ifstream L(Base + ".log");
    std::string Line;
    size_t Before = Out.size();
    while (std::getline(L, Line)) {
      size_t At = Line.find(", line ");
      if (At == std::string::npos || Line.find("error") == std::string::npos)
        continue;
      size_t N = std::strtoul(Line.c_str() + At + 7, nullptr, 10);
      for (size_t I = Starts.size(); I-- > 0;)
        if (Starts[I].first <= N) {
          Out.insert(Starts[I].second);
          break;
        }
    }
    if (Out.size() == Before)
      break; // an error outside any kernel: each kernel alone
  }
  for (const char *Ext : {".ptx", ".cubin", ".log"})
    std::remove((Base + Ext).c_str());
  return FM;
}

std::string run(const std::string &Header, const Kernel &K, std::vector<std::vector<uint64_t>> &Got,
                const FileModule *FM = nullptr) {
  CUmodule M = nullptr;
  CUfunction F;
  bool Machine = false; // from a cubin: an image the front end refuses is a skip
  if (FM && FM->M && !K.Isolate) {
    if (FM->Refused.count(K.Name))
      return "skip: ptxas refuses it for this architecture";
    if (CUresult R = cuModuleGetFunction(&F, FM->M, K.Name.c_str()))
      return "function: " + errName(R);
    Machine = true;
  } else {
    std::string Ptx = Header + "\n" + K.Ptx;
    bool Skip = false;
    std::string Cubin = sassImage(Ptx, Skip);
    if (Skip)
      return "skip: ptxas refuses it for this architecture";
    Machine = !Cubin.empty();
    char Log[8192] = {};
    CUjit_option Opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *Vals[2] = {Log, reinterpret_cast<void *>(sizeof Log)};
    if (CUresult R = cuModuleLoadDataEx(&M, Cubin.empty() ? static_cast<const void *>(Ptx.c_str()) : Cubin.data(), 2,
                                        Opts, Vals)) {
      if (Machine && R == CUDA_ERROR_NO_BINARY_FOR_GPU)
        return "skip: not liftable yet";
      return "load: " + errName(R) + " " + std::string(Log).substr(0, 300);
    }
    if (CUresult R = cuModuleGetFunction(&F, M, K.Name.c_str())) {
      cuModuleUnload(M);
      return "function: " + errName(R);
    }
  }
  unsigned Rows = static_cast<unsigned>(K.In.size());
  size_t InSlots = std::max(1u, K.Ins), InBytes = size_t(Rows) * InSlots * 8, OutBytes = size_t(Rows) * K.Outs * 8;
  std::vector<uint64_t> HIn(InSlots * Rows, 0), HOut(K.Outs * Rows, 0);
  for (unsigned R = 0; R < Rows; ++R)
    for (size_t I = 0; I < K.In[R].size() && I < InSlots; ++I)
      HIn[R * InSlots + I] = K.In[R][I];
  CUdeviceptr DIn, DOut;
  std::string Why;
  if (cuMemAlloc(&DIn, InBytes) || cuMemAlloc(&DOut, OutBytes))
    return "cuMemAlloc failed";
  cuMemcpyHtoD(DIn, HIn.data(), InBytes);
  cuMemsetD8(DOut, 0xA5, OutBytes);
  CUdeviceptr DTex = 0;
  CUtexObject Tex = 0;
  if (!K.Tex.empty())
    if (CUresult R = makeTexture(K.Tex, DTex, Tex))
      Why = "texture: " + errName(R);
  void *Args[] = {&DIn, &DOut, &Rows, &Tex};
  unsigned Blocks = (Rows + K.Block - 1) / K.Block;
  if (Why.empty()) {
    if (CUresult R = cuLaunchKernel(F, Blocks, 1, 1, K.Block, 1, 1, 0, nullptr, Args, nullptr)) {
      // A cubin whose other kernels lift: the refused one fails its launch as NVIDIA's driver does without an image.
      Why = Machine && R == CUDA_ERROR_NO_BINARY_FOR_GPU ? "skip: not liftable yet" : "launch: " + errName(R);
    } else if (CUresult R = cuCtxSynchronize()) {
      Why = "run: " + errName(R);
      return Why; // the context is lost with the launch (isolate=1 runs such kernels in a process of their own)
    }
  }
  if (Tex)
    Surface ? cuSurfObjectDestroy(Tex) : cuTexObjectDestroy(Tex);
  if (DTex)
    cuMemFree(DTex);
  for (CUarray A : Arrays)
    cuArrayDestroy(A);
  for (CUmipmappedArray M : Mipmaps)
    cuMipmappedArrayDestroy(M);
  Arrays.clear();
  Mipmaps.clear();
  if (Why.empty()) {
    cuMemcpyDtoH(HOut.data(), DOut, OutBytes);
    Got.assign(Rows, std::vector<uint64_t>(K.Outs));
    for (unsigned R = 0; R < Rows; ++R)
      for (unsigned O = 0; O < K.Outs; ++O)
        Got[R][O] = HOut[R * K.Outs + O];
  }
  cuMemFree(DIn);
  cuMemFree(DOut);
  if (M)
    cuModuleUnload(M);
  return Why;
}

std::string Self;

/// run() in a child process (`runner --one FILE KERNEL`), for kernels whose
/// launch may fail: after a trap NVIDIA's driver refuses all further work in
/// the process.
std::string runIsolated(const std::string &File, const Kernel &K, std::vector<std::vector<uint64_t>> &Got) {
  std::string Cmd = "'" + Self + "' --one '" + File + "' " + K.Name;
  FILE *P = popen(Cmd.c_str(), "r");
  if (!P)
    return "cannot start " + Cmd;
  std::string Why = "no answer from " + Cmd;
  char Line[4096];
  while (std::fgets(Line, sizeof Line, P)) {
    std::string L(Line);
    while (!L.empty() && (L.back() == '\n' || L.back() == '\r'))
      L.pop_back();
    if (L.rfind("why ", 0) == 0)
      Why = L.substr(4);
    else if (L == "ok")
      Why.clear();
    else if (L.rfind("row", 0) == 0)
      Got.push_back(hexList(L.substr(3)));
  }
  pclose(P);
  return Why;
}

double asFloat(uint64_t V, const std::string &T, bool &Ok) {
  Ok = true;
  if (T == "f32") {
    float F;
    uint32_t B = static_cast<uint32_t>(V);
    std::memcpy(&F, &B, 4);
    return F;
  }
  if (T == "f64") {
    double D;
    std::memcpy(&D, &V, 8);
    return D;
  }
  if (T == "f16" || T == "f16x2") { // the low half only (x2 forms compare each half below)
    uint32_t H = V & 0xFFFF, S = H >> 15, E = (H >> 10) & 31, M = H & 1023;
    double Mag = E == 0 ? std::ldexp(M, -24) : E == 31 ? (M ? NAN : INFINITY) : std::ldexp(M + 1024, int(E) - 25);
    return S ? -Mag : Mag;
  }
  Ok = false;
  return 0;
}

/// Within the bound of an approximate instruction (cmp=rel:X or abs:X).
bool close(uint64_t Want, uint64_t Got, const std::string &T, const std::string &Cmp) {
  if (Cmp == "exact")
    return Want == Got;
  double Bound = std::strtod(Cmp.c_str() + 4, nullptr);
  bool Rel = Cmp.rfind("rel:", 0) == 0;
  int Halves = T == "f16x2" ? 2 : 1;
  for (int H = 0; H < Halves; ++H) {
    bool Ok1, Ok2;
    double W = asFloat(Want >> (16 * H), T, Ok1), G = asFloat(Got >> (16 * H), T, Ok2);
    if (!Ok1 || !Ok2)
      return Want == Got;
    if (std::isnan(W) || std::isnan(G)) {
      if (std::isnan(W) != std::isnan(G))
        return false;
      continue;
    }
    if (std::isinf(W) || std::isinf(G)) {
      if (W != G)
        return false;
      continue;
    }
    double Err = std::fabs(W - G);
    // Subnormal results may flush: allow the smallest normal of the type as slack.
    double Slack = T == "f64" ? 2.3e-308 : T == "f32" ? 1.2e-38 : 6.2e-5;
    if (Err > (Rel ? Bound * std::fabs(W) : Bound) + Slack)
      return false;
  }
  return true;
}

std::string hex(uint64_t V) {
  char B[32];
  std::snprintf(B, sizeof B, "%llx", static_cast<unsigned long long>(V));
  return B;
}

} // namespace

int main(int Argc, char **Argv) {
  Self = Argv[0];
  if (Argc == 4 && std::string(Argv[1]) == "--one") { // the child of runIsolated
    GoldenFile G;
    if (!parse(Argv[2], G) || !initCuda()) {
      std::printf("why cannot read %s or start CUDA\n", Argv[2]);
      return 0;
    }
    for (const Kernel &K : G.Kernels)
      if (K.Name == Argv[3]) {
        std::vector<std::vector<uint64_t>> Got;
        std::string Why = run(G.Header, K, Got);
        std::printf("%s%s\n", Why.empty() ? "ok" : "why ", Why.c_str());
        for (const auto &Row : Got) {
          std::printf("row");
          for (uint64_t V : Row)
            std::printf(" %llx", static_cast<unsigned long long>(V));
          std::printf("\n");
        }
        return 0;
      }
    std::printf("why no kernel %s\n", Argv[3]);
    return 0;
  }
  if (Argc < 3) {
    std::fprintf(stderr, "usage: runner --record OUTDIR FILE.golden... | --check [--known LIST] FILE.golden...\n");
    return 2;
  }
  std::string Mode = Argv[1], OutDir;
  int First = 2;
  std::set<std::string> Known;
  if (Mode == "--record") {
    OutDir = Argv[2];
    First = 3;
  } else if (Argc > 3 && std::string(Argv[2]) == "--known") {
    std::ifstream KF(Argv[3]);
    std::string L;
    while (std::getline(KF, L))
      if (!L.empty() && L[0] != '#')
        Known.insert(L.substr(0, L.find(' ')));
    First = 4;
  }
  if (!initCuda()) {
    std::printf("FAIL cannot start CUDA\n");
    return 1;
  }
  CUdevice Dev;
  cuDeviceGet(&Dev, 0);
  char Name[256] = {};
  cuDeviceGetName(Name, sizeof Name, Dev);
  std::printf("device: %s\n", Name);
  size_t Forms = 0, Cases = 0, BadForms = 0, KnownBad = 0, FixedKnown = 0, Skipped = 0;
  for (int A = First; A < Argc; ++A) {
    GoldenFile G;
    if (!parse(Argv[A], G)) {
      std::printf("FAIL cannot read %s\n", Argv[A]);
      return 1;
    }
    std::ofstream Rec;
    if (!OutDir.empty()) {
      std::string P = OutDir + "/" + G.Family + ".golden";
      Rec.open(P);
      std::ifstream Src(Argv[A]);
      std::string L;
      // Copy the file, with each "in" line given its outputs.
      size_t Ki = 0, Row = 0;
      std::vector<std::vector<uint64_t>> Got;
      std::string Why;
      bool InPtx = false;
      while (std::getline(Src, L)) {
        if (InPtx) {
          Rec << L << "\n";
          InPtx = L != "endptx";
          continue;
        }
        if (L.rfind("kernel ", 0) == 0) {
          const Kernel &K = G.Kernels[Ki++];
          Got.clear();
          Why = K.Isolate ? runIsolated(Argv[A], K, Got) : run(G.Header, K, Got);
          Row = 0;
          ++Forms;
          Cases += K.In.size();
          if (!Why.empty()) {
            std::printf("FAIL %s: %s\n", K.Name.c_str(), Why.c_str());
            ++BadForms;
          }
        }
        if (L == "ptx")
          InPtx = true;
        if (L.rfind("in", 0) == 0 && L.rfind("in", 0) == 0 && (L.size() == 2 || L[2] == ' ')) {
          std::string Base = L.substr(0, L.find("=>"));
          while (!Base.empty() && Base.back() == ' ')
            Base.pop_back();
          Rec << Base << " =>";
          if (Why.empty() && Row < Got.size())
            for (uint64_t V : Got[Row])
              Rec << " " << hex(V);
          else if (Why.rfind("run: ", 0) == 0)
            Rec << " error " << Why.substr(5); // the launch's result is the golden output
          else
            Rec << " error";
          Rec << "\n";
          ++Row;
          continue;
        }
        Rec << L << "\n";
      }
      continue;
    }
    FileModule FM = sassFileModule(G);
    for (const Kernel &K : G.Kernels) {
      ++Forms;
      Cases += K.In.size();
      std::vector<std::vector<uint64_t>> Got;
      std::string Why = K.Isolate ? runIsolated(Argv[A], K, Got) : run(G.Header, K, Got, &FM);
      if (Why.rfind("skip: ", 0) == 0) { // GOLDEN_SASS: not compiled or not lifted, never run wrong
        ++Skipped;
        if (std::getenv("GOLDEN_VERBOSE"))
          std::printf("skip %s: %s\n", K.Name.c_str(), Why.c_str() + 6);
        continue;
      }
      size_t Bad = 0;
      std::string First;
      if (!K.WantError.empty()) {
        if (Why != "run: " + K.WantError)
          Why = "want the launch to end with " + K.WantError + ", got " + (Why.empty() ? "CUDA_SUCCESS" : Why);
        else
          Why.clear();
      } else if (Why.empty()) {
        for (size_t R = 0; R < K.In.size(); ++R) {
          if (R >= K.Out.size() || K.Out[R].size() != K.Outs)
            continue; // NVIDIA could not run this row (recorded as an error)
          for (unsigned O = 0; O < K.Outs; ++O) {
            const std::string &T = O < K.Types.size() ? K.Types[O] : "b64";
            if (!close(K.Out[R][O], Got[R][O], T, K.Cmp)) {
              if (!Bad) {
                First = "row " + std::to_string(R) + " in";
                for (uint64_t V : K.In[R])
                  First += " " + hex(V);
                First += " out" + std::to_string(O) + " want " + hex(K.Out[R][O]) + " got " + hex(Got[R][O]);
              }
              ++Bad;
              break;
            }
          }
        }
      }
      bool IsKnown = Known.count(K.Name) != 0;
      if (!Why.empty() || Bad) {
        ++BadForms;
        KnownBad += IsKnown;
        std::printf("%s %s: %s\n", IsKnown ? "known" : "FAIL", K.Name.c_str(),
                    Why.empty() ? (std::to_string(Bad) + " of " + std::to_string(K.In.size()) + " rows differ; " + First).c_str()
                                : Why.c_str());
      } else if (IsKnown) {
        ++FixedKnown;
        std::printf("fixed %s (remove it from the known list)\n", K.Name.c_str());
      }
    }
    if (FM.M)
      cuModuleUnload(FM.M);
  }
  std::printf("golden: %zu forms, %zu cases; %zu forms differ (%zu known), %zu known forms now pass\n", Forms, Cases,
              BadForms, KnownBad, FixedKnown);
  if (const char *Arch = std::getenv("GOLDEN_SASS"); Arch && *Arch)
    std::printf("golden: sm_%s machine code: %zu forms run through the SASS front end and compared, %zu skipped "
                "(ptxas refuses them or the front end cannot lift them yet)\n",
                Arch, Forms - Skipped, Skipped);
  bool Pass = OutDir.empty() ? BadForms == KnownBad : true;
  std::printf("%s\n", Pass ? "golden: PASS" : "golden: FAIL");
  return Pass ? 0 : 1;
}
