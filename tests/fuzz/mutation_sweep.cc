// mutation_sweep: runs `paddle_like run` on damaged copies of saved models, as a user with a
// corrupted or hostile download would, and sorts every outcome:
//   ok        exit 0
//   error     exit 1 with "error: <Kind>Error: ..." (a typed, explained error)
//   internal  exit 2, "internal error: ..." (an exception the runtime did not expect)
//   sanitizer a report from AddressSanitizer or UndefinedBehaviorSanitizer
//   signal    killed by a signal (a crash)
//   hang      still running at the time limit
// The sweep passes when it finds no internal errors, sanitizer reports, signals or hangs.
// The files of each such case are kept under <work>/failures/ with the command that ran them.
//
// Mutations, chosen at random (reproducibly, from --seed):
//   program: attribute values (integer and float extremes, lists resized or emptied), attribute
//     types, removed attributes, declared shapes and data types, variable kinds, op slots and
//     types, op order, block indices, op versions, and raw bytes (flips, truncation, insertion);
//   parameters: tensor record headers (versions, LoD levels and sizes, TensorDesc sizes, dims
//     and data types) and raw bytes;
//   feeds: .npy headers (shape, dtype, order, header length), extreme values, raw bytes;
// plus fixed cases: /dev/zero as the program, the parameters and a feed.
//
//   mutation_sweep --paddle-like build/bin/paddle_like --models ../shared/models
//                  [--cases 4000] [--seed 1] [--jobs 2] [--timeout 20] [--mem-limit-mb 6144]
//                  [--work DIR] [--model NAME ...] [--keep-all] [--verb run|infer]
// --verb infer runs each case through `paddle_like infer` (the inference library with its
// passes, which read the parameters) instead of `paddle_like run` (the executor alone).
// --keep-all keeps every case's directory under <work> with a case.json (the files, the
// command's outcome), for tests/compat/compare_refusals.py, which loads the same cases in
// PaddlePaddle.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "framework/framework.pb.h"
#include "framework/npy_io.h"

namespace {

namespace fs = std::filesystem;
namespace proto = ::paddle::framework::proto;
using paddle_like::framework::DDim;
using paddle_like::framework::DenseTensor;
using paddle_like::platform::DataType;

// ---------------------------------------------------------------------------------------------
// Files and models.

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

struct Feed {
  std::string name;
  std::string npy;  // The valid feed, serialised.
};

struct Model {
  std::string name;
  std::string dir;
  std::string program_file;               // Base name inside dir.
  proto::ProgramDesc program;
  std::string program_bytes;
  std::vector<std::string> param_files;  // Base names: one combined file, or one per variable.
  std::vector<Feed> feeds;
};

// The program's feed targets in `col` order with their declared dtype and shape (unknown dims
// become 1 for the batch and `spatial` elsewhere).
std::vector<Feed> MakeFeeds(const proto::ProgramDesc& program, std::mt19937_64* rng) {
  std::map<int, std::string> by_col;
  const auto& block = program.blocks(0);
  for (const auto& op : block.ops()) {
    if (op.type() != "feed") continue;
    int col = 0;
    for (const auto& a : op.attrs()) {
      if (a.name() == "col") col = a.i();
    }
    for (const auto& o : op.outputs()) {
      if (o.parameter() == "Out" && o.arguments_size() == 1) by_col[col] = o.arguments(0);
    }
  }
  std::vector<Feed> feeds;
  for (const auto& kv : by_col) {
    const proto::VarDesc* desc = nullptr;
    for (const auto& v : block.vars()) {
      if (v.name() == kv.second) desc = &v;
    }
    if (desc == nullptr || !desc->type().has_lod_tensor()) continue;
    const auto& t = desc->type().lod_tensor().tensor();
    std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] < 0) dims[i] = i == 0 ? 1 : 64;
    }
    const auto dtype = static_cast<DataType>(t.data_type());
    DenseTensor tensor(DDim(dims), dtype);
    std::uniform_real_distribution<double> uni(-1, 1);
    if (dtype == DataType::FLOAT32) {
      float* p = tensor.mutable_data<float>(paddle_like::platform::CPUPlace());
      for (int64_t i = 0; i < tensor.numel(); ++i) p[i] = static_cast<float>(uni(*rng));
    } else if (dtype == DataType::FLOAT64) {
      double* p = tensor.mutable_data<double>(paddle_like::platform::CPUPlace());
      for (int64_t i = 0; i < tensor.numel(); ++i) p[i] = uni(*rng);
    } else {
      char* p = static_cast<char*>(tensor.mutable_data(paddle_like::platform::CPUPlace(), dtype));
      std::memset(p, 0, tensor.memory_size());
    }
    feeds.push_back(Feed{kv.second, paddle_like::framework::SerializeNpy(tensor)});
  }
  return feeds;
}

