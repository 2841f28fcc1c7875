//===- Link.cpp - linking several PTX modules into one ---------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "ptx/Link.h"

#include "ptx/Parser.h"
#include "ptx/Printer.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace zluda::ptx {

bool isBuiltinExtern(const std::string &Name) {
  // Never destroyed: a background compile may run while static destructors do.
  static const auto &Names = *new std::unordered_set<std::string>{
      // The CUDA ABI's system calls.
      "vprintf", "__assertfail", "malloc", "free",
      // The device runtime of -rdc programs (libcudadevrt's entry points):
      // dynamic parallelism (CDP2) and cooperative groups.
      "__cudaCDP2GetParameterBufferV2", "__cudaCDP2LaunchDeviceV2", "cudaGetParameterBufferV2",
      "cudaLaunchDeviceV2", "cudaGetParameterBuffer", "cudaLaunchDevice", "__cudaCDP2GetLastError",
      "__cudaCDP2PeekAtLastError", "cudaGetLastError", "cudaPeekAtLastError", "cudaCGGetIntrinsicHandle",
      "cudaCGSynchronize", "cudaCGSynchronizeGrid", "cudaCGGetSize", "cudaCGGetRank",
      "__cudaCDP2StreamCreateWithFlags", "cudaStreamCreateWithFlags", "__cudaCDP2StreamDestroy",
      "cudaStreamDestroy", "__cudaCDP2GetDevice", "cudaGetDevice",
      // Conditional graph nodes: the handle is the address of the condition.
      "cudaGraphSetConditional"};
  return Names.count(Name) != 0;
}

