// tilelife under mpirun (docs/distributed.md): rank 0 runs the command line as usual; the other
// ranks run no command, they serve rank 0's engine (src/mpi). Without mpirun, or in a build
// without Open MPI, nothing here does anything.
#pragma once
#include <memory>
#include <string>

#include "tilelife/engine.hpp"

namespace tilelife::cli {

class MpiSession {
public:
    // Initialises MPI when mpirun (or another PMI launcher) started this process.
    MpiSession(int& argc, char**& argv);
    ~MpiSession();  // finalises MPI
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    bool follower() const;  // a rank other than 0: call follow() instead of the command line
    int follow();           // serves rank 0 until it finishes; returns rank 0's exit code
    int finish(int exit_code);  // rank 0: every rank exits with exit_code; returns it
};

// The engine `run` uses: under mpirun, the board split across the ranks (a single rank runs
// unbounded boards as usual; several refuse them); otherwise create_engine.
std::unique_ptr<Engine> create_run_engine(const std::string& name, const BoardSpec& spec, const EngineOptions& options);

bool under_mpirun();  // MPI was initialised: this process is one of mpirun's ranks

#ifndef TILELIFE_HAVE_MPI
inline MpiSession::MpiSession(int&, char**&) {}
inline MpiSession::~MpiSession() = default;
inline bool MpiSession::follower() const { return false; }
inline int MpiSession::follow() { return 0; }
inline int MpiSession::finish(int exit_code) { return exit_code; }
inline bool under_mpirun() { return false; }
inline std::unique_ptr<Engine> create_run_engine(const std::string& name, const BoardSpec& spec,
                                                 const EngineOptions& options) {
    return create_engine(name, spec, options);
}
#endif

}  // namespace tilelife::cli
