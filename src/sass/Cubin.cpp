//===- Cubin.cpp - NVIDIA cubins (ELF) -------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "sass/Cubin.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace zluda::sass {

namespace {

constexpr uint16_t EmCuda = 190;     // e_machine of NVIDIA's CUDA ELF files
constexpr uint8_t StoCudaEntry = 0x10; // st_other of a kernel's symbol
constexpr uint32_t ShtSymtab = 2, ShtNobits = 8, ShtNvInfo = 0x70000000;

template <typename T> bool read(std::string_view D, uint64_t Off, T &Out) {
  if (Off > D.size() || D.size() - Off < sizeof(T))
    return false;
  std::memcpy(&Out, D.data() + Off, sizeof(T));
  return true;
}

struct Section {
  std::string Name;
  uint32_t Type = 0, Link = 0, Info = 0;
  uint64_t Flags = 0, Offset = 0, Size = 0, EntSize = 0;
};

struct Symbol {
  std::string Name;
  uint8_t Info = 0, Other = 0;
  uint16_t Shndx = 0;
  uint64_t Value = 0, Size = 0;
};

std::string cstr(std::string_view D, uint64_t Off) {
  if (Off >= D.size())
    return {};
  size_t E = D.find('\0', Off);
  return std::string(D.substr(Off, (E == std::string_view::npos ? D.size() : E) - Off));
}

std::string hex(uint64_t V) {
  char B[24];
  std::snprintf(B, sizeof B, "0x%llx", static_cast<unsigned long long>(V));
  return B;
}

/// One .nv.info section's attributes, calling \p Fn(attr, payload).
template <typename F> bool forEachAttr(std::string_view B, F &&Fn, std::string &Error) {
  size_t P = 0;
  while (P < B.size()) {
    if (B.size() - P < 2)
      return Error = "truncated .nv.info attribute at " + hex(P), false;
    uint8_t Fmt = static_cast<uint8_t>(B[P]), Attr = static_cast<uint8_t>(B[P + 1]);
    if (Fmt == 4) { // size-prefixed value
      uint16_t Sz;
      if (!read(B, P + 2, Sz) || B.size() - P - 4 < Sz)
        return Error = "truncated .nv.info attribute " + hex(Attr) + " at " + hex(P), false;
      Fn(Attr, B.substr(P + 4, Sz));
      P += 4 + Sz;
    } else if (Fmt == 1 || Fmt == 2 || Fmt == 3) { // no value, byte, 16-bit value
      if (B.size() - P < 4)
        return Error = "truncated .nv.info attribute " + hex(Attr) + " at " + hex(P), false;
      Fn(Attr, B.substr(P + 2, 2));
      P += 4;
    } else {
      return Error = "unknown .nv.info attribute format " + std::to_string(Fmt) + " at " + hex(P), false;
    }
  }
  return true;
}

uint32_t u32At(std::string_view V, size_t Off) {
  uint32_t X = 0;
  read(V, Off, X);
  return X;
}
uint16_t u16At(std::string_view V, size_t Off) {
  uint16_t X = 0;
  read(V, Off, X);
  return X;
}

} // namespace

const Function *Cubin::find(std::string_view Name) const {
  for (const Function &F : Functions)
    if (F.Name == Name)
      return &F;
  return nullptr;
}

bool isCubin(std::string_view D) {
  uint16_t Machine = 0;
  return D.size() >= 64 && std::memcmp(D.data(), "\x7f" "ELF", 4) == 0 && read(D, 18, Machine) && Machine == EmCuda;
}

