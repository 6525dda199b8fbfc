// The host communicators (Gloo over TCP, and through shared memory between the ranks of one
// machine) and the rendezvous store: every collective, every reducible dtype, 2-4 ranks as
// threads of this process, against references computed independently in double, over both
// transports; failures (a rank that never comes, a rank that leaves) give typed errors within
// the timeout; the store and the job's environment refuse bad input.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "platform/collective/collective_env.h"
#include "platform/collective/gloo_communicator.h"
#include "platform/collective/tcp_store.h"
#include "platform/errors.h"
#include "platform/float16.h"
#include "tests/child_test_util.h"

namespace paddle_like {
namespace {

using platform::DataType;
using platform::collective::Communicator;
using platform::collective::ReduceOp;
using platform::collective::TcpStoreClient;
using platform::collective::TcpStoreServer;

constexpr auto kTimeout = std::chrono::seconds(20);

// Whether the communicators the tests make move data through shared memory (set per test
// by the HostCommunicator fixture's parameter).
bool g_shared_memory = false;

// Runs fn(rank, comm) on `nranks` threads, each rank with its own communicator of one ring.
void RunRanks(int nranks, const std::function<void(int, Communicator*)>& fn,
              std::chrono::milliseconds timeout = kTimeout) {
  TcpStoreServer server(0);
  std::vector<std::string> failures(nranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < nranks; ++r) {
    threads.emplace_back([&, r] {
      try {
        TcpStoreClient store("127.0.0.1", server.port(), timeout);
        auto comm = platform::collective::ConnectGlooCommunicator(0, r, nranks, &store, "127.0.0.1",
                                                                  timeout, g_shared_memory);
        fn(r, comm.get());
      } catch (const std::exception& e) {
        failures[r] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < nranks; ++r) EXPECT_EQ(failures[r], "") << "rank " << r;
}

// Rank r's element i: small integers (quarters for floating types, non-negative for unsigned
// ones), so that sums and products are exact in every dtype and the reference needs no
// tolerance.
template <typename T>
double Value(int rank, int64_t i, ReduceOp op) {
  const bool is_unsigned = std::is_unsigned<T>::value;
  if (op == ReduceOp::kProd) {
    return is_unsigned ? static_cast<double>((rank * 5 + i * 3) % 3)
                       : static_cast<double>((rank * 5 + i * 3) % 5 - 2);
  }
  const double v = static_cast<double>((rank * 7 + i * 3) % 11 - (is_unsigned ? 0 : 5));
  return std::is_integral<T>::value ? v : v / 4;
}

template <typename T>
std::vector<T> RankValues(int rank, int64_t n, ReduceOp op) {
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<T>(static_cast<float>(Value<T>(rank, i, op)));
  return v;
}

// The reduction over ranks of element i, computed in double.
template <typename T>
double Reference(int nranks, int64_t i, ReduceOp op) {
  double acc = Value<T>(0, i, op);
  for (int r = 1; r < nranks; ++r) {
    const double v = Value<T>(r, i, op);
    switch (op) {
      case ReduceOp::kSum: acc += v; break;
      case ReduceOp::kProd: acc *= v; break;
      case ReduceOp::kMax: acc = std::max(acc, v); break;
      case ReduceOp::kMin: acc = std::min(acc, v); break;
    }
  }
  return acc;
}

template <typename T>
double AsDouble(T v) {
  return static_cast<double>(static_cast<float>(v));
}

template <typename T>
void CheckAllReduce(int nranks, ReduceOp op, int64_t n, bool in_place) {
  RunRanks(nranks, [&](int rank, Communicator* comm) {
    std::vector<T> in = RankValues<T>(rank, n, op);
    std::vector<T> out(static_cast<size_t>(n));
    T* dst = in_place ? in.data() : out.data();
    comm->AllReduce(in.data(), dst, n, platform::ToDataType<T>(), op);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(AsDouble(dst[i]), Reference<T>(nranks, i, op))
          << "rank " << rank << " element " << i << " op " << ReduceOpName(op);
    }
  });
}

template <typename T>
void CheckEveryReduction(int nranks) {
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kMin, ReduceOp::kProd}) {
    CheckAllReduce<T>(nranks, op, 37, /*in_place=*/false);
  }
  CheckAllReduce<T>(nranks, ReduceOp::kSum, 37, /*in_place=*/true);
}

// Every host communicator test runs over TCP and over shared memory.
class HostCommunicator : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { g_shared_memory = GetParam(); }
  void TearDown() override { g_shared_memory = false; }
};

INSTANTIATE_TEST_SUITE_P(Transports, HostCommunicator, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "SharedMemory" : "Tcp";
                         });

