//===- Trace.cpp - `zluda trace` for the math libraries ---------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file With ZLUDA_LOG=trace (what `zluda trace` sets), the audit library
/// asks the dynamic linker to report every binding of a symbol to one of our
/// math libraries (cuBLAS, cuBLASLt, cuFFT, cuRAND, cuSPARSE, cuSOLVER, cuDNN, CUPTI,
/// NVML; the driver and runtime trace themselves) and hands out, instead of
/// the function's address, the address of a stub of its own. The stub saves
/// the argument registers, calls the function with the same arguments (and a
/// copy of 16 stack slots, enough for the widest of these APIs), and logs one
/// line in the driver trace's form:
///   cublasSgemm_v2(H=0x55d0..., Ta=0, Tb=1, M=64, ...) -> 0 (12.3 us)
/// The parameters' names and kinds come from TraceSignatures.inc, generated
/// from our own definitions (scripts/gen-trace-signatures.py); a function not
/// in it prints as name(...). Without tracing, la_objopen asks for no
/// bindings, so the linker keeps its ordinary (unaudited) binding: no cost.
#include "redirect/Redirect.h"

#include <link.h>
#include <pthread.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <unistd.h>

namespace {

struct Signature {
  const char *Name;
  const char *Params; ///< space-separated names
  const char *Kinds;  ///< one letter a parameter, then '>' and the result's
};
#define ZT(Name, Params, Kinds) {Name, Params, Kinds},
const Signature Signatures[] = {
#include "redirect/TraceSignatures.inc"
};
#undef ZT

const Signature *findSignature(const char *Name) {
  size_t Lo = 0, Hi = sizeof Signatures / sizeof Signatures[0];
  while (Lo < Hi) {
    size_t Mid = (Lo + Hi) / 2;
    int C = std::strcmp(Signatures[Mid].Name, Name);
    if (C == 0)
      return &Signatures[Mid];
    if (C < 0)
      Lo = Mid + 1;
    else
      Hi = Mid;
  }
  return nullptr;
}

constexpr unsigned MaxStubs = 4096;
constexpr unsigned MaxTraced = 16;

bool Tracing = false;
int Fd = 2;
uintptr_t Traced[MaxTraced]; ///< the link maps of our libraries whose symbols are traced
unsigned TracedCount = 0;
pthread_mutex_t Lock = PTHREAD_MUTEX_INITIALIZER;
unsigned StubCount = 0;
const char *StubNames[MaxStubs];
const Signature *StubSigs[MaxStubs];

} // namespace

/// The stubs and the functions they call (read by the assembly below).
extern "C" {
__attribute__((visibility("hidden"))) uintptr_t zluda_trace_targets[MaxStubs];
__attribute__((visibility("hidden"))) uint64_t zluda_trace_enter(uint64_t Index, const uint64_t *Regs);
__attribute__((visibility("hidden"))) void zluda_trace_exit(uint64_t Index, const uint64_t *Regs, uint64_t Start,
                                                            const uint64_t *Stack);
__attribute__((visibility("hidden"))) extern const char zluda_trace_stubs[];
}

