#include "operators/math/selected_rows_functor.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "platform/enforce.h"

namespace paddle_like {
namespace operators {
namespace math {

namespace {

using framework::DDim;
using framework::DenseTensor;
using framework::SelectedRows;
using platform::DataType;

// The width of one value row; checks the invariants shared by both functions.
int64_t CheckedRowWidth(const SelectedRows& in, const char* fn) {
  const DenseTensor& value = in.value();
  const auto rows = static_cast<int64_t>(in.rows().size());
  PL_ENFORCE(value.dtype() == DataType::FLOAT32 || value.dtype() == DataType::FLOAT64,
             errors::InvalidArgument("%s: expected a float32 or float64 value, received %s", fn,
                                     platform::DataTypeName(value.dtype())));
  PL_ENFORCE(value.dims().size() >= 1 && value.dims()[0] == rows,
             errors::InvalidArgument("%s: expected a value of shape [%lld, ...] (one row per "
                                     "index), received %s",
                                     fn, static_cast<long long>(rows), value.dims().ToString()));
  for (int64_t r : in.rows()) {
    PL_ENFORCE(
        r >= 0 && r < in.height(),
        errors::InvalidArgument("%s: row index %lld outside [0, %lld) (the height)", fn,
                                static_cast<long long>(r), static_cast<long long>(in.height())));
  }
  return framework::Product(value.dims(), 1, value.dims().size());
}

// dst[row(i)] += src[i] for every i, in order; `slot_of` maps a row index to a dst row.
template <typename T, typename SlotFn>
void AccumulateRows(const SelectedRows& in, int64_t width, SlotFn slot_of, T* dst) {
  if (width == 0 || in.rows().empty()) return;
  const T* src = in.value().data<T>();
  for (size_t i = 0; i < in.rows().size(); ++i) {
    T* d = dst + slot_of(in.rows()[i]) * width;
    const T* s = src + static_cast<int64_t>(i) * width;
    for (int64_t k = 0; k < width; ++k) d[k] += s[k];
  }
}

template <typename T>
void MergeTyped(const SelectedRows& in, int64_t width, SelectedRows* out) {
  std::vector<int64_t> unique = in.rows();
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  std::vector<int64_t> dims = in.value().dims().ToVector();
  dims[0] = static_cast<int64_t>(unique.size());
  DenseTensor value(DDim(dims), in.value().dtype());
  T* v = value.mutable_data<T>(platform::CPUPlace());
  if (value.numel() > 0) std::memset(v, 0, sizeof(T) * value.numel());
  AccumulateRows<T>(
      in, width,
      [&unique](int64_t r) {
        return std::lower_bound(unique.begin(), unique.end(), r) - unique.begin();
      },
      v);
  *out->mutable_rows() = std::move(unique);
  out->set_height(in.height());
  *out->mutable_value() = std::move(value);
}

template <typename T>
void AddToDenseTyped(const SelectedRows& in, int64_t width, DenseTensor* dense) {
  AccumulateRows<T>(
      in, width, [](int64_t r) { return r; }, dense->data<T>());
}

void AddToDense(const SelectedRows& in, int64_t width, DenseTensor* dense) {
  if (in.value().dtype() == DataType::FLOAT32) {
    AddToDenseTyped<float>(in, width, dense);
  } else {
    AddToDenseTyped<double>(in, width, dense);
  }
}

// The dims of one value row, value.dims[1:].
DDim RowDims(const SelectedRows& s) {
  const std::vector<int64_t> d = s.value().dims().ToVector();
  return DDim(std::vector<int64_t>(d.begin() + (d.empty() ? 0 : 1), d.end()));
}

}  // namespace

void MergeSelectedRows(const SelectedRows& in, SelectedRows* out) {
  PL_ENFORCE(out != &in, errors::InvalidArgument("MergeSelectedRows: `out` must not be `in`"));
  const int64_t width = CheckedRowWidth(in, "MergeSelectedRows");
  if (in.value().dtype() == DataType::FLOAT32) {
    MergeTyped<float>(in, width, out);
  } else {
    MergeTyped<double>(in, width, out);
  }
}

void SelectedRowsToDense(const SelectedRows& in, DenseTensor* out) {
  const int64_t width = CheckedRowWidth(in, "SelectedRowsToDense");
  DenseTensor dense(in.dense_dims(), in.value().dtype());
  std::memset(dense.mutable_data(platform::CPUPlace(), dense.dtype()), 0,
              static_cast<size_t>(dense.numel()) * platform::SizeOf(dense.dtype()));
  AddToDense(in, width, &dense);
  *out = std::move(dense);
}

void AddSelectedRowsToDense(const SelectedRows& in, DenseTensor* dense) {
  const int64_t width = CheckedRowWidth(in, "AddSelectedRowsToDense");
  PL_ENFORCE(dense->initialized() && dense->place().is_cpu() &&
                 dense->dtype() == in.value().dtype() && dense->dims() == in.dense_dims(),
             errors::InvalidArgument("AddSelectedRowsToDense: expected a CPU %s tensor of shape "
                                     "%s, received %s",
                                     platform::DataTypeName(in.value().dtype()),
                                     in.dense_dims().ToString(), dense->dims().ToString()));
  AddToDense(in, width, dense);
}

void ConcatSelectedRows(const std::vector<const SelectedRows*>& ins, SelectedRows* out) {
  PL_ENFORCE(!ins.empty(), errors::InvalidArgument("ConcatSelectedRows: no inputs"));
  const SelectedRows& first = *ins[0];
  const DDim row_dims = RowDims(first);
  std::vector<int64_t> rows;
  for (size_t i = 0; i < ins.size(); ++i) {
    const SelectedRows& in = *ins[i];
    PL_ENFORCE(&in != out, errors::InvalidArgument("ConcatSelectedRows: `out` is input #%zu", i));
    CheckedRowWidth(in, "ConcatSelectedRows");
    PL_ENFORCE(in.height() == first.height() && RowDims(in) == row_dims &&
                   in.value().dtype() == first.value().dtype(),
               errors::InvalidArgument(
                   "ConcatSelectedRows: expected input #%zu to have height %lld, rows of shape %s "
                   "and dtype %s like input #0, received height %lld, rows of shape %s, dtype %s",
                   i, static_cast<long long>(first.height()), row_dims.ToString(),
                   platform::DataTypeName(first.value().dtype()),
                   static_cast<long long>(in.height()), RowDims(in).ToString(),
                   platform::DataTypeName(in.value().dtype())));
    rows.insert(rows.end(), in.rows().begin(), in.rows().end());
  }
  std::vector<int64_t> dims = {static_cast<int64_t>(rows.size())};
  for (int d = 0; d < row_dims.size(); ++d) dims.push_back(row_dims[d]);
  DenseTensor value(DDim(dims), first.value().dtype());
  auto* dst = static_cast<char*>(value.mutable_data(platform::CPUPlace(), value.dtype()));
  for (const SelectedRows* in : ins) {
    const size_t bytes =
        static_cast<size_t>(in->value().numel()) * platform::SizeOf(in->value().dtype());
    if (bytes > 0) std::memcpy(dst, in->value().raw_data(), bytes);
    dst += bytes;
  }
  *out->mutable_rows() = std::move(rows);
  out->set_height(first.height());
  *out->mutable_value() = std::move(value);
}

}  // namespace math
}  // namespace operators
}  // namespace paddle_like
