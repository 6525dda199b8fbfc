// hierarchical_sigmoid (paddle.nn.functional.hsigmoid_loss): the hierarchical softmax of
// word2vec-style models. Each class is a leaf of a binary tree; a sample's loss is the sum of
// the binary logistic losses of the decisions on its path from the root. The tree is the
// default complete one over num_classes leaves, or a custom one (PathTable, PathCode).
// Computed as PaddlePaddle's kernel computes it, including its two quirks: PreOut is
// [N, code length] for every sample and the slots past a shorter path, left at 0, add
// softplus(0) = log 2 each to Out; the logits are clipped to [-40, 40] while the gradient
// ignores the clipping.
#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/selected_rows.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "hierarchical_sigmoid";

class HierarchicalSigmoidOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[N, D]: the samples' features.");
    AddInput("W", "[nodes, D]: one weight row per inner node (num_classes - 1 by default).");
    AddInput("Label", "int64 [N] or [N, 1]: the classes.");
    AddInput("PathTable",
             "int64 [N, L]: a custom tree's inner nodes on each path, -1 ending "
             "shorter ones.")
        .AsDispensable();
    AddInput("PathCode", "int64 [N, L]: the branch (0 or 1) taken at each of those nodes.")
        .AsDispensable();
    AddInput("Bias", "[nodes, 1] or [1, nodes]: one bias per inner node.").AsDispensable();
    AddOutput("Out", "[N, 1]: the loss per sample.");
    AddOutput("PreOut", "[N, L]: softplus of each path logit (kept for the gradient).")
        .AsIntermediate();
    AddOutput("W_Out", "W (for distributed programs).").AsIntermediate().AsDispensable();
    AddAttr<int>("num_classes", "The classes (leaves) of the default tree.").SetDefault(2);
    AddAttr<bool>("is_sparse", "The gradient of W is a SelectedRows of the nodes used.")
        .SetDefault(false);
    AddAttr<int>("trainer_id", "Distributed training: this trainer.").SetDefault(0).AsExtra();
    AddAttr<std::vector<int64_t>>("height_sections", "Distributed training.")
        .SetDefault(std::vector<int64_t>{})
        .AsExtra();
    AddAttr<std::vector<std::string>>("epmap", "Distributed training.")
        .SetDefault(std::vector<std::string>{})
        .AsExtra();
    AddAttr<std::vector<std::string>>("table_names", "Distributed training.")
        .SetDefault(std::vector<std::string>{})
        .AsExtra();
    AddComment(R"DOC(
Hierarchical sigmoid. For sample i with path nodes n_j and branches b_j (default tree: with
c = label + num_classes, n_j = (c >> (j + 1)) - 1 and b_j = bit j of c, for j below the
number of bits of c minus one):
$$z_{ij} = \operatorname{clip}(W_{n_j} \cdot X_i + Bias_{n_j}, -40, 40), \quad
Out_i = \sum_j \log(1 + e^{z_{ij}}) - \sum_j b_j z_{ij}$$
Gradient (fused): with $g_{ij} = (\sigma(z_{ij}) - b_j) \, dOut_i$ on the path,
$$dX_i = \sum_j g_{ij} W_{n_j}, \quad dW_{n} = \sum_{(i, j) : n_j = n} g_{ij} X_i, \quad
dBias_n = \sum_{(i, j) : n_j = n} g_{ij}$$
)DOC");
  }
};

class HierarchicalSigmoidOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

// The number of bits of v (0 for 0).
int BitLength(int64_t v) {
  int n = 0;
  while (v > 0) {
    ++n;
    v >>= 1;
  }
  return n;
}

// Every sample's path: its nodes and branches.
struct Paths {
  int64_t code_length = 0;
  std::vector<std::vector<int64_t>> nodes, bits;
};