bool LoadModel(const fs::path& dir, std::mt19937_64* rng, Model* m) {
  m->name = dir.filename().string();
  m->dir = dir.string();
  std::vector<std::string> pdmodels;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".pdmodel") pdmodels.push_back(e.path().filename().string());
  }
  if (fs::exists(dir / "__model__")) {
    m->program_file = "__model__";
  } else if (pdmodels.size() == 1) {
    m->program_file = pdmodels[0];
  } else {
    return false;
  }
  m->program_bytes = ReadAll((dir / m->program_file).string());
  if (!m->program.ParseFromString(m->program_bytes)) return false;
  const std::string stem = fs::path(m->program_file).stem().string();
  if (fs::exists(dir / (stem + ".pdiparams"))) {
    m->param_files.push_back(stem + ".pdiparams");
  } else {
    for (const auto& v : m->program.blocks(0).vars()) {
      if (v.persistable() && fs::exists(dir / v.name())) m->param_files.push_back(v.name());
    }
  }
  m->feeds = MakeFeeds(m->program, rng);
  return !m->feeds.empty();
}

// ---------------------------------------------------------------------------------------------
// Mutations.

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  std::mt19937_64& rng() { return rng_; }
  size_t Below(size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  bool Coin() { return Below(2) == 0; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) { return v[Below(v.size())]; }

  int32_t Int32() {
    static const std::vector<int32_t> kValues = {
        std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min(), -1, -2, 0, 1,
        2, 3, 7, 1000, 65535, 1 << 30, -(1 << 30), 2147483646};
    return Coin() ? Pick(kValues) : static_cast<int32_t>(rng_());
  }
  int64_t Int64() {
    static const std::vector<int64_t> kValues = {
        std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
        int64_t{1} << 62, (int64_t{1} << 62) + 1, int64_t{1} << 32, int64_t{1} << 31,
        (int64_t{1} << 31) - 1, int64_t{1} << 40, -1, -2, 0, 1, 2, 3, 65536};
    return Coin() ? Pick(kValues) : static_cast<int64_t>(rng_());
  }
  float Float() {
    static const std::vector<float> kValues = {
        std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
        -std::numeric_limits<float>::infinity(), 3.4e38f, -3.4e38f, 1e-45f, 0.f, -1.f, 2.f,
        2147483648.f, -0.5f};
    return Pick(kValues);
  }
  std::string String() {
    static const std::vector<std::string> kValues = {
        "", "NHWC", "NCHW", "AnyLayout", "SAME", "VALID", "EXPLICIT", "max", "avg", "bogus",
        "upscale_in_train", "downgrade_in_infer", std::string(5000, 'x'), std::string("a\0b", 3)};
    return Pick(kValues);
  }

  // Raw byte damage: flips, random bytes, truncation, insertion, zeroed runs.
  std::string Bytes(std::string b) {
    if (b.empty()) return std::string(1, static_cast<char>(rng_()));
    switch (Below(5)) {
      case 0: {
        const size_t n = 1 + Below(16);
        for (size_t i = 0; i < n; ++i) b[Below(b.size())] ^= static_cast<char>(1u << Below(8));
        break;
      }
      case 1: {
        const size_t n = 1 + Below(8);
        for (size_t i = 0; i < n; ++i) b[Below(b.size())] = static_cast<char>(Pick(kBytes()));
        break;
      }
      case 2: b.resize(Below(b.size())); break;
      case 3: b.insert(Below(b.size() + 1), std::string(1 + Below(64), static_cast<char>(rng_()))); break;
      default: {
        const size_t at = Below(b.size());
        const size_t n = std::min(b.size() - at, 1 + Below(32));
        std::fill(b.begin() + static_cast<std::ptrdiff_t>(at),
                  b.begin() + static_cast<std::ptrdiff_t>(at + n), Coin() ? '\0' : '\xff');
      }
    }
    return b;
  }

  // ---- program ----

  // Returns a description of what changed.
  std::string Program(proto::ProgramDesc* p) {
    proto::BlockDesc* block = p->mutable_blocks(0);
    switch (Below(12)) {
      case 0:
      case 1:
      case 2: return AttrValue(block);
      case 3: return AttrType(block);
      case 4: {
        proto::OpDesc* op = RandomOp(block);
        if (op == nullptr || op->attrs_size() == 0) return "no-op";
        const int i = static_cast<int>(Below(op->attrs_size()));
        const std::string name = op->attrs(i).name();
        op->mutable_attrs()->DeleteSubrange(i, 1);
        return "remove attr " + op->type() + "." + name;
      }
      case 5:
      case 6: return VarShape(block);
      case 7: return VarTypeOrKind(block);
      case 8: return OpSlots(block);
      case 9: return OpTypeOrOrder(block);
      case 10: return Blocks(p);
      default: {
        auto* map = p->mutable_op_version_map();
        auto* pair = map->pair_size() > 0 && Coin() ? map->mutable_pair(static_cast<int>(Below(map->pair_size())))
                                                    : map->add_pair();
        if (!pair->has_op_name()) pair->set_op_name(RandomOp(block) ? RandomOp(block)->type() : "relu");
        pair->mutable_op_version()->set_version(Int32());
        return "op version " + pair->op_name();
      }
    }
  }

 private:
  static const std::vector<unsigned char>& kBytes() {
    static const std::vector<unsigned char> v = {0x00, 0xff, 0x7f, 0x80, 0x01, 0x08, 0x10, 0x12};
    return v;
  }

  proto::OpDesc* RandomOp(proto::BlockDesc* b) {
    return b->ops_size() == 0 ? nullptr : b->mutable_ops(static_cast<int>(Below(b->ops_size())));
  }
  proto::VarDesc* RandomVar(proto::BlockDesc* b) {
    return b->vars_size() == 0 ? nullptr : b->mutable_vars(static_cast<int>(Below(b->vars_size())));
  }

  template <typename List, typename Gen>
  void MutateList(List* list, Gen gen) {
    switch (Below(4)) {
      case 0:
        if (list->size() > 0) list->Set(static_cast<int>(Below(list->size())), gen());
        break;
      case 1:
        for (int i = 0; i < list->size(); ++i) list->Set(i, gen());
        break;
      case 2: list->Clear(); break;
      default: {
        const size_t n = Below(12);
        list->Clear();
        for (size_t i = 0; i < n; ++i) list->Add(gen());
      }
    }
  }

  std::string AttrValue(proto::BlockDesc* block) {
    proto::OpDesc* op = RandomOp(block);
    if (op == nullptr || op->attrs_size() == 0) return "no-op";
    proto::OpDesc_Attr* a = op->mutable_attrs(static_cast<int>(Below(op->attrs_size())));
    switch (a->type()) {
      case proto::INT: a->set_i(Int32()); break;
      case proto::LONG: a->set_l(Int64()); break;
      case proto::FLOAT: a->set_f(Float()); break;
      case proto::FLOAT64: a->set_float64(Float()); break;
      case proto::BOOLEAN: a->set_b(!a->b()); break;
      case proto::STRING: a->set_s(String()); break;
      case proto::INTS: MutateList(a->mutable_ints(), [&] { return Int32(); }); break;
      case proto::LONGS: MutateList(a->mutable_longs(), [&] { return Int64(); }); break;
      case proto::FLOATS: MutateList(a->mutable_floats(), [&] { return Float(); }); break;
      case proto::STRINGS:
        a->clear_strings();
        for (size_t i = Below(4); i > 0; --i) a->add_strings(String());
        break;
      case proto::BOOLEANS: MutateList(a->mutable_bools(), [&] { return Coin(); }); break;
      case proto::BLOCK: a->set_block_idx(Int32()); break;
      default: a->set_i(Int32());
    }
    return "attr value " + op->type() + "." + a->name();
  }

  std::string AttrType(proto::BlockDesc* block) {
    proto::OpDesc* op = RandomOp(block);
    if (op == nullptr || op->attrs_size() == 0) return "no-op";
    proto::OpDesc_Attr* a = op->mutable_attrs(static_cast<int>(Below(op->attrs_size())));
    int t = 0;
    do {
      t = static_cast<int>(Below(18));
    } while (!proto::AttrType_IsValid(t));
    a->set_type(static_cast<proto::AttrType>(t));
    if (Coin()) a->set_i(Int32());
    return "attr type " + op->type() + "." + a->name();
  }

  std::string VarShape(proto::BlockDesc* block) {
    proto::VarDesc* v = RandomVar(block);
    if (v == nullptr || !v->type().has_lod_tensor()) return "no-op";
    auto* dims = v->mutable_type()->mutable_lod_tensor()->mutable_tensor()->mutable_dims();
    switch (Below(3)) {
      case 0:
        if (dims->size() > 0) dims->Set(static_cast<int>(Below(dims->size())), Int64());
        break;
      case 1: {
        static const std::vector<size_t> kRanks = {0, 1, 5, 9, 10, 64};
        const size_t rank = Pick(kRanks);
        dims->Clear();
        for (size_t i = 0; i < rank; ++i) dims->Add(Coin() ? 1 : Int64());
        break;
      }
      default:
        // The two shapes of the first report: element counts past 2^63 and ones that wrap to 0.
        dims->Clear();
        dims->Add(Coin() ? std::numeric_limits<int64_t>::max() : int64_t{1} << 62);
    }
    return "var shape " + v->name();
  }

  std::string VarTypeOrKind(proto::BlockDesc* block) {
    proto::VarDesc* v = RandomVar(block);
    if (v == nullptr) return "no-op";
    int t = 0;
    do {
      t = static_cast<int>(Below(40));
    } while (!proto::VarType_Type_IsValid(t));
    if (v->type().has_lod_tensor() && Coin()) {
      v->mutable_type()->mutable_lod_tensor()->mutable_tensor()->set_data_type(
          static_cast<proto::VarType_Type>(t));
      return "var dtype " + v->name();
    }
    if (Coin()) {
      v->set_persistable(!v->persistable());
      return "var persistable " + v->name();
    }
    v->mutable_type()->set_type(static_cast<proto::VarType_Type>(t));
    return "var kind " + v->name();
  }

  std::string OpSlots(proto::BlockDesc* block) {
    proto::OpDesc* op = RandomOp(block);
    if (op == nullptr) return "no-op";
    const bool input = Coin();
    auto* slots = input ? op->mutable_inputs() : op->mutable_outputs();
    if (slots->size() == 0) return "no-op";
    const int s = static_cast<int>(Below(slots->size()));
    proto::OpDesc_Var* var = slots->Mutable(s);
    const std::string what = op->type() + (input ? " input " : " output ") + var->parameter();
    switch (Below(6)) {
      case 0: var->clear_arguments(); return "clear " + what;
      case 1: var->add_arguments("no_such_variable"); return "add unknown var to " + what;
      case 2: {
        proto::VarDesc* other = RandomVar(block);
        if (other == nullptr) return "no-op";
        if (var->arguments_size() == 0) var->add_arguments(other->name());
        var->set_arguments(static_cast<int>(Below(var->arguments_size())), other->name());
        return "rewire " + what;
      }
      case 3:
        if (var->arguments_size() > 0) var->add_arguments(var->arguments(0));
        return "duplicate " + what;
      case 4: slots->DeleteSubrange(s, 1); return "remove " + what;
      default: var->set_parameter("Bogus"); return "rename " + what;
    }
  }

  std::string OpTypeOrOrder(proto::BlockDesc* block) {
    if (block->ops_size() < 2) return "no-op";
    const int i = static_cast<int>(Below(block->ops_size()));
    const int j = static_cast<int>(Below(block->ops_size()));
    switch (Below(4)) {
      case 0: {
        const std::string from = block->ops(i).type();
        block->mutable_ops(i)->set_type(block->ops(j).type());
        return "op type " + from + " -> " + block->ops(j).type();
      }
      case 1: block->mutable_ops()->SwapElements(i, j); return "swap ops";
      case 2: block->mutable_ops()->DeleteSubrange(i, 1); return "delete op";
      default: *block->add_ops() = block->ops(i); return "duplicate op " + block->ops(i).type();
    }
  }

  std::string Blocks(proto::ProgramDesc* p) {
    switch (Below(3)) {
      case 0: {
        proto::OpDesc* op = RandomOp(p->mutable_blocks(0));
        if (op == nullptr) return "no-op";
        auto* a = op->add_attrs();
        a->set_name("sub_block");
        a->set_type(Coin() ? proto::BLOCK : proto::BLOCKS);
        if (a->type() == proto::BLOCK) a->set_block_idx(Int32()); else a->add_blocks_idx(Int32());
        return "block attr on " + op->type();
      }
      case 1: {
        auto* b = p->add_blocks();
        b->set_idx(Coin() ? p->blocks_size() - 1 : Int32());
        b->set_parent_idx(Coin() ? 0 : Int32());
        return "extra block";
      }
      default:
        p->mutable_blocks(0)->set_parent_idx(Int32());
        return "block parent";
    }
  }

  std::mt19937_64 rng_;
};

