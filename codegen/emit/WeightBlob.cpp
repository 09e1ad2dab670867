//===- WeightBlob.cpp - weights.sgw ----------------------------------------------------===//
//
// The blob holds the weights in slot order, each as its layout needs it: codes and norms of
// packed CQ weights (cq::pack_tensor) and packed dense weights (dense::pack) are rearranged
// here, everything else is stored as imported. The tokenizer and chat template follow, then the
// mapped section: the weights only gathers read (kern.gathered), which the runtime maps from the
// file instead of reading.
//
//===------------------------------------------------------------------------------------===//
#include "codegen/emit/BundleParts.h"

#include "saguaro/kernels/cq_format.h"
#include "saguaro/kernels/dense_layout.h"
#include "saguaro/kernels/layouts.h"


using namespace saguaro;
using namespace saguaro::bundle;

namespace {
namespace kernels = saguaro::kernels;

/// The rearranged bytes of every packed tensor, by tensor name; errors name `bundleDir`.
llvm::Expected<std::map<std::string, std::vector<uint8_t>>> repack(const ModuleFacts &facts, const BundleInputs &in,
                                                                   llvm::StringRef bundleDir) {
  std::map<std::string, std::vector<uint8_t>> repacked;
  for (const auto &[name, p] : facts.packed) {
    const kernels::StoredLayout *layout = kernels::find_layout(p.layout.c_str());
    if (!layout)
      return fileError(bundleDir, "packed weight '" + name + "' has an unknown layout '" + p.layout + "'");
    if (layout->kind == kernels::LayoutKind::dense) {
      std::optional<BundleTensor> t = in.tensor(name);
      const size_t element = static_cast<size_t>(p.bits / 8);
      if (!t || t->shape.size() != 2 || t->shape[0] != p.rows || t->shape[1] != p.k ||
          t->bytes != static_cast<size_t>(p.rows * p.k) * element)
        return fileError(bundleDir, "packed weight '" + name + "' does not match its tensor");
      std::vector<uint8_t> &d = repacked[name];
      d.resize(t->bytes);
      kernels::dense::pack(layout->value, p.rows, p.k, element, t->data, d.data());
      continue;
    }
    std::optional<BundleTensor> codes = in.tensor(name + ".codes"), norms = in.tensor(name + ".norms");
    if (!codes || !norms || codes->shape.size() != 2 || codes->shape[0] != p.rows ||
        codes->bytes != static_cast<size_t>(p.rows) * kernels::cq::row_code_bytes(p.k, p.bits))
      return fileError(bundleDir, "packed weight '" + name + "' does not match its codes and norms");
    std::vector<uint8_t> &c = repacked[name + ".codes"], &nrm = repacked[name + ".norms"];
    c.resize(codes->bytes);
    nrm.resize(norms->bytes);
    kernels::cq::pack_tensor(static_cast<const uint8_t *>(codes->data), static_cast<const uint16_t *>(norms->data),
                             p.rows, static_cast<int>(p.k), static_cast<int>(p.bits),
                             layout->value, c.data(), reinterpret_cast<uint16_t *>(nrm.data()));
  }
  return repacked;
}
} // namespace

llvm::Expected<BlobSizes> bundle::writeWeights(llvm::StringRef path, llvm::StringRef bundleDir,
                                              const ModuleFacts &facts, const BundleInputs &in) {
  auto repacked = repack(facts, in, bundleDir);
  if (!repacked)
    return repacked.takeError();
  std::vector<BlobTensor> tensors, mapped;
  for (const std::string &name : facts.slots) {
    BundleTensor t = *in.tensor(name);
    auto it = repacked->find(name);
    const void *data = it == repacked->end() ? t.data : it->second.data();
    const bool gathered = facts.gathered.count(name) > 0;
    (gathered ? mapped : tensors)
        .push_back(BlobTensor{name, "weight", facts.layoutOf(name), t.dtype, t.shape, data, t.bytes, gathered});
  }
  if (!in.tokenizer.empty())
    tensors.push_back(BlobTensor{in.tokenizerTensor, "tokenizer", kernels::kUnpackedLayout, DType::U8,
                                 {static_cast<int64_t>(in.tokenizer.size())}, in.tokenizer.data(),
                                 in.tokenizer.size()});
  if (!in.chatTemplate.empty())
    tensors.push_back(BlobTensor{"chat.template", "chat_template", kernels::kUnpackedLayout, DType::U8,
                                 {static_cast<int64_t>(in.chatTemplate.size())}, in.chatTemplate.data(),
                                 in.chatTemplate.size()});
  tensors.insert(tensors.end(), mapped.begin(), mapped.end());
  std::string blobError;
  BlobSizes sizes;
  if (!write_blob(path.str(), tensors, in.metadata, &blobError, &sizes))
    return fileError(path, blobError);
  return sizes;
}
