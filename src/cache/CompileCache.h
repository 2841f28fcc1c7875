//===- CompileCache.h - persistent store of compiled modules ---------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file A content-addressed store of compiler output in one SQLite database
/// (WAL journal, so several processes may read and write it at once).
///
/// Keys are built by the compilers from everything that decides their output
/// (the PTX text's hash, the target, the compiler build, the options). Every
/// entry carries the SHA-256 of its bytes; an entry whose bytes do not match
/// is deleted and reported as a miss, never returned. A database file SQLite
/// cannot read (truncated, overwritten) is moved aside and started again.
/// Entries are evicted least recently used first once the total passes the
/// size limit.
#ifndef ZLUDA_CACHE_COMPILECACHE_H
#define ZLUDA_CACHE_COMPILECACHE_H

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;

namespace zluda::cache {

using Blob = std::vector<uint8_t>;

struct Stats {
  uint64_t Hits = 0, Misses = 0, Stores = 0, Corrupt = 0, Evictions = 0;
};

struct Usage {
  uint64_t Entries = 0, Bytes = 0;
};

class Store {
public:
  /// Opens (creating as needed) \p Dir/cache.sqlite3. \p LimitBytes of 0
  /// means no limit. Returns null with \p Err set when the directory or the
  /// database cannot be made.
  static std::unique_ptr<Store> open(const std::string &Dir, uint64_t LimitBytes, std::string &Err);
  ~Store();
  Store(const Store &) = delete;
  Store &operator=(const Store &) = delete;

  /// The entry's bytes when present and intact; marks it recently used.
  std::optional<Blob> get(std::string_view Key);
  /// Stores (or replaces) an entry, then evicts down to the limit. An entry
  /// larger than the limit by itself is not stored. False on a database error.
  bool put(std::string_view Key, const Blob &Data);
  /// Removes every entry.
  bool clear();
  Usage usage();
  Stats stats();
  const std::string &path() const { return Path; }
  uint64_t limit() const { return Limit; }

private:
  Store() = default;
  bool openDb(std::string &Err);
  bool resetDb(std::string &Err);
  void closeDb();
  void evictLocked();

  std::mutex Mu;
  sqlite3 *Db = nullptr;
  std::string Path;
  uint64_t Limit = 0;
  int LastRc = 0; ///< SQLite result of the last failed step of openDb
  Stats S;
};

/// The store named by the environment (ZLUDA_CACHE_DIR, ZLUDA_CACHE_SIZE_LIMIT,
/// ZLUDA_CACHE_CLEAR), opened on first use; null when the cache is turned off
/// (ZLUDA_CACHE_DIR=off) or cannot be opened (logged once).
Store *processStore();

/// The directory processStore() uses: ZLUDA_CACHE_DIR, else
/// $XDG_CACHE_HOME/zluda, else $HOME/.cache/zluda; empty when off.
std::string defaultDirectory();

/// Lowercase hex SHA-256.
std::string sha256Hex(std::string_view Data);

} // namespace zluda::cache

#endif // ZLUDA_CACHE_COMPILECACHE_H