Paths ReadPaths(const ExecutionContext& ctx, int64_t n, int64_t node_rows) {
  Paths p;
  const std::vector<int64_t> labels = [&] {
    const DenseTensor* l = ctx.Input("Label");
    PL_ENFORCE(l->numel() == n && l->dtype() == DataType::INT64,
               errors::InvalidArgument("op `%s` input `Label`: expected %lld int64 classes (X's "
                                       "rows), received %s %s",
                                       kOp, static_cast<long long>(n),
                                       platform::DataTypeName(l->dtype()), l->dims().ToString()));
    return std::vector<int64_t>(l->data<int64_t>(), l->data<int64_t>() + n);
  }();
  p.nodes.resize(n);
  p.bits.resize(n);
  const bool custom = ctx.HasInput("PathTable");
  PL_ENFORCE(custom == ctx.HasInput("PathCode"),
             errors::InvalidArgument("op `%s`: PathTable and PathCode come together (received "
                                     "only %s)",
                                     kOp, custom ? "PathTable" : "PathCode"));
  if (custom) {
    const DenseTensor* table = ctx.Input("PathTable");
    const DenseTensor* code = ctx.Input("PathCode");
    PL_ENFORCE(
        table->dims().size() == 2 && table->dims()[0] == n && table->dtype() == DataType::INT64,
        errors::InvalidArgument("op `%s` input `PathTable`: expected int64 [%lld, L], "
                                "received %s %s",
                                kOp, static_cast<long long>(n),
                                platform::DataTypeName(table->dtype()), table->dims().ToString()));
    CheckSameShape(kOp, "PathCode", code->dims(), "PathTable", table->dims());
    PL_ENFORCE(code->dtype() == DataType::INT64,
               errors::InvalidArgument("op `%s` input `PathCode`: expected int64, received %s", kOp,
                                       platform::DataTypeName(code->dtype())));
    p.code_length = table->dims()[1];
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < p.code_length; ++j) {
        const int64_t node = table->data<int64_t>()[i * p.code_length + j];
        if (node < 0) break;
        PL_ENFORCE(
            node < node_rows,
            errors::InvalidArgument("op `%s` input `PathTable`: node %lld of sample %lld "
                                    "is not a row of W ([0, %lld))",
                                    kOp, static_cast<long long>(node), static_cast<long long>(i),
                                    static_cast<long long>(node_rows)));
        p.nodes[i].push_back(node);
        p.bits[i].push_back(code->data<int64_t>()[i * p.code_length + j] != 0);
      }
    }
    return p;
  }
  const int64_t classes = ctx.Attr<int>("num_classes");
  PL_ENFORCE(classes >= 2, errors::InvalidArgument("op `%s` attribute `num_classes`: expected "
                                                   ">= 2, received %lld",
                                                   kOp, static_cast<long long>(classes)));
  p.code_length = BitLength(classes - 1);
  for (int64_t i = 0; i < n; ++i) {
    PL_ENFORCE(
        labels[i] >= 0 && labels[i] < classes,
        errors::InvalidArgument("op `%s` input `Label`: expected classes in [0, %lld), "
                                "received %lld at %lld",
                                kOp, static_cast<long long>(classes),
                                static_cast<long long>(labels[i]), static_cast<long long>(i)));
    const int64_t c = labels[i] + classes;
    for (int j = 0; j < BitLength(c) - 1; ++j) {
      const int64_t node = (c >> (j + 1)) - 1;
      PL_ENFORCE(node < node_rows,
                 errors::InvalidArgument("op `%s` input `W`: expected at least %lld rows "
                                         "(num_classes - 1), received %lld",
                                         kOp, static_cast<long long>(classes - 1),
                                         static_cast<long long>(node_rows)));
      p.nodes[i].push_back(node);
      p.bits[i].push_back((c >> j) & 1);
    }
  }
  return p;
}

void CheckFeatures(const DenseTensor& x, const DenseTensor& w) {
  PL_ENFORCE(x.dims().size() == 2,
             errors::InvalidArgument("op `%s` input `X`: expected [N, D], received %s", kOp,
                                     x.dims().ToString()));
  PL_ENFORCE(
      w.dims().size() == 2 && w.dims()[1] == x.dims()[1],
      errors::InvalidArgument("op `%s` input `W`: expected [nodes, %lld] (X's D), "
                              "received %s",
                              kOp, static_cast<long long>(x.dims()[1]), w.dims().ToString()));
}

