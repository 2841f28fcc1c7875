//===- LowerImpl.h - internals of the PTX -> LLVM lowering -----------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Shared by LowerToLLVM.cpp (structure) and LowerInstructions.cpp with its Lower*.cpp family files
/// (instruction semantics). Not a public header.
#ifndef ZLUDA_PTX_CODEGEN_LOWERIMPL_H
#define ZLUDA_PTX_CODEGEN_LOWERIMPL_H

#include "ptx/Printer.h"
#include "ptx/codegen/Lowering.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include <array>
#include <cstring>
#include <set>
#include <string>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace zluda::ptx {

/// Thrown inside the lowering, caught at function or module level.
struct LowerFail {
  uint32_t Line;
  std::string Message;
  /// Not valid PTX (an undeclared name...): the module is refused at load,
  /// as NVIDIA's driver refuses it. Otherwise valid PTX we cannot compile
  /// yet: only that function traps, and launching it says why.
  bool Invalid = false;
  uint32_t Col = 0;
};

enum class RtFn : unsigned {
#define PTX_RT(Name, Ret, ...) Name,
#include "ptx/codegen/DeviceRuntime.def"
  NumRt
};

/// What a PTX name refers to inside a function.
struct Sym {
  enum KindT { SK_Reg, SK_Mem, SK_Shared, SK_Func } Kind = SK_Reg;
  llvm::Value *Ptr = nullptr; ///< SK_Reg: alloca; SK_Mem: storage pointer
  llvm::Type *Ty = nullptr;   ///< SK_Reg: storage type
  ScalarType PT = ScalarType::B32;
  StateSpace Space = StateSpace::Reg;
  uint64_t Offset = 0;        ///< SK_Shared: offset in the shared window
  bool Dynamic = false;       ///< SK_Shared: extern .shared array (offset known at run time)
  llvm::Function *F = nullptr;
  const VarDecl *Decl = nullptr;
};

bool isSignedType(ScalarType T);
bool isFloatType(ScalarType T);
/// The float types arithmetic, comparisons and atomics take (.f16, .bf16,
/// their pairs, .f32, .f64); .tf32 and the 8/6/4-bit formats are only
/// conversion and matrix types.
bool isArithmeticFloat(ScalarType T);

class LowerCtx {
public:
  LowerCtx(const Module &PM, llvm::LLVMContext &C, llvm::Module &M, LoweredModule &Info)
      : PM(PM), C(C), M(M), Info(Info) {}
  void run();
  bool Memcheck = false; ///< LoweringOptions::Memcheck
  bool LanesApart = false; ///< LoweringOptions::LanesApart

  const Module &PM;
  llvm::LLVMContext &C;
  llvm::Module &M;
  LoweredModule &Info;

  std::unordered_map<std::string, llvm::GlobalVariable *> GlobalVars;
  std::unordered_map<std::string, llvm::Function *> Funcs;
  std::unordered_map<std::string, const Function *> FuncDecls, FuncDefs;
  std::unordered_map<const VarDecl *, uint64_t> SharedOffsets;
  std::unordered_map<std::string, uint64_t> KernelShared; ///< static shared bytes per function
  std::vector<const VarDecl *> DynamicShared;
  std::unordered_map<std::string, const VarDecl *> ModuleShared; ///< module-scope .shared by name
  std::unordered_set<std::string> Switching;
  std::array<llvm::FunctionCallee, static_cast<size_t>(RtFn::NumRt)> RtCache{};

  llvm::FunctionCallee rt(RtFn Fn);
  llvm::Type *storageType(ScalarType T);
  llvm::Type *declType(const VarDecl &V);
  uint64_t declSize(const VarDecl &V);
  uint64_t declAlign(const VarDecl &V);
  llvm::Constant *initializer(const Initializer &In, llvm::Type *Ty, ScalarType ElemPT);
  bool needsSwitching(const std::string &Fn) const { return Switching.count(Fn) != 0; }
  static bool isBuiltinExtern(const std::string &Name);
  /// A kernel's address as device code sees it: a constant holding its name.
  llvm::Constant *kernelRef(llvm::StringRef Name);

private:
  void collectShared();
  void declareGlobals();
  void declareFunctions();
  void analyzeSync();
  void defineBuiltin(llvm::Function *F, const std::string &Name);
  void lowerFunction(const Function &PF);
};

