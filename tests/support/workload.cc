// causeway_workload: small programs whose kernel activity the recorder tests know in
// advance. Each writes what the test needs to check (thread ids, ports) to INFO_FILE as
// "key=value" lines.
//
//   causeway_workload pipe-pingpong N INFO_FILE   two threads, N round trips over two pipes
//   causeway_workload tcp-pingpong N INFO_FILE    two processes, N round trips over TCP on
//                                                 127.0.0.1 (server forked from the client)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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

int TcpPingPong(int n, FILE* info) {
  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listener < 0) Die("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) Die("bind");
  socklen_t len = sizeof(addr);
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  if (::listen(listener, 1) != 0) Die("listen");
  const int port = ntohs(addr.sin_port);
  int report[2];
  if (::pipe(report) != 0) Die("pipe");
  const pid_t server = ::fork();
  if (server < 0) Die("fork");
  if (server == 0) {
    int tid = Tid();
    (void)!::write(report[1], &tid, sizeof(tid));
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
  ReadExact(report[0], reinterpret_cast<char*>(&server_tid), sizeof(server_tid));
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  if (::connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) Die("connect");
  char buf[64] = "ping";
  for (int i = 0; i < n; ++i) {
    WriteExact(s, buf, sizeof(buf));
    ReadExact(s, buf, sizeof(buf));
  }
  ::close(s);
  int status = 0;
  ::waitpid(server, &status, 0);
  std::fprintf(info, "port=%d\nclient_tid=%d\nserver_tid=%d\n", port, Tid(), server_tid);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: causeway_workload pipe-pingpong|tcp-pingpong N INFO_FILE\n");
    return 2;
  }
  const std::string mode = argv[1];
  const int n = std::atoi(argv[2]);
  FILE* info = std::fopen(argv[3], "w");
  if (!info) Die("open info file");
  int rc = 2;
  if (mode == "pipe-pingpong") rc = PipePingPong(n, info);
  if (mode == "tcp-pingpong") rc = TcpPingPong(n, info);
  std::fclose(info);
  return rc;
}
