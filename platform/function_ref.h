// FunctionRef<R(Args...)>: a non-owning reference to a callable, for functions that call it
// before they return (ParallelFor's body). Unlike std::function it never allocates: a lambda
// capturing more than two pointers costs std::function a heap block on every call.
#pragma once

#include <type_traits>
#include <utility>

namespace paddle_like {
namespace platform {

template <typename Signature>
class FunctionRef;

template <typename R, typename... Args>
class FunctionRef<R(Args...)> {
 public:
  // The callable must outlive every call through this reference.
  template <typename F, typename = std::enable_if_t<
                            !std::is_same_v<std::decay_t<F>, FunctionRef> &&
                            std::is_invocable_r_v<R, F&, Args...>>>
  FunctionRef(F&& f)  // NOLINT: implicit, as std::function's.
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* object, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(object))(std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

}  // namespace platform
}  // namespace paddle_like
