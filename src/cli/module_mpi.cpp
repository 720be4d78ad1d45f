// tilelife-mpi.so: the command line under mpirun (Open MPI), modules.hpp. Rank 0 runs the command
// and leads the engine; the other ranks follow it (src/mpi, docs/distributed.md).
#include <mpi.h>

#include "cli/modules.hpp"
#include "mpi/distributed.hpp"

namespace tilelife::cli {
namespace {

void init(int& argc, char**& argv, int& rank, int& size) {
    int provided = 0;
    // Funneled: only the main thread calls MPI; engines may run OpenMP threads of their own.
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
}

void finalize() { MPI_Finalize(); }

int follow() { return mpi::follow(MPI_COMM_WORLD); }

void release(int exit_code) { mpi::release(MPI_COMM_WORLD, exit_code); }

std::unique_ptr<Engine> lead(const std::string& name, const BoardSpec& spec, const EngineOptions& options) {
    return mpi::lead(name, spec, options, MPI_COMM_WORLD);
}

BandCount fill_rows(Engine& engine, const BandedSource& source) { return mpi::fill_rows(engine, source); }

}  // namespace
}  // namespace tilelife::cli

extern "C" __attribute__((visibility("default"))) const tilelife::cli::MpiModule* tilelife_mpi_module() {
    using namespace tilelife::cli;
    static const MpiModule table{{}, &init, &finalize, &follow, &release, &lead, &fill_rows};
    return &table;
}
