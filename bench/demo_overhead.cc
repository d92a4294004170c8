// Tracing overhead on the demo under one fixed load (seed 000 Table 2's setup):
//   A   no tracing            causeway-demo run --tracing none
//   B   spans only            causeway-demo run (OTLP JSON spans)
//   C-1 spans + kernel, snapshot mode   causeway record --snapshot -- causeway-demo run
//   C-2 spans + kernel to disk          causeway record -- causeway-demo run
//   C-3 C-2 without the HTTP capture    causeway record --no-http -- causeway-demo run
// The five configurations run interleaved, RUNS times each; the table gives the medians of
// mean latency, p99 latency and throughput, and C-1, C-2 relative to B.
//
// With --suite pivot, Pivot Tracing's cost instead (seed 001 Table 3's setup), against a real
// nats-server started here:
//   B   spans, no agents
//   P-0 spans + an agent in every process, no query
//   P-5 spans + agents + five queries installed with `causeway pivot` (the paper's Q3-Q7:
//       counts, sums, a happened-before join through the baggage, averages)
//
// Usage: demo_overhead CAUSEWAY CAUSEWAY_DEMO [--suite tracing|pivot] [--runs N] [--rate R]
//        [--duration S] [--warmup S]
// (scripts/bench_overhead.sh and scripts/bench_pivot.sh build and run it).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

struct Sample {
  double mean_ms = 0, p99_ms = 0, rps = 0;
};

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Runs `cmd` and returns its standard output; exits on failure.
std::string Run(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    std::perror("popen");
    std::exit(1);
  }
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  const int st = pclose(p);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    std::fprintf(stderr, "demo_overhead: command failed (status %d): %s\n", st, cmd.c_str());
    std::exit(1);
  }
  return out;
}

// The demo's summary among the JSON documents on stdout (the recorder prints its own too).
Sample Parse(const std::string& out) {
  std::istringstream in(out);
  while (in >> std::ws && in.peek() != EOF) {
    nlohmann::json j;
    try {
      in >> j;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "demo_overhead: unreadable output: %s\n%s\n", e.what(), out.c_str());
      std::exit(1);
    }
    if (j.contains("p99_ms")) {
      if (j.value("errors", 0) != 0) {
        std::fprintf(stderr, "demo_overhead: the demo reported errors:\n%s\n", out.c_str());
        std::exit(1);
      }
      return {j["mean_ms"].get<double>(), j["p99_ms"].get<double>(),
              j["throughput_rps"].get<double>()};
    }
  }
  std::fprintf(stderr, "demo_overhead: no demo summary in:\n%s\n", out.c_str());
  std::exit(1);
}

// A background process (nats-server, `causeway pivot`), stopped with SIGINT.
pid_t Start(const std::string& cmd) {
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), nullptr);
    _exit(127);
  }
  return pid;
}

void Stop(pid_t pid) {
  kill(pid, SIGINT);
  waitpid(pid, nullptr, 0);
}

