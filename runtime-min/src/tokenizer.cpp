// Picks the tokenizer implementation from the blob metadata `tokenizer.kind`.
#include "saguaro/tokenizer.h"

#include <algorithm>
#include <cstdlib>

#include "saguaro/blob.h"
#include "tokenizer_bpe.h"
#include "tokenizer_llama2c.h"
#include "tokenizer_spm.h"

namespace saguaro {

std::unique_ptr<Tokenizer> make_tokenizer(const Blob& blob, std::string* err) {
  const std::string kind = blob.meta("tokenizer.kind");
  const std::string tensor = "tokenizer." + kind;
  if (kind.empty()) return *err = blob.name() + ": no tokenizer.kind metadata", nullptr;
  if (kind != "llama2c" && kind != "bpe" && kind != "spm") return *err = blob.name() + ": unknown tokenizer.kind '" + kind + "'", nullptr;
  const BlobEntry* e = blob.find(tensor);
  if (!e || e->kind != "tokenizer") return *err = blob.name() + ": missing tokenizer tensor '" + tensor + "'", nullptr;
  const auto* bytes = static_cast<const unsigned char*>(e->data);
  std::string problem;
  std::unique_ptr<Tokenizer> t;
  if (kind == "llama2c") {
    t = Llama2cTokenizer::create(bytes, e->bytes, &problem);
  } else {
    if (kind == "bpe") t = BpeTokenizer::create(bytes, e->bytes, &problem);
    else t = SpmTokenizer::create(bytes, e->bytes, &problem);
    if (t) {
      t->bos_id = std::atoi(blob.meta("tokenizer.bos_id", "-1").c_str());
      t->eos_id = std::atoi(blob.meta("tokenizer.eos_id", "-1").c_str());
      t->add_bos = blob.meta("tokenizer.add_bos", "0") == "1" && t->bos_id >= 0;
      if (t->bos_id >= t->vocab_size() || t->eos_id >= t->vocab_size())
        return *err = blob.name() + ": tokenizer bos/eos id out of range", nullptr;
    }
  }
  if (!t) return *err = blob.name() + ": " + problem, nullptr;
  // "1,106": comma-separated ids, each in the vocabulary.
  const std::string stops = blob.meta("tokenizer.stop_ids");
  for (size_t at = 0; !stops.empty() && at <= stops.size();) {
    const size_t comma = std::min(stops.find(',', at), stops.size());
    const std::string id = stops.substr(at, comma - at);
    char* end = nullptr;
    const long v = std::strtol(id.c_str(), &end, 10);
    if (id.empty() || *end != '\0' || v < 0 || v >= t->vocab_size())
      return *err = blob.name() + ": tokenizer.stop_ids '" + stops + "' is not a list of token ids", nullptr;
    t->stop_ids.push_back(static_cast<int32_t>(v));
    at = comma + 1;
  }
  return t;
}

}  // namespace saguaro
