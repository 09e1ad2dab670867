// Hand-written protobuf decoding of SentencePiece's ModelProto (sentencepiece_model.proto field numbers).
#include "SentencePieceModel.h"

#include <cstring>

namespace saguaro {
namespace {

// Protobuf wire reader over [p, end): every read is checked against the remaining bytes.
struct Wire {
  const uint8_t* p;
  const uint8_t* end;

  bool varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p == end) return false;
      const uint8_t b = *p++;
      *v |= uint64_t(b & 0x7F) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  }
  bool fixed32(uint32_t* v) {
    if (end - p < 4) return false;
    *v = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
    p += 4;
    return true;
  }
  bool bytes(Wire* sub) {
    uint64_t n;
    if (!varint(&n) || n > uint64_t(end - p)) return false;
    *sub = Wire{p, p + n};
    p += n;
    return true;
  }
  // Skips a field of wire type `wt` (groups are not used by ModelProto and are rejected).
  bool skip(uint32_t wt) {
    uint64_t v;
    Wire s;
    uint32_t f;
    switch (wt) {
      case 0: return varint(&v);
      case 1: return end - p >= 8 ? (p += 8, true) : false;
      case 2: return bytes(&s);
      case 5: return fixed32(&f);
      default: return false;
    }
  }
};

// Iterates the fields of a message, calling `on(field, wire_type, wire)`; `on` returns false to report an error.
template <class F>
bool for_each_field(Wire w, const char* what, std::string* err, F on) {
  while (w.p != w.end) {
    uint64_t key;
    if (!w.varint(&key) || (key >> 3) == 0 || (key >> 3) > 0x1FFFFFFF)
      return *err = std::string("malformed protobuf in ") + what, false;
    const uint32_t field = static_cast<uint32_t>(key >> 3), wt = static_cast<uint32_t>(key & 7);
    if (!on(field, wt, &w)) {
      if (err->empty()) *err = std::string("malformed protobuf in ") + what + " (field " + std::to_string(field) + ")";
      return false;
    }
  }
  return true;
}

bool read_bool(uint32_t wt, Wire* w, bool* out) {
  uint64_t v;
  if (wt != 0 || !w->varint(&v)) return false;
  *out = v != 0;
  return true;
}

bool read_i32(uint32_t wt, Wire* w, int32_t* out) {
  uint64_t v;
  if (wt != 0 || !w->varint(&v)) return false;
  *out = static_cast<int32_t>(static_cast<uint32_t>(v));  // int32 negatives are sign-extended to 64 bits
  return true;
}

bool read_string(uint32_t wt, Wire* w, std::string* out) {
  Wire s;
  if (wt != 2 || !w->bytes(&s)) return false;
  out->assign(reinterpret_cast<const char*>(s.p), static_cast<size_t>(s.end - s.p));
  return true;
}

bool read_length(uint32_t wt, Wire* w, uint64_t* n) {
  Wire s;
  if (wt != 2 || !w->bytes(&s)) return false;
  *n = static_cast<uint64_t>(s.end - s.p);
  return true;
}

bool parse_piece(Wire w, SentencePieceModel::Piece* piece, std::string* err) {
  return for_each_field(w, "ModelProto.pieces", err, [&](uint32_t f, uint32_t wt, Wire* x) {
    if (f == 1) return read_string(wt, x, &piece->piece);
    if (f == 2) {
      uint32_t bits;
      if (wt != 5 || !x->fixed32(&bits)) return false;
      std::memcpy(&piece->score, &bits, 4);
      return true;
    }
    if (f == 3) {
      int32_t t;
      if (!read_i32(wt, x, &t)) return false;
      if (t < 1 || t > 6) return *err = "piece type " + std::to_string(t) + " is not a SentencePiece type", false;
      piece->type = static_cast<SpmPieceType>(t);
      return true;
    }
    return x->skip(wt);
  });
}

bool parse_trainer(Wire w, SentencePieceModel* m, std::string* err) {
  return for_each_field(w, "ModelProto.trainer_spec", err, [&](uint32_t f, uint32_t wt, Wire* x) {
    switch (f) {
      case 3: return read_i32(wt, x, &m->model_type);
      case 24: return read_bool(wt, x, &m->treat_whitespace_as_suffix);
      case 35: return read_bool(wt, x, &m->byte_fallback);
      case 40: return read_i32(wt, x, &m->unk_id);
      case 41: return read_i32(wt, x, &m->bos_id);
      case 42: return read_i32(wt, x, &m->eos_id);
      case 43: return read_i32(wt, x, &m->pad_id);
      case 44: return read_string(wt, x, &m->unk_surface);
      default: return x->skip(wt);
    }
  });
}

bool parse_normalizer(Wire w, SentencePieceModel* m, std::string* err) {
  return for_each_field(w, "ModelProto.normalizer_spec", err, [&](uint32_t f, uint32_t wt, Wire* x) {
    switch (f) {
      case 1: return read_string(wt, x, &m->normalizer_name);
      case 2: return read_length(wt, x, &m->precompiled_charsmap_bytes);
      case 3: return read_bool(wt, x, &m->add_dummy_prefix);
      case 4: return read_bool(wt, x, &m->remove_extra_whitespaces);
      case 5: return read_bool(wt, x, &m->escape_whitespaces);
      default: return x->skip(wt);
    }
  });
}

bool parse_denormalizer(Wire w, SentencePieceModel* m, std::string* err) {
  return for_each_field(w, "ModelProto.denormalizer_spec", err, [&](uint32_t f, uint32_t wt, Wire* x) {
    return f == 2 ? read_length(wt, x, &m->denormalizer_charsmap_bytes) : x->skip(wt);
  });
}

}  // namespace

bool parse_sentencepiece_model(const uint8_t* data, uint64_t size, SentencePieceModel* out, std::string* err) {
  *out = SentencePieceModel();
  err->clear();
  const bool ok = for_each_field(Wire{data, data + size}, "ModelProto", err, [&](uint32_t f, uint32_t wt, Wire* x) {
    Wire sub;
    if (f >= 1 && f <= 5 && f != 4 && (wt != 2 || !x->bytes(&sub))) return false;
    switch (f) {
      case 1: {
        SentencePieceModel::Piece piece;
        if (!parse_piece(sub, &piece, err)) return false;
        out->pieces.push_back(std::move(piece));
        return true;
      }
      case 2: return parse_trainer(sub, out, err);
      case 3: return parse_normalizer(sub, out, err);
      case 5: return parse_denormalizer(sub, out, err);
      default: return x->skip(wt);
    }
  });
  if (!ok) return false;
  if (out->pieces.empty()) return *err = "no pieces (not a SentencePiece model?)", false;
  return true;
}

}  // namespace saguaro
