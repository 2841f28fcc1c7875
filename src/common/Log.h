//===- Log.h - logging through spdlog --------------------------------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file One process-wide logger configured from ZLUDA_LOG / ZLUDA_LOG_FILE.
/// Libraries never print to stdout; everything goes through here.
#ifndef ZLUDA_COMMON_LOG_H
#define ZLUDA_COMMON_LOG_H

#include <optional>
#include <spdlog/spdlog.h>
#include <string_view>

namespace zluda {

/// The logger, created on first use (thread-safe).
spdlog::logger &log();

/// Parses a ZLUDA_LOG value; nullopt if it is not a level name.
std::optional<spdlog::level::level_enum> parseLogLevel(std::string_view S);

} // namespace zluda

#define ZLUDA_LOG_TRACE(...) ::zluda::log().trace(__VA_ARGS__)
#define ZLUDA_LOG_DEBUG(...) ::zluda::log().debug(__VA_ARGS__)
#define ZLUDA_LOG_INFO(...) ::zluda::log().info(__VA_ARGS__)
#define ZLUDA_LOG_WARN(...) ::zluda::log().warn(__VA_ARGS__)
#define ZLUDA_LOG_ERROR(...) ::zluda::log().error(__VA_ARGS__)

#endif // ZLUDA_COMMON_LOG_H
