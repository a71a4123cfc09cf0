// weft::daemon::main: a whole weft node for an application of one's own.
// A program defines its application (app/application.hpp) and hands it
// over; the node it gets is weftd's: every flag and TOML key of
// docs/deploy.md, --check-config, auth key files and TLS (reloaded on
// SIGHUP), spdlog, the admin and metrics endpoint, and a graceful leave on
// SIGTERM (a second signal exits at once). The application's actors are
// spawned before the node listens, and its metrics (theirs, and typed
// actors' dead letters) are on /metrics after the kernel's. weftd is
//
//   int main(int argc, char** argv) { return weft::daemon::main(argc, argv, demo); }  // tools/weftd.cpp
//
// and docs/own-actors.md ("Deploy it") shows a user's own.
#pragma once

#include "app/application.hpp"

namespace weft::daemon {

// Parses argv, runs the node until it has left (or a second signal), and
// returns the process exit code: 0 after a run, 1 if the node cannot start
// (a port taken), 2 for a bad configuration or a bad application
// (application_problems), each reported on stderr naming what is wrong.
int main(int argc, char** argv, const Application& app);

}  // namespace weft::daemon