// Stub i (16 bytes apart): r11 = i, then the common part. Its frame (384 bytes below rbp):
//   0..127 the 16 stack argument slots passed on, 128 rdi rsi rdx rcx r8 r9, 176 r11 (the index), 184 rax,
//   192..319 xmm0-7, 320 the start time, 328 the result's rax, 336 rdx, 352 xmm0, 368 xmm1 (a structure of two
//   doubles, cuDoubleComplex, comes back in xmm0 and xmm1).
asm(R"(
  .text
  .p2align 4
  .hidden zluda_trace_stubs
zluda_trace_stubs:
  .set zt_i, 0
  .rept 4096
  .p2align 4
  movl $zt_i, %r11d
  jmp zluda_trace_common
  .set zt_i, zt_i + 1
  .endr
  .p2align 4
zluda_trace_common:
  push %rbp
  mov %rsp, %rbp
  sub $384, %rsp
  mov %rdi, 128(%rsp)
  mov %rsi, 136(%rsp)
  mov %rdx, 144(%rsp)
  mov %rcx, 152(%rsp)
  mov %r8, 160(%rsp)
  mov %r9, 168(%rsp)
  mov %r11, 176(%rsp)
  mov %rax, 184(%rsp)
  movdqu %xmm0, 192(%rsp)
  movdqu %xmm1, 208(%rsp)
  movdqu %xmm2, 224(%rsp)
  movdqu %xmm3, 240(%rsp)
  movdqu %xmm4, 256(%rsp)
  movdqu %xmm5, 272(%rsp)
  movdqu %xmm6, 288(%rsp)
  movdqu %xmm7, 304(%rsp)
  mov %r11, %rdi
  lea 128(%rsp), %rsi
  call zluda_trace_enter
  mov %rax, 320(%rsp)
  xor %ecx, %ecx
1:
  mov 16(%rbp,%rcx,8), %rax
  mov %rax, (%rsp,%rcx,8)
  inc %ecx
  cmp $16, %ecx
  jb 1b
  mov 128(%rsp), %rdi
  mov 136(%rsp), %rsi
  mov 144(%rsp), %rdx
  mov 152(%rsp), %rcx
  mov 160(%rsp), %r8
  mov 168(%rsp), %r9
  movdqu 192(%rsp), %xmm0
  movdqu 208(%rsp), %xmm1
  movdqu 224(%rsp), %xmm2
  movdqu 240(%rsp), %xmm3
  movdqu 256(%rsp), %xmm4
  movdqu 272(%rsp), %xmm5
  movdqu 288(%rsp), %xmm6
  movdqu 304(%rsp), %xmm7
  mov 176(%rsp), %r11
  lea zluda_trace_targets(%rip), %r10
  mov (%r10,%r11,8), %r10
  mov 184(%rsp), %rax
  call *%r10
  mov %rax, 328(%rsp)
  mov %rdx, 336(%rsp)
  movdqu %xmm0, 352(%rsp)
  movdqu %xmm1, 368(%rsp)
  mov 176(%rsp), %rdi
  lea 128(%rsp), %rsi
  mov 320(%rsp), %rdx
  lea 16(%rbp), %rcx
  call zluda_trace_exit
  mov 328(%rsp), %rax
  mov 336(%rsp), %rdx
  movdqu 352(%rsp), %xmm0
  movdqu 368(%rsp), %xmm1
  leave
  ret
)");

namespace {

uint64_t nowNs() {
  timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return uint64_t(T.tv_sec) * 1000000000u + uint64_t(T.tv_nsec);
}

struct Line {
  char Buf[2048];
  size_t N = 0;
  void add(const char *Fmt, ...) __attribute__((format(printf, 2, 3))) {
    if (N >= sizeof Buf)
      return;
    va_list A;
    va_start(A, Fmt);
    int W = std::vsnprintf(Buf + N, sizeof Buf - N, Fmt, A);
    va_end(A);
    if (W > 0)
      N = N + size_t(W) < sizeof Buf ? N + size_t(W) : sizeof Buf - 1;
  }
};

} // namespace

extern "C" uint64_t zluda_trace_enter(uint64_t, const uint64_t *) { return nowNs(); }