TEST_P(HostCommunicator, AllReduceEveryDtypeAndReductionOnTwoThreeAndFourRanks) {
  for (int nranks : {2, 3, 4}) {
    SCOPED_TRACE("nranks " + std::to_string(nranks));
    CheckEveryReduction<float>(nranks);
    CheckEveryReduction<double>(nranks);
    CheckEveryReduction<platform::float16>(nranks);
    CheckEveryReduction<platform::bfloat16>(nranks);
    CheckEveryReduction<int32_t>(nranks);
    CheckEveryReduction<int64_t>(nranks);
    CheckEveryReduction<int8_t>(nranks);
    CheckEveryReduction<uint8_t>(nranks);
  }
}

TEST_P(HostCommunicator, LargeAllReduceSpansSeveralSegmentsAndEveryRankGetsTheSameBits) {
  // 3 M floats: several of Gloo's 1 MiB segments, and of the shared memory ring's chunks, per
  // rank. Random values: the ranks' results must be equal bit for bit (both transports fix
  // the order of the additions).
  const int64_t n = 3 << 20;
  std::vector<std::vector<float>> results(3);
  RunRanks(3, [&](int rank, Communicator* comm) {
    std::vector<float> v(static_cast<size_t>(n));
    uint32_t state = 12345u + static_cast<uint32_t>(rank);
    for (float& x : v) {
      state = state * 1664525u + 1013904223u;
      x = static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
    }
    comm->AllReduce(v.data(), v.data(), n, DataType::FLOAT32, ReduceOp::kSum);
    results[rank] = std::move(v);
  });
  ASSERT_EQ(results[0].size(), static_cast<size_t>(n));
  EXPECT_EQ(std::memcmp(results[0].data(), results[1].data(), n * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(results[0].data(), results[2].data(), n * sizeof(float)), 0);
  // Against the sum in double of the three ranks' values.
  std::vector<std::vector<float>> inputs(3, std::vector<float>(static_cast<size_t>(n)));
  for (int rank = 0; rank < 3; ++rank) {
    uint32_t state = 12345u + static_cast<uint32_t>(rank);
    for (float& x : inputs[rank]) {
      state = state * 1664525u + 1013904223u;
      x = static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
    }
  }
  for (int64_t i = 0; i < n; i += 9973) {
    const double ref = static_cast<double>(inputs[0][i]) + inputs[1][i] + inputs[2][i];
    EXPECT_NEAR(results[0][i], ref, 1e-6) << i;
  }
}

TEST_P(HostCommunicator, BroadcastFromEveryRoot) {
  for (int root = 0; root < 3; ++root) {
    RunRanks(3, [&](int rank, Communicator* comm) {
      std::vector<double> v(50);
      for (size_t i = 0; i < v.size(); ++i) v[i] = rank * 100.0 + static_cast<double>(i);
      comm->Broadcast(v.data(), 50, DataType::FLOAT64, root);
      for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], root * 100.0 + i) << rank;
    });
  }
}

TEST_P(HostCommunicator, AllGatherConcatenatesInRankOrder) {
  RunRanks(4, [&](int rank, Communicator* comm) {
    std::vector<int64_t> in = {rank * 10, rank * 10 + 1, rank * 10 + 2};
    std::vector<int64_t> out(12, -1);
    comm->AllGather(in.data(), out.data(), 3, DataType::INT64);
    for (int r = 0; r < 4; ++r) {
      for (int k = 0; k < 3; ++k) ASSERT_EQ(out[r * 3 + k], r * 10 + k) << rank;
    }
  });
}

