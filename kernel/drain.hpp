// The driver's side of the calling order in kernel.hpp, written once for
// every driver (io/, sim/, the test harness, the benches): after an input,
// every output goes to the driver, commands first, then bytes, then events,
// pass after pass until a whole pass finds nothing, so whatever a handler
// provokes (an event handler's tell, a refused connect reported back at
// once) is drained by the same call. Pure: it calls the kernel and the
// handlers, nothing else.
//
//   on_command(LinkCommand&&)      connect or close a link
//   on_transmit(const Transmit&)   write these bytes; handle_sent when done
//   on_event(Event&&) -> bool      false: stop at once (the handler destroyed
//                                  the kernel, as a simulated crash does)
//
// Returns false when an event handler stopped it.
#pragma once

#include <utility>

#include "kernel/kernel.hpp"

namespace weft {

template <class OnCommand, class OnTransmit, class OnEvent>
bool drain(Kernel& kernel, OnCommand&& on_command, OnTransmit&& on_transmit, OnEvent&& on_event) {
  for (;;) {
    bool produced = false;
    while (auto command = kernel.poll_command()) {
      produced = true;
      on_command(std::move(*command));
    }
    while (auto transmit = kernel.poll_transmit()) {
      produced = true;
      on_transmit(*transmit);
    }
    while (auto event = kernel.poll_event()) {
      produced = true;
      if (!on_event(std::move(*event))) return false;
    }
    if (!produced) return true;
  }
}

}  // namespace weft
