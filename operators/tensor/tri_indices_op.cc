// tril_indices and triu_indices: the coordinates of a matrix's lower or upper triangle
// (paddle.tril_indices, paddle.triu_indices), as a [2, count] integer tensor. No gradient.
#include <algorithm>
#include <string>

#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

// The attribute names of the two ops (PaddlePaddle spells them differently).
struct TriDecl {
  const char* type;
  const char* rows;
  const char* cols;
  bool lower;
};

constexpr TriDecl kTril{"tril_indices", "rows", "cols", true};
constexpr TriDecl kTriu{"triu_indices", "row", "col", false};

template <const TriDecl& kDecl>
class TriIndicesOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddOutput("out", "[2, count]: row indices, then column indices, in row-major order.");
    AddAttr<int>(kDecl.rows, "Rows of the matrix (>= 0).").SetDefault(0);
    AddAttr<int>(kDecl.cols, "Columns of the matrix (>= 0).").SetDefault(0);
    AddAttr<int>("offset", "Diagonal: 0 the main one, > 0 above it, < 0 below it.").SetDefault(0);
    AddAttr<int>("dtype", "out's dtype (framework.proto VarType: 2 int32, 3 int64).")
        .SetDefault(3)
        .InEnum({2, 3});
    AddComment(std::string("Operator `") + kDecl.type +
               "`: the coordinates (r, c) of a rows x cols matrix with\n\n$$" +
               (kDecl.lower ? "c - r \\le offset" : "c - r \\ge offset") +
               "$$\n\nlisted row by row, columns ascending within a row; out[0] holds the rows "
               "and out[1] the columns. Example: 3 x 3, offset 0 -> " +
               (kDecl.lower ? "[[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]"
                            : "[[0, 0, 0, 1, 1, 2], [0, 1, 2, 1, 2, 2]]") +
               ". No gradient.\n");
  }
};

class TriIndicesOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext&) const override {
    return static_cast<DataType>(Attr<int>("dtype"));
  }
};

// The sizes, checked, and the first and past-the-end column of row r in the triangle.
template <const TriDecl& kDecl>
struct Triangle {
  int64_t rows = 0, cols = 0, offset = 0;

  Triangle(const std::string& op, const framework::AttributeMap& attrs)
      : rows(std::get<int>(attrs.at(kDecl.rows))),
        cols(std::get<int>(attrs.at(kDecl.cols))),
        offset(std::get<int>(attrs.at("offset"))) {
    PL_ENFORCE(rows >= 0 && cols >= 0,
               errors::InvalidArgument("op `%s` attributes `%s`, `%s`: expected sizes >= 0, "
                                       "received %lld x %lld",
                                       op, kDecl.rows, kDecl.cols, static_cast<long long>(rows),
                                       static_cast<long long>(cols)));
  }
  // Columns c with c - r <= offset (lower) or c - r >= offset (upper), clamped to the matrix.
  int64_t Begin(int64_t r) const {
    return kDecl.lower ? 0 : std::clamp(r + offset, int64_t{0}, cols);
  }
  int64_t End(int64_t r) const {
    return kDecl.lower ? std::clamp(r + offset + 1, int64_t{0}, cols) : cols;
  }
  int64_t Count() const {
    int64_t n = 0;
    for (int64_t r = 0; r < rows; ++r) n += End(r) - Begin(r);
    return n;
  }
};

template <const TriDecl& kDecl>
void TriIndicesInferShape(InferShapeContext* ctx) {
  ctx->RequireOutput("out");
  ctx->SetOutputDim("out", DDim({2, Triangle<kDecl>(ctx->OpType(), ctx->Attrs()).Count()}));
}

void TriIndicesInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("out", static_cast<DataType>(ctx->Attr<int>("dtype")));
}

template <const TriDecl& kDecl>
struct TriIndicesKernel {
  template <typename T>
  struct Of {
    static void Compute(const ExecutionContext& ctx) {
      const Triangle<kDecl> t(ctx.Type(), ctx.op().Attrs());
      const int64_t n = t.Count();
      DenseTensor out(DDim({2, n}), platform::ToDataType<T>());
      T* o = out.mutable_data<T>(ctx.GetPlace());
      int64_t k = 0;
      for (int64_t r = 0; r < t.rows; ++r) {
        for (int64_t c = t.Begin(r); c < t.End(r); ++c, ++k) {
          o[k] = static_cast<T>(r);
          o[n + k] = static_cast<T>(c);
        }
      }
      *ctx.Output("out") = std::move(out);
    }
  };
};

template <const TriDecl& kDecl>
void RegisterTriIndices() {
  framework::RegisterOp<TriIndicesOp, TriIndicesOpMaker<kDecl>>(kDecl.type)
      .InferShape(TriIndicesInferShape<kDecl>)
      .InferVarType(TriIndicesInferVarType);
  RegisterPlainCpuKernels<TriIndicesKernel<kDecl>::template Of, int32_t, int64_t>(kDecl.type);
}

}  // namespace

PL_REGISTER_OPS(RegisterTriIndicesOps) {
  RegisterTriIndices<kTril>();
  RegisterTriIndices<kTriu>();
}

}  // namespace operators
}  // namespace paddle_like