TEST_P(HostCommunicator, ReduceScatterKeepsEachRanksBlockOfTheSum) {
  RunRanks(3, [&](int rank, Communicator* comm) {
    const int64_t block = 4;
    std::vector<float> in(static_cast<size_t>(block * 3));
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(rank + 1) * (i + 1);
    std::vector<float> out(static_cast<size_t>(block));
    comm->ReduceScatter(in.data(), out.data(), block, DataType::FLOAT32, ReduceOp::kSum);
    for (int64_t k = 0; k < block; ++k) {
      const double i = static_cast<double>(rank * block + k);
      ASSERT_EQ(out[k], static_cast<float>((1 + 2 + 3) * (i + 1))) << rank;
    }
  });
}

TEST_P(HostCommunicator, BarrierAndEmptyCollectivesReturn) {
  RunRanks(2, [&](int, Communicator* comm) {
    comm->Barrier();
    float nothing = 0;
    comm->AllReduce(&nothing, &nothing, 0, DataType::FLOAT32, ReduceOp::kSum);
    comm->Broadcast(&nothing, 0, DataType::FLOAT32, 1);
    comm->Barrier();
  });
}

TEST_P(HostCommunicator, BadRootAndUnsupportedDtypeAreTypedErrors) {
  RunRanks(2, [&](int, Communicator* comm) {
    float v = 1;
    EXPECT_THROW(comm->Broadcast(&v, 1, DataType::FLOAT32, 2), platform::InvalidArgumentError);
    bool b = true;
    try {
      comm->AllReduce(&b, &b, 1, DataType::BOOL, ReduceOp::kSum);
      ADD_FAILURE() << "bool all-reduce accepted";
    } catch (const platform::UnimplementedError& e) {
      EXPECT_NE(std::string(e.what()).find("bool"), std::string::npos) << e.what();
    }
    comm->Barrier();  // Both ranks still agree on what comes next.
  });
}

TEST_P(HostCommunicator, ARankThatNeverJoinsTheCollectiveTimesOut) {
  // Rank 1 connects but never enters the all-reduce: rank 0 fails after the timeout with an
  // error naming the collective, the ring and its rank.
  std::string error;
  RunRanks(
      2,
      [&](int rank, Communicator* comm) {
        if (rank == 1) {
          std::this_thread::sleep_for(std::chrono::milliseconds(2500));
          return;
        }
        float v = 1;
        const auto start = std::chrono::steady_clock::now();
        try {
          comm->AllReduce(&v, &v, 1, DataType::FLOAT32, ReduceOp::kSum);
          ADD_FAILURE() << "all-reduce returned without rank 1";
        } catch (const platform::UnavailableError& e) {
          error = e.what();
        }
        EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
        // The ring is unusable afterwards, with a clear error.
        EXPECT_THROW(comm->Barrier(), platform::UnavailableError);
      },
      std::chrono::milliseconds(1000));
  EXPECT_NE(error.find("all-reduce on ring 0 (rank 0 of 2) failed"), std::string::npos) << error;
  if (GetParam()) {
    EXPECT_NE(error.find("rank 1 did not arrive"), std::string::npos) << error;
  }
}

TEST_P(HostCommunicator, ARankThatLeavesMakesThePeerFailNotHang) {
  std::string error;
  RunRanks(2, [&](int rank, Communicator* comm) {
    // Both connected first: a rank that left while its peer was still connecting would fail
    // the peer's connection instead of its all-reduce.
    comm->Barrier();
    if (rank == 1) return;  // Its communicator closes its connections.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::vector<float> v(1000, 1.0f);
    try {
      comm->AllReduce(v.data(), v.data(), 1000, DataType::FLOAT32, ReduceOp::kSum);
      ADD_FAILURE() << "all-reduce returned without rank 1";
    } catch (const platform::UnavailableError& e) {
      error = e.what();
    }
  });
  EXPECT_NE(error.find("rank 0 of 2"), std::string::npos) << error;
  if (GetParam()) {
    EXPECT_NE(error.find("rank 1 left the ring"), std::string::npos) << error;
  }
}

