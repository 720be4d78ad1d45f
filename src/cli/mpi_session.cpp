// Built only with Open MPI (src/mpi/CMakeLists.txt adds it to the command line).
#include "cli/mpi_session.hpp"

#include <mpi.h>

#include <cstdlib>

#include "mpi/distributed.hpp"
#include "tilelife/error.hpp"

namespace tilelife::cli {
namespace {

bool g_active = false;
int g_rank = 0, g_size = 1;

// The launchers' environment: Open MPI's mpirun, and PMIx/PMI launchers (srun, hydra).
bool started_by_mpirun() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
        if (std::getenv(name)) return true;
    return false;
}

}  // namespace

MpiSession::MpiSession(int& argc, char**& argv) {
    if (!started_by_mpirun()) return;
    int provided = 0;
    // Funneled: only the main thread calls MPI; engines may run OpenMP threads of their own.
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    g_active = true;
}

MpiSession::~MpiSession() {
    if (g_active) MPI_Finalize();
    g_active = false;
}

bool under_mpirun() { return g_active; }

bool MpiSession::follower() const { return g_active && g_rank != 0; }

int MpiSession::follow() { return mpi::follow(MPI_COMM_WORLD); }

int MpiSession::finish(int exit_code) {
    if (g_active && g_rank == 0) mpi::release(MPI_COMM_WORLD, exit_code);
    return exit_code;
}

std::unique_ptr<Engine> create_run_engine(const std::string& name, const BoardSpec& spec, const EngineOptions& options) {
    if (!g_active || (g_size == 1 && spec.topology == Topology::unbounded)) return create_engine(name, spec, options);
    if (spec.topology == Topology::unbounded)
        throw InputError("unbounded boards do not run across " + std::to_string(g_size) +
                         " MPI ranks: give --topology torus or plane (and --size), or run one process");
    return mpi::lead(name, spec, options, MPI_COMM_WORLD);
}

}  // namespace tilelife::cli
