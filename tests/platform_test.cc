// platform/: errors and enforce messages, places, data types, float16, flags, allocator,
// device contexts and the pool.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <thread>
#include <vector>

#include "platform/allocator.h"
#include "platform/data_type.h"
#include "platform/denormal.h"
#include "platform/device_context_pool.h"
#include "platform/enforce.h"
#include "platform/file_util.h"
#include "platform/flags.h"
#include "platform/init.h"
#ifdef PADDLE_LIKE_WITH_ONEDNN
#include "platform/onednn/onednn_context.h"
#endif

namespace paddle_like {
namespace platform {
namespace {

TEST(Errors, TypedAndFormatted) {
  try {
    throw errors::InvalidArgument("op `%s` input `%s`: bad rank %d", std::string("conv2d"), "Filter", 2);
  } catch (const InvalidArgumentError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_EQ(e.message(), "op `conv2d` input `Filter`: bad rank 2");
    EXPECT_EQ(std::string(e.what()), "InvalidArgumentError: op `conv2d` input `Filter`: bad rank 2");
  }
}

TEST(Errors, EnforceShowsExpectedAndReceived) {
  const int rank = 2;
  try {
    PL_ENFORCE_EQ(rank, 4, errors::InvalidArgument("op `conv2d` input `Filter`: expected 4-D"));
    FAIL();
  } catch (const InvalidArgumentError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("expected rank == 4"), std::string::npos) << msg;
    EXPECT_NE(msg.find("received 2 vs 4"), std::string::npos) << msg;
  }
  EXPECT_THROW(PL_ENFORCE_GT(1, 2, errors::OutOfRange("x")), OutOfRangeError);
  EXPECT_NO_THROW(PL_ENFORCE_LE(1, 2, errors::OutOfRange("x")));
}

// Conversions follow the arguments' types: a width mismatch between the format and the
// argument (an int64 or size_t given to %d) prints the number, never undefined behaviour.
TEST(Errors, SprintfAdaptsConversionsToArgumentTypes) {
  const int64_t big = 5000000000LL;
  const size_t size = 18446744073709551615ULL;
  EXPECT_EQ(platform::Sprintf("%d and %d", big, -big), "5000000000 and -5000000000");
  EXPECT_EQ(platform::Sprintf("%d", size), "18446744073709551615");
  EXPECT_EQ(platform::Sprintf("%lld|%zu|%ld", int64_t{-3}, size_t{4}, 5), "-3|4|5");
  EXPECT_EQ(platform::Sprintf("[%5d][%-4d][%03d]", 7, 8, int64_t{9}), "[    7][8   ][009]");
  EXPECT_EQ(platform::Sprintf("%x %X %o %u", 255, int64_t{255}, 8u, -1),
            "ff FF 10 18446744073709551615");
  EXPECT_EQ(platform::Sprintf("%.3f %g %e", 1.0 / 3, 0.5f, 1000.0), "0.333 0.5 1.000000e+03");
  EXPECT_EQ(platform::Sprintf("%d %f", 2.5, 3), "2.5 3.000000");  // Float as %d, int as %f.
  EXPECT_EQ(platform::Sprintf("%s and %s", std::string("op"), "slot"), "op and slot");
  EXPECT_EQ(platform::Sprintf("%d%s", std::string("x"), 4), "x4");  // Kinds swapped.
  EXPECT_EQ(platform::Sprintf("%c%c", 'o', 107), "ok");
  EXPECT_EQ(platform::Sprintf("100%% of %d", true), "100% of 1");
  EXPECT_EQ(platform::Sprintf("%s then %d", "one"), "one then %d");  // Missing argument.
  EXPECT_EQ(platform::Sprintf("%d", 1, 2), "1");                      // Surplus argument.
  EXPECT_EQ(platform::Sprintf("no conversions"), "no conversions");
  EXPECT_EQ(platform::Sprintf("trailing %", 1), "trailing %");
}

TEST(Place, Equality) {
  EXPECT_EQ(Place(CPUPlace()), Place(CPUPlace()));
  EXPECT_NE(Place(CUDAPlace(0)), Place(CUDAPlace(1)));
  EXPECT_EQ(CUDAPlace(1).ToString(), "CUDAPlace(1)");
  EXPECT_TRUE(Place(CPUPlace()) < Place(CUDAPlace(0)));
}

TEST(DataType, VarTypeNumbersAndSizes) {
  // The numbers are PaddlePaddle's VarType.Type values.
  EXPECT_EQ(static_cast<int>(DataType::BOOL), 0);
  EXPECT_EQ(static_cast<int>(DataType::INT32), 2);
  EXPECT_EQ(static_cast<int>(DataType::INT64), 3);
  EXPECT_EQ(static_cast<int>(DataType::FLOAT16), 4);
  EXPECT_EQ(static_cast<int>(DataType::FLOAT32), 5);
  EXPECT_EQ(static_cast<int>(DataType::FLOAT64), 6);
  EXPECT_EQ(static_cast<int>(DataType::UINT8), 20);
  EXPECT_EQ(static_cast<int>(DataType::INT8), 21);
  EXPECT_EQ(static_cast<int>(DataType::BFLOAT16), 22);
  EXPECT_EQ(SizeOf(DataType::FLOAT64), 8u);
  EXPECT_EQ(SizeOf(DataType::BFLOAT16), 2u);
  EXPECT_EQ(DataTypeFromName("int64"), DataType::INT64);
  EXPECT_EQ(static_cast<int>(DataType::COMPLEX64), 23);
  EXPECT_EQ(static_cast<int>(DataType::COMPLEX128), 24);
  EXPECT_EQ(SizeOf(DataType::COMPLEX64), 8u);
  EXPECT_EQ(SizeOf(DataType::COMPLEX128), 16u);
  EXPECT_EQ(DataTypeFromName("complex64"), DataType::COMPLEX64);
  EXPECT_EQ(RealPartType(DataType::COMPLEX128), DataType::FLOAT64);
  EXPECT_EQ(ComplexTypeOf(DataType::FLOAT32), DataType::COMPLEX64);
  EXPECT_THROW(ComplexTypeOf(DataType::INT32), InvalidArgumentError);
  EXPECT_THROW(DataTypeFromName("complex32"), InvalidArgumentError);
  EXPECT_TRUE(IsSupportedDataType(23));
  EXPECT_FALSE(IsSupportedDataType(32));  // PaddlePaddle's FP8_E4M3FN.
}

TEST(Float16, RoundTripsAndRounds) {
  for (float v : {0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f, 5.960464477539063e-08f}) {
    EXPECT_EQ(static_cast<float>(float16(v)), v) << v;
  }
  EXPECT_EQ(float16(1.0f).x, 0x3c00);
  EXPECT_EQ(float16(-2.0f).x, 0xc000);
  EXPECT_EQ(float16(1e6f).x, 0x7c00);  // Overflow to +inf.
  // 1 + 2^-11 is halfway between 1 and the next half; ties go to even (1.0).
  EXPECT_EQ(float16(1.0f + 0.00048828125f).x, 0x3c00);
  EXPECT_EQ(float16(1.0f + 3 * 0.00048828125f).x, 0x3c02);
  EXPECT_TRUE(std::isnan(static_cast<float>(float16(std::nanf("")))));
  EXPECT_EQ(static_cast<float>(bfloat16(1.5f)), 1.5f);
  EXPECT_EQ(bfloat16(1.0f).x, 0x3f80);
}

TEST(Flags, SetByNameAndFromEnvironment) {
  const bool old = FLAGS_check_nan_inf;
  SetFlag("check_nan_inf", "true");
  EXPECT_TRUE(FLAGS_check_nan_inf);
  setenv("FLAGS_check_nan_inf", "false", 1);
  InitFlagsFromEnvironment();
  EXPECT_FALSE(FLAGS_check_nan_inf);
  unsetenv("FLAGS_check_nan_inf");
  EXPECT_THROW(SetFlag("no_such_flag", "1"), NotFoundError);
  EXPECT_THROW(SetFlag("paddle_num_threads", "many"), InvalidArgumentError);
  FLAGS_check_nan_inf = old;
}

TEST(Allocator, AlignedAndAccounted) {
  const size_t before = CpuBytesInUse();
  {
    AllocationPtr a = Alloc(CPUPlace(), 100);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a->ptr()) % 64, 0u);
    EXPECT_GE(CpuBytesInUse(), before + 100);
  }
  EXPECT_EQ(CpuBytesInUse(), before);
}