class FnLowering {
public:
  FnLowering(LowerCtx &L, const Function &PF, llvm::Function *F, KernelInfo &KI);
  void run();
  uint32_t currentLine() const { return CurLine; }
  uint32_t currentCol() const { return CurCol; }

private:
  LowerCtx &L;
  llvm::LLVMContext &C;
  const Function &PF;
  llvm::Function *F;
  KernelInfo &KI;
  llvm::IRBuilder<> B;
  llvm::IRBuilder<> AllocaB;
  llvm::Value *Ctx = nullptr;
  std::vector<std::unordered_map<std::string, Sym>> Scopes;
  std::vector<std::vector<const VarDecl *>> Ranges; ///< parallel to Scopes
  std::unordered_map<std::string, Sym> GlobalSyms;
  std::unordered_map<std::string, llvm::BasicBlock *> Labels;
  std::unordered_map<std::string, const Statement *> Prototypes;
  std::unordered_map<std::string, const std::vector<std::string> *> BranchTargets;
  std::vector<std::pair<llvm::Value *, Sym *>> RegReturns;
  llvm::Value *SharedBaseCache = nullptr;
  llvm::BasicBlock *SharedBaseBlock = nullptr;
  llvm::AllocaInst *CarryFlag = nullptr;
  /// Stack temporaries that carry one instruction's operands to a runtime
  /// call: one per (type, slot) in the function, shared by every instruction
  /// (an unrolled tensor-core loop has thousands of such calls; an alloca
  /// each overflowed a CPU-device fiber's stack).
  std::map<std::pair<llvm::Type *, unsigned>, llvm::AllocaInst *> Scratch;
  llvm::AllocaInst *scratch(llvm::Type *T, unsigned Slot = 0);
  uint32_t CurLine = 0, CurCol = 0;
  /// LanesApart: a shared store since the lanes last met in this stretch.
  bool SharedStored = false;
  void meetLanesForShared(const Instruction &In);

  [[noreturn]] void fail(const std::string &Msg);
  /// Not valid PTX: the whole module is refused (LowerFail::Invalid).
  [[noreturn]] void invalid(const std::string &Msg);
  Operand vectorElems(const Operand &O, unsigned N);
  void lowerMmaGeneric(const Instruction &In);
  void bindFuncParam(const VarDecl &P, llvm::Value *Arg, bool IsReturn);
  void declare(const VarDecl &V);
  Sym makeReg(const VarDecl &V, const std::string &Name);
  Sym *lookup(const std::string &Name);
  void emitReturn();
  void lowerGuarded(const Instruction &Written);
  std::optional<Instruction> expandVectorRegisters(const Instruction &In);
  bool HasVectorRegs = false; ///< a .v2/.v4 register is declared (expandVectorRegisters has work)
  llvm::Value *predValue(const std::string &Name);
  llvm::BasicBlock *label(const std::string &Name);

  // Operands.
  llvm::Type *valueType(ScalarType T);
  llvm::Value *convertBits(llvm::Value *V, llvm::Type *To, bool Signed);
  llvm::Value *specialRegister(const Operand &O, llvm::Type *Want);
  llvm::Value *componentPtr(const Operand &O, const Sym &S);
  llvm::Value *get(const Operand &O, ScalarType T);
  void set(const Operand &O, ScalarType T, llvm::Value *V);
  llvm::Value *sharedBase();
  llvm::Value *sharedOffset(const Sym &S);
  llvm::Value *address(const Operand &O, StateSpace Space);
  /// With LoweringOptions::Memcheck: checks the access of \p Bytes at \p Ptr
  /// (the address operand \p O in \p Space) before it happens. Accesses of
  /// parameters and of named .local/.param variables are not checked.
  void memcheck(const Operand &O, llvm::Value *Ptr, llvm::Value *Bytes, StateSpace Space, MemcheckAccess Kind);
  void memcheck(const Operand &O, llvm::Value *Ptr, uint64_t Bytes, StateSpace Space, MemcheckAccess Kind) {
    if (L.Memcheck)
      memcheck(O, Ptr, B.getInt64(Bytes), Space, Kind);
  }
  /// Memcheck's "function" or "function in file:line" strings, by text.
  std::unordered_map<std::string, llvm::Value *> MemcheckNames;
  std::string SourceLine; ///< "file:line" of the last .loc (memcheck only)
  void lowerCall(const Instruction &In);