bool parseCubin(std::string_view D, Cubin &Out, std::string &Error) {
  Out = Cubin();
  if (!isCubin(D))
    return Error = "not a cubin (an ELF file for NVIDIA's CUDA machine)", false;
  if (D[4] != 2 || D[5] != 1)
    return Error = "cubin: only 64-bit little-endian ELF files are read", false;
  uint32_t Flags = 0;
  uint64_t ShOff = 0;
  uint16_t ShEntSize = 0, ShNum = 0, ShStrNdx = 0;
  if (!read(D, 0x30, Flags) || !read(D, 0x28, ShOff) || !read(D, 0x3a, ShEntSize) || !read(D, 0x3c, ShNum) ||
      !read(D, 0x3e, ShStrNdx))
    return Error = "cubin: truncated ELF header", false;
  Out.Sm = (Flags >> 8) & 0xff;
  if (ShEntSize < 64 || ShNum == 0 || ShStrNdx >= ShNum || ShOff > D.size() ||
      (D.size() - ShOff) / ShEntSize < ShNum)
    return Error = "cubin: section headers outside the file (offset " + hex(ShOff) + ")", false;
  std::vector<Section> Secs(ShNum);
  for (uint16_t I = 0; I < ShNum; ++I) {
    uint64_t H = ShOff + uint64_t(I) * ShEntSize;
    uint32_t NameOff = 0;
    Section &S = Secs[I];
    read(D, H, NameOff);
    read(D, H + 4, S.Type);
    read(D, H + 8, S.Flags);
    read(D, H + 24, S.Offset);
    read(D, H + 32, S.Size);
    read(D, H + 40, S.Link);
    read(D, H + 44, S.Info);
    read(D, H + 56, S.EntSize);
    if (S.Type != ShtNobits && (S.Offset > D.size() || D.size() - S.Offset < S.Size))
      return Error = "cubin: section " + std::to_string(I) + " lies outside the file", false;
    if (S.Type == ShtNobits && S.Size > (uint64_t(1) << 30))
      return Error = "cubin: section " + std::to_string(I) + " claims " + std::to_string(S.Size) + " bytes", false;
    S.Name = std::to_string(NameOff); // resolved below
  }
  const Section &ShStr = Secs[ShStrNdx];
  for (Section &S : Secs)
    S.Name = cstr(D.substr(0, ShStr.Offset + ShStr.Size), ShStr.Offset + std::stoul(S.Name));
  auto bytes = [&](const Section &S) { return S.Type == ShtNobits ? std::string_view() : D.substr(S.Offset, S.Size); };

  // Symbols: kernels and device functions are STT_FUNC in their .text section.
  std::vector<Symbol> Syms;
  for (const Section &S : Secs) {
    if (S.Type != ShtSymtab)
      continue;
    if (S.Link >= Secs.size() || S.EntSize < 24)
      return Error = "cubin: malformed symbol table", false;
    const Section &Str = Secs[S.Link];
    for (uint64_t P = 0; P + 24 <= S.Size; P += S.EntSize) {
      Symbol Y;
      uint32_t NameOff = 0;
      read(D, S.Offset + P, NameOff);
      read(D, S.Offset + P + 4, Y.Info);
      read(D, S.Offset + P + 5, Y.Other);
      read(D, S.Offset + P + 6, Y.Shndx);
      read(D, S.Offset + P + 8, Y.Value);
      read(D, S.Offset + P + 16, Y.Size);
      Y.Name = NameOff < Str.Size ? cstr(D.substr(0, Str.Offset + Str.Size), Str.Offset + NameOff) : std::string();
      Syms.push_back(std::move(Y));
    }
  }
  std::map<uint32_t, size_t> FnBySym; // symbol index -> function
  for (size_t I = 0; I < Syms.size(); ++I) {
    const Symbol &Y = Syms[I];
    if ((Y.Info & 0xf) != 2 /* STT_FUNC */ || Y.Shndx == 0 || Y.Shndx >= Secs.size())
      continue;
    const Section &T = Secs[Y.Shndx];
    if (T.Name != ".text." + Y.Name)
      continue;
    Function F;
    F.Name = Y.Name;
    F.Entry = (Y.Other & StoCudaEntry) != 0;
    F.TextOffset = T.Offset;
    F.Code = std::string(bytes(T));
    if (F.Code.size() % 16)
      return Error = "cubin: .text." + F.Name + " is not a whole number of 128-bit instructions", false;
    FnBySym[static_cast<uint32_t>(I)] = Out.Functions.size();
    Out.Functions.push_back(std::move(F));
  }
  auto byName = [&](std::string_view N) -> Function * {
    for (Function &F : Out.Functions)
      if (F.Name == N)
        return &F;
    return nullptr;
  };
  // Every function symbol inside a kernel's section (ptxas's local $kernel$function symbols) is an entry a
  // function pointer of that kernel may reach.
  for (const Symbol &Y : Syms) {
    if ((Y.Info & 0xf) != 2 /* STT_FUNC */ || Y.Shndx == 0 || Y.Shndx >= Secs.size())
      continue;
    const std::string &Sec = Secs[Y.Shndx].Name;
    if (Sec.rfind(".text.", 0) != 0)
      continue;
    if (Function *F = byName(std::string_view(Sec).substr(6)); F && Y.Value < F->Code.size() && Y.Value % 16 == 0)
      F->Entries.push_back(static_cast<uint32_t>(Y.Value));
  }
  for (Function &F : Out.Functions) {
    std::sort(F.Entries.begin(), F.Entries.end());
    F.Entries.erase(std::unique(F.Entries.begin(), F.Entries.end()), F.Entries.end());
  }
  auto bySym = [&](uint32_t Sym) -> Function * {
    auto It = FnBySym.find(Sym);
    return It == FnBySym.end() ? nullptr : &Out.Functions[It->second];
  };
  // Named objects (__device__ and __constant__ variables, string literals)
  // and the external functions the driver provides.
  auto dataSymbol = [&](const Symbol &Y) {
    DataSymbol X;
    X.Name = Y.Name;
    X.Value = Y.Value;
    X.Size = Y.Size;
    X.Function = (Y.Info & 0xf) == 2;
    if (Y.Shndx != 0 && Y.Shndx < Secs.size())
      X.Section = Secs[Y.Shndx].Name;
    return X;
  };
  for (const Symbol &Y : Syms)
    if (((Y.Info & 0xf) == 1 /* STT_OBJECT */ && Y.Shndx != 0) || ((Y.Info & 0xf) == 2 && Y.Shndx == 0 && !Y.Name.empty()))
      Out.Symbols.push_back(dataSymbol(Y));
  for (const Section &S : Secs) {
    bool Rela = S.Type == 4; // SHT_RELA; SHT_REL is 9
    if ((S.Type != 9 && !Rela) || S.Info >= Secs.size())
      continue;
    const Section &Patched = Secs[S.Info];
    if (Patched.Name.rfind(".text.", 0) == 0 || Patched.Name.rfind(".nv.", 0) == 0) {
      std::vector<Reloc> &List = Out.Relocs[Patched.Name];
      uint64_t Ent = Rela ? 24 : 16;
      for (uint64_t P = 0; P + Ent <= S.Size; P += Ent) {
        Reloc R;
        uint64_t Info = 0;
        read(D, S.Offset + P, R.Offset);
        read(D, S.Offset + P + 8, Info);
        if (Rela)
          read(D, S.Offset + P + 16, R.Addend);
        R.Type = static_cast<uint32_t>(Info);
        uint64_t Sym = Info >> 32;
        if (Sym >= Syms.size())
          return Error = "cubin: relocation " + std::to_string(P / Ent) + " of " + S.Name + " names symbol " +
                         std::to_string(Sym) + " of " + std::to_string(Syms.size()), false;
        R.Target = dataSymbol(Syms[Sym]);
        // SHT_REL's addend is what the patched place holds.
        if (!Rela && (R.Type == RelocAbs64 || R.Type == RelocGeneric64) && Patched.Type != ShtNobits && R.Offset + 8 <= Patched.Size)
          read(D, Patched.Offset + R.Offset, R.Addend);
        List.push_back(std::move(R));
      }
    }
  }
  for (const Section &S : Secs) {
    std::string_view B = bytes(S);
    if (S.Type == ShtNvInfo && S.Name == ".nv.info") {
      bool Ok = forEachAttr(B, [&](uint8_t A, std::string_view V) {
        Function *F = V.size() >= 8 ? bySym(u32At(V, 0)) : nullptr;
        if (!F)
          return;
        if (A == AttrRegCount)
          F->Registers = u32At(V, 4);
        else if (A == AttrFrameSize)
          F->FrameSize = u32At(V, 4);
      }, Error);
      if (!Ok)
        return Error = "cubin: .nv.info: " + Error, false;
    } else if (S.Type == ShtNvInfo && S.Name.rfind(".nv.info.", 0) == 0) {
      Function *F = byName(std::string_view(S.Name).substr(9));
      if (!F)
        continue;
      bool Ok = forEachAttr(B, [&](uint8_t A, std::string_view V) {
        switch (A) {
        case AttrKparamInfo:
          if (V.size() >= 12)
            F->Params.push_back({u16At(V, 4), u16At(V, 6), u32At(V, 8) >> 18});
          break;
        case AttrParamCbank:
          if (V.size() >= 8) {
            F->ParamBase = u16At(V, 4);
            F->ParamBytes = u16At(V, 6);
          }
          break;
        case AttrCbankParamSize:
          F->ParamBytes = u16At(V, 0);
          break;
        case AttrExitInstrOffsets:
          for (size_t P = 0; P + 4 <= V.size(); P += 4)
            F->ExitOffsets.push_back(u32At(V, P));
          break;
        case AttrReqntid:
        case AttrMaxntid:
          for (int K = 0; K < 3 && size_t(K) * 4 + 4 <= V.size(); ++K)
            (A == AttrReqntid ? F->ReqNtid : F->MaxNtid)[K] = u32At(V, K * 4);
          break;
        default:
          break;
        }
      }, Error);
      if (!Ok)
        return Error = "cubin: " + S.Name + ": " + Error, false;
    } else if (S.Name.rfind(".nv.constant0.", 0) == 0) {
      if (Function *F = byName(std::string_view(S.Name).substr(14)))
        F->Bank0 = std::string(B);
    } else if (S.Name.rfind(".nv.shared.", 0) == 0) {
      if (Function *F = byName(std::string_view(S.Name).substr(11)))
        F->SharedBytes = static_cast<uint32_t>(S.Size);
      else
        Out.Sections[S.Name] = std::string(S.Size, '\0');
    } else if (S.Name.rfind(".nv.constant", 0) == 0 || S.Name.rfind(".nv.global", 0) == 0 ||
               S.Name.rfind(".rel.nv.", 0) == 0 || S.Name.rfind(".rela.nv.", 0) == 0) {
      Out.Sections[S.Name] = S.Type == ShtNobits ? std::string(S.Size, '\0') : std::string(B);
    }
  }
  for (Function &F : Out.Functions) {
    std::sort(F.Params.begin(), F.Params.end(), [](const Param &A, const Param &B) { return A.Ordinal < B.Ordinal; });
    for (const Param &P : F.Params)
      if (uint64_t(P.Offset) + P.Size > F.ParamBytes)
        return Error = "cubin: " + F.Name + ": parameter " + std::to_string(P.Ordinal) +
                       " lies outside the parameter bank", false;
  }
  return true;
}

} // namespace zluda::sass