TEST_P(HostCommunicator, InterleavedCollectivesAroundTheChunkSizeKeepEveryValue) {
  // Sizes just below, at and above one and two of the shared memory ring's 1 MiB chunks,
  // with broadcasts, gathers and barriers in between: a rank that wrote a chunk before its
  // peers had read the previous one would show as a wrong value.
  const int nranks = 3;
  const std::vector<int64_t> sizes = {1, 262143, 262144, 262145, 524289, 700001, 3};
  RunRanks(nranks, [&](int rank, Communicator* comm) {
    for (int round = 0; round < 2; ++round) {
      for (int64_t n : sizes) {
        std::vector<int32_t> v(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) v[i] = static_cast<int32_t>((i * 7 + rank * 13) % 1000);
        comm->AllReduce(v.data(), v.data(), n, DataType::INT32, ReduceOp::kSum);
        for (int64_t i = 0; i < n; ++i) {
          int32_t ref = 0;
          for (int r = 0; r < nranks; ++r) ref += static_cast<int32_t>((i * 7 + r * 13) % 1000);
          ASSERT_EQ(v[i], ref) << "rank " << rank << " size " << n << " element " << i;
        }
        const int root = static_cast<int>(n % nranks);
        std::vector<int32_t> b(static_cast<size_t>(n), rank == root ? round + 5 : -1);
        comm->Broadcast(b.data(), n, DataType::INT32, root);
        ASSERT_EQ(b, std::vector<int32_t>(static_cast<size_t>(n), round + 5)) << rank;
        const int64_t m = n / 2 + 1;
        std::vector<int32_t> g(static_cast<size_t>(m), rank), all(static_cast<size_t>(m * nranks));
        comm->AllGather(g.data(), all.data(), m, DataType::INT32);
        for (int r = 0; r < nranks; ++r) {
          ASSERT_EQ(all[static_cast<size_t>(r * m)], r) << rank;
          ASSERT_EQ(all[static_cast<size_t>(r * m + m - 1)], r) << rank;
        }
        if (n % 2 == 1) comm->Barrier();
      }
    }
  });
}

TEST_P(HostCommunicator, SubmittedCollectivesRunInOrderAndWaitAllRethrowsTheirErrors) {
  RunRanks(2, [&](int rank, Communicator* comm) {
    std::vector<std::vector<double>> buffers(5, std::vector<double>(100));
    for (int k = 0; k < 5; ++k) {
      for (size_t i = 0; i < 100; ++i) buffers[k][i] = rank + k + static_cast<double>(i);
      comm->Submit([&buffers, k](Communicator* c) {
        c->AllReduce(buffers[k].data(), buffers[k].data(), 100, DataType::FLOAT64, ReduceOp::kSum);
      });
    }
    comm->WaitAll();
    for (int k = 0; k < 5; ++k) {
      for (size_t i = 0; i < 100; ++i) ASSERT_EQ(buffers[k][i], 1 + 2 * (k + i)) << k;
    }
    // A failing piece of work: WaitAll rethrows its error, and so does the next Submit.
    comm->Submit([](Communicator* c) {
      float v = 0;
      c->Broadcast(&v, 1, DataType::FLOAT32, 7);
    });
    EXPECT_THROW(comm->WaitAll(), platform::InvalidArgumentError);
    EXPECT_THROW(comm->Submit([](Communicator*) {}), platform::InvalidArgumentError);
  });
}

// Rank r's value at i for the shared buffer tests: random in [-0.5, 0.5).
std::vector<float> RandomValues(int rank, int64_t n, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  uint32_t state = seed + 7919u * static_cast<uint32_t>(rank);
  for (float& x : v) {
    state = state * 1664525u + 1013904223u;
    x = static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
  }
  return v;
}

