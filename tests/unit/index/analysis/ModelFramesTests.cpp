// Tests for index/analysis/ModelFrames.h: which recorded frames are model code (PyTorch, the standard library
// and synthetic files are not; third-party packages are), libraryPaths globs, and the origin of a stack.
#include "index/analysis/ModelFrames.h"

#include <doctest/doctest.h>

using namespace inductor::index;

TEST_CASE("ModelFrames: PyTorch, the standard library and synthetic files are framework") {
  // PyTorch installed, in every package directory layout.
  CHECK(isFrameworkPath("/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/modules/conv.py"));
  CHECK(isFrameworkPath("/opt/conda/lib/python3.11/site-packages/torch/_dynamo/eval_frame.py"));
  CHECK(isFrameworkPath("/usr/lib/python3/dist-packages/torch/_tensor.py"));
  CHECK(isFrameworkPath("/venv/lib/python3.12/site-packages/functorch/_src/aot_autograd.py"));
  CHECK(isFrameworkPath("/venv/lib/python3.12/site-packages/torchgen/model.py"));
  CHECK(isFrameworkPath("/venv/lib/python3.12/site-packages/triton/runtime/jit.py"));
  CHECK(isFrameworkPath("C:\\Python312\\Lib\\site-packages\\torch\\_inductor\\x.py"));
  // PyTorch from a source checkout or a link tree.
  CHECK(isFrameworkPath("/home/u/pytorch/torch/_dynamo/eval_frame.py"));
  CHECK(isFrameworkPath("/home/u/pytorch/torch/nn/functional.py"));
  CHECK(isFrameworkPath("/home/u/pytorch/torch/__init__.py"));
  CHECK(isFrameworkPath("/data/buck-out/aot#link-tree/torch/nn/modules/linear.py"));
  CHECK(isFrameworkPath("torch/fx/graph.py"));
  CHECK(isFrameworkPath("/home/u/triton/python/triton/language/core.py"));
  CHECK(isFrameworkPath("/home/u/pytorch/functorch/_src/vmap.py"));
  CHECK(isFrameworkPath("/home/u/pytorch/torchgen/gen.py"));
  // The standard library.
  CHECK(isFrameworkPath("/usr/lib/python3.12/contextlib.py"));
  CHECK(isFrameworkPath("/home/u/.pyenv/versions/3.11.4/lib/python3.11/runpy.py"));
  CHECK(isFrameworkPath("/opt/py/lib64/python3.13t/functools.py"));
  CHECK(isFrameworkPath("/opt/pypy/lib/pypy3.10/abc.py"));
  CHECK(isFrameworkPath("C:\\Python312\\Lib\\contextlib.py"));
  // Synthetic files.
  CHECK(isFrameworkPath("<frozen runpy>"));
  CHECK(isFrameworkPath("<string>"));
  CHECK(isFrameworkPath("<eval_with_key>.3"));
}

TEST_CASE("ModelFrames: third-party packages and the user's files are model code") {
  CHECK_FALSE(isFrameworkPath(
      "/opt/torch/.venv/lib/python3.12/site-packages/transformers/models/bert/modeling_bert.py"));
  CHECK_FALSE(isFrameworkPath("/usr/lib/python3/dist-packages/numpy/core.py"));
  CHECK_FALSE(isFrameworkPath("/usr/lib/python3.12/site-packages/timm/models/vit.py"));
  CHECK_FALSE(isFrameworkPath("C:\\Python312\\Lib\\site-packages\\diffusers\\unet.py"));
  CHECK_FALSE(isFrameworkPath("/venv/lib/python3.12/site-packages/torchvision/models/resnet.py"));
  CHECK_FALSE(isFrameworkPath("/venv/lib/python3.12/site-packages/torch_geometric/nn/conv.py"));
  CHECK_FALSE(isFrameworkPath("/tmp/work/mlp_train/model.py"));
  CHECK_FALSE(isFrameworkPath("/home/u/proj/lib/python3/model.py"));
  CHECK_FALSE(isFrameworkPath("/home/u/mytorch/nn/modules/block.py"));
  CHECK_FALSE(isFrameworkPath("/home/u/pytorch/torch_utils/x.py"));
  CHECK_FALSE(isFrameworkPath("/home/u/lib/python3.x/model.py"));
  CHECK_FALSE(isFrameworkPath("/home/u/torch/model.py")); // A project folder named torch.
  CHECK_FALSE(isFrameworkPath("/home/u/triton/mykernels.py"));
  CHECK_FALSE(isFrameworkPath("/home/u/Lib/model.py")); // `Lib` is the standard library on Windows only.
  CHECK_FALSE(isFrameworkPath(""));
}