void HierarchicalSigmoidInferShape(InferShapeContext* ctx) {
  for (const char* s : {"X", "W", "Label"}) ctx->RequireInput(s);
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  ctx->SetOutputDim("Out", DDim{x.size() > 0 ? x[0] : -1, 1});
  if (ctx->HasOutput("PreOut")) {
    const int64_t length = ctx->HasInput("PathTable")
                               ? ctx->GetInputDim("PathTable")[1]
                               : BitLength(static_cast<int64_t>(ctx->Attr<int>("num_classes")) - 1);
    ctx->SetOutputDim("PreOut", DDim{x.size() > 0 ? x[0] : -1, length});
  }
  if (ctx->HasOutput("W_Out")) ctx->SetOutputDim("W_Out", ctx->GetInputDim("W"));
}

template <typename T>
struct HierarchicalSigmoidKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* w = ctx.Input("W");
    const DenseTensor* bias = ctx.HasInput("Bias") ? ctx.Input("Bias") : nullptr;
    CheckFeatures(*x, *w);
    const int64_t n = x->dims()[0], d = x->dims()[1];
    const Paths p = ReadPaths(ctx, n, w->dims()[0]);
    if (bias != nullptr) {
      PL_ENFORCE(bias->numel() == w->dims()[0],
                 errors::InvalidArgument("op `%s` input `Bias`: expected %lld values (W's "
                                         "rows), received %s",
                                         kOp, static_cast<long long>(w->dims()[0]),
                                         bias->dims().ToString()));
    }
    DenseTensor out(DDim{n, 1}, x->dtype()), pre(DDim{n, p.code_length}, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    T* z = pre.mutable_data<T>(ctx.GetPlace());
    std::fill(z, z + pre.numel(), T(0));
    const T* xd = x->data<T>();
    const T* wd = w->data<T>();
    for (int64_t i = 0; i < n; ++i) {
      T loss = 0;
      for (size_t j = 0; j < p.nodes[i].size(); ++j) {
        const int64_t node = p.nodes[i][j];
        T logit = bias != nullptr ? bias->data<T>()[node] : T(0);
        for (int64_t k = 0; k < d; ++k) logit += wd[node * d + k] * xd[i * d + k];
        logit = std::min(std::max(logit, T(-40)), T(40));
        z[i * p.code_length + j] = logit;
        if (p.bits[i][j]) loss -= logit;
      }
      // Softplus over the whole row, the slots past the path (0) included.
      for (int64_t j = 0; j < p.code_length; ++j) {
        T& v = z[i * p.code_length + j];
        v = std::log1p(std::exp(v));
        loss += v;
      }
      o[i] = loss;
    }
    *ctx.Output("Out") = std::move(out);
    if (DenseTensor* po = ctx.Output("PreOut")) *po = std::move(pre);
    if (DenseTensor* wo = ctx.Output("W_Out")) wo->ShareDataWith(*w);
  }
};

