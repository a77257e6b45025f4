// WaitQueue is a thin inline wrapper in sync.h: its work is Simulator::notify_one / notify_all
// (inline in simulator.h) and Simulator::wait_on (simulator.cc). The other primitives are templates
// in sync.h. This file checks that sync.h compiles on its own.
#include "sim/sync.h"
