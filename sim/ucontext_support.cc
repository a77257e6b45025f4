// Sanitizer builds only: the one definition Boost.Context's ucontext backend expects from the
// compiled Boost library.
//
// Debian's libboost_context is built for the assembly (fcontext) backend. Sanitizer builds switch
// to the header-only ucontext backend (it announces stack switches to ASan), whose header declares
// fiber_activation_record::current() -- the record of the fiber running on this thread -- but
// leaves its definition to the library, which Debian built without it. dst runs on one thread, yet
// the slot stays thread_local as the header's contract says. The main record is never freed: it
// lives as long as the thread, like the library's own.
#if defined(BOOST_USE_UCONTEXT)
#include <boost/context/fiber.hpp>

namespace boost::context::detail {

fiber_activation_record*& fiber_activation_record::current() noexcept {
  // Until the first switch, the thread's own (main) context is the running one; its record is made
  // on first use by the default constructor, which captures that context.
  thread_local fiber_activation_record main_context;
  thread_local fiber_activation_record* running = &main_context;
  return running;
}

}  // namespace boost::context::detail
#endif