// ---- tensor records ----

struct RecordSpan {
  size_t start = 0, lod_count_at = 0, tensor_version_at = 0, desc_size_at = 0, desc_at = 0,
         data_at = 0, end = 0;
};

// Offsets of the fields of each record of a valid parameter file.
std::vector<RecordSpan> Records(const std::string& b) {
  std::vector<RecordSpan> out;
  size_t o = 0;
  auto u64 = [&](size_t at) {
    uint64_t v;
    std::memcpy(&v, b.data() + at, 8);
    return v;
  };
  while (o + 4 + 8 <= b.size()) {
    RecordSpan r;
    r.start = o;
    r.lod_count_at = o + 4;
    const uint64_t levels = u64(o + 4);
    o += 12;
    for (uint64_t l = 0; l < levels && o + 8 <= b.size(); ++l) o += 8 + u64(o);
    r.tensor_version_at = o;
    r.desc_size_at = o + 4;
    if (o + 8 > b.size()) break;
    int32_t desc_size;
    std::memcpy(&desc_size, b.data() + o + 4, 4);
    r.desc_at = o + 8;
    proto::VarType_TensorDesc desc;
    if (desc_size < 0 || r.desc_at + desc_size > b.size() ||
        !desc.ParseFromArray(b.data() + r.desc_at, desc_size)) {
      break;
    }
    r.data_at = r.desc_at + static_cast<size_t>(desc_size);
    int64_t n = 1;
    for (int64_t d : desc.dims()) n *= d;
    const size_t item = desc.data_type() == proto::VarType::FP64 || desc.data_type() == proto::VarType::INT64 ? 8
                        : desc.data_type() == proto::VarType::FP16 ? 2 : 4;
    r.end = r.data_at + static_cast<size_t>(n) * item;
    if (r.end > b.size()) break;
    out.push_back(r);
    o = r.end;
  }
  return out;
}