TEST_P(HostCommunicator, SharedBuffersAreAllReducedInPlaceToTheStagedAllReducesBits) {
  if (!GetParam()) {
    // Over TCP there is no memory the peers can read: no rank gets a shared buffer.
    RunRanks(2, [&](int, Communicator* comm) {
      EXPECT_FALSE(comm->OffersSharedBuffers());
      EXPECT_EQ(comm->SharedBuffer(4096), nullptr);
    });
    return;
  }
  // Element counts that split unevenly over the ranks, one of them larger than a slot; the
  // whole buffer and a part of it within the buffer, twice (the buffers are reused).
  for (int nranks : {2, 3, 4}) {
    SCOPED_TRACE("nranks " + std::to_string(nranks));
    std::vector<std::vector<float>> results(static_cast<size_t>(nranks));
    RunRanks(nranks, [&](int rank, Communicator* comm) {
      ASSERT_TRUE(comm->OffersSharedBuffers());
      for (int64_t n : {int64_t{1}, int64_t{1001}, int64_t{300007}}) {
        const size_t bytes = static_cast<size_t>(n) * sizeof(float);
        platform::AllocationPtr buffer = comm->SharedBuffer(bytes);
        ASSERT_NE(buffer, nullptr);
        float* data = static_cast<float*>(buffer->ptr());
        EXPECT_TRUE(comm->IsSharedBuffer(data, bytes));
        EXPECT_FALSE(comm->IsSharedBuffer(data + 1, bytes)) << "past its end";
        for (int round = 0; round < 2; ++round) {
          const std::vector<float> values =
              RandomValues(rank, n, 17u + static_cast<uint32_t>(round));
          std::memcpy(data, values.data(), bytes);
          std::vector<float> staged = values;  // Through the ring's slots, for the bits.
          comm->AllReduce(staged.data(), staged.data(), n, DataType::FLOAT32, ReduceOp::kSum);
          comm->AllReduce(data, data, n, DataType::FLOAT32, ReduceOp::kSum);
          ASSERT_EQ(std::memcmp(data, staged.data(), bytes), 0) << "n " << n << " rank " << rank;
          std::vector<std::vector<float>> all(static_cast<size_t>(nranks));
          for (int r = 0; r < nranks; ++r)
            all[r] = RandomValues(r, n, 17u + static_cast<uint32_t>(round));
          for (int64_t i = 0; i < n; i += 101) {
            double ref = 0;
            for (int r = 0; r < nranks; ++r) ref += all[r][static_cast<size_t>(i)];
            ASSERT_NEAR(data[i], ref, 1e-6) << "n " << n << " element " << i;
          }
          if (n > 2) {
            // A part of the buffer, holding each rank's own values again: the maximum over
            // the ranks there, the sums around it unchanged.
            const float before = data[0], after = data[n - 1];
            std::memcpy(data + 1, values.data() + 1, (n - 2) * sizeof(float));
            comm->AllReduce(data + 1, data + 1, n - 2, DataType::FLOAT32, ReduceOp::kMax);
            EXPECT_EQ(data[0], before);
            EXPECT_EQ(data[n - 1], after);
            for (int64_t i = 1; i < n - 1; ++i) {
              float ref = all[0][static_cast<size_t>(i)];
              for (int r = 1; r < nranks; ++r) ref = std::max(ref, all[r][static_cast<size_t>(i)]);
              ASSERT_EQ(data[i], ref) << "n " << n << " element " << i;
            }
          }
        }
        if (n == 300007) results[rank].assign(data, data + n);
        buffer.reset();
        EXPECT_FALSE(comm->IsSharedBuffer(data, bytes)) << "released with its allocation";
      }
    });
    for (int r = 1; r < nranks; ++r) EXPECT_EQ(results[r], results[0]) << "rank " << r;
  }
}

