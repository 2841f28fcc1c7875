//===- Cubin.h - NVIDIA cubins (ELF) as nvcc, ptxas and NVRTC write them ---===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Reads a cubin: its architecture, the kernels and device functions
/// (.text.<name>), each kernel's .nv.info attributes (parameters: ordinal,
/// offset and size in constant bank 0; the parameter bank's window; register
/// count; exit offsets; REQNTID/MAXNTID), the constant banks, shared and local
/// sizes. Every offset is checked against the file's size: malformed input
/// gives an error naming what is wrong, never a crash. The attribute codes are
/// those seen in ptxas's output (tests/sass).
#ifndef ZLUDA_SASS_CUBIN_H
#define ZLUDA_SASS_CUBIN_H

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace zluda::sass {

/// .nv.info attribute codes (EIATTR_*), as observed.
enum NvInfoAttr : uint8_t {
  AttrParamCbank = 0x0a,     ///< u32 symbol, u16 offset in bank 0, u16 size
  AttrFrameSize = 0x11,      ///< u32 function symbol, u32 bytes of local memory
  AttrMinStackSize = 0x12,   ///< u32 function symbol, u32 bytes
  AttrKparamInfo = 0x17,     ///< u32 index, u16 ordinal, u16 offset, u32 flags (size << 18)
  AttrCbankParamSize = 0x19, ///< u16 bytes of parameters
  AttrMaxRegCount = 0x1b,
  AttrExitInstrOffsets = 0x1c,
  AttrReqntid = 0x10, ///< u32 x, y, z
  AttrMaxntid = 0x05,        ///< u32 x, y, z
  AttrRegCount = 0x2f, ///< u32 function symbol, u32 registers
  AttrCudaApiVersion = 0x37,
};

struct Param {
  uint32_t Ordinal = 0;
  uint32_t Offset = 0; ///< from the start of the parameter window
  uint32_t Size = 0;
};

struct Function {
  std::string Name;
  bool Entry = false;        ///< a kernel (STO_CUDA_ENTRY), else a device function
  uint64_t TextOffset = 0;   ///< the code's offset in the file
  /// Where the functions of its section start (its own 0, and the device functions ptxas placed in it: what a
  /// function pointer may hold), sorted.
  std::vector<uint32_t> Entries;
  std::string Code;          ///< .text.<name>
  std::vector<Param> Params; ///< by ordinal
  uint32_t ParamBase = 0;    ///< where bank 0 holds the parameters (0x160 before Hopper, 0x210 on sm_90)
  uint32_t ParamBytes = 0;
  uint32_t Registers = 0;
  uint32_t FrameSize = 0;    ///< local memory a thread needs (bytes)
  uint32_t SharedBytes = 0;  ///< static shared memory (.nv.shared.<name>)
  uint32_t ReqNtid[3] = {0, 0, 0};
  uint32_t MaxNtid[3] = {0, 0, 0};
  std::vector<uint32_t> ExitOffsets;
  std::string Bank0; ///< .nv.constant0.<name>: the bank's initial image (parameters zero)
};

/// A named object or an external function (vprintf, __assertfail, malloc,
/// free) of the cubin's symbol table.
struct DataSymbol {
  std::string Name;
  std::string Section; ///< where it lies (".nv.global.init", ".nv.constant3"...); empty when undefined
  uint64_t Value = 0, Size = 0;
  bool Function = false;
};

/// R_CUDA_64 and R_CUDA_G64: a variable's 64-bit address (absolute, generic)
/// written into a constant bank or data; both a generic address here.
constexpr uint32_t RelocAbs64 = 2, RelocGeneric64 = 4;

/// One relocation of a data section (bank 4's variable addresses, ...).
struct Reloc {
  uint64_t Offset = 0; ///< in the section it patches
  uint32_t Type = 0;
  int64_t Addend = 0;
  DataSymbol Target;
};

struct Cubin {
  uint32_t Sm = 0; ///< 75, 80, 86, 89, 90 ...
  bool ArchSpecific = false; ///< sm_90a
  std::vector<Function> Functions;
  /// Other constant banks and data: ".nv.constant3" -> bytes, ".nv.global.init" ...
  std::map<std::string, std::string> Sections;
  /// Named objects and external functions (not sections, not kernels).
  std::vector<DataSymbol> Symbols;
  /// Relocations by the section they patch (".nv.constant4" -> ...).
  std::map<std::string, std::vector<Reloc>> Relocs;
  const Function *find(std::string_view Name) const;
};

/// True when \p Data starts like a cubin (an ELF file for NVIDIA's CUDA
/// machine).
bool isCubin(std::string_view Data);

/// Parses \p Data. False with \p Error naming the problem (and the offset).
bool parseCubin(std::string_view Data, Cubin &Out, std::string &Error);

} // namespace zluda::sass

#endif // ZLUDA_SASS_CUBIN_H
