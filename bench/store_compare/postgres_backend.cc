#include "store_compare/postgres_backend.h"

#include <libpq-fe.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace causeway::bench {
namespace {

int64_t ParseInt(const char* s) {
  int64_t v = 0;
  std::from_chars(s, s + std::char_traits<char>::length(s), v);
  return v;
}

void AppendInt(std::string* out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

class PostgresBackend : public Backend {
 public:
  explicit PostgresBackend(PGconn* conn) : conn_(conn) {}
  ~PostgresBackend() override { PQfinish(conn_); }
  std::string name() const override { return "PostgreSQL"; }

  Status Build(const Dataset& d) override {
    RETURN_IF_ERROR(Exec("DROP TABLE IF EXISTS intervals, attributes, strings"));
    RETURN_IF_ERROR(Exec("BEGIN"));
    RETURN_IF_ERROR(Exec("CREATE TABLE attributes (id int4 PRIMARY KEY, path text NOT NULL)"));
    RETURN_IF_ERROR(Exec("CREATE TABLE strings (id int4 PRIMARY KEY, s text NOT NULL)"));
    RETURN_IF_ERROR(
        Exec("CREATE TABLE intervals (t_start int8 NOT NULL, t_end int8 NOT NULL, value int8, "
             "attr int4 NOT NULL, kind int2 NOT NULL)"));
    RETURN_IF_ERROR(Copy("attributes", [&](std::string* out) {
      for (size_t i = 0; i < d.attributes.size(); ++i) {
        AppendInt(out, static_cast<int64_t>(i));
        *out += '\t';
        *out += d.attributes[i];  // paths hold no tab, newline or backslash
        *out += '\n';
      }
    }));
    RETURN_IF_ERROR(Copy("strings", [&](std::string* out) {
      for (size_t i = 0; i < d.strings.size(); ++i) {
        AppendInt(out, static_cast<int64_t>(i));
        *out += '\t';
        *out += EscapeCopyText(d.strings[i]);
        *out += '\n';
      }
    }));
    RETURN_IF_ERROR(Copy("intervals", [&](std::string* out) {
      for (const Interval& i : d.intervals) {
        AppendInt(out, i.start);
        *out += '\t';
        AppendInt(out, i.end);
        *out += '\t';
        if (i.kind == ValueKind::kNull)
          *out += "\\N";
        else
          AppendInt(out, i.value);
        *out += '\t';
        AppendInt(out, i.attribute);
        *out += '\t';
        AppendInt(out, static_cast<int64_t>(i.kind));
        *out += '\n';
        if (out->size() > (1 << 20) && !Flush(out)) return;
      }
    }));
    RETURN_IF_ERROR(Exec("COMMIT"));
    RETURN_IF_ERROR(Exec("CREATE INDEX intervals_attr_start ON intervals (attr, t_start)"));
    RETURN_IF_ERROR(
        Exec("CREATE INDEX intervals_during ON intervals USING gist (int8range(t_start, t_end))"));
    RETURN_IF_ERROR(Exec("ANALYZE"));
    RETURN_IF_ERROR(Prepare("at",
                            "SELECT t_start, t_end, value, kind FROM (SELECT t_start, t_end, "
                            "value, kind FROM intervals WHERE attr = $1::int4 AND t_start <= "
                            "$2::int8 ORDER BY t_start DESC LIMIT 1) s WHERE t_end > $2::int8"));
    RETURN_IF_ERROR(Prepare("at_all",
                            "SELECT t_start, t_end, value, kind, attr FROM intervals WHERE "
                            "int8range(t_start, t_end) @> $1::int8"));
    RETURN_IF_ERROR(Prepare("range",
                            "SELECT t_start, t_end, value, kind, attr FROM intervals WHERE attr "
                            "= ANY($1::int4[]) AND int8range(t_start, t_end) && "
                            "int8range($2::int8, $3::int8)"));
    return Status::Ok();
  }

  double ServerCpuSeconds() override {
    // utime and stime, fields 14 and 15 of /proc/PID/stat (after the command in parentheses).
    std::FILE* f =
        std::fopen(("/proc/" + std::to_string(PQbackendPID(conn_)) + "/stat").c_str(), "r");
    if (f == nullptr) return 0;
    char buf[1024];
    const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = 0;
    const char* p = std::strrchr(buf, ')');
    unsigned long utime = 0, stime = 0;
    if (p == nullptr || std::sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
                                    &utime, &stime) != 2)
      return 0;
    return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
  }

  StatusOr<uint64_t> DiskBytes() override {
    PGresult* r =
        PQexec(conn_,
               "SELECT pg_total_relation_size('intervals') + "
               "pg_total_relation_size('attributes') + pg_total_relation_size('strings')");
    if (PQresultStatus(r) != PGRES_TUPLES_OK) return Error(r, "size");
    const uint64_t bytes = static_cast<uint64_t>(ParseInt(PQgetvalue(r, 0, 0)));
    PQclear(r);
    return bytes;
  }

  Status At(uint32_t attribute, int64_t t, Interval* out) override {
    std::string a = std::to_string(attribute), ts = std::to_string(t);
    const char* params[] = {a.c_str(), ts.c_str()};
    PGresult* r = PQexecPrepared(conn_, "at", 2, params, nullptr, nullptr, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) return Error(r, "at");
    *out = Interval{};
    if (PQntuples(r) > 0) {
      *out = Row(r, 0);
      out->attribute = attribute;
    }
    PQclear(r);
    return Status::Ok();
  }

  Status AtAll(int64_t t, std::vector<Interval>* out) override {
    std::string ts = std::to_string(t);
    const char* params[] = {ts.c_str()};
    return Rows(PQexecPrepared(conn_, "at_all", 1, params, nullptr, nullptr, 0), out);
  }

  Status Range(std::span<const uint32_t> attributes, int64_t t1, int64_t t2, int64_t /*step*/,
               std::vector<Interval>* out) override {
    std::string array = "{";
    for (uint32_t a : attributes) {
      if (array.size() > 1) array += ',';
      AppendInt(&array, a);
    }
    array += '}';
    std::string s1 = std::to_string(t1), s2 = std::to_string(t2);
    const char* params[] = {array.c_str(), s1.c_str(), s2.c_str()};
    return Rows(PQexecPrepared(conn_, "range", 3, params, nullptr, nullptr, 0), out);
  }

 private:
  static std::string EscapeCopyText(const std::string& s) {
    std::string out;
    for (char c : s) {
      if (c == '\\' || c == '\t' || c == '\n' || c == '\r') out += '\\';
      out += c == '\t' ? 't' : c == '\n' ? 'n' : c == '\r' ? 'r' : c;
    }
    return out;
  }

  // Columns t_start, t_end, value, kind[, attr].
  static Interval Row(PGresult* r, int i) {
    Interval v;
    v.start = ParseInt(PQgetvalue(r, i, 0));
    v.end = ParseInt(PQgetvalue(r, i, 1));
    v.kind = static_cast<ValueKind>(ParseInt(PQgetvalue(r, i, 3)));
    v.value = PQgetisnull(r, i, 2) ? 0 : ParseInt(PQgetvalue(r, i, 2));
    if (PQnfields(r) > 4) v.attribute = static_cast<uint32_t>(ParseInt(PQgetvalue(r, i, 4)));
    return v;
  }

  Status Rows(PGresult* r, std::vector<Interval>* out) {
    if (PQresultStatus(r) != PGRES_TUPLES_OK) return Error(r, "query");
    out->clear();
    const int n = PQntuples(r);
    out->reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) out->push_back(Row(r, i));
    PQclear(r);
    return Status::Ok();
  }