template <typename T>
void Put(std::string* b, size_t at, T v) {
  if (at + sizeof(T) <= b->size()) std::memcpy(&(*b)[at], &v, sizeof(T));
}

std::string MutateParams(Mutator* m, const std::string& bytes, std::string* what) {
  const std::vector<RecordSpan> records = Records(bytes);
  if (records.empty() || m->Below(3) == 0) {
    *what = "param bytes";
    return m->Bytes(bytes);
  }
  const RecordSpan r = records[m->Below(records.size())];
  std::string b = bytes;
  switch (m->Below(7)) {
    case 0:
      Put<uint32_t>(&b, r.start, static_cast<uint32_t>(m->Int32()));
      *what = "record version";
      break;
    case 1:
      Put<uint64_t>(&b, r.lod_count_at, static_cast<uint64_t>(m->Int64()));
      *what = "record LoD level count";
      break;
    case 2: {
      // One LoD level of a hostile size or with hostile offsets.
      std::string level;
      const bool huge = m->Coin();
      const uint64_t size = huge ? static_cast<uint64_t>(m->Int64()) : 24;
      level.append(reinterpret_cast<const char*>(&size), 8);
      if (!huge) {
        for (int i = 0; i < 3; ++i) {
          const uint64_t off = static_cast<uint64_t>(m->Int64());
          level.append(reinterpret_cast<const char*>(&off), 8);
        }
      }
      Put<uint64_t>(&b, r.lod_count_at, 1);
      b.insert(r.lod_count_at + 8, level);
      *what = huge ? "record LoD level size" : "record LoD offsets";
      break;
    }
    case 3:
      Put<uint32_t>(&b, r.tensor_version_at, static_cast<uint32_t>(m->Int32()));
      *what = "record tensor version";
      break;
    case 4:
      Put<int32_t>(&b, r.desc_size_at, m->Int32());
      *what = "record TensorDesc size";
      break;
    case 5: {
      proto::VarType_TensorDesc desc;
      desc.ParseFromArray(b.data() + r.desc_at, static_cast<int>(r.data_at - r.desc_at));
      switch (m->Below(4)) {
        case 0: desc.clear_dims(); desc.add_dims(std::numeric_limits<int64_t>::max()); break;
        case 1: desc.clear_dims(); desc.add_dims(int64_t{1} << 62); break;
        case 2: {
          const size_t rank = m->Coin() ? 10 : 64;
          desc.clear_dims();
          for (size_t i = 0; i < rank; ++i) desc.add_dims(1);
          break;
        }
        default:
          if (desc.dims_size() > 0) desc.set_dims(static_cast<int>(m->Below(desc.dims_size())), m->Int64());
      }
      const std::string nd = desc.SerializeAsString();
      Put<int32_t>(&b, r.desc_size_at, static_cast<int32_t>(nd.size()));
      b.replace(r.desc_at, r.data_at - r.desc_at, nd);
      *what = "record dims";
      break;
    }
    default: {
      proto::VarType_TensorDesc desc;
      desc.ParseFromArray(b.data() + r.desc_at, static_cast<int>(r.data_at - r.desc_at));
      int t = 0;
      do {
        t = static_cast<int>(m->Below(40));
      } while (!proto::VarType_Type_IsValid(t));
      desc.set_data_type(static_cast<proto::VarType_Type>(t));
      const std::string nd = desc.SerializeAsString();
      Put<int32_t>(&b, r.desc_size_at, static_cast<int32_t>(nd.size()));
      b.replace(r.desc_at, r.data_at - r.desc_at, nd);
      *what = "record dtype";
    }
  }
  return b;
}

