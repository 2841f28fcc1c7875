// Shared by the test programs of the part-2 math libraries: status checks
// that end the program with FAIL and the status.
#pragma once
#include "common.h"

#define ZLUDA_LIB_CHECK(x, Ok, Fmt, Conv)                                                          \
  do {                                                                                             \
    auto s_ = (x);                                                                                 \
    if (s_ != (Ok)) {                                                                              \
      std::printf("FAIL %s:%d %s: " Fmt "\n", __FILE__, __LINE__, #x, Conv(s_));                   \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)
#define ZLUDA_AS_INT(s) int(s)

#include <csignal>
#include <execinfo.h>
#include <unistd.h>

/// Where a program is (stage("...")), printed with a backtrace if it crashes: the H200 runs of these programs on
/// NVIDIA's libraries report where a library crashed (tests/probes/h200-run-libs.sh resolves the addresses).
static const char *ZludaStage = "start";
static inline void stage(const char *S) { ZludaStage = S; }
static void zludaOnCrash(int Sig) {
  dprintf(2, "crash (signal %d) in stage: %s\n", Sig, ZludaStage);
  void *Frames[48];
  backtrace_symbols_fd(Frames, backtrace(Frames, 48), 2);
  _exit(128 + Sig);
}
static const struct ZludaCrashHandler {
  ZludaCrashHandler() {
    std::signal(SIGSEGV, zludaOnCrash);
    std::signal(SIGBUS, zludaOnCrash);
    std::signal(SIGABRT, zludaOnCrash);
  }
} ZludaCrashHandlerInstance;

/// cuSOLVER, cuSPARSE, cuFFT and cuRAND statuses (the headers are the program's).
#define CS(x) ZLUDA_LIB_CHECK(x, CUSOLVER_STATUS_SUCCESS, "cusolverStatus %d", ZLUDA_AS_INT)
#define CSP(x) ZLUDA_LIB_CHECK(x, CUSPARSE_STATUS_SUCCESS, "%s", cusparseGetErrorName)
#define CF(x) ZLUDA_LIB_CHECK(x, CUFFT_SUCCESS, "cufftResult %d", ZLUDA_AS_INT)
#define CR(x) ZLUDA_LIB_CHECK(x, CURAND_STATUS_SUCCESS, "curandStatus %d", ZLUDA_AS_INT)