  // Instructions (LowerInstructions.cpp and the Lower*.cpp files of each family).
  void lowerInstruction(const Instruction &In);
  /// The instruction's first type; an untyped instruction is invalid PTX.
  ScalarType typeOf(const Instruction &In);
  void lowerMov(const Instruction &In);
  void lowerLoad(const Instruction &In);
  void lowerStore(const Instruction &In);
  void lowerIntArith(const Instruction &In);
  void lowerFloatArith(const Instruction &In);
  void lowerCompare(const Instruction &In);
  void lowerCvt(const Instruction &In);
  void lowerBits(const Instruction &In);
  void lowerAtomic(const Instruction &In);
  void lowerAsyncStore(const Instruction &In);
  void lowerBarrier(const Instruction &In);
  void lowerWarp(const Instruction &In);
  void lowerTex(const Instruction &In);
  void lowerTld4(const Instruction &In);
  void lowerTexQuery(const Instruction &In);
  void lowerIstypep(const Instruction &In);
  void lowerSurface(const Instruction &In);
  llvm::Value *textureHandle(const Operand &Op);
  llvm::Value *coordinateLanes(const Operand &Coords, unsigned Geom, ScalarType CT);
  void storeLanes(const Operand &D, ScalarType T, llvm::Value *Out, unsigned LaneBytes);
  void lowerCpAsync(const Instruction &In);
  void lowerBulkCopy(const Instruction &In);
  void lowerWgmma(const Instruction &In);
  void lowerTensormap(const Instruction &In);
  void lowerMbarrier(const Instruction &In);
  void lowerWmma(const Instruction &In);
  void lowerMma(const Instruction &In);
  void lowerLdmatrix(const Instruction &In);
  void lowerVideo(const Instruction &In);
  void lowerMatrixMove(const Instruction &In);
  llvm::Value *carry();
  llvm::Value *toFloat(llvm::Value *V, ScalarType T);
  llvm::Value *fromFloat(llvm::Value *V, ScalarType T, unsigned Rounding);
  /// Subnormals (below \p MinNormal; 0: the value type's) to signed zero.
  llvm::Value *ftz(llvm::Value *V, double MinNormal = 0);
  llvm::Value *saturateFloat(llvm::Value *V);
  /// .relu: a negative result or -0 gives +0 (NaN passes).
  llvm::Value *reluFloat(llvm::Value *V);
  llvm::Value *canonicalNaN(llvm::Value *V, ScalarType T);
  llvm::Value *byteField(llvm::Value *V, unsigned W);
  llvm::Value *intrinsic(llvm::Intrinsic::ID Id, llvm::ArrayRef<llvm::Value *> Args);
  llvm::Value *fminmax(llvm::Value *A, llvm::Value *Bv, bool IsMax, bool NaNProp);
  llvm::Value *roundingOp(unsigned Op, unsigned Mode, ScalarType T, llvm::Value *A,
                          llvm::Value *Bv, llvm::Value *Cv);
};

/// The rounding modifier of an instruction: 0 rn (default), 1 rz, 2 rm, 3 rp;
/// -1 when absent. Integer rounding (.rni...) gives the same codes.
int roundingOf(const Instruction &In);

} // namespace zluda::ptx

#endif // ZLUDA_PTX_CODEGEN_LOWERIMPL_H