// ---- .npy feeds ----

std::string NpyWithHeader(const std::string& dict, const std::string& data) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  const uint16_t len = static_cast<uint16_t>(header.size());
  out.append(reinterpret_cast<const char*>(&len), 2);
  return out + header + data;
}

std::string MutateFeed(Mutator* m, const std::string& npy, std::string* what) {
  const uint16_t header_len = static_cast<uint16_t>(static_cast<unsigned char>(npy[8]) |
                                                    (static_cast<unsigned char>(npy[9]) << 8));
  const std::string data = npy.substr(10 + header_len);
  static const std::vector<std::string> kShapes = {
      "(9223372036854775807,)", "(4611686018427387904, 4)", "()", "(0,)", "(1, 1, 1, 1, 1, 1, 1, 1, 1, 1)",
      "(-1, 3)", "(1, 3, 2147483647, 2147483647)", "(2, 1, 28, 28)", "(1, 13)", "(1,)",
      "(99999999999999999999,)", "(1, 3, 1, 1)", "(3, 3, 3, 3)"};
  static const std::vector<std::string> kDescrs = {"<f4", "<f8", ">f4", "<i8", "|b1", "<c8",
                                                   "O", "<U3", "<f2", "|u1", "<i4", "<V8"};
  switch (m->Below(6)) {
    case 0:
      *what = "npy shape";
      return NpyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': " + m->Pick(kShapes) + ", }", data);
    case 1:
      *what = "npy descr";
      return NpyWithHeader("{'descr': '" + m->Pick(kDescrs) + "', 'fortran_order': False, 'shape': (1, 1, 28, 28), }", data);
    case 2: {
      *what = "npy header length";
      std::string b = npy;
      const uint16_t len = static_cast<uint16_t>(m->Int32());
      std::memcpy(&b[8], &len, 2);
      return b;
    }
    case 3: {
      *what = "npy values";
      std::string b = npy;
      if (b.size() >= 10 + header_len + 4) {
        const float v = m->Float();
        for (size_t i = 0; i < 1 + m->Below(64); ++i) {
          const size_t at = 10 + header_len + 4 * m->Below((b.size() - 10 - header_len) / 4);
          std::memcpy(&b[at], &v, 4);
        }
      }
      return b;
    }
    case 4:
      *what = "npy version";
      return std::string("\x93NUMPY", 6) + static_cast<char>(m->Below(5)) + npy.substr(7);
    default:
      *what = "npy bytes";
      return m->Bytes(npy);
  }
}