TEST(Allocator, GpuWithoutDeviceIsUnavailable) {
  InitPlatform();
  if (CudaDeviceCount() > 0) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_THROW(Alloc(CUDAPlace(0), 16), UnavailableError);
  EXPECT_THROW(DeviceContextPool::Instance().Get(CUDAPlace(0)), UnavailableError);
}

TEST(DeviceContextPool, OneContextPerPlaceAcrossThreads) {
  InitPlatform();
  std::atomic<DeviceContext*> seen[4] = {};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&seen, i] { seen[i] = DeviceContextPool::Instance().Get(CPUPlace()); });
  }
  for (auto& t : threads) t.join();
  for (int i = 1; i < 4; ++i) EXPECT_EQ(seen[i].load(), seen[0].load());
  EXPECT_EQ(seen[0].load()->GetPlace(), Place(CPUPlace()));
}

#ifdef PADDLE_LIKE_WITH_ONEDNN
// A thread the program starts itself (a predictor clone's) does not inherit OpenMP's thread
// count from the thread that made the context: its first use of the engine sets it, before
// any primitive is created for it with the process default (one thread per core).
TEST(OneDNNContext, ThreadsStartedLaterUseTheContextsThreadBudget) {
  for (int budget : {1, 2}) {
    const platform::OneDNNContext ctx(budget);
    int seen = -1;
    std::thread([&] {
      platform::LimitOpenMPThreadsOfCallingThread(7);  // What the thread had before.
      ctx.engine();
      seen = platform::OpenMPThreadsOfCallingThread();
    }).join();
    EXPECT_EQ(seen, budget);
  }
}

