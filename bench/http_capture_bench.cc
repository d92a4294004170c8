// Cost of the recorder's HTTP capture (not a test): the same loopback workloads recorded with
// `causeway record` and with `causeway record --no-http`, interleaved, RUNS times each.
//   http   an HTTP/1.1 request (with a traceparent header) and its response per round trip,
//          on one keep-alive TCP connection between two threads, with read() and write()
//   tcp    the same sizes of bytes that do not look like HTTP: what other TCP traffic pays
//   pipe   the same over two pipes: reads and writes that are not on a socket
// Every round trip moves four messages (two writes, two reads). The cost per message is
// (recorded with capture - recorded without) / 4, from the medians; the goal is <= 1 us per
// HTTP message and nothing measurable for the rest.
//
// The end-to-end difference includes the recorder's own work (parsing, writing) competing for
// the CPUs, and moves with the machine's load. So the kernel side is also timed alone: the
// run enables the kernel's BPF run-time statistics (BPF_ENABLE_STATS: on while the returned
// descriptor is open, so they turn off by themselves when the bench ends or dies), and the
// workload, run by the recorder, reads its HTTP programs' run time and run count before and
// after. Those figures include the statistics' own clock reads.
//
// Usage: http_capture_bench CAUSEWAY [--round-trips N] [--runs R]   (as root)
//        http_capture_bench --child KIND N OUT   (one workload: writes ns per round trip,
//        then ns per send and per receive in the HTTP programs)
#include <linux/bpf.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

constexpr char kRequest[] =
    "GET /api/items/42 HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: bench\r\nAccept: */*\r\n"
    "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\n\r\n";
constexpr char kResponse[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

[[noreturn]] void Die(const char* what) {
  std::perror(what);
  std::exit(1);
}

// Reads exactly `n` bytes (a message may arrive in pieces).
void ReadAll(int fd, char* buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = read(fd, buf + got, n - got);
    if (r <= 0) Die("read");
    got += static_cast<size_t>(r);
  }
}

void WriteAll(int fd, const char* buf, size_t n) {
  if (write(fd, buf, n) != static_cast<ssize_t>(n)) Die("write");
}

// Two connected descriptor pairs: {client end, server end} for each direction's use.
struct Ends {
  int client_out, server_in, server_out, client_in;
};

Ends TcpEnds() {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  if (bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 || listen(listener, 1) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    Die("listen");
  const int client = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(client, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) Die("connect");
  const int server = accept(listener, nullptr, nullptr);
  if (server < 0) Die("accept");
  close(listener);
  return {client, server, server, client};
}

Ends PipeEnds() {
  int up[2], down[2];
  if (pipe(up) != 0 || pipe(down) != 0) Die("pipe");
  return {up[1], up[0], down[1], down[0]};
}

// Runs N round trips of `kind` and returns the mean ns per round trip.
double RunWorkload(const std::string& kind, int n) {
  std::string request = kRequest, response = kResponse;
  if (kind != "http") {  // same sizes, bytes no HTTP message starts with
    std::fill(request.begin(), request.end(), '\x01');
    std::fill(response.begin(), response.end(), '\x02');
  }
  const Ends e = kind == "pipe" ? PipeEnds() : TcpEnds();
  std::thread server([&] {
    std::vector<char> buf(request.size());
    for (int i = 0; i < n; ++i) {
      ReadAll(e.server_in, buf.data(), buf.size());
      WriteAll(e.server_out, response.data(), response.size());
    }
  });
  std::vector<char> buf(response.size());
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    WriteAll(e.client_out, request.data(), request.size());
    ReadAll(e.client_in, buf.data(), buf.size());
  }
  const auto t1 = std::chrono::steady_clock::now();
  server.join();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / n;
}

long Bpf(int cmd, bpf_attr* attr) { return syscall(__NR_bpf, cmd, attr, sizeof(*attr)); }

// Total run time and run count of a program of the recorder (our parent) by name.
struct ProgramTime {
  uint64_t ns = 0, runs = 0;
};
ProgramTime RecorderProgram(const std::string& name) {
  ProgramTime t;
  std::error_code ec;
  const std::string dir = "/proc/" + std::to_string(getppid()) + "/fdinfo";
  for (const auto& fd : std::filesystem::directory_iterator(dir, ec)) {
    std::ifstream in(fd.path());
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("prog_id:", 0) != 0) continue;
      bpf_attr get{};
      get.prog_id = static_cast<uint32_t>(std::stoul(line.substr(8)));
      const int prog = static_cast<int>(Bpf(BPF_PROG_GET_FD_BY_ID, &get));
      if (prog < 0) continue;
      bpf_prog_info info{};
      bpf_attr q{};
      q.info.bpf_fd = static_cast<uint32_t>(prog);
      q.info.info_len = sizeof(info);
      q.info.info = reinterpret_cast<uint64_t>(&info);
      if (Bpf(BPF_OBJ_GET_INFO_BY_FD, &q) == 0 && name.rfind(info.name, 0) == 0) {
        t.ns = info.run_time_ns;
        t.runs = info.run_cnt;
      }
      close(prog);
    }
  }
  return t;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

