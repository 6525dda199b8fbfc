// graph_send_recv, graph_send_ue_recv and graph_send_uv (operators/reduce/graph_send_recv_op.cc)
// against loops over the edges written here in double (every reduction, both message ops,
// broadcast feature dims, repeated edges, a node receiving nothing, out_size as attribute and
// tensor, int32 and int64 indices); gradients of every combination against finite
// differences; bad indices and shapes refused naming the slot.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "operators/registry.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

// Edges into node 0 twice, node 3 never; node 4 sends three times.
const std::vector<double> kSrc = {4, 0, 4, 2, 1, 4, 3};
const std::vector<double> kDst = {0, 0, 1, 2, 2, 4, 1};
constexpr int64_t kNodes = 5;

// out[d] = reduce over edges into d of msg(e) (width values each); zeros where nothing
// arrives.
std::vector<double> Reduce(const std::string& reduce, int64_t rows, int64_t width,
                           const std::vector<std::vector<double>>& msgs) {
  std::vector<double> out(rows * width, 0.0);
  std::vector<int> count(rows, 0);
  for (size_t e = 0; e < msgs.size(); ++e) {
    const int64_t d = static_cast<int64_t>(kDst[e]);
    for (int64_t j = 0; j < width; ++j) {
      double& o = out[d * width + j];
      const double v = msgs[e][j];
      if (count[d] == 0) {
        o = v;
      } else if (reduce == "MAX") {
        o = std::max(o, v);
      } else if (reduce == "MIN") {
        o = std::min(o, v);
      } else {
        o += v;
      }
    }
    ++count[d];
  }
  if (reduce == "MEAN") {
    for (int64_t d = 0; d < rows; ++d) {
      for (int64_t j = 0; j < width && count[d] > 0; ++j) out[d * width + j] /= count[d];
    }
  }
  return out;
}

template <typename I>
SlotTensors Indices() {
  const int64_t e = static_cast<int64_t>(kSrc.size());
  return {{"Src_index", {MakeTensor<I>({e}, kSrc)}}, {"Dst_index", {MakeTensor<I>({e}, kDst)}}};
}

const std::vector<std::string> kReduces = {"SUM", "MEAN", "MAX", "MIN"};

TEST(GraphSendRecvOp, EveryReductionAgainstTheEdgeLoop) {
  operators::RegisterAllOps();
  const std::vector<double> x = RandomValues(kNodes * 2 * 3, -1, 1, 131);
  const int64_t width = 6;
  std::vector<std::vector<double>> msgs;
  for (double s : kSrc) {
    msgs.emplace_back(x.begin() + static_cast<int64_t>(s) * width,
                      x.begin() + static_cast<int64_t>(s + 1) * width);
  }
  for (const std::string& reduce : kReduces) {
    for (bool int32 : {false, true}) {
      SCOPED_TRACE(reduce + (int32 ? " int32" : " int64"));
      SlotTensors in = int32 ? Indices<int32_t>() : Indices<int64_t>();
      in["X"] = {MakeTensor<double>({kNodes, 2, 3}, x)};
      const OpRunResult r =
          RunOp("graph_send_recv", in, {{"Out", 1}, {"Dst_count", 1}}, {{"reduce_op", reduce}});
      EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({kNodes, 2, 3}));
      ExpectNear(ToDoubles(r.outputs.at("Out")[0]), Reduce(reduce, kNodes, width, msgs), 1e-15,
                 1e-15, "Out");
      EXPECT_EQ(ToDoubles(r.outputs.at("Dst_count")[0]), std::vector<double>({2, 2, 2, 0, 1}));
    }
  }
  // Out's rows from the attribute out_size or the tensor Out_size (which wins).
  SlotTensors in = Indices<int64_t>();
  in["X"] = {MakeTensor<double>({kNodes, 2, 3}, x)};
  const auto rows_of = [&](const SlotTensors& inputs, const AttributeMap& attrs) {
    return RunOp("graph_send_recv", inputs, {{"Out", 1}}, attrs).outputs.at("Out")[0].dims();
  };
  EXPECT_EQ(rows_of(in, {{"out_size", std::vector<int64_t>{7}}}), DDim({7, 2, 3}));
  SlotTensors sized = in;
  sized["Out_size"] = {MakeTensor<int32_t>({1}, {6})};
  EXPECT_EQ(rows_of(sized, {{"out_size", std::vector<int64_t>{7}}}), DDim({6, 2, 3}));
}

