//===- Log.cpp - logging through spdlog ------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "common/Log.h"

#include "common/Env.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

namespace zluda {

std::optional<spdlog::level::level_enum> parseLogLevel(std::string_view S) {
  using namespace spdlog::level;
  if (S == "off" || S == "0")
    return off;
  if (S == "error")
    return err;
  if (S == "warn" || S == "warning")
    return warn;
  if (S == "info")
    return info;
  if (S == "debug")
    return debug;
  if (S == "trace")
    return trace;
  return std::nullopt;
}

spdlog::logger &log() {
  // Never destroyed: NVIDIA's cudart calls into the driver from exit handlers
  // that run after static destructors. The sinks write through stdio, which
  // exit() flushes.
  static std::shared_ptr<spdlog::logger> *Logger = new std::shared_ptr<spdlog::logger>([] {
    std::shared_ptr<spdlog::logger> L;
    std::string File = env::get("ZLUDA_LOG_FILE");
    if (!File.empty()) {
      try {
        L = std::make_shared<spdlog::logger>(
            "zluda", std::make_shared<spdlog::sinks::basic_file_sink_mt>(File));
      } catch (...) {
        L.reset();
      }
    }
    if (!L)
      L = std::make_shared<spdlog::logger>("zluda",
                                           std::make_shared<spdlog::sinks::stderr_sink_mt>());
    L->set_pattern("[zluda %L %t] %v");
    std::string Level = env::get("ZLUDA_LOG");
    auto Lv = parseLogLevel(Level);
    L->set_level(Lv.value_or(spdlog::level::warn));
    if (!Lv)
      L->warn("ZLUDA_LOG={} is not a level (off, error, warn, info, debug, trace); using warn",
              Level);
    // A trace shares its file with the audit library's math-library trace (src/redirect/Trace.cpp): one write
    // a line keeps the two from cutting each other's lines.
    L->flush_on(Lv == spdlog::level::trace ? spdlog::level::trace : spdlog::level::warn);
    return L;
  }());
  return **Logger;
}

} // namespace zluda