struct Sample {
  double ns_per_round_trip = 0;
  double send_ns = 0, receive_ns = 0;  // in the HTTP programs, per run
  int64_t http_messages = 0;
  int64_t lost = 0;
};

Sample Recorded(const std::string& cli, const std::string& self, const std::string& kind, int n,
                bool capture, const std::string& tmp) {
  std::filesystem::remove_all(tmp + "/rec");
  const std::string out = tmp + "/child";
  const std::string cmd = cli + " record -o " + tmp + "/rec --format json" +
                          (capture ? "" : " --no-http") + " -- " + self + " --child " + kind + " " +
                          std::to_string(n) + " " + out + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) Die("popen");
  std::string summary;
  char buf[4096];
  size_t got;
  while ((got = fread(buf, 1, sizeof(buf), p)) > 0) summary.append(buf, got);
  if (pclose(p) != 0) {
    std::fprintf(stderr, "http_capture_bench: failed: %s\n", cmd.c_str());
    std::exit(1);
  }
  Sample s;
  std::ifstream(out) >> s.ns_per_round_trip >> s.send_ns >> s.receive_ns;
  const nlohmann::json j = nlohmann::json::parse(summary);
  s.http_messages = j["http"]["messages"].get<int64_t>();
  s.lost = j["lost"].get<int64_t>();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]) == "--child") {
    // The program names as the kernel keeps them (16 bytes with the NUL).
    const std::string send = "on_tcp_sendmsg_locked", receive = "on_sock_recv_length";
    const ProgramTime send0 = RecorderProgram(send), receive0 = RecorderProgram(receive);
    const double ns = RunWorkload(argv[2], std::atoi(argv[3]));
    const ProgramTime send1 = RecorderProgram(send), receive1 = RecorderProgram(receive);
    auto per_run = [](ProgramTime a, ProgramTime b) {
      return b.runs > a.runs ? static_cast<double>(b.ns - a.ns) / (b.runs - a.runs) : 0.0;
    };
    std::ofstream(argv[4]) << ns << " " << per_run(send0, send1) << " "
                           << per_run(receive0, receive1) << "\n";
    return 0;
  }
  if (argc < 2) {
    std::fprintf(stderr, "usage: http_capture_bench CAUSEWAY [--round-trips N] [--runs R]\n");
    return 2;
  }
  const std::string cli = argv[1];
  int n = 20000, runs = 7;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--round-trips") n = std::atoi(argv[i + 1]);
    if (a == "--runs") runs = std::atoi(argv[i + 1]);
  }
  const std::string self = std::filesystem::canonical("/proc/self/exe").string();
  char tmpl[] = "/tmp/http_capture_bench.XXXXXX";
  if (!mkdtemp(tmpl)) Die("mkdtemp");
  const std::string tmp = tmpl;
  bpf_attr stats{};
  stats.enable_stats.type = BPF_STATS_RUN_TIME;
  const long stats_fd = Bpf(BPF_ENABLE_STATS, &stats);  // closed at exit: stats off again
  if (stats_fd < 0) std::perror("BPF_ENABLE_STATS (no kernel-side figures)");
  std::printf("%d round trips (4 messages each), median of %d interleaved runs\n", n, runs);
  std::printf("%-5s %13s %13s %7s %15s %9s %15s\n", "kind", "--no-http ns", "capture ns", "ratio",
              "us per message", "captured", "BPF send/recv");
  for (const std::string kind : {"http", "tcp", "pipe"}) {
    std::vector<double> off, on, send_ns, receive_ns;
    int64_t captured = 0, lost = 0;
    for (int r = 0; r < runs; ++r) {
      // Alternate which goes first, so drift on a shared machine hits both sides alike.
      for (const bool capture :
           r % 2 ? std::vector<bool>{true, false} : std::vector<bool>{false, true}) {
        const Sample s = Recorded(cli, self, kind, n, capture, tmp);
        (capture ? on : off).push_back(s.ns_per_round_trip);
        if (capture) {
          send_ns.push_back(s.send_ns);
          receive_ns.push_back(s.receive_ns);
        }
        if (capture) captured = s.http_messages;
        lost += s.lost;
      }
    }
    const double a = Median(off), b = Median(on);
    std::printf("%-5s %13.0f %13.0f %7.3f %15.3f %9lld %7.0f/%-4.0f ns%s\n", kind.c_str(), a, b,
                b / a, (b - a) / 4 / 1000, static_cast<long long>(captured), Median(send_ns),
                Median(receive_ns), lost ? " (records lost: figures are suspect)" : "");
  }
  std::filesystem::remove_all(tmp);
  std::printf(
      "captured: http_message events of the last capture run (all processes)\n"
      "BPF send/recv: time in the HTTP programs per TCP send / receive (0: never ran)\n");
  return 0;
}
