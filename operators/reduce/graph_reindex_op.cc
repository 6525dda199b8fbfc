// graph_reindex (paddle.geometric.reindex_graph): renumbers a sampled subgraph's nodes from 0,
// the center nodes X first (in order), then each neighbor not seen before in order of first
// appearance, and gives each edge (neighbor -> its center node) in the new numbering.
#include <string>
#include <unordered_map>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "graph_reindex";

class GraphReindexOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[n] int32 or int64: the center nodes.");
    AddInput("Neighbors", "[m], X's dtype: the neighbors of every center node, one after another.");
    AddInput("Count", "int32 [n]: how many of Neighbors belong to each center node.");
    AddInput("HashTable_Value", "A GPU kernel's buffer (ignored).").AsDispensable();
    AddInput("HashTable_Index", "A GPU kernel's buffer (ignored).").AsDispensable();
    AddOutput("Reindex_Src", "[m]: each neighbor's new number.");
    AddOutput("Reindex_Dst", "[m]: the new number of each neighbor's center node.");
    AddOutput("Out_Nodes", "The original ids in the new order (X, then the new neighbors).");
    AddComment(R"DOC(
Graph reindex. With X = [x_0 .. x_{n-1}] and the neighbors of x_i the next Count_i entries
of Neighbors, the new number of a node is its place in
$$Out\_Nodes = [x_0, \dots, x_{n-1}] \,\Vert\, (\text{neighbors not already listed, in order})$$
(a center node listed twice takes its later place), and for each neighbor e of x_i:
Reindex_Src_e = new(e), Reindex_Dst_e = new(x_i). Example: X = [0, 1], Neighbors = [8, 9, 0,
9], Count = [2, 2] -> Out_Nodes = [0, 1, 8, 9], Reindex_Src = [2, 3, 0, 3], Reindex_Dst =
[0, 0, 1, 1]. No gradient.
)DOC");
  }
};

class GraphReindexOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void GraphReindexInferShape(InferShapeContext* ctx) {
  for (const char* s : {"X", "Neighbors", "Count"}) ctx->RequireInput(s);
  const DDim neighbors = ctx->GetInputDim("Neighbors");
  if (ctx->IsRuntime()) return;
  ctx->SetOutputDim("Reindex_Src", DDim{neighbors.numel() >= 0 ? neighbors.numel() : -1});
  ctx->SetOutputDim("Reindex_Dst", DDim{neighbors.numel() >= 0 ? neighbors.numel() : -1});
  ctx->SetOutputDim("Out_Nodes", DDim{-1});
}

void GraphReindexInferVarType(framework::VarTypeInferenceContext* ctx) {
  const DataType t = ctx->GetInputDataType("X");
  for (const char* s : {"Reindex_Src", "Reindex_Dst", "Out_Nodes"}) {
    ctx->SetOutputKind(s, framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType(s, t);
  }
}

template <typename T>
struct GraphReindexKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x_t = ctx.Input("X");
    const DenseTensor* nb_t = ctx.Input("Neighbors");
    PL_ENFORCE(nb_t->dtype() == x_t->dtype(),
               errors::InvalidArgument("op `%s` input `Neighbors`: expected X's dtype %s, "
                                       "received %s",
                                       kOp, platform::DataTypeName(x_t->dtype()),
                                       platform::DataTypeName(nb_t->dtype())));
    const std::vector<int64_t> x = ReadIntValues(*x_t, kOp, "X");
    const std::vector<int64_t> neighbors = ReadIntValues(*nb_t, kOp, "Neighbors");
    const std::vector<int64_t> count = ReadIntValues(*ctx.Input("Count"), kOp, "Count");
    PL_ENFORCE(count.size() == x.size(),
               errors::InvalidArgument("op `%s` input `Count`: expected %zu counts (one per "
                                       "node of X), received %zu",
                                       kOp, x.size(), count.size()));
    int64_t total = 0;
    for (size_t i = 0; i < count.size(); ++i) {
      PL_ENFORCE(count[i] >= 0, errors::InvalidArgument("op `%s` input `Count`: expected counts "
                                                        ">= 0, received %lld at %zu",
                                                        kOp, static_cast<long long>(count[i]), i));
      total += count[i];
    }
    PL_ENFORCE(total == static_cast<int64_t>(neighbors.size()),
               errors::InvalidArgument("op `%s` input `Neighbors`: expected %lld neighbors (the "
                                       "sum of Count), received %zu",
                                       kOp, static_cast<long long>(total), neighbors.size()));
    std::unordered_map<int64_t, int64_t> number;
    std::vector<int64_t> nodes;
    for (int64_t node : x) {
      number[node] = static_cast<int64_t>(nodes.size());
      nodes.push_back(node);
    }
    const auto emit = [&](const char* slot, const std::vector<int64_t>& values) {
      DenseTensor t(DDim{static_cast<int64_t>(values.size())}, x_t->dtype());
      T* p = t.mutable_data<T>(ctx.GetPlace());
      for (size_t i = 0; i < values.size(); ++i) p[i] = static_cast<T>(values[i]);
      *ctx.Output(slot) = std::move(t);
    };
    std::vector<int64_t> src(neighbors.size()), dst(neighbors.size());
    for (size_t e = 0; e < neighbors.size(); ++e) {
      const auto [it, added] = number.emplace(neighbors[e], static_cast<int64_t>(nodes.size()));
      if (added) nodes.push_back(neighbors[e]);
      src[e] = it->second;
    }
    size_t e = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      for (int64_t j = 0; j < count[i]; ++j) dst[e++] = number[x[i]];
    }
    emit("Reindex_Src", src);
    emit("Reindex_Dst", dst);
    emit("Out_Nodes", nodes);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterGraphReindexOp) {
  framework::RegisterOp<GraphReindexOp, GraphReindexOpMaker>(kOp)
      .InferShape(GraphReindexInferShape)
      .InferVarType(GraphReindexInferVarType)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuKernels<GraphReindexKernel, int32_t, int64_t>(kOp);
}

}  // namespace operators
}  // namespace paddle_like