namespace {

bool isExported(Linkage L) { return L == Linkage::Visible || L == Linkage::Weak || L == Linkage::Common; }

/// Dynamic shared memory (.extern .shared x[]) is not a link symbol: every
/// declaration names the same block-local window.
bool isDynamicShared(const VarDecl &V) { return V.Space == StateSpace::Shared && V.Link == Linkage::Extern; }

/// Calls F on every module-scope name an operand, initializer or statement of
/// \p M may mention (F may rewrite it in place).
void forEachName(Module &M, const std::function<void(std::string &, const Function *)> &F) {
  std::function<void(Operand &, const Function *)> Op = [&](Operand &O, const Function *Fn) {
    if (O.Kind == Operand::OK_Name || O.Kind == Operand::OK_Address)
      if (!O.Name.empty())
        F(O.Name, Fn);
    for (Operand &E : O.Elems)
      Op(E, Fn);
  };
  std::function<void(Initializer &)> Init = [&](Initializer &I) {
    if (I.Kind == Initializer::IK_Symbol || I.Kind == Initializer::IK_Generic)
      F(I.Symbol, nullptr);
    for (Initializer &E : I.Elems)
      Init(E);
  };
  for (TopLevel &T : M.Items) {
    if (T.Kind == TopLevel::TK_Var && T.Var.Init)
      Init(*T.Var.Init);
    if (T.Kind == TopLevel::TK_Alias) {
      F(T.Name, nullptr);
      F(T.Text, nullptr);
    }
    if (T.Kind != TopLevel::TK_Function)
      continue;
    const Function *Fn = &T.Func;
    for (Statement &S : T.Func.Body) {
      if (S.Kind == Statement::SK_Instruction)
        for (Operand &O : S.Inst.Ops)
          Op(O, Fn);
      if (S.Kind == Statement::SK_Decl && S.Decl.Init)
        Init(*S.Decl.Init);
      if (S.Kind == Statement::SK_BranchTargets || S.Kind == Statement::SK_CallTargets)
        for (std::string &N : S.Targets)
          F(N, Fn);
    }
  }
}

/// Names a function declares itself (parameters, locals): they shadow module
/// names of the same spelling.
bool declaresLocally(const Function &Fn, const std::string &Name) {
  for (const VarDecl &V : Fn.Params)
    if (V.Name == Name)
      return true;
  for (const VarDecl &V : Fn.Returns)
    if (V.Name == Name)
      return true;
  for (const Statement &S : Fn.Body)
    if (S.Kind == Statement::SK_Decl && S.Decl.Name == Name)
      return true;
  return false;
}

struct Unit {
  const LinkInput *In = nullptr;
  Module M;
  bool Included = false;
  bool DeviceRuntime = false; ///< NVIDIA's libcudadevrt: ours replaces it
  std::map<std::string, Linkage> Exported; ///< exported definitions
  std::set<std::string> Internal;          ///< definitions without linkage
  std::set<std::string> Undefined;         ///< declared here, defined nowhere here
  std::set<std::string> Referenced;        ///< mentioned by code or initializers
  std::set<std::string> AllNames;          ///< every module-scope name
};

void summarize(Unit &U) {
  std::set<std::string> Declared, Defined;
  for (const TopLevel &T : U.M.Items) {
    if (T.Kind == TopLevel::TK_Var) {
      const VarDecl &V = T.Var;
      if (isDynamicShared(V))
        continue;
      U.AllNames.insert(V.Name);
      if (V.Link == Linkage::Extern) {
        Declared.insert(V.Name);
        continue;
      }
      Defined.insert(V.Name);
      if (isExported(V.Link))
        U.Exported[V.Name] = V.Link;
      else
        U.Internal.insert(V.Name);
    } else if (T.Kind == TopLevel::TK_Function) {
      const Function &F = T.Func;
      U.AllNames.insert(F.Name);
      if (!F.HasBody) {
        Declared.insert(F.Name);
        continue;
      }
      Defined.insert(F.Name);
      if (isExported(F.Link))
        U.Exported[F.Name] = F.Link;
      else
        U.Internal.insert(F.Name);
    }
  }
  for (const std::string &N : Declared)
    if (!Defined.count(N))
      U.Undefined.insert(N);
  forEachName(U.M, [&](std::string &N, const Function *) { U.Referenced.insert(N); });
}

/// The number of an sm_NN target (sm_90a -> 90), 0 for other targets.
unsigned smNumber(const std::string &T) {
  if (T.rfind("sm_", 0) != 0)
    return 0;
  return static_cast<unsigned>(std::strtoul(T.c_str() + 3, nullptr, 10));
}

/// .loc's file index (its first number, and the one after inlined_at) moves by \p Base.
std::string shiftLoc(const std::string &Text, uint32_t Base) {
  auto shiftAt = [&](std::string S, size_t Pos) {
    while (Pos < S.size() && S[Pos] == ' ')
      ++Pos;
    size_t End = Pos;
    while (End < S.size() && std::isdigit(static_cast<unsigned char>(S[End])))
      ++End;
    if (End == Pos)
      return S;
    uint64_t V = std::strtoull(S.c_str() + Pos, nullptr, 10) + Base;
    return S.substr(0, Pos) + std::to_string(V) + S.substr(End);
  };
  std::string S = shiftAt(Text, 0);
  size_t I = S.find("inlined_at");
  if (I != std::string::npos)
    S = shiftAt(S, I + 10);
  return S;
}

} // namespace