TEST_CASE("ModelFrames: globs") {
  CHECK(matchGlob("**/transformers/**", "/venv/lib/python3.12/site-packages/transformers/models/x.py"));
  CHECK(matchGlob("transformers/**", "/venv/lib/python3.12/site-packages/transformers/models/x.py"));
  CHECK(matchGlob("transformers", "/venv/lib/python3.12/site-packages/transformers/models/x.py"));
  CHECK(matchGlob("**/site-packages/*/utils/*.py", "/v/site-packages/transformers/utils/generic.py"));
  CHECK(matchGlob("/opt/**/generic.py", "/opt/a/b/generic.py"));
  CHECK(matchGlob("/opt/**/generic.py", "/opt/generic.py"));
  CHECK(matchGlob("modeling_?ert.py", "/v/bert/modeling_bert.py"));
  CHECK(matchGlob("C:\\envs\\**", "C:\\envs\\site-packages\\x.py"));
  CHECK(matchGlob("*.py", "/a/b.py"));
  CHECK_FALSE(matchGlob("/opt/**/generic.py", "/srv/opt/generic.py"));
  CHECK_FALSE(matchGlob("transformers/**", "/v/site-packages/transformers_extra/x.py"));
  CHECK_FALSE(matchGlob("modeling_?ert.py", "/v/bert/modeling_bbert.py"));
  CHECK_FALSE(matchGlob("*.py", "/a/b.pyc"));
  CHECK_FALSE(matchGlob("", "/a/b.py"));
  CHECK_FALSE(matchGlob("**", ""));
}

TEST_CASE("ModelFrames: the origin of a stack is its innermost model frame") {
  std::vector<StackFrame> frames{
      {"/tmp/work/hf_bert/model.py", 30, "forward", "return self.model(x)"},
      {"/venv/lib/python3.12/site-packages/transformers/utils/generic.py", 939, "wrapper", "output = f()"},
      {"/venv/lib/python3.12/site-packages/transformers/models/bert/modeling_bert.py", 93, "forward",
       "x = g()"},
      {"/venv/lib/python3.12/site-packages/torch/nn/modules/module.py", 1775, "_call_impl", "return f()"},
      {"<eval_with_key>.3", 5, "forward", ""}};
  ModelFrameRule none;
  REQUIRE(none.originFrame(frames));
  CHECK(none.originFrame(frames) == &frames[2]);
  CHECK(none.isModelFrame(frames[1].file));
  CHECK_FALSE(none.isModelFrame(frames[3].file));

  ModelFrameRule skipTransformers({"**/site-packages/transformers/**", ""});
  CHECK(skipTransformers.libraryPaths().size() == 1);
  CHECK(skipTransformers.originFrame(frames) == &frames[0]);
  CHECK(skipTransformers.isUserLibrary(frames[2].file));
  CHECK_FALSE(skipTransformers.isUserLibrary(frames[3].file)); // Framework, not the user's library.
  // Globs are tried on the local path too.
  ModelFrameRule local({"/home/me/.venv/**"});
  CHECK(local.isModelFrame(frames[2].file));
  CHECK_FALSE(
      local.isModelFrame(frames[2].file, "/home/me/.venv/lib/python3.11/site-packages/transformers/x.py"));

  std::vector<StackFrame> torchOnly{frames[3], frames[4]};
  CHECK(none.originFrame(torchOnly) == nullptr);
  CHECK(none.originFrame({}) == nullptr);
}