// The queries of the P-5 configuration, in the shapes of seed 001's Q3-Q7.
const char* const kPivotQueries[] = {
    "From r In demo:request GroupBy r.host, r.service Select r.host, r.service, COUNT",
    "From b In demo:bytes_written Join c In First(demo:client_request) On c -> b "
    "GroupBy c.client, b.service Select c.client, b.service, SUM(b.bytes)",
    "From r In demo:bytes_read Join c In First(demo:client_request) On c -> r "
    "GroupBy c.client, r.from Select c.client, r.from, SUM(r.bytes), COUNT",
    "From d In demo:driver_chosen GroupBy d.driver Select d.driver, COUNT, AVERAGE(d.eta_s)",
    "From b In demo:bytes_written Where b.bytes > 100 GroupBy b.service "
    "Select b.service, MIN(b.bytes), MAX(b.bytes), AVERAGE(b.bytes)",
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: demo_overhead CAUSEWAY CAUSEWAY_DEMO [--runs N] [--rate R] "
                 "[--duration S] [--warmup S]\n");
    return 2;
  }
  const std::string causeway = argv[1], demo = argv[2];
  int runs = 5;
  double rate = 50, duration = 10, warmup = 2;
  std::string suite = "tracing";
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--runs") {
      runs = std::atoi(argv[i + 1]);
    } else if (flag == "--rate") {
      rate = std::atof(argv[i + 1]);
    } else if (flag == "--duration") {
      duration = std::atof(argv[i + 1]);
    } else if (flag == "--warmup") {
      warmup = std::atof(argv[i + 1]);
    } else if (flag == "--suite") {
      suite = argv[i + 1];
      if (suite != "tracing" && suite != "pivot") {
        std::fprintf(stderr, "demo_overhead: --suite is tracing or pivot\n");
        return 2;
      }
    } else {
      std::fprintf(stderr, "demo_overhead: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  const std::string tmp = "/tmp/causeway-demo-overhead";
  std::filesystem::remove_all(tmp);
  std::filesystem::create_directories(tmp);
  char load[128];
  // The first seconds (services starting, the recorder's first drains) are sent but not
  // measured: the table compares steady states.
  std::snprintf(load, sizeof(load), " run --rate %g --duration %g --warmup %g --format json", rate,
                duration, warmup);
  struct Config {
    const char* name;
    std::string cmd;
    std::vector<Sample> samples;
    bool queries = false;  // install kPivotQueries around the run
  };
  const std::string nats_url = "nats://127.0.0.1:14259";
  pid_t nats = -1;
  uint64_t query_firings = 0;  // P-5: firings the queries saw, all runs
  std::vector<Config> configs;
  if (suite == "pivot") {
    nats = Start("nats-server -a 127.0.0.1 -p 14259 >/dev/null 2>&1");
    sleep(1);
    const std::string spans = " --spans-dir " + tmp + "/spans";
    configs = {
        {"B   spans, no agents", demo + load + spans, {}},
        {"P-0 agents, no query", demo + load + spans + " --pivot " + nats_url, {}},
        {"P-5 agents, 5 queries", demo + load + spans + " --pivot " + nats_url, {}, true},
    };
  } else {
    configs = {
        {"A   no tracing", demo + load + " --tracing none", {}},
        {"B   spans", demo + load + " --spans-dir " + tmp + "/spans", {}},
        {"C-1 spans + kernel snapshot",
         causeway + " record --snapshot -o " + tmp + "/rec --format json -- " + demo + load,
         {}},
        {"C-2 spans + kernel to disk",
         causeway + " record -o " + tmp + "/rec --format json -- " + demo + load,
         {}},
        // The recorder's HTTP capture (on in C-1 and C-2) alone: C-2 against C-3.
        {"C-3 C-2 without HTTP capture",
         causeway + " record --no-http -o " + tmp + "/rec --format json -- " + demo + load,
         {}},
    };
  }
  for (int r = 0; r < runs; ++r) {
    for (Config& c : configs) {
      std::filesystem::remove_all(tmp + "/rec");
      std::filesystem::remove_all(tmp + "/spans");
      std::fprintf(stderr, "run %d/%d: %s\n", r + 1, runs, c.name);
      std::vector<pid_t> queries;
      if (c.queries) {
        for (size_t q = 0; q < std::size(kPivotQueries); ++q) {
          queries.push_back(Start(causeway + " pivot '" + kPivotQueries[q] + "' --nats " +
                                  nats_url + " --format jsonl >" + tmp + "/q" + std::to_string(q) +
                                  ".jsonl 2>/dev/null"));
        }
        sleep(1);  // installed (the agents also ask for them when they start)
      }
      c.samples.push_back(Parse(Run(c.cmd + " 2>/dev/null")));
      for (pid_t q : queries) Stop(q);
      // The queries must really have run: their totals count the firings they saw.
      for (size_t q = 0; q < queries.size(); ++q) {
        std::ifstream in(tmp + "/q" + std::to_string(q) + ".jsonl");
        std::string line, last;
        while (std::getline(in, line)) last = line;
        const auto j = nlohmann::json::parse(last, nullptr, false);
        const uint64_t firings = j.is_object() ? j["stats"].value("firings", uint64_t{0}) : 0;
        if (firings == 0 || j["rows"].empty()) {
          std::fprintf(stderr, "demo_overhead: query %zu saw nothing: %s\n", q, last.c_str());
          return 1;
        }
        query_firings += firings;
      }
    }
  }
  std::filesystem::remove_all(tmp);
  if (nats > 0) Stop(nats);

  std::printf("demo at %g requests/s for %g s, %d interleaved runs each, medians\n", rate, duration,
              runs);
  std::printf("%-30s %10s %10s %12s %14s %14s\n", "configuration", "mean ms", "p99 ms", "req/s",
              "mean vs B", "p99 vs B");
  double b_mean = 0, b_p99 = 0;
  for (const Config& c : configs) {
    std::vector<double> mean, p99, rps;
    for (const Sample& s : c.samples) {
      mean.push_back(s.mean_ms);
      p99.push_back(s.p99_ms);
      rps.push_back(s.rps);
    }
    const double m = Median(mean), p = Median(p99), t = Median(rps);
    if (c.name[0] == 'B') {
      b_mean = m;
      b_p99 = p;
    }
    if ((c.name[0] == 'C' || c.name[0] == 'P') && b_mean > 0) {
      std::printf("%-30s %10.2f %10.2f %12.1f %+13.1f%% %+13.1f%%\n", c.name, m, p, t,
                  100 * (m / b_mean - 1), 100 * (p / b_p99 - 1));
    } else {
      std::printf("%-30s %10.2f %10.2f %12.1f %14s %14s\n", c.name, m, p, t, "", "");
    }
  }
  if (query_firings > 0) {
    std::printf("P-5: the five queries saw %.0f tracepoint firings per run\n",
                static_cast<double>(query_firings) / runs);
  }
  return 0;
}
