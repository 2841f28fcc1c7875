//===- CompileCache.cpp - persistent store of compiled modules -------------===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
#include "cache/CompileCache.h"
#include "common/PrivateDir.h"

#include "common/Env.h"
#include "common/Log.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/SHA256.h>

#include <sqlite3.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <thread>

namespace zluda::cache {

namespace {

constexpr int SchemaVersion = 2; // 2: the total size kept by triggers (totals)

/// A prepared statement, finalized on scope exit.
class Stmt {
public:
  Stmt(sqlite3 *Db, const char *Sql) { Rc = sqlite3_prepare_v2(Db, Sql, -1, &S, nullptr); }
  ~Stmt() { sqlite3_finalize(S); }
  Stmt(const Stmt &) = delete;
  Stmt &operator=(const Stmt &) = delete;
  bool ok() const { return Rc == SQLITE_OK && S; }
  int prepareRc() const { return Rc; }
  sqlite3_stmt *get() { return S; }
  void bindText(int I, std::string_view V) { sqlite3_bind_text(S, I, V.data(), int(V.size()), SQLITE_TRANSIENT); }
  void bindBlob(int I, const Blob &V) {
    if (V.empty()) // a null pointer would bind NULL
      sqlite3_bind_zeroblob(S, I, 0);
    else
      sqlite3_bind_blob64(S, I, V.data(), V.size(), SQLITE_STATIC);
  }
  void bindInt(int I, int64_t V) { sqlite3_bind_int64(S, I, V); }
  int step() { return sqlite3_step(S); }

private:
  sqlite3_stmt *S = nullptr;
  int Rc = SQLITE_ERROR;
};

int64_t nowMicros() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

bool isDamaged(int Rc) { return Rc == SQLITE_CORRUPT || Rc == SQLITE_NOTADB; }

} // namespace

std::string sha256Hex(std::string_view Data) {
  auto H = llvm::SHA256::hash(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Data.data()), Data.size()));
  static const char Hex[] = "0123456789abcdef";
  std::string Out;
  Out.reserve(64);
  for (uint8_t B : H) {
    Out += Hex[B >> 4];
    Out += Hex[B & 15];
  }
  return Out;
}

static std::string digestOf(const Blob &B) {
  return sha256Hex(std::string_view(reinterpret_cast<const char *>(B.data()), B.size()));
}