LinkResult link(const std::vector<LinkInput> &Inputs, const LinkOptions &Opts) {
  LinkResult R;
  if (Inputs.empty()) {
    R.Error = "nothing to link: no input was added";
    return R;
  }
  std::vector<Unit> Units(Inputs.size());
  for (size_t I = 0; I < Inputs.size(); ++I) {
    Units[I].In = &Inputs[I];
    ParseResult P = parse(Inputs[I].Ptx);
    if (!P.ok()) {
      R.Error = P.Error.format(Inputs[I].Name);
      return R;
    }
    Units[I].M = std::move(*P.Mod);
    summarize(Units[I]);
    // An input that defines the device runtime's entry points is NVIDIA's
    // libcudadevrt (its PTX calls the driver's private system calls): the
    // compiler provides those entry points itself, so it is never linked.
    for (const auto &[N, L] : Units[I].Exported)
      Units[I].DeviceRuntime |= isBuiltinExtern(N);
    Units[I].Included = !Inputs[I].Lazy && !Units[I].DeviceRuntime;
  }

  // Archive members join while they define something still undefined.
  auto definedNames = [&] {
    std::set<std::string> D;
    for (const Unit &U : Units)
      if (U.Included)
        for (const auto &[N, L] : U.Exported)
          D.insert(N);
    return D;
  };
  auto undefinedNames = [&](const std::set<std::string> &Defined) {
    std::map<std::string, const Unit *> Und;
    for (const Unit &U : Units)
      if (U.Included)
        for (const std::string &N : U.Undefined)
          if (U.Referenced.count(N) && !Defined.count(N) && !isBuiltinExtern(N) && !Und.count(N))
            Und[N] = &U;
    return Und;
  };
  for (bool Changed = true; Changed;) {
    Changed = false;
    std::map<std::string, const Unit *> Und = undefinedNames(definedNames());
    for (Unit &U : Units) {
      if (U.Included)
        continue;
      for (const auto &[N, L] : U.Exported)
        if (Und.count(N)) {
          if (U.DeviceRuntime) {
            R.Error = "'" + N + "' (referenced in " + Und[N]->In->Name +
                      ") is part of CUDA's device runtime, which ZLUDA implements only in part "
                      "(dynamic parallelism launches, cooperative-groups synchronization, error and device queries)";
            return R;
          }
          U.Included = Changed = true;
          R.Info += "linked " + U.In->Name + " for '" + N + "'\n";
          break;
        }
    }
  }

  // One winner per exported name; two strong definitions are an error.
  std::map<std::string, size_t> Winner;
  for (size_t I = 0; I < Units.size(); ++I) {
    if (!Units[I].Included)
      continue;
    for (const auto &[N, L] : Units[I].Exported) {
      auto It = Winner.find(N);
      if (It == Winner.end()) {
        Winner[N] = I;
        continue;
      }
      Linkage Prev = Units[It->second].Exported.at(N);
      if (Prev == Linkage::Visible && L == Linkage::Visible) {
        R.Error = "duplicate symbol '" + N + "': defined in " + Units[It->second].In->Name + " and in " +
                  Inputs[I].Name;
        return R;
      }
      if (Prev != Linkage::Visible && L == Linkage::Visible)
        It->second = I;
    }
  }
  {
    std::map<std::string, const Unit *> Und = undefinedNames(definedNames());
    if (!Und.empty()) {
      auto It = Und.begin();
      R.Error = "undefined symbol '" + It->first + "' (referenced in " + It->second->In->Name + ")";
      if (Und.size() > 1)
        R.Error += " and " + std::to_string(Und.size() - 1) + " more undefined symbol(s)";
      return R;
    }
  }

  std::vector<Unit *> Included;
  for (Unit &U : Units)
    if (U.Included)
      Included.push_back(&U);
  for (Unit *U : Included)
    R.Info += "input " + U->In->Name + ": " + std::to_string(U->Exported.size()) + " global symbol(s)\n";
  // One module: its text is the image (what the compile cache would see had
  // it been loaded directly).
  if (Included.size() == 1 && !Opts.MaxRegisters) {
    R.Ptx = Included[0]->In->Ptx;
    return R;
  }

  // Address sizes must agree; version and target are the newest.
  Module Out;
  Out.AddressSize = Included[0]->M.AddressSize;
  Out.HasAddressSize = Included[0]->M.HasAddressSize;
  std::string Sm;
  std::set<std::string> OtherTargets;
  for (Unit *U : Included) {
    if (U->M.AddressSize != Out.AddressSize) {
      R.Error = "cannot link " + U->In->Name + " (.address_size " + std::to_string(U->M.AddressSize) + ") with " +
                Included[0]->In->Name + " (.address_size " + std::to_string(Out.AddressSize) + ")";
      return R;
    }
    if (std::make_pair(U->M.VersionMajor, U->M.VersionMinor) > std::make_pair(Out.VersionMajor, Out.VersionMinor)) {
      Out.VersionMajor = U->M.VersionMajor;
      Out.VersionMinor = U->M.VersionMinor;
    }
    for (const std::string &T : U->M.Targets) {
      if (smNumber(T)) {
        if (Sm.empty() || smNumber(T) > smNumber(Sm))
          Sm = T;
      } else {
        OtherTargets.insert(T);
      }
    }
  }
  if (!Sm.empty())
    Out.Targets.push_back(Sm);
  Out.Targets.insert(Out.Targets.end(), OtherTargets.begin(), OtherTargets.end());

  // Private names another input also uses are renamed in their own input.
  std::map<std::string, int> GlobalUse;
  for (Unit *U : Included)
    for (const std::string &N : U->AllNames)
      ++GlobalUse[N];
  std::set<std::string> FirstSeen;
  uint32_t FileBase = 0;
  std::set<std::string> Emitted; // declarations and dynamic shared windows emitted once
  for (size_t UI = 0; UI < Included.size(); ++UI) {
    Unit &U = *Included[UI];
    size_t Index = static_cast<size_t>(&U - Units.data());
    std::map<std::string, std::string> Rename;
    for (const std::string &N : U.Internal)
      if (GlobalUse[N] > 1 && (Winner.count(N) || FirstSeen.count(N)))
        Rename[N] = N + "$zl" + std::to_string(Index);
    for (const std::string &N : U.Internal)
      FirstSeen.insert(N);
    for (const auto &[N, L] : U.Exported)
      FirstSeen.insert(N);
    if (!Rename.empty())
      forEachName(U.M, [&](std::string &N, const Function *Fn) {
        auto It = Rename.find(N);
        if (It != Rename.end() && !(Fn && declaresLocally(*Fn, N)))
          N = It->second;
      });
    uint32_t MaxFile = 0;
    for (TopLevel &T : U.M.Items) {
      switch (T.Kind) {
      case TopLevel::TK_Section:
        continue; // debug sections: their labels would collide between inputs
      case TopLevel::TK_File:
        MaxFile = std::max(MaxFile, T.FileIndex);
        T.FileIndex += FileBase;
        break;
      case TopLevel::TK_Var: {
        VarDecl &V = T.Var;
        if (auto It = Rename.find(V.Name); It != Rename.end())
          V.Name = It->second;
        if (isDynamicShared(V) || V.Link == Linkage::Extern) {
          if (Winner.count(V.Name) || !Emitted.insert(V.Name).second)
            continue;
        } else if (isExported(V.Link) && Winner.at(V.Name) != Index) {
          continue; // a weak or common definition that yields
        }
        break;
      }
      case TopLevel::TK_Function: {
        Function &F = T.Func;
        bool DefinedHere = U.Internal.count(F.Name) != 0;
        if (auto It = Rename.find(F.Name); It != Rename.end())
          F.Name = It->second;
        if (!F.HasBody) {
          if (DefinedHere || Winner.count(F.Name) || !Emitted.insert(F.Name).second)
            continue; // the definition declares it
          if (!U.Referenced.count(F.Name) && !isBuiltinExtern(F.Name)) {
            Emitted.erase(F.Name);
            continue; // an unused declaration of nothing
          }
        } else if (isExported(F.Link) && Winner.at(F.Name) != Index) {
          continue;
        }
        if (FileBase)
          for (Statement &S : F.Body)
            if (S.Kind == Statement::SK_Loc)
              S.Text = shiftLoc(S.Text, FileBase);
        break;
      }
      default:
        break;
      }
      Out.Items.push_back(std::move(T));
    }
    FileBase += MaxFile;
  }
  if (Opts.MaxRegisters)
    for (TopLevel &T : Out.Items) {
      if (T.Kind != TopLevel::TK_Function || !T.Func.IsEntry)
        continue;
      auto It = std::find_if(T.Func.Perf.begin(), T.Func.Perf.end(),
                             [](const PerfDirective &P) { return P.Name == ".maxnreg"; });
      if (It == T.Func.Perf.end())
        T.Func.Perf.push_back({".maxnreg", {Opts.MaxRegisters}});
      else if (It->Values.empty() || It->Values[0] > Opts.MaxRegisters)
        It->Values = {Opts.MaxRegisters};
    }
  R.Ptx = print(Out);
  return R;
}

} // namespace zluda::ptx