// ---------------------------------------------------------------------------------------------
// Running cases.

struct Case {
  int id = 0;
  std::string model;
  std::string kind;  // "program", "params", "feed", "fixed".
  std::string what;
  std::string dir;
  std::string program_file;  // The model's program, by base name.
  std::vector<std::string> argv;
};

struct Outcome {
  std::string category;  // ok, error, internal, sanitizer, signal, hang.
  std::string detail;
};

struct Running {
  Case c;
  pid_t pid = 0;
  std::chrono::steady_clock::time_point start;
};

pid_t Spawn(const Case& c, size_t mem_limit_mb) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  const std::string err = c.dir + "/stderr";
  const int efd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int nfd = open("/dev/null", O_WRONLY);
  dup2(nfd, 1);
  dup2(efd, 2);
  if (mem_limit_mb > 0) {
    struct rlimit lim;
    lim.rlim_cur = lim.rlim_max = static_cast<rlim_t>(mem_limit_mb) << 20;
    setrlimit(RLIMIT_AS, &lim);
  }
  // An AddressSanitizer build reserves terabytes of address space, so it runs without the
  // limit above (--mem-limit-mb 0); its allocator then refuses single allocations past 4 GiB
  // (as failed allocations, not reports) so that no case can exhaust the machine.
  std::string asan = "max_allocation_size_mb=4096:allocator_may_return_null=1";
  if (const char* given = getenv("ASAN_OPTIONS")) asan = std::string(given) + ":" + asan;
  setenv("ASAN_OPTIONS", asan.c_str(), 1);
  std::vector<char*> args;
  for (const auto& a : c.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  _exit(127);
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    const unsigned char u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (u < 0x20 || u >= 0x7f) {  // Control bytes, and bytes of damaged names.
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", u);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

// A kept case for tests/compat/compare_refusals.py: what was damaged, the files the command
// read (program, combined parameters if given, feeds by name) and how it ended.
std::string CaseJson(const Case& c, const Outcome& o) {
  std::string program, params, feeds;
  for (size_t i = 0; i + 1 < c.argv.size(); ++i) {
    if (c.argv[i] == "--program") program = c.argv[i + 1];
    if (c.argv[i] == "--model") program = c.argv[i + 1] + "/" + c.program_file;
    if (c.argv[i] == "--params") params = c.argv[i + 1];
    if (c.argv[i] == "--feed" || c.argv[i] == "--input") {
      const std::string& f = c.argv[i + 1];
      const size_t eq = f.find('=');
      feeds += std::string(feeds.empty() ? "" : ", ") + "[" + JsonString(f.substr(0, eq)) + ", " +
               JsonString(f.substr(eq + 1)) + "]";
    }
  }
  return "{\"id\": " + std::to_string(c.id) + ", \"model\": " + JsonString(c.model) +
         ", \"kind\": " + JsonString(c.kind) + ", \"what\": " + JsonString(c.what) +
         ", \"dir\": " + JsonString(c.dir) + ", \"program\": " + JsonString(program) +
         ", \"params\": " + JsonString(params) + ", \"feeds\": [" + feeds + "]" +
         ", \"outcome\": " + JsonString(o.category) +
         ", \"detail\": " + JsonString(o.detail) + "}\n";
}

std::string FirstLine(const std::string& s) {
  const size_t nl = s.find('\n');
  return s.substr(0, std::min<size_t>(nl == std::string::npos ? s.size() : nl, 300));
}

Outcome Classify(int status, bool timed_out, const std::string& err) {
  if (timed_out) return {"hang", ""};
  if (err.find("AddressSanitizer") != std::string::npos ||
      err.find("LeakSanitizer") != std::string::npos || err.find("runtime error:") != std::string::npos) {
    const size_t at = err.find("ERROR:") != std::string::npos ? err.find("ERROR:") : err.find("runtime error:");
    return {"sanitizer", FirstLine(err.substr(at))};
  }
  if (WIFSIGNALED(status)) return {"signal", strsignal(WTERMSIG(status))};
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 0) return {"ok", ""};
  if (code == 1 && err.compare(0, 7, "error: ") == 0) return {"error", FirstLine(err)};
  return {"internal", "exit " + std::to_string(code) + ": " + FirstLine(err)};
}

}  // namespace

