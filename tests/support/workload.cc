// causeway_workload: small programs whose kernel activity the recorder tests know in
// advance. Each writes what the test needs to check (thread ids, ports) to INFO_FILE as
// "key=value" lines.
//
//   causeway_workload pipe-pingpong N INFO_FILE   two threads, N round trips over two pipes
//   causeway_workload tcp-pingpong N INFO_FILE    two processes, N round trips over TCP on
//                                                 127.0.0.1 (server forked from the client)
//   causeway_workload tcp-netns N INFO_FILE CLIENT_NS SERVER_NS SERVER_ADDR
//                                                 the same between two network namespaces
//                                                 (/var/run/netns/NAME, as `ip netns` makes
//                                                 them): the server in SERVER_NS listens on
//                                                 SERVER_ADDR, the client in CLIENT_NS;
//                                                 0.5 ms between round trips, so that the
//                                                 exchange spans about a second (drift)
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

int Tid() { return static_cast<int>(::syscall(SYS_gettid)); }

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "causeway_workload: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

void ReadExact(int fd, char* buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::read(fd, buf + got, n - got);
    if (r <= 0) Die("read");
    got += static_cast<size_t>(r);
  }
}

void WriteExact(int fd, const char* buf, size_t n) {
  if (::write(fd, buf, n) != static_cast<ssize_t>(n)) Die("write");
}

int PipePingPong(int n, FILE* info) {
  int ab[2], ba[2];
  if (::pipe(ab) != 0 || ::pipe(ba) != 0) Die("pipe");
  int pong_tid = 0;
  std::thread pong([&] {
    pong_tid = Tid();
    char c;
    for (int i = 0; i < n; ++i) {
      ReadExact(ab[0], &c, 1);
      WriteExact(ba[1], &c, 1);
    }
  });
  char c = 'x';
  for (int i = 0; i < n; ++i) {
    WriteExact(ab[1], &c, 1);
    ReadExact(ba[0], &c, 1);
  }
  pong.join();
  std::fprintf(info, "ping_tid=%d\npong_tid=%d\n", Tid(), pong_tid);
  return 0;
}

// Moves the calling thread into a named network namespace (sockets it creates live there).
void EnterNetns(const char* name) {
  const std::string path = std::string("/var/run/netns/") + name;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) Die(path.c_str());
  if (::setns(fd, CLONE_NEWNET) != 0) Die("setns");
  ::close(fd);
}

// Without namespaces: both ends on 127.0.0.1. With them: the server listens on
// `server_addr` inside `server_ns`, the client connects from `client_ns`.
int TcpPingPong(int n, FILE* info, const char* client_ns = nullptr, const char* server_ns = nullptr,
                const char* server_addr = nullptr) {
  int report[2];
  if (::pipe(report) != 0) Die("pipe");
  const pid_t server = ::fork();
  if (server < 0) Die("fork");
  if (server == 0) {
    if (server_ns) EnterNetns(server_ns);
    int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    if (listener < 0) Die("socket");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (server_addr && ::inet_pton(AF_INET, server_addr, &addr.sin_addr) != 1) Die("address");
    if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) Die("bind");
    socklen_t len = sizeof(addr);
    ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
    if (::listen(listener, 1) != 0) Die("listen");
    int tid = Tid();
    (void)!::write(report[1], &tid, sizeof(tid));
    (void)!::write(report[1], &addr, sizeof(addr));
    int conn = ::accept(listener, nullptr, nullptr);
    if (conn < 0) Die("accept");
    char buf[64];
    for (int i = 0; i < n; ++i) {
      ReadExact(conn, buf, sizeof(buf));
      WriteExact(conn, buf, sizeof(buf));
    }
    ::close(conn);
    std::_Exit(0);
  }
  int server_tid = 0;
  sockaddr_in addr{};
  ReadExact(report[0], reinterpret_cast<char*>(&server_tid), sizeof(server_tid));
  ReadExact(report[0], reinterpret_cast<char*>(&addr), sizeof(addr));
  const int port = ntohs(addr.sin_port);
  if (client_ns) EnterNetns(client_ns);
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  if (::connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) Die("connect");
  char buf[64] = "ping";
  for (int i = 0; i < n; ++i) {
    WriteExact(s, buf, sizeof(buf));
    ReadExact(s, buf, sizeof(buf));
    if (client_ns) ::usleep(500);
  }
  ::close(s);
  int status = 0;
  ::waitpid(server, &status, 0);
  std::fprintf(info, "port=%d\nclient_tid=%d\nserver_tid=%d\n", port, Tid(), server_tid);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const bool netns = argc == 7 && std::string(argv[1]) == "tcp-netns";
  if (argc != 4 && !netns) {
    std::fprintf(stderr,
                 "usage: causeway_workload pipe-pingpong|tcp-pingpong N INFO_FILE\n"
                 "       causeway_workload tcp-netns N INFO_FILE CLIENT_NS SERVER_NS "
                 "SERVER_ADDR\n");
    return 2;
  }
  const std::string mode = argv[1];
  const int n = std::atoi(argv[2]);
  FILE* info = std::fopen(argv[3], "w");
  if (!info) Die("open info file");
  int rc = 2;
  if (mode == "pipe-pingpong") rc = PipePingPong(n, info);
  if (mode == "tcp-pingpong") rc = TcpPingPong(n, info);
  if (netns) rc = TcpPingPong(n, info, argv[4], argv[5], argv[6]);
  std::fclose(info);
  return rc;
}
