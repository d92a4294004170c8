#include "store_compare/sqlite_backend.h"

#include <sqlite3.h>
#include <unistd.h>

#include <bit>
#include <map>
#include <string>
#include <vector>

namespace causeway::bench {
namespace {

class SqliteBackend : public Backend {
 public:
  SqliteBackend(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteBackend() override {
    for (sqlite3_stmt* s : {at_, at_all_}) sqlite3_finalize(s);
    for (auto& [key, s] : range_) sqlite3_finalize(s);
    sqlite3_close(db_);
  }
  std::string name() const override { return "SQLite"; }

  Status Build(const Dataset& d) override {
    begin_ = d.begin;
    const uint64_t span = static_cast<uint64_t>(d.end - d.begin);
    shift_ = span < (1ull << 30) ? 0 : std::bit_width(span) - 30;
    RETURN_IF_ERROR(Exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;"));
    RETURN_IF_ERROR(
        Exec("CREATE TABLE attributes (id INTEGER PRIMARY KEY, path TEXT NOT NULL);"
             "CREATE TABLE strings (id INTEGER PRIMARY KEY, s TEXT NOT NULL);"
             "CREATE VIRTUAL TABLE intervals USING rtree_i32(id, lo, hi, +attr INTEGER, "
             "+t_start INTEGER, +t_end INTEGER, +kind INTEGER, +value INTEGER);"));
    sqlite3_stmt* s = nullptr;
    RETURN_IF_ERROR(Prepare("INSERT INTO attributes VALUES (?, ?)", &s));
    for (size_t i = 0; i < d.attributes.size(); ++i) {
      sqlite3_bind_int64(s, 1, static_cast<int64_t>(i));
      sqlite3_bind_text(s, 2, d.attributes[i].data(), static_cast<int>(d.attributes[i].size()),
                        SQLITE_STATIC);
      RETURN_IF_ERROR(StepReset(s));
    }
    sqlite3_finalize(s);
    RETURN_IF_ERROR(Prepare("INSERT INTO strings VALUES (?, ?)", &s));
    for (size_t i = 0; i < d.strings.size(); ++i) {
      sqlite3_bind_int64(s, 1, static_cast<int64_t>(i));
      sqlite3_bind_text(s, 2, d.strings[i].data(), static_cast<int>(d.strings[i].size()),
                        SQLITE_STATIC);
      RETURN_IF_ERROR(StepReset(s));
    }
    sqlite3_finalize(s);
    RETURN_IF_ERROR(
        Prepare("INSERT INTO intervals (lo, hi, attr, t_start, t_end, kind, value) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                &s));
    for (const Interval& i : d.intervals) {
      sqlite3_bind_int64(s, 1, Cell(i.start));
      sqlite3_bind_int64(s, 2, Cell(i.end - 1));
      sqlite3_bind_int64(s, 3, i.attribute);
      sqlite3_bind_int64(s, 4, i.start);
      sqlite3_bind_int64(s, 5, i.end);
      sqlite3_bind_int64(s, 6, static_cast<int64_t>(i.kind));
      if (i.kind == ValueKind::kNull)
        sqlite3_bind_null(s, 7);
      else
        sqlite3_bind_int64(s, 7, i.value);
      RETURN_IF_ERROR(StepReset(s));
    }
    sqlite3_finalize(s);
    RETURN_IF_ERROR(Exec("COMMIT"));
    RETURN_IF_ERROR(
        Prepare("SELECT t_start, t_end, value, kind FROM intervals WHERE lo <= ?1 AND hi >= ?1 AND "
                "attr = ?2 AND t_start <= ?3 AND t_end > ?3",
                &at_));
    RETURN_IF_ERROR(Prepare(
        "SELECT t_start, t_end, value, kind, attr FROM intervals WHERE lo <= ?1 AND hi >= ?1 "
        "AND t_start <= ?2 AND t_end > ?2",
        &at_all_));
    return Status::Ok();
  }

  StatusOr<uint64_t> DiskBytes() override {
    sqlite3_stmt* s = nullptr;
    RETURN_IF_ERROR(
        Prepare("SELECT page_count * page_size FROM pragma_page_count, "
                "pragma_page_size",
                &s));
    sqlite3_step(s);
    const uint64_t bytes = static_cast<uint64_t>(sqlite3_column_int64(s, 0));
    sqlite3_finalize(s);
    return bytes;
  }

  Status At(uint32_t attribute, int64_t t, Interval* out) override {
    sqlite3_bind_int64(at_, 1, Cell(t));
    sqlite3_bind_int64(at_, 2, attribute);
    sqlite3_bind_int64(at_, 3, t);
    *out = Interval{};
    int rc;
    while ((rc = sqlite3_step(at_)) == SQLITE_ROW) {
      *out = Row(at_);
      out->attribute = attribute;
    }
    sqlite3_reset(at_);
    return rc == SQLITE_DONE ? Status::Ok() : Error("at");
  }

  Status AtAll(int64_t t, std::vector<Interval>* out) override {
    sqlite3_bind_int64(at_all_, 1, Cell(t));
    sqlite3_bind_int64(at_all_, 2, t);
    return Rows(at_all_, out);
  }

  Status Range(std::span<const uint32_t> attributes, int64_t t1, int64_t t2, int64_t /*step*/,
               std::vector<Interval>* out) override {
    std::vector<uint32_t> key(attributes.begin(), attributes.end());
    sqlite3_stmt*& s = range_[key];
    if (s == nullptr) {
      std::string sql =
          "SELECT t_start, t_end, value, kind, attr FROM intervals WHERE lo <= ?2 AND hi >= ?1 "
          "AND t_start < ?4 AND t_end > ?3 AND attr IN (";
      for (size_t i = 0; i < attributes.size(); ++i)
        sql += (i ? "," : "") + std::to_string(attributes[i]);
      sql += ")";
      RETURN_IF_ERROR(Prepare(sql.c_str(), &s));
    }
    sqlite3_bind_int64(s, 1, Cell(t1));
    sqlite3_bind_int64(s, 2, Cell(t2 - 1));
    sqlite3_bind_int64(s, 3, t1);
    sqlite3_bind_int64(s, 4, t2);
    return Rows(s, out);
  }

 private:
  // A time's R*-tree coordinate (clamped: queries may fall outside the trace).
  int64_t Cell(int64_t t) const {
    if (t <= begin_) return t == begin_ ? 0 : -1;
    const int64_t c = (t - begin_) >> shift_;
    return c > INT32_MAX ? INT32_MAX : c;
  }

  static Interval Row(sqlite3_stmt* s) {
    Interval v;
    v.start = sqlite3_column_int64(s, 0);
    v.end = sqlite3_column_int64(s, 1);
    v.value = sqlite3_column_int64(s, 2);
    v.kind = static_cast<ValueKind>(sqlite3_column_int64(s, 3));
    if (sqlite3_column_count(s) > 4)
      v.attribute = static_cast<uint32_t>(sqlite3_column_int64(s, 4));
    return v;
  }

  Status Rows(sqlite3_stmt* s, std::vector<Interval>* out) {
    out->clear();
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) out->push_back(Row(s));
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? Status::Ok() : Error("query");
  }

  Status Error(const std::string& what) {
    return Internal("SQLite " + path_ + ": " + what + ": " + sqlite3_errmsg(db_));
  }
  Status Exec(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) == SQLITE_OK) return Status::Ok();
    std::string m = err ? err : "?";
    sqlite3_free(err);
    return Internal("SQLite " + path_ + ": " + sql + ": " + m);
  }
  Status Prepare(const char* sql, sqlite3_stmt** s) {
    if (sqlite3_prepare_v2(db_, sql, -1, s, nullptr) == SQLITE_OK) return Status::Ok();
    return Error(sql);
  }
  Status StepReset(sqlite3_stmt* s) {
    const int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? Status::Ok() : Error("insert");
  }

  sqlite3* db_;
  std::string path_;
  int64_t begin_ = 0;
  int shift_ = 0;
  sqlite3_stmt* at_ = nullptr;
  sqlite3_stmt* at_all_ = nullptr;
  std::map<std::vector<uint32_t>, sqlite3_stmt*> range_;
};

}  // namespace

StatusOr<std::unique_ptr<Backend>> OpenSqlite(const std::string& path) {
  unlink(path.c_str());
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    std::string m = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return Internal("cannot create SQLite database " + path + ": " + m);
  }
  return std::unique_ptr<Backend>(new SqliteBackend(db, path));
}

}  // namespace causeway::bench
