#include "platform/collective/collective_env.h"

#include <unistd.h>

#include <cstdlib>

#include "platform/enforce.h"

namespace paddle_like {
namespace platform {
namespace collective {

namespace {

const char* Get(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && v[0] != '\0' ? v : nullptr;
}

int ParseInt(const char* name, const char* value) {
  try {
    size_t used = 0;
    const long v = std::stol(value, &used);
    if (used == std::string(value).size() && v >= 0 && v < (1L << 20)) return static_cast<int>(v);
  } catch (const std::exception&) {
  }
  throw errors::InvalidArgument("environment variable %s: expected a non-negative integer, "
                                "found `%s`",
                                name, value);
}

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = s.find(',', start);
    const std::string part = s.substr(start, comma == std::string::npos ? std::string::npos
                                                                        : comma - start);
    if (!part.empty()) parts.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

}  // namespace

void SplitEndpoint(const std::string& endpoint, const std::string& what, std::string* host,
                   int* port) {
  const size_t colon = endpoint.rfind(':');
  bool ok = colon != std::string::npos && colon > 0 && colon + 1 < endpoint.size();
  long p = -1;
  if (ok) {
    try {
      size_t used = 0;
      p = std::stol(endpoint.substr(colon + 1), &used);
      ok = used == endpoint.size() - colon - 1 && p > 0 && p < 65536;
    } catch (const std::exception&) {
      ok = false;
    }
  }
  PL_ENFORCE(ok, errors::InvalidArgument("%s: expected host:port with a port in [1, 65535], "
                                         "found `%s`",
                                         what, endpoint));
  *host = endpoint.substr(0, colon);
  *port = static_cast<int>(p);
}

std::string CollectiveEnv::LocalHost() const {
  if (!current_endpoint.empty()) {
    std::string host;
    int port = 0;
    SplitEndpoint(current_endpoint, "PADDLE_CURRENT_ENDPOINT", &host, &port);
    return host;
  }
  std::string master_host;
  int port = 0;
  SplitEndpoint(master, "the rendezvous endpoint", &master_host, &port);
  if (master_host == "127.0.0.1" || master_host == "localhost") return "127.0.0.1";
  char name[256] = {0};
  if (gethostname(name, sizeof(name) - 1) == 0 && name[0] != '\0') return name;
  return "127.0.0.1";
}

CollectiveEnv CollectiveEnvFromEnvironment() {
  CollectiveEnv env;
  if (Get("PADDLE_TRAINERS_NUM") != nullptr || Get("PADDLE_TRAINER_ID") != nullptr) {
    env.source = "paddle";
    PL_ENFORCE(Get("PADDLE_TRAINERS_NUM") != nullptr && Get("PADDLE_TRAINER_ID") != nullptr,
               errors::InvalidArgument("environment: PADDLE_TRAINER_ID and PADDLE_TRAINERS_NUM "
                                       "must be set together"));
    env.rank = ParseInt("PADDLE_TRAINER_ID", Get("PADDLE_TRAINER_ID"));
    env.nranks = ParseInt("PADDLE_TRAINERS_NUM", Get("PADDLE_TRAINERS_NUM"));
    if (Get("PADDLE_TRAINER_ENDPOINTS") != nullptr) {
      env.endpoints = SplitList(Get("PADDLE_TRAINER_ENDPOINTS"));
      PL_ENFORCE(static_cast<int>(env.endpoints.size()) == env.nranks,
                 errors::InvalidArgument("environment: PADDLE_TRAINER_ENDPOINTS lists %d "
                                         "endpoints, PADDLE_TRAINERS_NUM is %d",
                                         static_cast<int>(env.endpoints.size()), env.nranks));
    }
    if (Get("PADDLE_CURRENT_ENDPOINT") != nullptr) {
      env.current_endpoint = Get("PADDLE_CURRENT_ENDPOINT");
    } else if (!env.endpoints.empty() && env.rank < env.nranks) {
      env.current_endpoint = env.endpoints[env.rank];
    }
    if (Get("PADDLE_MASTER") != nullptr) {
      env.master = Get("PADDLE_MASTER");
    } else {
      PL_ENFORCE(!env.endpoints.empty() || env.nranks == 1,
                 errors::InvalidArgument("environment: %d ranks but neither PADDLE_MASTER nor "
                                         "PADDLE_TRAINER_ENDPOINTS says where to meet",
                                         env.nranks));
      env.master = env.endpoints.empty() ? "127.0.0.1:6170" : env.endpoints[0];
    }
  } else if (Get("OMPI_COMM_WORLD_SIZE") != nullptr) {
    env.source = "mpi";
    env.nranks = ParseInt("OMPI_COMM_WORLD_SIZE", Get("OMPI_COMM_WORLD_SIZE"));
    PL_ENFORCE(Get("OMPI_COMM_WORLD_RANK") != nullptr,
               errors::InvalidArgument("environment: OMPI_COMM_WORLD_SIZE is set but "
                                       "OMPI_COMM_WORLD_RANK is not"));
    env.rank = ParseInt("OMPI_COMM_WORLD_RANK", Get("OMPI_COMM_WORLD_RANK"));
    if (Get("PADDLE_MASTER") != nullptr) {
      env.master = Get("PADDLE_MASTER");
    } else if (Get("MASTER_ADDR") != nullptr) {
      env.master = std::string(Get("MASTER_ADDR")) + ":" +
                   (Get("MASTER_PORT") != nullptr ? Get("MASTER_PORT") : "6170");
    } else {
      env.master = "127.0.0.1:6170";
    }
  } else {
    env.source = "none";
    env.master = "127.0.0.1:6170";
  }
  PL_ENFORCE(env.nranks >= 1 && env.rank < env.nranks,
             errors::InvalidArgument("environment (%s variables): rank %d is outside [0, %d)",
                                     env.source, env.rank, env.nranks));
  std::string host;
  int port = 0;
  SplitEndpoint(env.master, "the rendezvous endpoint (PADDLE_MASTER)", &host, &port);
  for (const std::string& e : env.endpoints) {
    SplitEndpoint(e, "PADDLE_TRAINER_ENDPOINTS", &host, &port);
  }
  return env;
}

}  // namespace collective
}  // namespace platform
}  // namespace paddle_like
