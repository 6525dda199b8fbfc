// `paddle_like launch`: starts the ranks of a distributed job on this machine, with
// PaddlePaddle's environment variables, and watches them: the first rank that fails (exits
// non-zero or is killed) stops the others and makes the launcher fail, naming that rank.
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "paddle_like/cli/commands.h"
#include "platform/collective/collective_env.h"
#include "platform/collective/tcp_store.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace cli {

namespace {

constexpr char kUsage[] =
    "usage: paddle_like launch --nproc N [--nnodes M --node-rank R --master HOST:PORT]\n"
    "                          [--host ADDR] [--log-dir DIR] VERB [ARGS ...]\n"
    "   or: paddle_like launch --nproc N [...] -- COMMAND [ARGS ...]\n"
    "  Starts N ranks on this machine running `paddle_like VERB ARGS` (or COMMAND), each with\n"
    "  PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ENDPOINTS,\n"
    "  PADDLE_CURRENT_ENDPOINT and PADDLE_MASTER set, and FLAGS_paddle_num_threads to the\n"
    "  machine's cores divided among them unless already set. Example:\n"
    "    paddle_like launch --nproc 2 train --distributed --model lenet --batch-size 64\n"
    "  When a rank fails (exits non-zero or is killed), the launcher names it, gives the\n"
    "  others 2 s to end on their own (naming those that do not: hung or stopped), stops\n"
    "  the rest (SIGTERM, then SIGKILL after 5 s) and exits 1.\n"
    "  --nnodes M --node-rank R --master HOST:PORT: a job over M machines, this one being\n"
    "    machine R; run the same command on each. Ranks are R * N .. R * N + N - 1. The\n"
    "    launchers meet at HOST:PORT (machine 0 listens there); the ranks' rendezvous store\n"
    "    is at HOST:PORT+1.\n"
    "  --host ADDR: the address other machines reach this one at (default: its host name).\n"
    "  --log-dir DIR: each rank's stdout and stderr go to DIR/workerlog.<rank> (default:\n"
    "    the launcher's own).\n"
    "  --bind cores|none: with cores (the default), when this machine's ranks times their\n"
    "    threads fit in the CPUs the launcher may use, each rank runs on CPUs of its own\n"
    "    (rank k of the machine on the k-th group of FLAGS_paddle_num_threads CPUs), so that\n"
    "    the ranks' threads do not move between cores and take each other's caches; none\n"
    "    leaves the placement to the system.\n";

volatile sig_atomic_t g_signal = 0;
void OnSignal(int sig) { g_signal = sig; }

int ParseCount(const std::string& flag, const std::string& value, int min) {
  try {
    size_t used = 0;
    const long v = std::stol(value, &used);
    if (used == value.size() && v >= min && v <= 4096) return static_cast<int>(v);
  } catch (const std::exception&) {
  }
  throw errors::InvalidArgument("launch: --%s expects an integer >= %d, received `%s`", flag,
                                min, value);
}

// A TCP port that was free a moment ago.
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  PL_ENFORCE(fd >= 0, errors::Unavailable("launch: socket() failed: %s", std::strerror(errno)));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  ::close(fd);
  PL_ENFORCE(ok, errors::Unavailable("launch: cannot find a free port: %s", std::strerror(errno)));
  return ntohs(addr.sin_port);
}

std::string HostName() {
  char name[256] = {0};
  if (::gethostname(name, sizeof(name) - 1) == 0 && name[0] != '\0') return name;
  return "127.0.0.1";
}

std::string Join(const std::vector<std::string>& parts) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? "," : "") + parts[i];
  return s;
}

// The CPUs of each of this machine's `nproc` ranks under --bind cores: consecutive groups of
// `threads` of the CPUs the launcher may run on. Empty (no binding) when they do not fit, as
// when the machine is oversubscribed on purpose, or when `threads` is not a count.
std::vector<cpu_set_t> RankCpuSets(int nproc, const std::string& threads) {
  char* end = nullptr;
  const long per_rank = std::strtol(threads.c_str(), &end, 10);
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (end == threads.c_str() || *end != '\0' || per_rank < 1 ||
      ::sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
    return {};
  }
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  }
  if (static_cast<long>(cpus.size()) < per_rank * nproc) return {};
  std::vector<cpu_set_t> sets(static_cast<size_t>(nproc));
  for (int r = 0; r < nproc; ++r) {
    CPU_ZERO(&sets[r]);
    for (long k = 0; k < per_rank; ++k)
      CPU_SET(cpus[static_cast<size_t>(r * per_rank + k)], &sets[r]);
  }
  return sets;
}

struct Rank {
  int rank = 0;
  pid_t pid = -1;
  bool running = false;
};

std::string Describe(int status) {
  if (WIFSIGNALED(status)) {
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  return "exited with code " + std::to_string(WEXITSTATUS(status));
}

}  // namespace

