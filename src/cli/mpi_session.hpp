// tilelife under mpirun (docs/distributed.md): rank 0 runs the command line as usual; the other
// ranks run no command, they serve rank 0's engine (src/mpi, loaded as the tilelife-mpi.so module
// only when a launcher started this process). Without mpirun, or in a build without Open MPI,
// nothing here does anything.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "tilelife/board.hpp"
#include "tilelife/engine.hpp"

namespace tilelife::cli {

struct MpiModule;

class MpiSession {
public:
    // Initialises MPI when mpirun (or another PMI launcher) started this process: `launched` says
    // so (launched_by_mpirun()). Throws RuntimeError when the MPI module cannot be loaded.
    MpiSession(int& argc, char**& argv, bool launched);
    ~MpiSession();  // finalises MPI
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    bool follower() const;      // a rank other than 0: call follow() instead of the command line
    int follow();               // serves rank 0 until it finishes; returns rank 0's exit code
    int finish(int exit_code);  // rank 0: every rank exits with exit_code; returns it
};

// Whether this process was started by an MPI launcher, from the environment Open MPI's mpirun and
// PMIx/PMI launchers (srun, hydra) give their processes. Always false in a build without MPI.
bool launched_by_mpirun();

// The engine `run` uses: under mpirun, the board split across the ranks (a single rank runs
// unbounded boards as usual; several refuse them); otherwise create_engine.
std::unique_ptr<Engine> create_run_engine(const std::string& name, const BoardSpec& spec, const EngineOptions& options);

bool under_mpirun();

// Under mpirun, what BoardRequest::load_rows takes: each rank reads its own band of a bounded
// board, so that rank 0 never holds the whole board (docs/distributed.md); empty otherwise.
std::function<BandCount(Engine&, const BandedSource&)> band_loader();  // MPI was initialised: this process is one of mpirun's ranks

}  // namespace tilelife::cli