int main(int argc, char** argv) {
  std::string paddle_like, models_dir, work = "/tmp/mutation_sweep", verb = "run";
  size_t cases = 4000, jobs = 2, mem_limit_mb = 6144;
  uint64_t seed = 1;
  int timeout_s = 20;
  std::set<std::string> only;
  bool keep_all = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "mutation_sweep: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--paddle-like") paddle_like = next();
    else if (a == "--models") models_dir = next();
    else if (a == "--work") work = next();
    else if (a == "--cases") cases = std::stoul(next());
    else if (a == "--jobs") jobs = std::max<size_t>(1, std::stoul(next()));
    else if (a == "--seed") seed = std::stoull(next());
    else if (a == "--timeout") timeout_s = std::stoi(next());
    else if (a == "--mem-limit-mb") mem_limit_mb = std::stoul(next());
    else if (a == "--model") only.insert(next());
    else if (a == "--keep-all") keep_all = true;
    else if (a == "--verb") verb = next();
    else {
      std::cerr << "mutation_sweep: unknown argument " << a << "\n";
      return 2;
    }
  }
  if (paddle_like.empty() || models_dir.empty() || (verb != "run" && verb != "infer")) {
    std::cerr << "usage: mutation_sweep --paddle-like BIN --models DIR [--cases N] [--seed S] "
                 "[--jobs J] [--timeout SECONDS] [--mem-limit-mb MB] [--work DIR] [--model NAME] "
                 "[--keep-all] [--verb run|infer]\n";
    return 2;
  }
  paddle_like = fs::absolute(paddle_like).string();

  Mutator m(seed);
  std::vector<Model> models;
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(models_dir, ec)) {
    if (e.is_directory() && (only.empty() || only.count(e.path().filename().string()))) dirs.push_back(e.path());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const auto& d : dirs) {
    Model model;
    if (LoadModel(d, &m.rng(), &model)) models.push_back(std::move(model));
    else std::cerr << "mutation_sweep: skipping " << d << " (no program or feed targets)\n";
  }
  if (models.empty()) {
    std::cerr << "mutation_sweep: no models under " << models_dir << "; nothing to do\n";
    return 77;  // Skipped (CTest's SKIP_RETURN_CODE).
  }
  fs::remove_all(work);
  fs::create_directories(work + "/failures");

  // Builds a case directory: the model's files linked in, the damaged ones written.
  // Builds a case directory: the model's files linked in, the damaged ones written, and the
  // command: `run` (the executor alone) or `infer` (the inference library, passes included).
  // `program` and `params` replace the model's own files (the fixed /dev/zero cases).
  auto make_case = [&](int id, const Model& model, const std::string& kind, const std::string& what,
                       const std::map<std::string, std::string>& replaced,
                       const std::vector<std::string>& feeds, const std::string& program = "",
                       const std::string& params = "") {
    Case c;
    c.id = id;
    c.model = model.name;
    c.kind = kind;
    c.what = what;
    c.dir = work + "/case_" + std::to_string(id);
    c.program_file = model.program_file;
    fs::create_directories(c.dir);
    std::vector<std::string> files = model.param_files;
    files.push_back(model.program_file);
    for (const auto& f : files) {
      const std::string path = c.dir + "/" + f;
      auto it = replaced.find(f);
      if (it != replaced.end()) WriteAll(path, it->second);
      else fs::create_symlink(fs::absolute(model.dir + "/" + f), path);
    }
    c.argv = {paddle_like, verb};
    if (verb == "infer" && program.empty() && params.empty()) {
      c.argv.insert(c.argv.end(), {"--model", c.dir});
    } else {
      const std::string path = program.empty() ? c.dir + "/" + model.program_file : program;
      c.argv.insert(c.argv.end(), {"--program", path});
      if (!params.empty()) c.argv.insert(c.argv.end(), {"--params", params});
    }
    for (size_t i = 0; i < model.feeds.size(); ++i) {
      // An empty feed stands for /dev/zero.
      std::string path = "/dev/zero";
      if (!feeds[i].empty()) {
        path = c.dir + "/feed_" + std::to_string(i) + ".npy";
        WriteAll(path, feeds[i]);
      }
      c.argv.push_back(verb == "infer" ? "--input" : "--feed");
      c.argv.push_back(model.feeds[i].name + "=" + path);
    }
    return c;
  };

  std::vector<Case> all;
  int id = 0;
  for (const Model& model : models) {
    std::vector<std::string> feeds;
    for (const auto& f : model.feeds) feeds.push_back(f.npy);
    all.push_back(make_case(id++, model, "baseline", "unchanged", {}, feeds));
    all.push_back(make_case(id++, model, "fixed", "program /dev/zero", {}, feeds, "/dev/zero"));
    all.push_back(make_case(id++, model, "fixed", "params /dev/zero", {}, feeds,
                            model.dir + "/" + model.program_file, "/dev/zero"));
    std::vector<std::string> zero_feed = feeds;
    zero_feed.back().clear();  // Empty: the last feed is /dev/zero.
    all.push_back(make_case(id++, model, "fixed", "feed /dev/zero", {}, zero_feed));
  }
  for (size_t n = 0; n < cases; ++n) {
    const Model& model = models[n % models.size()];
    std::vector<std::string> feeds;
    for (const auto& f : model.feeds) feeds.push_back(f.npy);
    std::map<std::string, std::string> replaced;
    std::string kind, what;
    const size_t k = m.Below(10);
    if (k < 5) {
      kind = "program";
      if (m.Below(4) == 0) {
        what = "program bytes";
        replaced[model.program_file] = m.Bytes(model.program_bytes);
      } else {
        proto::ProgramDesc p = model.program;
        what = m.Program(&p);
        replaced[model.program_file] = p.SerializePartialAsString();
      }
    } else if (k < 8 && !model.param_files.empty()) {
      kind = "params";
      const std::string& f = m.Pick(model.param_files);
      replaced[f] = MutateParams(&m, ReadAll(model.dir + "/" + f), &what);
      what += " (" + f + ")";
    } else {
      kind = "feed";
      const size_t i = m.Below(feeds.size());
      feeds[i] = MutateFeed(&m, feeds[i], &what);
    }
    all.push_back(make_case(id++, model, kind, what, replaced, feeds));
  }

  // Runs `jobs` cases at a time.
  std::map<std::string, std::map<std::string, int>> counts;  // kind -> category -> n
  std::map<std::string, int> totals;
  std::vector<std::string> failures;
  std::map<std::string, int> error_kinds;
  std::vector<Running> running;
  size_t next = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (next < all.size() || !running.empty()) {
    while (running.size() < jobs && next < all.size()) {
      Running r;
      r.c = all[next++];
      r.pid = Spawn(r.c, mem_limit_mb);
      r.start = std::chrono::steady_clock::now();
      running.push_back(r);
    }
    bool reaped = false;
    for (size_t i = 0; i < running.size(); ++i) {
      int status = 0;
      bool timed_out = false;
      pid_t done = waitpid(running[i].pid, &status, WNOHANG);
      if (done == 0 && std::chrono::steady_clock::now() - running[i].start > std::chrono::seconds(timeout_s)) {
        kill(running[i].pid, SIGKILL);
        waitpid(running[i].pid, &status, 0);
        timed_out = true;
        done = running[i].pid;
      }
      if (done == 0) continue;
      const Case& c = running[i].c;
      const std::string err = ReadAll(c.dir + "/stderr");
      const Outcome o = Classify(status, timed_out, err);
      ++counts[c.kind][o.category];
      ++totals[o.category];
      if (o.category == "error") {
        const size_t colon = err.find("Error:");
        ++error_kinds[colon == std::string::npos ? "?" : err.substr(7, colon - 7)];
      }
      if (keep_all) WriteAll(c.dir + "/case.json", CaseJson(c, o));
      const bool bad = o.category != "ok" && o.category != "error";
      const bool baseline_failed = c.kind == "baseline" && o.category != "ok";
      if (bad || baseline_failed) {
        const std::string keep = work + "/failures/case_" + std::to_string(c.id);
        fs::rename(c.dir, keep);
        std::string cmd;
        for (std::string a : c.argv) {
          if (a.find(c.dir) != std::string::npos) a.replace(a.find(c.dir), c.dir.size(), keep);
          cmd += a + " ";
        }
        WriteAll(keep + "/command", cmd + "\n");
        failures.push_back(o.category + " case " + std::to_string(c.id) + " [" + c.model + ", " + c.kind + ": " +
                           c.what + "] " + o.detail + "\n    " + cmd);
      } else if (!keep_all) {
        fs::remove_all(c.dir);
      }
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      --i;
      reaped = true;
    }
    if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::cout << "mutation sweep: " << all.size() << " cases over " << models.size() << " models, seed " << seed
            << ", " << seconds << " s\n";
  for (const auto& kv : counts) {
    std::cout << "  " << kv.first << ":";
    for (const auto& c : kv.second) std::cout << " " << c.first << " " << c.second;
    std::cout << "\n";
  }
  std::cout << "  typed errors by kind:";
  for (const auto& kv : error_kinds) std::cout << " " << kv.first << " " << kv.second;
  std::cout << "\n";
  for (const auto& f : failures) std::cout << "FAIL " << f << "\n";
  const int bad = totals["internal"] + totals["sanitizer"] + totals["signal"] + totals["hang"] +
                  counts["baseline"]["error"];
  std::cout << "totals: ok " << totals["ok"] << ", typed errors " << totals["error"] << ", internal errors "
            << totals["internal"] << ", sanitizer reports " << totals["sanitizer"] << ", signals "
            << totals["signal"] << ", hangs " << totals["hang"] << "\n";
  return bad == 0 ? 0 : 1;
}