  Status Error(PGresult* r, const std::string& what) {
    std::string m = what + ": " + (r ? PQresultErrorMessage(r) : PQerrorMessage(conn_));
    PQclear(r);
    return Internal("PostgreSQL " + m);
  }

  Status Exec(const char* sql) {
    PGresult* r = PQexec(conn_, sql);
    const ExecStatusType s = PQresultStatus(r);
    if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) return Error(r, sql);
    PQclear(r);
    return Status::Ok();
  }

  Status Prepare(const char* name, const char* sql) {
    PGresult* r = PQprepare(conn_, name, sql, 0, nullptr);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) return Error(r, sql);
    PQclear(r);
    return Status::Ok();
  }

  bool Flush(std::string* buf) {
    const bool ok = PQputCopyData(conn_, buf->data(), static_cast<int>(buf->size())) == 1;
    buf->clear();
    copy_failed_ |= !ok;
    return ok;
  }

  // COPY table FROM STDIN (FREEZE), with the rows `write` appends (and may flush).
  template <typename Write>
  Status Copy(const std::string& table, Write write) {
    const std::string sql = "COPY " + table + " FROM STDIN (FREEZE)";
    PGresult* r = PQexec(conn_, sql.c_str());
    if (PQresultStatus(r) != PGRES_COPY_IN) return Error(r, sql);
    PQclear(r);
    copy_failed_ = false;
    std::string buf;
    write(&buf);
    if (!buf.empty()) Flush(&buf);
    if (PQputCopyEnd(conn_, copy_failed_ ? "write failed" : nullptr) != 1)
      return Error(nullptr, sql);
    r = PQgetResult(conn_);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) return Error(r, sql);
    PQclear(r);
    while ((r = PQgetResult(conn_)) != nullptr) PQclear(r);
    return Status::Ok();
  }

  PGconn* conn_;
  bool copy_failed_ = false;
};

}  // namespace

StatusOr<std::unique_ptr<Backend>> ConnectPostgres(const std::string& conninfo) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string m = PQerrorMessage(conn);
    PQfinish(conn);
    return Internal("cannot connect to PostgreSQL (" + conninfo + "): " + m);
  }
  // Notices ("table does not exist, skipping") are not the benchmark's output.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  return std::unique_ptr<Backend>(new PostgresBackend(conn));
}

}  // namespace causeway::bench
