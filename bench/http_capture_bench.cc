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
// Usage: http_capture_bench CAUSEWAY [--round-trips N] [--runs R]   (as root)
//        http_capture_bench --child KIND N OUT   (one workload: writes ns per round trip)
#include <netinet/in.h>
#include <sys/socket.h>
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

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

struct Sample {
  double ns_per_round_trip = 0;
  int64_t http_messages = 0;
  int64_t lost = 0;
};

Sample Recorded(const std::string& cli, const std::string& self, const std::string& kind, int n,
                bool capture, const std::string& tmp) {
  std::filesystem::remove_all(tmp + "/rec");
  const std::string out = tmp + "/child";
  const std::string cmd = cli + " record -o " + tmp + "/rec --format json" +
                          (capture ? "" : " --no-http") + " -- " + self + " --child " + kind +
                          " " + std::to_string(n) + " " + out + " 2>/dev/null";
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
  std::ifstream(out) >> s.ns_per_round_trip;
  const nlohmann::json j = nlohmann::json::parse(summary);
  s.http_messages = j["http"]["messages"].get<int64_t>();
  s.lost = j["lost"].get<int64_t>();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]) == "--child") {
    const double ns = RunWorkload(argv[2], std::atoi(argv[3]));
    std::ofstream(argv[4]) << ns << "\n";
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
  std::printf("%d round trips (4 messages each), median of %d interleaved runs\n", n, runs);
  std::printf("%-5s %14s %14s %10s %16s %10s\n", "kind", "--no-http ns", "capture ns", "ratio",
              "us per message", "captured");
  for (const std::string kind : {"http", "tcp", "pipe"}) {
    std::vector<double> off, on;
    int64_t captured = 0, lost = 0;
    for (int r = 0; r < runs; ++r) {
      // Alternate which goes first, so drift on a shared machine hits both sides alike.
      for (const bool capture : r % 2 ? std::vector<bool>{true, false}
                                      : std::vector<bool>{false, true}) {
        const Sample s = Recorded(cli, self, kind, n, capture, tmp);
        (capture ? on : off).push_back(s.ns_per_round_trip);
        if (capture) captured = s.http_messages;
        lost += s.lost;
      }
    }
    const double a = Median(off), b = Median(on);
    std::printf("%-5s %14.0f %14.0f %10.3f %16.3f %10lld%s\n", kind.c_str(), a, b, b / a,
                (b - a) / 4 / 1000, static_cast<long long>(captured),
                lost ? " (records lost: figures are suspect)" : "");
  }
  std::filesystem::remove_all(tmp);
  std::printf("captured: http_message events of the last capture run (all processes)\n");
  return 0;
}