std::unique_ptr<Store> Store::open(const std::string &Dir, uint64_t LimitBytes, std::string &Err) {
  // Object code from here is loaded and run: only a folder and a database
  // no other user can write will do (docs/ARCHITECTURE.md, "Security").
  if (std::string Why = ensurePrivateDir(Dir, "compile cache folder"); !Why.empty()) {
    Err = Why;
    return nullptr;
  }
  std::unique_ptr<Store> St(new Store());
  St->Path = (std::filesystem::path(Dir) / "cache.sqlite3").string();
  if (std::string Why = ensurePrivateFile(St->Path, "compile cache database"); !Why.empty()) {
    Err = Why;
    return nullptr;
  }
  St->Limit = LimitBytes;
  // Another process making the file at the same moment shows as SQLITE_BUSY
  // (switching to WAL does not wait on the busy handler): try again.
  for (int Attempt = 0;; ++Attempt) {
    if (St->openDb(Err))
      return St;
    if (isDamaged(St->LastRc)) {
      // An unreadable file is not trusted: move it aside and start again.
      std::string First = Err;
      if (St->resetDb(Err))
        return St;
      Err = First + "; " + Err;
      return nullptr;
    }
    if ((St->LastRc != SQLITE_BUSY && St->LastRc != SQLITE_LOCKED) || Attempt == 200)
      return nullptr;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

Store::~Store() { closeDb(); }

void Store::closeDb() {
  if (Db)
    sqlite3_close_v2(Db);
  Db = nullptr;
}

bool Store::openDb(std::string &Err) {
  closeDb();
  int Rc = sqlite3_open_v2(Path.c_str(), &Db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                           nullptr);
  LastRc = Rc;
  if (Rc != SQLITE_OK) {
    Err = "cannot open " + Path + ": " + (Db ? sqlite3_errmsg(Db) : sqlite3_errstr(Rc));
    closeDb();
    return false;
  }
  // Other processes may hold the write lock for a moment.
  sqlite3_busy_timeout(Db, 10000);
  auto Exec = [&](const char *Sql) {
    char *Msg = nullptr;
    int R = sqlite3_exec(Db, Sql, nullptr, nullptr, &Msg);
    if (R != SQLITE_OK) {
      LastRc = R;
      Err = std::string(Path) + ": " + (Msg ? Msg : sqlite3_errstr(R));
      sqlite3_free(Msg);
    }
    return R == SQLITE_OK;
  };
  // The first statement that reads the file finds out whether it is a database.
  // Recursive triggers: INSERT OR REPLACE's deletion then updates the total too.
  if (!Exec("PRAGMA journal_mode=WAL") || !Exec("PRAGMA synchronous=NORMAL") || !Exec("PRAGMA recursive_triggers=ON")) {
    closeDb();
    return false;
  }
  auto Version = [&]() -> int {
    Stmt Q(Db, "PRAGMA user_version");
    if (!Q.ok() || Q.step() != SQLITE_ROW) {
      LastRc = sqlite3_errcode(Db);
      Err = Path + ": " + sqlite3_errmsg(Db);
      return -1;
    }
    return sqlite3_column_int(Q.get(), 0);
  };
  int V = Version();
  if (V < 0) {
    closeDb();
    return false;
  }
  if (V != SchemaVersion) {
    // A fresh file or an older layout, whose entries are not reused. Decided
    // again under the write lock: another process may have just made it.
    if (!Exec("BEGIN IMMEDIATE")) {
      closeDb();
      return false;
    }
    V = Version();
    bool Ok = V >= 0;
    if (Ok && V != SchemaVersion)
      // The entries' total size is kept by triggers in totals: summing the
      // table at every store took seconds per hundred stores in a cache of
      // 100k entries.
      Ok = Exec("DROP TABLE IF EXISTS entries;"
                "DROP TABLE IF EXISTS totals;"
                "CREATE TABLE entries(key TEXT PRIMARY KEY, data BLOB NOT NULL, digest TEXT NOT NULL,"
                " size INTEGER NOT NULL, last_used INTEGER NOT NULL);"
                "CREATE INDEX entries_lru ON entries(last_used);"
                "CREATE TABLE totals(id INTEGER PRIMARY KEY CHECK (id = 0), bytes INTEGER NOT NULL);"
                "INSERT INTO totals VALUES (0, 0);"
                "CREATE TRIGGER entries_added AFTER INSERT ON entries"
                " BEGIN UPDATE totals SET bytes = bytes + NEW.size WHERE id = 0; END;"
                "CREATE TRIGGER entries_removed AFTER DELETE ON entries"
                " BEGIN UPDATE totals SET bytes = bytes - OLD.size WHERE id = 0; END;"
                "PRAGMA user_version=2;");
    if (!Ok || !Exec("COMMIT")) {
      Exec("ROLLBACK");
      closeDb();
      return false;
    }
  }
  return true;
}

bool Store::resetDb(std::string &Err) {
  closeDb();
  std::error_code EC;
  std::string Aside = Path + ".damaged";
  std::filesystem::rename(Path, Aside, EC);
  if (EC)
    std::filesystem::remove(Path, EC);
  std::filesystem::remove(Path + "-wal", EC);
  std::filesystem::remove(Path + "-shm", EC);
  ZLUDA_LOG_WARN("compile cache: {} was unreadable; moved to {} and started again", Path, Aside);
  if (std::string Why = ensurePrivateFile(Path, "compile cache database"); !Why.empty()) {
    Err = Why;
    return false;
  }
  return openDb(Err);
}

std::optional<Blob> Store::get(std::string_view Key) {
  std::lock_guard<std::mutex> L(Mu);
  if (!Db) {
    ++S.Misses;
    return std::nullopt;
  }
  Blob Data;
  std::string Digest;
  int64_t Size = -1;
  int Rc;
  {
    Stmt Q(Db, "SELECT data, digest, size FROM entries WHERE key = ?1");
    if (!Q.ok()) {
      Rc = Q.prepareRc();
    } else {
      Q.bindText(1, Key);
      Rc = Q.step();
      if (Rc == SQLITE_ROW) {
        const auto *P = static_cast<const uint8_t *>(sqlite3_column_blob(Q.get(), 0));
        int N = sqlite3_column_bytes(Q.get(), 0);
        if (P)
          Data.assign(P, P + N);
        if (const unsigned char *D = sqlite3_column_text(Q.get(), 1))
          Digest = reinterpret_cast<const char *>(D);
        Size = sqlite3_column_int64(Q.get(), 2);
      }
    }
  }
  if (Rc != SQLITE_ROW) {
    ++S.Misses;
    if (isDamaged(Rc)) {
      std::string Err;
      if (!resetDb(Err))
        ZLUDA_LOG_WARN("compile cache: {} (cache off for this process)", Err);
    } else if (Rc != SQLITE_DONE) {
      ZLUDA_LOG_DEBUG("compile cache: lookup failed: {}", sqlite3_errmsg(Db));
    }
    return std::nullopt;
  }
  if (Size != int64_t(Data.size()) || Digest != digestOf(Data)) {
    ++S.Misses;
    ++S.Corrupt;
    ZLUDA_LOG_WARN("compile cache: entry {} is damaged; it is removed and the module compiled again", Key);
    Stmt D(Db, "DELETE FROM entries WHERE key = ?1");
    if (D.ok()) {
      D.bindText(1, Key);
      D.step();
    }
    return std::nullopt;
  }
  Stmt U(Db, "UPDATE entries SET last_used = ?2 WHERE key = ?1");
  if (U.ok()) {
    U.bindText(1, Key);
    U.bindInt(2, nowMicros());
    U.step();
  }
  ++S.Hits;
  return Data;
}

bool Store::put(std::string_view Key, const Blob &Data) {
  std::lock_guard<std::mutex> L(Mu);
  if (!Db)
    return false;
  if (Limit && Data.size() > Limit) {
    ZLUDA_LOG_DEBUG("compile cache: entry of {} bytes is over the limit; not stored", Data.size());
    return false;
  }
  std::string Digest = digestOf(Data);
  {
    Stmt Q(Db, "INSERT OR REPLACE INTO entries(key, data, digest, size, last_used) VALUES (?1, ?2, ?3, ?4, ?5)");
    if (!Q.ok())
      return false;
    Q.bindText(1, Key);
    Q.bindBlob(2, Data);
    Q.bindText(3, Digest);
    Q.bindInt(4, int64_t(Data.size()));
    Q.bindInt(5, nowMicros());
    int Rc = Q.step();
    if (Rc != SQLITE_DONE) {
      ZLUDA_LOG_DEBUG("compile cache: store failed: {}", sqlite3_errmsg(Db));
      return false;
    }
  }
  ++S.Stores;
  evictLocked();
  return true;
}

void Store::evictLocked() {
  if (!Limit)
    return;
  int64_t Total = 0;
  {
    Stmt Q(Db, "SELECT bytes FROM totals WHERE id = 0");
    if (!Q.ok() || Q.step() != SQLITE_ROW)
      return;
    Total = sqlite3_column_int64(Q.get(), 0);
  }
  if (Total <= int64_t(Limit))
    return;
  std::vector<std::pair<std::string, int64_t>> Victims;
  {
    Stmt Q(Db, "SELECT key, size FROM entries ORDER BY last_used ASC, rowid ASC");
    if (!Q.ok())
      return;
    while (Total > int64_t(Limit) && Q.step() == SQLITE_ROW) {
      const unsigned char *K = sqlite3_column_text(Q.get(), 0);
      int64_t Sz = sqlite3_column_int64(Q.get(), 1);
      Victims.emplace_back(K ? reinterpret_cast<const char *>(K) : "", Sz);
      Total -= Sz;
    }
  }
  Stmt D(Db, "DELETE FROM entries WHERE key = ?1");
  if (!D.ok())
    return;
  for (auto &[K, Sz] : Victims) {
    sqlite3_reset(D.get());
    D.bindText(1, K);
    if (D.step() == SQLITE_DONE)
      ++S.Evictions;
  }
}

bool Store::clear() {
  std::lock_guard<std::mutex> L(Mu);
  if (!Db)
    return false;
  return sqlite3_exec(Db, "DELETE FROM entries", nullptr, nullptr, nullptr) == SQLITE_OK;
}

Usage Store::usage() {
  std::lock_guard<std::mutex> L(Mu);
  Usage U;
  if (!Db)
    return U;
  Stmt Q(Db, "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM entries");
  if (Q.ok() && Q.step() == SQLITE_ROW) {
    U.Entries = uint64_t(sqlite3_column_int64(Q.get(), 0));
    U.Bytes = uint64_t(sqlite3_column_int64(Q.get(), 1));
  }
  return U;
}

Stats Store::stats() {
  std::lock_guard<std::mutex> L(Mu);
  return S;
}

std::string defaultDirectory() {
  std::string D = env::get("ZLUDA_CACHE_DIR");
  if (D == "off")
    return {};
  if (!D.empty())
    return D;
  if (const char *X = std::getenv("XDG_CACHE_HOME"); X && *X)
    return std::string(X) + "/zluda";
  if (const char *H = std::getenv("HOME"); H && *H)
    return std::string(H) + "/.cache/zluda";
  return {};
}

Store *processStore() {
  // Never destroyed, like the logger: NVIDIA's cudart reaches the driver from
  // exit handlers that run after static destructors. SQLite recovers the
  // journal of a connection that was never closed.
  static Store *St = []() -> Store * {
    std::string Dir = defaultDirectory();
    if (Dir.empty()) {
      ZLUDA_LOG_DEBUG("compile cache: off");
      return nullptr;
    }
    uint64_t LimitMB = 1024;
    std::string L = env::get("ZLUDA_CACHE_SIZE_LIMIT");
    if (!L.empty()) {
      char *End = nullptr;
      errno = 0;
      unsigned long long V = std::strtoull(L.c_str(), &End, 10);
      if (errno || !End || *End)
        ZLUDA_LOG_WARN("ZLUDA_CACHE_SIZE_LIMIT={} is not a number of MB; using {}", L, LimitMB);
      else
        LimitMB = V;
    }
    std::string Err;
    auto S = Store::open(Dir, LimitMB * 1024 * 1024, Err);
    if (!S) {
      ZLUDA_LOG_WARN("compile cache: {} (modules are compiled every time)", Err);
      return nullptr;
    }
    if (env::get("ZLUDA_CACHE_CLEAR") == "1") {
      S->clear();
      ZLUDA_LOG_INFO("compile cache: cleared {}", S->path());
    }
    ZLUDA_LOG_DEBUG("compile cache: {}", S->path());
    return S.release();
  }();
  return St;
}

} // namespace zluda::cache
