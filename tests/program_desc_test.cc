// framework/ descriptions: DDim, attributes, VarDesc/OpDesc/BlockDesc/ProgramDesc, binary and
// text round trips, corrupt input, build-time shape inference.
#include <gtest/gtest.h>

#include "framework/ddim.h"
#include "framework/program_desc.h"
#include "framework/var_type_inference.h"
#include "operators/registry.h"

namespace paddle_like {
namespace framework {
namespace {

TEST(DDim, Basics) {
  DDim d({2, 3, 4});
  EXPECT_EQ(d.size(), 3);
  EXPECT_EQ(d.numel(), 24);
  EXPECT_EQ(d.at(-1), 4);
  EXPECT_THROW(d.at(3), platform::OutOfRangeError);
  EXPECT_EQ(DDim({-1, 3}).numel(), -1);
  EXPECT_EQ(DDim().numel(), 1);
  EXPECT_EQ(FlattenTo2D(d, 2), DDim({6, 4}));
  EXPECT_EQ(d.ToString(), "[2, 3, 4]");
  EXPECT_THROW(DDim(std::vector<int64_t>(10, 1)), platform::OutOfRangeError);
}

TEST(Attribute, TypesMatchAttrTypeNumbers) {
  EXPECT_EQ(AttrTypeOf<int>(), AttrType::INT);
  EXPECT_EQ(AttrTypeOf<bool>(), AttrType::BOOLEAN);
  EXPECT_EQ(AttrTypeOf<int64_t>(), AttrType::LONG);
  EXPECT_EQ(AttrTypeOf<std::vector<double>>(), AttrType::FLOAT64S);
  EXPECT_EQ(AttrTypeOf<std::vector<Scalar>>(), AttrType::SCALARS);
  Attribute out;
  EXPECT_TRUE(CoerceAttribute(Attribute(1), AttrType::BOOLEAN, &out));
  EXPECT_EQ(std::get<bool>(out), true);
  EXPECT_TRUE(CoerceAttribute(Attribute(std::vector<int>{3}), AttrType::INT, &out));
  EXPECT_EQ(std::get<int>(out), 3);
  EXPECT_FALSE(CoerceAttribute(Attribute(std::string("x")), AttrType::INT, &out));
  EXPECT_FALSE(CoerceAttribute(Attribute(int64_t{1} << 40), AttrType::INT, &out));
  EXPECT_EQ(AttrToString(Attribute(std::vector<int>{1, 2})), "[1, 2]");
  EXPECT_EQ(AttrToJson(Attribute(std::string("a\"b"))), "\"a\\\"b\"");
}

// A program that uses every attribute type survives binary and text round trips.
ProgramDesc MakeProgramWithEveryAttrType() {
  ProgramDesc program;
  BlockDesc& block = program.Block(0);
  VarDesc* x = block.Var("x");
  x->SetDataType(DataType::FLOAT64);
  x->SetShape({-1, 3});
  x->SetPersistable(true);
  BlockDesc* sub = program.AppendBlock(block);
  sub->Var("inner");
  OpDesc* op = block.AppendOp();
  op->SetType("some_op");
  op->SetInput("X", {"x"});
  op->SetOutput("Out", {"y"});
  Scalar s;
  s.type = Scalar::Type::LONG;
  s.i = 7;
  const AttributeMap attrs = {
      {"a_int", 3}, {"b_float", 0.5f}, {"c_string", std::string("NCHW")},
      {"d_ints", std::vector<int>{1, 2}}, {"e_floats", std::vector<float>{1.5f}},
      {"f_strings", std::vector<std::string>{"p", "q"}}, {"g_bool", true},
      {"h_bools", std::vector<bool>{true, false}}, {"i_block", BlockIndex{1}},
      {"j_long", int64_t{1} << 40}, {"k_blocks", BlockIndices{{1}}},
      {"l_longs", std::vector<int64_t>{-1, 5}}, {"m_float64s", std::vector<double>{0.25}},
      {"n_var", VarName{"x"}}, {"o_vars", VarNames{{"x", "y"}}}, {"p_float64", 2.5},
      {"q_scalar", s}, {"r_scalars", std::vector<Scalar>{s, s}},
  };
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  program.SetVersion(2006002);
  (*program.MutableOpVersions())["some_op"] = 2;
  return program;
}

void ExpectSameProgram(const ProgramDesc& a, const ProgramDesc& b) {
  ASSERT_EQ(a.Size(), b.Size());
  EXPECT_EQ(a.Version(), b.Version());
  EXPECT_EQ(a.OpVersions(), b.OpVersions());
  const OpDesc* oa = a.Block(0).Op(0);
  const OpDesc* ob = b.Block(0).Op(0);
  EXPECT_EQ(oa->Type(), ob->Type());
  EXPECT_EQ(oa->Inputs(), ob->Inputs());
  EXPECT_EQ(oa->Outputs(), ob->Outputs());
  EXPECT_EQ(oa->Attrs(), ob->Attrs());
  const VarDesc* x = b.Block(0).FindVar("x");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->GetShape(), (std::vector<int64_t>{-1, 3}));
  EXPECT_EQ(x->GetDataType(), DataType::FLOAT64);
  EXPECT_TRUE(x->Persistable());
  EXPECT_EQ(b.Block(1).Parent(), 0);
  EXPECT_NE(b.Block(1).FindVarRecursive("x"), nullptr);
}

TEST(ProgramDesc, BinaryRoundTrip) {
  const ProgramDesc p = MakeProgramWithEveryAttrType();
  const std::string bytes = p.ToBinary();
  const ProgramDesc q = ProgramDesc::FromBinary(bytes);
  ExpectSameProgram(p, q);
  EXPECT_EQ(q.ToBinary(), bytes);
}

TEST(ProgramDesc, TextRoundTripAndFileLoad) {
  const ProgramDesc p = MakeProgramWithEveryAttrType();
  ExpectSameProgram(p, ProgramDesc::FromText(p.ToText()));
  const std::string dir = ::testing::TempDir();
  p.Save(dir + "/p.pdmodel");
  p.Save(dir + "/p.pbtxt", /*as_text=*/true);
  ExpectSameProgram(p, ProgramDesc::Load(dir + "/p.pdmodel"));
  ExpectSameProgram(p, ProgramDesc::Load(dir + "/p.pbtxt"));
}

TEST(ProgramDesc, CorruptInputNamesSource) {
  const std::string bytes = MakeProgramWithEveryAttrType().ToBinary();
  try {
    ProgramDesc::FromBinary(bytes.substr(0, bytes.size() / 2), "model.pdmodel");
    FAIL() << "truncated program parsed";
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("model.pdmodel"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ProgramDesc::FromBinary("\xff\xff\xff", "junk"), platform::InvalidArgumentError);
  // A block without its required parent_idx.
  try {
    ProgramDesc::FromText("blocks { idx: 0 }", "t.pbtxt");
    FAIL();
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("parent_idx"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ProgramDesc::FromText("blocks { idx: 1 parent_idx: -1 }"), platform::InvalidArgumentError);
  EXPECT_THROW(ProgramDesc::FromText("blocks { idx: 0 parent_idx: -1 } nonsense"),
               platform::InvalidArgumentError);
  EXPECT_THROW(ProgramDesc::Load("/no/such/file.pdmodel"), platform::NotFoundError);
}

// Files users mistake for a ProgramDesc get an error that says what they are.
TEST(ProgramDesc, ForeignFormatsAreNamed) {
  const auto message = [](const std::string& bytes) {
    try {
      ProgramDesc::FromBytes(bytes, "inference.x");
    } catch (const platform::Error& e) {
      return std::string(e.what());
    }
    return std::string("parsed");
  };
  // PaddlePaddle 3's PIR program is read (pir_translation_test.cc); one that is not whole
  // says which part is missing.
  EXPECT_THROW(ProgramDesc::FromBytes("{}"), platform::InvalidArgumentError);
  const std::string pir = message("\n {\"base_code\": {\"magic\": \"pir\"}, \"program\": {}}");
  EXPECT_NE(pir.find("PIR program"), std::string::npos) << pir;
  EXPECT_NE(pir.find("version"), std::string::npos) << pir;
  EXPECT_NE(pir.find("inference.x"), std::string::npos) << pir;
  // An ONNX ModelProto: ir_version 8, producer_name "pytorch".
  EXPECT_THROW(ProgramDesc::FromBytes(std::string("\x08\x08", 2)), platform::InvalidArgumentError);
  const std::string onnx = message(std::string("\x08\x08\x12\x07pytorch", 11));
  EXPECT_NE(onnx.find("ONNX"), std::string::npos) << onnx;
  // A real program still loads.
  const std::string bytes = MakeProgramWithEveryAttrType().ToBinary();
  EXPECT_EQ(ProgramDesc::FromBytes(bytes).ToBinary(), bytes);
}

TEST(ProgramDesc, FeedAndFetchTargetsOrderedByCol) {
  ProgramDesc p;
  BlockDesc& b = p.Block(0);
  // Feed ops are stored in reverse col order, as PaddlePaddle prepends them.
  for (int col : {1, 0}) {
    OpDesc* op = b.AppendOp();
    op->SetType("feed");
    op->SetInput("X", {"feed"});
    op->SetOutput("Out", {col == 0 ? "image" : "label"});
    op->SetAttr("col", col);
  }
  OpDesc* fetch = b.AppendOp();
  fetch->SetType("fetch");
  fetch->SetInput("X", {"prob"});
  fetch->SetOutput("Out", {"fetch"});
  fetch->SetAttr("col", 0);
  EXPECT_EQ(p.FeedTargetNames(), (std::vector<std::string>{"image", "label"}));
  EXPECT_EQ(p.FetchTargetNames(), (std::vector<std::string>{"prob"}));
}

TEST(BuildTimeInference, ShapesAndTypesWithUnknownDims) {
  operators::RegisterAllOps();
  ProgramDesc p;
  BlockDesc& b = p.Block(0);
  VarDesc* x = b.Var("x");
  x->SetDataType(DataType::FLOAT64);
  x->SetShape({-1, 3});
  OpDesc* op = b.AppendOp();
  op->SetType("quadratic");
  op->SetInput("X", {"x"});
  op->SetOutput("Out", {"y"});
  InferVarTypeAndShape(op, &b);
  ASSERT_NE(b.FindVar("y"), nullptr);
  EXPECT_EQ(b.FindVar("y")->GetShape(), (std::vector<int64_t>{-1, 3}));
  EXPECT_EQ(b.FindVar("y")->GetDataType(), DataType::FLOAT64);
}

}  // namespace
}  // namespace framework
}  // namespace paddle_like