/// Regs: rdi rsi rdx rcx r8 r9, r11, rax, then xmm0-7 (16 bytes each) and the result (rax at +200, xmm0 at
/// +224); Stack: the caller's stack arguments.
extern "C" void zluda_trace_exit(uint64_t Index, const uint64_t *Regs, uint64_t Start, const uint64_t *Stack) {
  double Us = double(nowNs() - Start) / 1000.0;
  const Signature *S = Index < MaxStubs ? StubSigs[Index] : nullptr;
  const char *Name = Index < MaxStubs ? StubNames[Index] : "?";
  const uint64_t *Xmm = Regs + 8;
  uint64_t Result = Regs[25];
  Line L;
  L.add("[zluda T %d] %s(", static_cast<int>(gettid()), Name);
  const char *Kind = S ? S->Kinds : "";
  const char *P = S ? S->Params : "";
  unsigned Gi = 0, Fi = 0, Si = 0;
  bool First = true;
  if (!S)
    L.add("...");
  for (; *Kind && *Kind != '>'; ++Kind) {
    const char *End = std::strchr(P, ' ');
    size_t Len = End ? size_t(End - P) : std::strlen(P);
    L.add("%s%.*s=", First ? "" : ", ", static_cast<int>(Len), P);
    P = End ? End + 1 : P + Len;
    First = false;
    if (*Kind == 's') { // a structure by value: where the rest lie depends on its layout
      L.add("?, ...");
      while (*Kind && *Kind != '>')
        ++Kind;
      break;
    }
    uint64_t V;
    if (*Kind == 'f' || *Kind == 'd')
      V = Fi < 8 ? Xmm[2 * Fi++] : Stack[Si++];
    else
      V = Gi < 6 ? Regs[Gi++] : Stack[Si++];
    switch (*Kind) {
    case 'p':
      if (V)
        L.add("0x%llx", static_cast<unsigned long long>(V));
      else
        L.add("null");
      break;
    case 'l':
      L.add("%lld", static_cast<long long>(V));
      break;
    case 'f': {
      float F;
      uint32_t B = uint32_t(V);
      std::memcpy(&F, &B, 4);
      L.add("%g", double(F));
      break;
    }
    case 'd': {
      double D;
      std::memcpy(&D, &V, 8);
      L.add("%g", D);
      break;
    }
    default:
      L.add("%d", static_cast<int>(uint32_t(V)));
      break;
    }
  }
  L.add(")");
  char R = *Kind == '>' ? Kind[1] : 'i';
  if (R == 'p')
    L.add(" -> 0x%llx", static_cast<unsigned long long>(Result));
  else if (R == 'l')
    L.add(" -> %lld", static_cast<long long>(Result));
  else if (R == 'f' || R == 'd') {
    uint64_t X = Regs[28];
    float F;
    double D;
    uint32_t B = uint32_t(X);
    std::memcpy(&F, &B, 4);
    std::memcpy(&D, &X, 8);
    L.add(" -> %g", R == 'f' ? double(F) : D);
  } else if (R != 'v')
    L.add(" -> %d", static_cast<int>(uint32_t(Result)));
  L.add(" (%.1f us)\n", Us);
  ssize_t W = write(Fd, L.Buf, L.N);
  (void)W;
}

namespace zluda::redirect {

void startTrace() {
  const char *Level = std::getenv("ZLUDA_LOG");
  Tracing = Level && std::strcmp(Level, "trace") == 0;
  if (!Tracing)
    return;
  if (const char *File = std::getenv("ZLUDA_LOG_FILE"); File && *File) {
    int F = open(File, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (F >= 0)
      Fd = F;
  }
}

} // namespace zluda::redirect

extern "C" {

/// Bindings to our math libraries are audited while tracing; bindings from every object, since any may call them.
__attribute__((visibility("default"))) unsigned int la_objopen(struct link_map *Map, Lmid_t, uintptr_t *Cookie) {
  if (!Tracing)
    return 0;
  const char *Path = Map && Map->l_name ? Map->l_name : "";
  if (zluda::redirect::isTracedLibrary(Path) && TracedCount < MaxTraced) {
    Traced[TracedCount++] = *Cookie;
    return LA_FLG_BINDTO | LA_FLG_BINDFROM;
  }
  return LA_FLG_BINDFROM;
}

/// A function of one of our math libraries is bound: the caller gets a stub that logs each call.
__attribute__((visibility("default"))) uintptr_t la_symbind64(Elf64_Sym *Sym, unsigned int, uintptr_t *,
                                                              uintptr_t *DefCookie, unsigned int *Flags,
                                                              const char *Name) {
  *Flags |= LA_SYMB_NOPLTENTER | LA_SYMB_NOPLTEXIT;
  bool Ours = false;
  for (unsigned I = 0; I < TracedCount; ++I)
    Ours |= Traced[I] == *DefCookie;
  if (!Ours || ELF64_ST_TYPE(Sym->st_info) != STT_FUNC || !Sym->st_value)
    return Sym->st_value;
  uintptr_t Target = Sym->st_value;
  pthread_mutex_lock(&Lock);
  unsigned I = 0;
  while (I < StubCount && zluda_trace_targets[I] != Target)
    ++I;
  if (I == StubCount) {
    if (StubCount == MaxStubs) {
      pthread_mutex_unlock(&Lock);
      return Target; // every stub in use: this function runs untraced
    }
    StubNames[I] = Name;
    StubSigs[I] = findSignature(Name);
    zluda_trace_targets[I] = Target;
    ++StubCount;
  }
  pthread_mutex_unlock(&Lock);
  return reinterpret_cast<uintptr_t>(zluda_trace_stubs) + 16 * I;
}
}