TEST_P(HostCommunicator, RanksRunningDifferentCollectivesFailNamingBoth) {
  if (!GetParam()) GTEST_SKIP() << "Gloo's TCP transport does not compare the ranks' calls";
  std::vector<std::string> errors(2);
  RunRanks(2, [&](int rank, Communicator* comm) {
    std::vector<float> v(10, 1.0f);
    try {
      if (rank == 0) {
        comm->AllReduce(v.data(), v.data(), 10, DataType::FLOAT32, ReduceOp::kSum);
      } else {
        comm->Broadcast(v.data(), 10, DataType::FLOAT32, 0);
      }
    } catch (const platform::UnavailableError& e) {
      errors[rank] = e.what();
    }
  });
  for (int rank = 0; rank < 2; ++rank) {
    EXPECT_NE(errors[rank].find("the ranks run different collectives"), std::string::npos)
        << errors[rank];
    EXPECT_NE(errors[rank].find("broadcast of 10 elements"), std::string::npos) << errors[rank];
    EXPECT_NE(errors[rank].find("all-reduce (float32, sum) of 10 elements"), std::string::npos)
        << errors[rank];
  }
}

TEST_P(HostCommunicator, RanksReducingDifferentPartsOfASharedBufferFailNamingBoth) {
  if (!GetParam()) GTEST_SKIP() << "shared buffers need shared memory";
  std::vector<std::string> errors(2);
  RunRanks(2, [&](int rank, Communicator* comm) {
    platform::AllocationPtr buffer = comm->SharedBuffer(64 * sizeof(float));
    ASSERT_NE(buffer, nullptr);
    float* data = static_cast<float*>(buffer->ptr()) + rank;
    try {
      comm->AllReduce(data, data, 10, DataType::FLOAT32, ReduceOp::kSum);
    } catch (const platform::UnavailableError& e) {
      errors[rank] = e.what();
    }
  });
  for (int rank = 0; rank < 2; ++rank) {
    EXPECT_NE(errors[rank].find("buffer #0 at byte 0"), std::string::npos) << errors[rank];
    EXPECT_NE(errors[rank].find("buffer #0 at byte 4"), std::string::npos) << errors[rank];
  }
}

// Rank 1 of a two-rank ring, in a child process (the test binary run again): connects
// through the store at PL_SHARED_MEMORY_PEER_PORT with shared memory, meets rank 0 at a
// barrier and exits without destroying its communicator, as a killed rank would.
TEST(SharedMemoryRing, DISABLED_PeerThatExits) {
  const char* port = std::getenv("PL_SHARED_MEMORY_PEER_PORT");
  if (port == nullptr) GTEST_SKIP() << "run by ARankWhoseProcessExitsIsNamedAtOnce";
  TcpStoreClient store("127.0.0.1", std::atoi(port), kTimeout);
  auto comm = platform::collective::ConnectGlooCommunicator(0, 1, 2, &store, "127.0.0.1", kTimeout,
                                                            /*shared_memory=*/true);
  comm->Barrier();
  std::fflush(stdout);
  ::_exit(0);
}

TEST(SharedMemoryRing, ARankWhoseProcessExitsIsNamedAtOnce) {
  TcpStoreServer server(0);
  const pid_t pid =
      testing::StartTestInChild("SharedMemoryRing.DISABLED_PeerThatExits",
                                {{"PL_SHARED_MEMORY_PEER_PORT", std::to_string(server.port())}});
  ASSERT_GE(pid, 0);
  TcpStoreClient store("127.0.0.1", server.port(), kTimeout);
  auto comm = platform::collective::ConnectGlooCommunicator(0, 0, 2, &store, "127.0.0.1", kTimeout,
                                                            /*shared_memory=*/true);
  comm->Barrier();
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);  // Reaped: its process id is gone.
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  std::vector<float> v(100, 1.0f);
  const auto start = std::chrono::steady_clock::now();
  std::string error;
  try {
    comm->AllReduce(v.data(), v.data(), 100, DataType::FLOAT32, ReduceOp::kSum);
    ADD_FAILURE() << "all-reduce returned without rank 1";
  } catch (const platform::UnavailableError& e) {
    error = e.what();
  }
  // Found by the waiting rank's next check of its peers, long before the 20 s timeout.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_NE(error.find("all-reduce on ring 0 (rank 0 of 2) failed: rank 1 (process " +
                       std::to_string(pid) + ") has exited"),
            std::string::npos)
      << error;
}

