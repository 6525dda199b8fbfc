// feed and fetch: move tensors between the `feed`/`fetch` holder variables (lists indexed by
// the `col` attribute) and the program's variables.
#include "operators/common.h"
#include "operators/math/selected_rows_functor.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

using framework::FeedList;
using framework::FetchList;
using framework::Scope;
using framework::Variable;

class FeedOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The feed holder variable (a list of tensors).");
    AddOutput("Out", "The variable that receives column `col` of the holder.");
    // Required, as in PaddlePaddle: it orders the program's inputs.
    AddAttr<int>("col", "Index into the feed holder.").InRange(0, 1 << 20);
    AddComment(R"DOC(
Feed operator: $$Out = X[col]$$ (X is the feed holder list). Shares the fed buffer.
)DOC");
  }
};

class FeedOp : public framework::OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const Scope& scope, const platform::Place& place) const override {
    const std::string holder_name = Input("X");
    const Variable* holder = scope.FindVar(holder_name);
    PL_ENFORCE(holder != nullptr && holder->IsType<FeedList>(),
               errors::NotFound("op `feed` input `X`: feed holder `%s` holds no feed list",
                                holder_name));
    const int col = Attr<int>("col");
    const auto& list = holder->Get<FeedList>();
    PL_ENFORCE(col >= 0 && static_cast<size_t>(col) < list.size(),
               errors::NotFound("op `feed` output `Out` (variable `%s`): feed column %d was not "
                                "given (%zu tensors fed)",
                                Output("Out"), col, list.size()));
    Variable* out = scope.FindVar(Output("Out"));
    PL_ENFORCE(out != nullptr, errors::NotFound("op `feed` output `Out`: variable `%s` not found",
                                                Output("Out")));
    const DenseTensor& in = list[static_cast<size_t>(col)];
    if (in.place() == place) {
      out->GetMutable<DenseTensor>()->ShareDataWith(in);
    } else {
      framework::CopyTensor(in, place, out->GetMutable<DenseTensor>());
    }
  }
};

class FetchOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The variable to fetch.");
    AddOutput("Out", "The fetch holder variable (a list of tensors).");
    // Required, as in PaddlePaddle: it orders the program's outputs.
    AddAttr<int>("col", "Index into the fetch holder.").InRange(0, 1 << 20);
    AddComment(R"DOC(
Fetch operator: $$Out[col] = X$$, copied to the CPU.

A SelectedRows X is fetched as the dense tensor it stands for, [height] + the dims of one
value row, with zeros where no row is listed and repeated rows added (PaddlePaddle's fetch
holds no SelectedRows either; users read dense arrays).
)DOC");
  }
};

class FetchOp : public framework::OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const Scope& scope, const platform::Place&) const override {
    const Variable* in = scope.FindVar(Input("X"));
    PL_ENFORCE(in != nullptr && framework::TensorOf(*in) != nullptr &&
                   framework::TensorOf(*in)->initialized(),
               errors::NotFound("op `fetch` input `X`: variable `%s` holds no data", Input("X")));
    Variable* holder = scope.FindVar(Output("Out"));
    PL_ENFORCE(holder != nullptr, errors::NotFound("op `fetch` output `Out`: holder `%s` not found",
                                                   Output("Out")));
    auto* list = holder->GetMutable<FetchList>();
    const size_t col = static_cast<size_t>(Attr<int>("col"));
    if (list->size() <= col) list->resize(col + 1);
    if (in->IsType<framework::SelectedRows>()) {
      ToDense(in->Get<framework::SelectedRows>(), &(*list)[col]);
    } else {
      // Fetched values are row-major whatever layout a kernel left them in.
      const DenseTensor& x = in->Get<DenseTensor>();
      if (x.is_plain()) {
        framework::CopyTensor(x, platform::CPUPlace(), &(*list)[col]);
      } else {
        (*list)[col] = framework::PlainTensor(x);
      }
    }
  }

 private:
  void ToDense(const framework::SelectedRows& in, DenseTensor* out) const {
    const DataType dtype = in.value().dtype();
    PL_ENFORCE(dtype == DataType::FLOAT32 || dtype == DataType::FLOAT64,
               errors::Unimplemented("op `fetch` input `X` (variable `%s`): a SelectedRows of %s "
                                     "values cannot be fetched (float32 or float64 only)",
                                     Input("X"), platform::DataTypeName(dtype)));
    if (in.value().place().is_cpu()) {
      math::SelectedRowsToDense(in, out);
      return;
    }
    framework::SelectedRows on_cpu(in.rows(), in.height());
    framework::CopyTensor(in.value(), platform::CPUPlace(), on_cpu.mutable_value());
    math::SelectedRowsToDense(on_cpu, out);
  }
};

PL_REGISTER_OPS(RegisterFeedFetchOps) {
  framework::RegisterOp<FeedOp, FeedOpMaker>("feed").InferVarType(
      [](framework::VarTypeInferenceContext*) {});
  framework::RegisterOp<FetchOp, FetchOpMaker>("fetch").InferVarType(
      [](framework::VarTypeInferenceContext*) {});
}

}  // namespace operators
}  // namespace paddle_like
