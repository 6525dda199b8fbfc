// The rendezvous store of a distributed job: a key-value map that rank 0 serves over TCP at
// the master endpoint and every rank reads and writes, so that the ranks can exchange the
// addresses their communicators connect to (PaddlePaddle's TCPStore plays the same part).
//
// Wire format, one request per message on a connection: a command byte ('S' set, 'G' get),
// the key (u32 length + bytes) and, for a set, the value (u32 length + bytes). A set is
// answered with one byte; a get with a found byte and, when found, the value. Keys are at
// most 4 KiB and values at most 64 MiB; a connection that breaks these limits is closed.
//
// Threading: the server answers each connection on its own thread; a client is used by one
// thread at a time.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace paddle_like {
namespace platform {
namespace collective {

class TcpStoreServer {
 public:
  // Listens on every interface at `port` (0: a free port, see port()). UnavailableError when
  // the port cannot be bound (names the port and the reason).
  explicit TcpStoreServer(int port);
  ~TcpStoreServer();
  TcpStoreServer(const TcpStoreServer&) = delete;
  TcpStoreServer& operator=(const TcpStoreServer&) = delete;

  int port() const { return port_; }

 private:
  void AcceptLoop();
  void Serve(int fd);

  int listen_fd_ = -1;
  int port_ = 0;
  std::mutex mu_;  // Guards values_, client_fds_, stopping_.
  std::map<std::string, std::string> values_;
  std::vector<int> client_fds_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;  // Connection threads (touched by the accept thread).
  std::thread accept_thread_;
};

class TcpStoreClient {
 public:
  // Connects to host:port, retrying until `timeout` passes (the server may start later);
  // UnavailableError then.
  TcpStoreClient(const std::string& host, int port, std::chrono::milliseconds timeout);
  ~TcpStoreClient();
  TcpStoreClient(const TcpStoreClient&) = delete;
  TcpStoreClient& operator=(const TcpStoreClient&) = delete;

  void Set(const std::string& key, const std::string& value);
  // The value of `key`, waiting until some rank sets it; UnavailableError after the timeout
  // (names the key) or when the server goes away.
  std::string Get(const std::string& key);
  // Whether `key` is set now.
  bool Check(const std::string& key);

  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  bool TryGet(const std::string& key, std::string* value);

  int fd_ = -1;
  std::string where_;  // "host:port", for messages.
  std::chrono::milliseconds timeout_;
};

}  // namespace collective
}  // namespace platform
}  // namespace paddle_like