TEST(GlooCommunicator, SingleRankCommunicatorCopies) {
  auto comm = platform::collective::MakeSingleRankCommunicator(3);
  EXPECT_EQ(comm->Describe(), "ring 3 (rank 0 of 1)");
  std::vector<float> in = {1, 2, 3}, out(3);
  comm->AllReduce(in.data(), out.data(), 3, DataType::FLOAT32, ReduceOp::kMax);
  EXPECT_EQ(out, in);
  comm->AllGather(in.data(), out.data(), 3, DataType::FLOAT32);
  EXPECT_EQ(out, in);
  EXPECT_THROW(comm->Broadcast(in.data(), 3, DataType::FLOAT32, 1), platform::InvalidArgumentError);
}

TEST(TcpStore, SetGetAndWaitingForAKeyAnotherClientSets) {
  TcpStoreServer server(0);
  TcpStoreClient a("127.0.0.1", server.port(), kTimeout);
  TcpStoreClient b("127.0.0.1", server.port(), kTimeout);
  a.Set("x", std::string("\0\1two", 5));
  EXPECT_EQ(b.Get("x"), std::string("\0\1two", 5));
  EXPECT_FALSE(b.Check("later"));
  std::thread setter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    a.Set("later", "");
  });
  EXPECT_EQ(b.Get("later"), "");
  setter.join();
  a.Set("x", "replaced");
  EXPECT_EQ(b.Get("x"), "replaced");
}

TEST(TcpStore, AMissingKeyAndAMissingServerAreUnavailableErrors) {
  TcpStoreServer server(0);
  TcpStoreClient client("127.0.0.1", server.port(), std::chrono::milliseconds(300));
  try {
    client.Get("never");
    ADD_FAILURE() << "Get of a missing key returned";
  } catch (const platform::UnavailableError& e) {
    EXPECT_NE(std::string(e.what()).find("`never` was not set"), std::string::npos) << e.what();
  }
  int closed_port = 0;
  {
    TcpStoreServer gone(0);  // A port nobody listens on once it is destroyed.
    closed_port = gone.port();
  }
  EXPECT_THROW(TcpStoreClient("127.0.0.1", closed_port, std::chrono::milliseconds(300)),
               platform::UnavailableError);
  EXPECT_THROW(TcpStoreServer{server.port()}, platform::UnavailableError);  // Port in use.
}

TEST(TcpStore, ServerSurvivesGarbageAndOversizedRequests) {
  TcpStoreServer server(0);
  for (const std::string& junk :
       {std::string("GET / HTTP/1.0\r\n\r\n"), std::string("S\xff\xff\xff\xff", 5),
        std::string("G\x10\x00\x00\x00short", 10)}) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(server.port()));
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    ASSERT_EQ(::send(fd, junk.data(), junk.size(), MSG_NOSIGNAL), static_cast<ssize_t>(junk.size()));
    ::close(fd);
  }
  TcpStoreClient client("127.0.0.1", server.port(), kTimeout);
  client.Set("ok", "1");
  EXPECT_EQ(client.Get("ok"), "1");
  EXPECT_THROW(client.Set(std::string(5000, 'k'), "v"), platform::InvalidArgumentError);
}

