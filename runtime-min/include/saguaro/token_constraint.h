// The hook through which a grammar restricts which token Engine::generate may sample next.
#pragma once

#include <cstdint>
#include <string>

namespace saguaro {

/// Restricts sampling to the tokens a grammar allows. Engine::generate calls mask() before every sample (after
/// the step hook, which sees the model's own logits), accept() with every sampled token that is not a stop
/// token, and stops when finished() says nothing may follow.
class TokenConstraint {
 public:
  virtual ~TokenConstraint() = default;
  /// Sets the logits of the tokens that may not come next to -inf. `tokens_left` (>= 1) is how many tokens may
  /// still be generated, this one included: a grammar uses it to leave room to close its value. False + err when
  /// no token may come next.
  virtual bool mask(float* logits, int32_t vocab, int32_t tokens_left, std::string* err) = 0;
  /// Advances past the sampled `token`, which mask() allowed.
  virtual void accept(int32_t token) = 0;
  /// True when the text so far is complete and no token may extend it.
  virtual bool finished() const = 0;
};

}  // namespace saguaro
