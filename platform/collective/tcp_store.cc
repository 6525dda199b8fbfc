#include "platform/collective/tcp_store.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "platform/enforce.h"

namespace paddle_like {
namespace platform {
namespace collective {

namespace {

constexpr uint32_t kMaxKeyBytes = 4096;
constexpr uint32_t kMaxValueBytes = 64u << 20;

// Reads exactly n bytes; false on a closed or broken connection.
bool ReadAll(int fd, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t r = ::recv(fd, p, n, 0);
    if (r == 0) return false;
    if (r < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

bool WriteAll(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool WriteString(int fd, const std::string& s) {
  const uint32_t n = static_cast<uint32_t>(s.size());
  return WriteAll(fd, &n, sizeof(n)) && WriteAll(fd, s.data(), s.size());
}

bool ReadString(int fd, uint32_t limit, std::string* s) {
  uint32_t n = 0;
  if (!ReadAll(fd, &n, sizeof(n)) || n > limit) return false;
  s->resize(n);
  return n == 0 || ReadAll(fd, &(*s)[0], n);
}

void NoDelay(int fd) {
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

}  // namespace

TcpStoreServer::TcpStoreServer(int port) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  PL_ENFORCE(listen_fd_ >= 0, errors::Unavailable("rendezvous store: socket() failed: %s",
                                                  std::strerror(errno)));
  const int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::listen(listen_fd_, 128) != 0) {
    const std::string reason = std::strerror(errno);
    ::close(listen_fd_);
    throw errors::Unavailable("rendezvous store: cannot listen on port %d: %s (is another job "
                              "using it? choose another master port)",
                              port, reason);
  }
  socklen_t len = sizeof(addr);
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  accept_thread_ = std::thread([this] { AcceptLoop(); });
}

TcpStoreServer::~TcpStoreServer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (int fd : client_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  ::shutdown(listen_fd_, SHUT_RDWR);
  accept_thread_.join();
  for (std::thread& t : threads_) t.join();
  ::close(listen_fd_);
}

void TcpStoreServer::AcceptLoop() {
  for (;;) {
    pollfd p{listen_fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, 100);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
    }
    if (ready <= 0) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    NoDelay(fd);
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) {
      ::close(fd);
      return;
    }
    client_fds_.push_back(fd);
    threads_.emplace_back([this, fd] { Serve(fd); });
  }
}

void TcpStoreServer::Serve(int fd) {
  for (;;) {
    char command = 0;
    std::string key;
    if (!ReadAll(fd, &command, 1) || !ReadString(fd, kMaxKeyBytes, &key)) break;
    if (command == 'S') {
      std::string value;
      if (!ReadString(fd, kMaxValueBytes, &value)) break;
      {
        std::lock_guard<std::mutex> lock(mu_);
        values_[key] = std::move(value);
      }
      const char ok = 1;
      if (!WriteAll(fd, &ok, 1)) break;
    } else if (command == 'G') {
      std::string value;
      char found = 0;
      {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = values_.find(key);
        if (it != values_.end()) {
          found = 1;
          value = it->second;
        }
      }
      if (!WriteAll(fd, &found, 1) || (found && !WriteString(fd, value))) break;
    } else {
      break;  // Not a store client.
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  // The fd stays in client_fds_ until the destructor, which only shuts it down; close it
  // here so a long job does not keep dead connections open.
  for (int& f : client_fds_) {
    if (f == fd) f = -1;
  }
  ::close(fd);
}

TcpStoreClient::TcpStoreClient(const std::string& host, int port,
                               std::chrono::milliseconds timeout)
    : where_(host + ":" + std::to_string(port)), timeout_(timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last_error = "no attempt";
  for (;;) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
    if (rc != 0) {
      last_error = std::string("cannot resolve the host: ") + ::gai_strerror(rc);
    } else {
      for (addrinfo* a = found; a != nullptr && fd_ < 0; a = a->ai_next) {
        const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
          fd_ = fd;
        } else {
          last_error = std::strerror(errno);
          ::close(fd);
        }
      }
      ::freeaddrinfo(found);
    }
    if (fd_ >= 0) break;
    PL_ENFORCE(std::chrono::steady_clock::now() < deadline,
               errors::Unavailable("rendezvous store at %s: no connection within %lld s (%s): "
                                   "is rank 0 running?",
                                   where_, static_cast<long long>(timeout.count() / 1000),
                                   last_error));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  NoDelay(fd_);
}

TcpStoreClient::~TcpStoreClient() {
  if (fd_ >= 0) ::close(fd_);
}

void TcpStoreClient::Set(const std::string& key, const std::string& value) {
  PL_ENFORCE(key.size() <= kMaxKeyBytes && value.size() <= kMaxValueBytes,
             errors::InvalidArgument("rendezvous store: key `%s` or its value (%zu bytes) is too "
                                     "large",
                                     key.substr(0, 64), value.size()));
  const char command = 'S';
  char ok = 0;
  PL_ENFORCE(WriteAll(fd_, &command, 1) && WriteString(fd_, key) && WriteString(fd_, value) &&
                 ReadAll(fd_, &ok, 1),
             errors::Unavailable("rendezvous store at %s: connection lost while setting `%s` "
                                 "(did rank 0 exit?)",
                                 where_, key));
}

bool TcpStoreClient::TryGet(const std::string& key, std::string* value) {
  const char command = 'G';
  char found = 0;
  PL_ENFORCE(WriteAll(fd_, &command, 1) && WriteString(fd_, key) && ReadAll(fd_, &found, 1) &&
                 (!found || ReadString(fd_, kMaxValueBytes, value)),
             errors::Unavailable("rendezvous store at %s: connection lost while reading `%s` "
                                 "(did rank 0 exit?)",
                                 where_, key));
  return found != 0;
}

bool TcpStoreClient::Check(const std::string& key) {
  std::string ignored;
  return TryGet(key, &ignored);
}

std::string TcpStoreClient::Get(const std::string& key) {
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  auto pause = std::chrono::milliseconds(1);
  std::string value;
  while (!TryGet(key, &value)) {
    PL_ENFORCE(std::chrono::steady_clock::now() < deadline,
               errors::Unavailable("rendezvous store at %s: `%s` was not set within %lld s: a "
                                   "rank did not start or did not reach the same collective",
                                   where_, key, static_cast<long long>(timeout_.count() / 1000)));
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  return value;
}

}  // namespace collective
}  // namespace platform
}  // namespace paddle_like