// Sets environment variables for one test and restores them after.
class ScopedEnv {
 public:
  explicit ScopedEnv(const std::map<std::string, std::string>& vars) {
    for (const char* name : {"PADDLE_TRAINER_ID", "PADDLE_TRAINERS_NUM", "PADDLE_TRAINER_ENDPOINTS",
                             "PADDLE_CURRENT_ENDPOINT", "PADDLE_MASTER", "OMPI_COMM_WORLD_RANK",
                             "OMPI_COMM_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"}) {
      const char* v = std::getenv(name);
      if (v != nullptr) saved_[name] = v;
      ::unsetenv(name);
    }
    for (const auto& [k, v] : vars) {
      ::setenv(k.c_str(), v.c_str(), 1);
      set_.push_back(k);
    }
  }
  ~ScopedEnv() {
    for (const std::string& k : set_) ::unsetenv(k.c_str());
    for (const auto& [k, v] : saved_) ::setenv(k.c_str(), v.c_str(), 1);
  }

 private:
  std::vector<std::string> set_;
  std::map<std::string, std::string> saved_;
};

TEST(CollectiveEnv, ReadsPaddleAndMpiVariables) {
  {
    ScopedEnv env({{"PADDLE_TRAINER_ID", "1"},
                   {"PADDLE_TRAINERS_NUM", "2"},
                   {"PADDLE_TRAINER_ENDPOINTS", "10.0.0.1:6170,10.0.0.2:6171"}});
    const auto e = platform::collective::CollectiveEnvFromEnvironment();
    EXPECT_EQ(e.rank, 1);
    EXPECT_EQ(e.nranks, 2);
    EXPECT_EQ(e.current_endpoint, "10.0.0.2:6171");
    EXPECT_EQ(e.master, "10.0.0.1:6170");
    EXPECT_EQ(e.LocalHost(), "10.0.0.2");
  }
  {
    ScopedEnv env({{"OMPI_COMM_WORLD_RANK", "3"},
                   {"OMPI_COMM_WORLD_SIZE", "4"},
                   {"MASTER_ADDR", "node0"},
                   {"MASTER_PORT", "7000"}});
    const auto e = platform::collective::CollectiveEnvFromEnvironment();
    EXPECT_EQ(e.source, "mpi");
    EXPECT_EQ(e.rank, 3);
    EXPECT_EQ(e.master, "node0:7000");
  }
  {
    ScopedEnv env({});
    const auto e = platform::collective::CollectiveEnvFromEnvironment();
    EXPECT_FALSE(e.distributed());
  }
}

TEST(CollectiveEnv, ContradictionsAreInvalidArgumentErrorsNamingTheVariable) {
  const std::vector<std::pair<std::map<std::string, std::string>, std::string>> cases = {
      {{{"PADDLE_TRAINER_ID", "2"}, {"PADDLE_TRAINERS_NUM", "2"}, {"PADDLE_MASTER", "h:1"}},
       "rank 2 is outside [0, 2)"},
      {{{"PADDLE_TRAINER_ID", "0"}, {"PADDLE_TRAINERS_NUM", "3"},
        {"PADDLE_TRAINER_ENDPOINTS", "a:1,b:2"}},
       "lists 2 endpoints"},
      {{{"PADDLE_TRAINER_ID", "x"}, {"PADDLE_TRAINERS_NUM", "2"}}, "PADDLE_TRAINER_ID"},
      {{{"PADDLE_TRAINER_ID", "0"}}, "must be set together"},
      {{{"PADDLE_TRAINER_ID", "0"}, {"PADDLE_TRAINERS_NUM", "2"}, {"PADDLE_MASTER", "host"}},
       "host:port"},
      {{{"PADDLE_TRAINER_ID", "0"}, {"PADDLE_TRAINERS_NUM", "2"},
        {"PADDLE_MASTER", "host:70000"}},
       "host:70000"},
      {{{"OMPI_COMM_WORLD_SIZE", "2"}}, "OMPI_COMM_WORLD_RANK"},
  };
  for (const auto& [vars, expected] : cases) {
    ScopedEnv env(vars);
    try {
      platform::collective::CollectiveEnvFromEnvironment();
      ADD_FAILURE() << "accepted, expected: " << expected;
    } catch (const platform::InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace paddle_like