TEST(GraphSendUeRecvOp, MessagesCombineBroadcastEdgeFeatures) {
  operators::RegisterAllOps();
  const int64_t edges = static_cast<int64_t>(kSrc.size());
  const std::vector<double> x = RandomValues(kNodes * 3, -1, 1, 132);  // [N, 1, 3]
  const std::vector<double> y = RandomValues(edges * 2, -1, 1, 133);   // [E, 2, 1]
  for (const std::string& op : {"ADD", "MUL"}) {
    std::vector<std::vector<double>> msgs;
    for (int64_t e = 0; e < edges; ++e) {
      std::vector<double> m(6);
      for (int64_t a = 0; a < 2; ++a) {
        for (int64_t b = 0; b < 3; ++b) {
          const double xv = x[static_cast<int64_t>(kSrc[e]) * 3 + b], yv = y[e * 2 + a];
          m[a * 3 + b] = op == "MUL" ? xv * yv : xv + yv;
        }
      }
      msgs.push_back(m);
    }
    for (const std::string& reduce : kReduces) {
      SCOPED_TRACE(op + " " + reduce);
      SlotTensors in = Indices<int64_t>();
      in["X"] = {MakeTensor<double>({kNodes, 1, 3}, x)};
      in["Y"] = {MakeTensor<double>({edges, 2, 1}, y)};
      const OpRunResult r = RunOp("graph_send_ue_recv", in, {{"Out", 1}},
                                  {{"message_op", op}, {"reduce_op", reduce}});
      EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({kNodes, 2, 3}));
      ExpectNear(ToDoubles(r.outputs.at("Out")[0]), Reduce(reduce, kNodes, 6, msgs), 1e-15, 1e-15,
                 "Out");
    }
  }
}

TEST(GraphSendUvOp, EdgeValuesFromBothEnds) {
  operators::RegisterAllOps();
  const int64_t edges = static_cast<int64_t>(kSrc.size());
  const std::vector<double> x = RandomValues(kNodes * 3, -1, 1, 134);  // [N, 3]
  const std::vector<double> y = RandomValues(kNodes, -1, 1, 135);      // [N, 1]
  for (const std::string& op : {"ADD", "MUL"}) {
    std::vector<double> want;
    for (int64_t e = 0; e < edges; ++e) {
      for (int64_t j = 0; j < 3; ++j) {
        const double xv = x[static_cast<int64_t>(kSrc[e]) * 3 + j];
        const double yv = y[static_cast<int64_t>(kDst[e])];
        want.push_back(op == "MUL" ? xv * yv : xv + yv);
      }
    }
    const OpRunResult r = RunOp("graph_send_uv",
                                {{"x", {MakeTensor<double>({kNodes, 3}, x)}},
                                 {"y", {MakeTensor<double>({kNodes, 1}, y)}},
                                 {"src_index", {MakeTensor<int32_t>({edges}, kSrc)}},
                                 {"dst_index", {MakeTensor<int32_t>({edges}, kDst)}}},
                                {{"out", 1}}, {{"message_op", op}});
    EXPECT_EQ(r.outputs.at("out")[0].dims(), DDim({edges, 3}));
    ExpectNear(ToDoubles(r.outputs.at("out")[0]), want, 1e-15, 1e-15, op);
  }
}