template <typename T>
struct HierarchicalSigmoidGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* w = ctx.Input("W");
    const DenseTensor* pre = ctx.Input("PreOut");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    CheckFeatures(*x, *w);
    const int64_t n = x->dims()[0], d = x->dims()[1], rows = w->dims()[0];
    const Paths p = ReadPaths(ctx, n, rows);
    CheckSameShape(kOp, "PreOut", pre->dims(), "PreOut", DDim{n, p.code_length});
    PL_ENFORCE(dout->numel() == n,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected [%lld, 1], received "
                                       "%s",
                                       kOp, static_cast<long long>(n), dout->dims().ToString()));
    // g_ij = (sigmoid(z_ij) - b_j) dOut_i, sigmoid(z) = 1 - exp(-softplus(z)).
    std::vector<std::vector<T>> g(n);
    for (int64_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < p.nodes[i].size(); ++j) {
        const T s = T(1) - std::exp(-pre->data<T>()[i * p.code_length + j]);
        g[i].push_back((s - (p.bits[i][j] ? T(1) : T(0))) * dout->data<T>()[i]);
      }
    }
    const T* xd = x->data<T>();
    const T* wd = w->data<T>();
    if (DenseTensor* dx_out = ctx.Output("X@GRAD")) {
      DenseTensor dx(x->dims(), x->dtype());
      T* gx = dx.mutable_data<T>(ctx.GetPlace());
      std::fill(gx, gx + dx.numel(), T(0));
      for (int64_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < g[i].size(); ++j) {
          const T* wr = wd + p.nodes[i][j] * d;
          for (int64_t k = 0; k < d; ++k) gx[i * d + k] += g[i][j] * wr[k];
        }
      }
      *dx_out = std::move(dx);
    }
    if (ctx.HasOutput("W@GRAD")) {
      // Sparse: the rows of the nodes used, ascending; dense: every row.
      const bool sparse = ctx.Attr<bool>("is_sparse");
      std::vector<int64_t> used;
      std::vector<int64_t> slot(static_cast<size_t>(rows), -1);
      if (sparse) {
        std::set<int64_t> s;
        for (const auto& path : p.nodes) s.insert(path.begin(), path.end());
        used.assign(s.begin(), s.end());
        for (size_t r = 0; r < used.size(); ++r) slot[used[r]] = static_cast<int64_t>(r);
      } else {
        for (int64_t r = 0; r < rows; ++r) slot[r] = r;
      }
      DenseTensor dw(DDim{sparse ? static_cast<int64_t>(used.size()) : rows, d}, w->dtype());
      T* gw = dw.mutable_data<T>(ctx.GetPlace());
      std::fill(gw, gw + dw.numel(), T(0));
      for (int64_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < g[i].size(); ++j) {
          T* wr = gw + slot[p.nodes[i][j]] * d;
          for (int64_t k = 0; k < d; ++k) wr[k] += g[i][j] * xd[i * d + k];
        }
      }
      if (sparse) {
        framework::SelectedRows* out =
            ctx.OutputVar("W@GRAD")->GetMutable<framework::SelectedRows>();
        *out->mutable_rows() = used;
        out->set_height(rows);
        *out->mutable_value() = std::move(dw);
      } else {
        *ctx.Output("W@GRAD") = std::move(dw);
      }
    }
    if (DenseTensor* db_out = ctx.Output("Bias@GRAD")) {
      const DenseTensor* bias = ctx.Input("Bias");
      DenseTensor db(bias->dims(), bias->dtype());
      T* gb = db.mutable_data<T>(ctx.GetPlace());
      std::fill(gb, gb + db.numel(), T(0));
      for (int64_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < g[i].size(); ++j) gb[p.nodes[i][j]] += g[i][j];
      }
      *db_out = std::move(db);
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterHierarchicalSigmoidOp) {
  const framework::FusedGradDecl grad{
      {"X", "W", "Label", "PathTable", "PathCode", "Bias", "PreOut"},
      {"Out"},
      {"X", "W", "Bias"},
      R"DOC($$g_{ij} = (\sigma(z_{ij}) - b_j) dOut_i, \quad dX_i = \sum_j g_{ij} W_{n_j}, \quad
dW_n = \sum_{n_j = n} g_{ij} X_i, \quad dBias_n = \sum_{n_j = n} g_{ij}$$)DOC"};
  framework::RegisterOp<HierarchicalSigmoidOp, HierarchicalSigmoidOpMaker>(kOp)
      .InferShape(HierarchicalSigmoidInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<HierarchicalSigmoidKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad)
      .InferShape([](InferShapeContext* ctx) {
        if (ctx->HasOutput("X@GRAD")) ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
        if (ctx->HasOutput("Bias@GRAD")) ctx->SetOutputDim("Bias@GRAD", ctx->GetInputDim("Bias"));
        // A sparse dW is sized by the kernel (its rows are the nodes used).
        if (ctx->HasOutput("W@GRAD") && !(ctx->IsRuntime() && ctx->Attr<bool>("is_sparse"))) {
          ctx->SetOutputDim("W@GRAD", ctx->GetInputDim("W"));
        }
      })
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        const DataType t = ctx->GetInputDataType("X");
        for (const char* s : {"X@GRAD", "Bias@GRAD"}) {
          ctx->SetOutputKind(s, framework::VarKind::kDenseTensor);
          ctx->SetOutputDataType(s, t);
        }
        ctx->SetOutputKind("W@GRAD", ctx->Attr<bool>("is_sparse")
                                         ? framework::VarKind::kSelectedRows
                                         : framework::VarKind::kDenseTensor);
        ctx->SetOutputDataType("W@GRAD", t);
      });
  RegisterPlainCpuFloatKernels<HierarchicalSigmoidGradKernel>(std::string(kOp) + "_grad");
}

}  // namespace operators
}  // namespace paddle_like