// A small op's primitive is made and run on one thread (operators/onednn/onednn_threads.h):
// the limit holds inside the scope even on a thread's first use of the context, whose
// set-up gives the thread the context's budget, and the budget is back after it.
TEST(OneDNNContext, LimitThreadsHoldsInItsScopeAndRestoresTheBudget) {
  const platform::OneDNNContext ctx(3);
  int inside = -1, after = -1, wider = -1;
  std::thread([&] {
    platform::LimitOpenMPThreadsOfCallingThread(7);
    {
      const auto limit = ctx.LimitThreads(1);
      inside = platform::OpenMPThreadsOfCallingThread();
    }
    after = platform::OpenMPThreadsOfCallingThread();
    {
      const auto limit = ctx.LimitThreads(5);  // Never more than the budget.
      wider = platform::OpenMPThreadsOfCallingThread();
    }
  }).join();
  EXPECT_EQ(inside, 1);
  EXPECT_EQ(after, 3);
  EXPECT_EQ(wider, 3);
}
#endif

TEST(CPUDeviceContext, ParallelForCoversRangeOnce) {
  for (int threads : {1, 3}) {
    CPUDeviceContext ctx(threads);
    std::vector<int> hits(1000, 0);
    ctx.ParallelFor(1000, 10, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) ++hits[static_cast<size_t>(i)];
    });
    for (int h : hits) ASSERT_EQ(h, 1);
    ctx.ParallelFor(0, 1, [&](int64_t, int64_t) { FAIL(); });
  }
}

// A denormal operand times 1: 0 when denormals are flushed, the operand itself otherwise.
float TimesOne(float x) {
  volatile float one = 1.0f;  // Keeps the multiplication at run time.
  return x * one;
}

TEST(Denormals, FlushedInsideKernelsOnly) {
  const float denormal = 1e-40f;
  ASSERT_NE(TimesOne(denormal), 0.0f) << "this CPU flushes denormals already";
  {
    const platform::ScopedFlushDenormal flush;
#if defined(__SSE__) || defined(__x86_64__)
    EXPECT_EQ(TimesOne(denormal), 0.0f);
#endif
  }
  EXPECT_NE(TimesOne(denormal), 0.0f) << "the mode is restored after the scope";
  FLAGS_cpu_flush_denormal = false;
  {
    const platform::ScopedFlushDenormal flush;
    EXPECT_NE(TimesOne(denormal), 0.0f) << "FLAGS_cpu_flush_denormal=false keeps denormals";
  }
  FLAGS_cpu_flush_denormal = true;
#if defined(__SSE__) || defined(__x86_64__)
  // The worker chunks of ParallelFor flush too.
  platform::CPUDeviceContext dev(2);
  std::vector<float> out(4, -1.0f);
  dev.ParallelFor(4, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = TimesOne(denormal);
  });
  EXPECT_EQ(out, std::vector<float>(4, 0.0f));
#endif
}

TEST(FileUtil, AtomicWriteReplacesWholeFile) {
  const std::string path = ::testing::TempDir() + "/pl_atomic.bin";
  WriteFileAtomically(path, "first");
  WriteFileAtomically(path, "second version");
  EXPECT_EQ(ReadFile(path), "second version");
  EXPECT_THROW(WriteFileAtomically("/nonexistent-dir/x.bin", "data"), UnavailableError);
  EXPECT_THROW(ReadFile("/nonexistent-dir/x.bin"), NotFoundError);
}

}  // namespace
}  // namespace platform
}  // namespace paddle_like