TEST(GraphMessagePassing, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  const int64_t edges = static_cast<int64_t>(kSrc.size());
  for (const std::string& reduce : kReduces) {
    SCOPED_TRACE(reduce);
    GradCheck recv;
    recv.op_type = "graph_send_recv";
    recv.inputs = Indices<int64_t>();
    recv.inputs["X"] = {MakeTensor<double>({kNodes, 3}, RandomValues(kNodes * 3, -1, 1, 136))};
    recv.outputs = {{"Out", 1}};
    recv.attrs = {{"reduce_op", reduce}};
    recv.wrt = {"X"};
    CheckGradients(recv);
    for (const std::string& op : {"ADD", "MUL"}) {
      SCOPED_TRACE(op);
      GradCheck ue;
      ue.op_type = "graph_send_ue_recv";
      ue.inputs = Indices<int64_t>();
      ue.inputs["X"] = {MakeTensor<double>({kNodes, 1, 3}, RandomValues(kNodes * 3, -1, 1, 137))};
      ue.inputs["Y"] = {MakeTensor<double>({edges, 2, 1}, RandomValues(edges * 2, -1, 1, 138))};
      ue.outputs = {{"Out", 1}};
      ue.attrs = {{"reduce_op", reduce}, {"message_op", op}};
      ue.wrt = {"X", "Y"};
      CheckGradients(ue);
    }
  }
  for (const std::string& op : {"ADD", "MUL"}) {
    GradCheck uv;
    uv.op_type = "graph_send_uv";
    uv.inputs = {{"x", {MakeTensor<double>({kNodes, 1, 3}, RandomValues(kNodes * 3, -1, 1, 139))}},
                 {"y", {MakeTensor<double>({kNodes, 2, 1}, RandomValues(kNodes * 2, -1, 1, 140))}},
                 {"src_index", {MakeTensor<int64_t>({edges}, kSrc)}},
                 {"dst_index", {MakeTensor<int64_t>({edges}, kDst)}}};
    uv.outputs = {{"out", 1}};
    uv.attrs = {{"message_op", op}};
    uv.wrt = {"x", "y"};
    CheckGradients(uv);
  }
}

TEST(GraphMessagePassing, BadIndicesAndShapesAreRefused) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<float>({3, 2}, RandomValues(6, -1, 1));
  const auto recv = [&](const std::vector<double>& src, const std::vector<double>& dst,
                        const AttributeMap& attrs) {
    RunOp("graph_send_recv",
          {{"X", {x}},
           {"Src_index", {MakeTensor<int64_t>({static_cast<int64_t>(src.size())}, src)}},
           {"Dst_index", {MakeTensor<int64_t>({static_cast<int64_t>(dst.size())}, dst)}}},
          {{"Out", 1}}, attrs);
  };
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        recv({0, 3}, {0, 1}, {});
      },
      {"op `graph_send_recv` input `Src_index`", "[0, 3)", "3 at 1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        recv({0, 1}, {0, 2}, {{"out_size", std::vector<int64_t>{2}}});
      },
      {"op `graph_send_recv` input `Dst_index`", "[0, 2)", "2 at 1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        recv({0, 1}, {0}, {});
      },
      {"op `graph_send_recv` input `Dst_index`", "[2]", "[1]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("graph_send_ue_recv",
              {{"X", {x}},
               {"Y", {MakeTensor<float>({1, 3}, RandomValues(3, -1, 1))}},
               {"Src_index", {MakeTensor<int64_t>({1}, {0})}},
               {"Dst_index", {MakeTensor<int64_t>({1}, {1})}}},
              {{"Out", 1}});
      },
      {"op `graph_send_ue_recv`", "`X`", "`Y`", "broadcast"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("graph_send_ue_recv",
              {{"X", {x}},
               {"Y", {MakeTensor<float>({2, 1}, RandomValues(2, -1, 1))}},
               {"Src_index", {MakeTensor<int64_t>({1}, {0})}},
               {"Dst_index", {MakeTensor<int64_t>({1}, {1})}}},
              {{"Out", 1}});
      },
      {"op `graph_send_ue_recv` input `Y`", "one row per edge"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like