int LaunchCommand(const std::vector<std::string>& argv) {
  std::map<std::string, std::string> options;
  size_t i = 0;
  for (; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (a == "--" || a.rfind("--", 0) != 0) break;
    const size_t eq = a.find('=');
    std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    PL_ENFORCE(name == "nproc" || name == "nnodes" || name == "node-rank" || name == "master" ||
                   name == "host" || name == "log-dir" || name == "bind",
               errors::InvalidArgument("launch: unknown option `%s` (see --help)", a));
    if (eq != std::string::npos) {
      options[name] = a.substr(eq + 1);
    } else {
      PL_ENFORCE(i + 1 < argv.size(),
                 errors::InvalidArgument("launch: option `%s` needs a value", a));
      options[name] = argv[++i];
    }
  }
  std::vector<std::string> command;
  if (i < argv.size() && argv[i] == "--") {
    command.assign(argv.begin() + static_cast<long>(i) + 1, argv.end());
    PL_ENFORCE(!command.empty(), errors::InvalidArgument("launch: `--` must be followed by a "
                                                         "command"));
  } else {
    PL_ENFORCE(i < argv.size(), errors::InvalidArgument("launch: no verb to run (see --help)"));
    PL_ENFORCE(argv[i] != "launch", errors::InvalidArgument("launch: cannot launch `launch`"));
    command.push_back("/proc/self/exe");
    command.insert(command.end(), argv.begin() + static_cast<long>(i), argv.end());
  }
  PL_ENFORCE(options.count("nproc") > 0, errors::InvalidArgument("launch: --nproc N is required"));
  const int nproc = ParseCount("nproc", options["nproc"], 1);
  const int nnodes = options.count("nnodes") ? ParseCount("nnodes", options["nnodes"], 1) : 1;
  const int node_rank =
      options.count("node-rank") ? ParseCount("node-rank", options["node-rank"], 0) : 0;
  PL_ENFORCE(node_rank < nnodes,
             errors::InvalidArgument("launch: --node-rank %d is outside [0, %d)", node_rank,
                                     nnodes));
  const int world = nproc * nnodes;
  const std::string bind = options.count("bind") ? options["bind"] : "cores";
  PL_ENFORCE(bind == "cores" || bind == "none",
             errors::InvalidArgument("launch: --bind takes cores or none, not `%s`", bind));

  // Every rank's endpoint and the rendezvous store's.
  std::vector<std::string> endpoints;
  std::string master;
  if (nnodes == 1) {
    for (int r = 0; r < nproc; ++r) endpoints.push_back("127.0.0.1:" + std::to_string(FreePort()));
    master = options.count("master") ? options["master"] : endpoints[0];
  } else {
    PL_ENFORCE(options.count("master") > 0,
               errors::InvalidArgument("launch: --nnodes %d needs --master HOST:PORT", nnodes));
    std::string host;
    int port = 0;
    platform::collective::SplitEndpoint(options["master"], "launch: --master", &host, &port);
    PL_ENFORCE(port < 65535, errors::InvalidArgument("launch: --master port must leave room for "
                                                     "the store at port + 1"));
    master = host + ":" + std::to_string(port + 1);
    // The launchers exchange their machines' addresses and ports through a store that
    // machine 0's launcher serves at --master for the job's lifetime.
    std::unique_ptr<platform::collective::TcpStoreServer> server;
    if (node_rank == 0) server = std::make_unique<platform::collective::TcpStoreServer>(port);
    platform::collective::TcpStoreClient store(host, port, std::chrono::seconds(300));
    const std::string me = options.count("host") ? options["host"] : HostName();
    std::string mine;
    for (int r = 0; r < nproc; ++r) mine += (r ? "," : "") + me + ":" + std::to_string(FreePort());
    store.Set("node/" + std::to_string(node_rank), mine);
    for (int n = 0; n < nnodes; ++n) {
      const std::string theirs = store.Get("node/" + std::to_string(n));
      size_t start = 0;
      while (start <= theirs.size()) {
        const size_t comma = theirs.find(',', start);
        endpoints.push_back(theirs.substr(start, comma == std::string::npos ? std::string::npos
                                                                            : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    }
    PL_ENFORCE(static_cast<int>(endpoints.size()) == world,
               errors::InvalidArgument("launch: the machines disagree on --nproc (%zu endpoints "
                                       "for %d ranks)",
                                       endpoints.size(), world));
    // Machine 0's launcher keeps serving until the others have read every address.
    store.Set("read/" + std::to_string(node_rank), "1");
    if (node_rank == 0) {
      for (int n = 0; n < nnodes; ++n) store.Get("read/" + std::to_string(n));
    }
  }

  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const std::string threads = std::to_string(std::max(1u, cores / static_cast<unsigned>(nproc)));
  // The ranks' thread count: the caller's FLAGS_paddle_num_threads where set (the ranks
  // inherit it), else the share set below.
  const char* caller_threads = std::getenv("FLAGS_paddle_num_threads");
  const std::vector<cpu_set_t> placement =
      bind == "cores" ? RankCpuSets(nproc, caller_threads != nullptr ? caller_threads : threads)
                      : std::vector<cpu_set_t>();
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);

  std::vector<Rank> ranks;
  const pid_t launcher = ::getpid();
  for (int local = 0; local < nproc; ++local) {
    const int rank = node_rank * nproc + local;
    std::string log;
    if (options.count("log-dir")) {
      ::mkdir(options["log-dir"].c_str(), 0755);
      log = options["log-dir"] + "/workerlog." + std::to_string(rank);
    }
    const pid_t pid = ::fork();
    PL_ENFORCE(pid >= 0, errors::Unavailable("launch: fork failed: %s", std::strerror(errno)));
    if (pid == 0) {
      // A rank never outlives its launcher (killed, even by SIGKILL, it takes the job along).
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != launcher) ::_exit(1);
      ::setenv("PADDLE_TRAINER_ID", std::to_string(rank).c_str(), 1);
      ::setenv("PADDLE_TRAINERS_NUM", std::to_string(world).c_str(), 1);
      ::setenv("PADDLE_TRAINER_ENDPOINTS", Join(endpoints).c_str(), 1);
      ::setenv("PADDLE_CURRENT_ENDPOINT", endpoints[rank].c_str(), 1);
      ::setenv("PADDLE_MASTER", master.c_str(), 1);
      ::setenv("PADDLE_RANK_IN_NODE", std::to_string(local).c_str(), 1);
      ::setenv("PADDLE_LOCAL_SIZE", std::to_string(nproc).c_str(), 1);
      ::setenv("FLAGS_paddle_num_threads", threads.c_str(), 0);
      ::setenv("OMP_NUM_THREADS", threads.c_str(), 0);
      if (!placement.empty()) ::sched_setaffinity(0, sizeof(cpu_set_t), &placement[local]);
      if (!log.empty()) {
        const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
          ::dup2(fd, 1);
          ::dup2(fd, 2);
          ::close(fd);
        }
      }
      std::vector<char*> args;
      for (const std::string& a : command) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execvp(args[0], args.data());
      std::fprintf(stderr, "launch: cannot run `%s`: %s\n", command[0].c_str(),
                   std::strerror(errno));
      ::_exit(127);
    }
    ranks.push_back(Rank{rank, pid, true});
    std::fprintf(stderr, "launch: rank %d pid %d\n", rank, static_cast<int>(pid));
  }
  std::fflush(stderr);

  // Watch: the first failure stops the rest.
  int running = nproc;
  int exit_code = 0;
  // The rank that has just exited (its wait status in *status), or null after a short pause
  // when none has.
  auto reap_one = [&](int* status) -> Rank* {
    const pid_t pid = ::waitpid(-1, status, WNOHANG);
    for (Rank& r : ranks) {
      if (pid > 0 && r.pid == pid && r.running) {
        r.running = false;
        --running;
        return &r;
      }
    }
    if (pid <= 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return nullptr;
  };
  // Reaps ranks that exit, until none is running or `deadline` passes.
  auto reap_until = [&](std::chrono::steady_clock::time_point deadline) {
    int status = 0;
    while (running > 0 && std::chrono::steady_clock::now() < deadline) reap_one(&status);
  };
  auto stop_others = [&](const std::string& why, bool give_them_time) {
    std::fprintf(stderr, "launch: %s\n", why.c_str());
    if (give_them_time) {
      // The others usually fail on their own soon after (their collectives lose a peer);
      // one that does not is likely hung or stopped: name it.
      reap_until(std::chrono::steady_clock::now() + std::chrono::seconds(2));
      std::string stuck;
      for (const Rank& r : ranks) {
        if (r.running) stuck += (stuck.empty() ? "" : ", ") + std::to_string(r.rank);
      }
      if (!stuck.empty()) {
        std::fprintf(stderr, "launch: still running 2 s later (hung or stopped?): rank %s\n",
                     stuck.c_str());
      }
    }
    if (running > 0) {
      std::fprintf(stderr, "launch: stopping the other %d running rank(s)\n", running);
    }
    for (const Rank& r : ranks) {
      if (r.running) ::kill(r.pid, SIGTERM);
    }
    reap_until(std::chrono::steady_clock::now() + std::chrono::seconds(5));
    for (Rank& r : ranks) {
      if (r.running) {
        ::kill(r.pid, SIGKILL);
        ::waitpid(r.pid, nullptr, 0);
        r.running = false;
        --running;
      }
    }
  };
  while (running > 0) {
    if (g_signal != 0) {
      stop_others("received signal " + std::to_string(g_signal), false);
      return 128 + g_signal;
    }
    int status = 0;
    const Rank* done = reap_one(&status);
    if (done != nullptr && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
      exit_code = 1;
      stop_others("rank " + std::to_string(done->rank) + " (pid " + std::to_string(done->pid) +
                      ") " + Describe(status),
                  true);
    }
  }
  if (exit_code != 0) {
    std::fprintf(stderr, "launch: the job failed\n");
  }
  return exit_code;
}

}  // namespace cli
}  // namespace paddle_like
