#include "cli/mpi_session.hpp"

#include <csignal>
#include <cstdlib>

#include "cli/modules.hpp"
#include "tilelife/error.hpp"

namespace tilelife::cli {
namespace {

const MpiModule* g_mpi = nullptr;  // loaded and initialised
int g_rank = 0, g_size = 1;

}  // namespace

bool launched_by_mpirun() {
#ifdef TILELIFE_HAVE_MPI
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
        if (std::getenv(name)) return true;
#endif
    return false;
}

MpiSession::MpiSession(int& argc, char**& argv, bool launched) {
    if (!launched) return;
    const MpiModule& m = mpi_module();
    m.init(argc, argv, g_rank, g_size);
    g_mpi = &m;
}

MpiSession::~MpiSession() {
    if (g_mpi) g_mpi->finalize();
    g_mpi = nullptr;
}

bool under_mpirun() { return g_mpi != nullptr; }

bool MpiSession::follower() const { return g_mpi && g_rank != 0; }

int MpiSession::follow() {
    // mpirun passes a SIGTERM (a scheduler's, or Ctrl+C's SIGINT) to every rank: rank 0 stops the run
    // where the command would (its checkpoint, its outputs' temporary files removed) and then
    // releases the others, which must still be here to take part in saving the checkpoint.
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, SIG_IGN);
    return g_mpi->follow();
}

int MpiSession::finish(int exit_code) {
    if (g_mpi && g_rank == 0) g_mpi->release(exit_code);
    return exit_code;
}

std::unique_ptr<Engine> create_run_engine(const std::string& name, const BoardSpec& spec, const EngineOptions& options) {
    if (!g_mpi || (g_size == 1 && spec.topology == Topology::unbounded)) return create_engine(name, spec, options);
    if (spec.topology == Topology::unbounded)
        throw InputError("unbounded boards do not run across " + std::to_string(g_size) +
                         " MPI ranks: give --topology torus or plane (and --size), or run one process");
    return g_mpi->lead(name, spec, options);
}

std::function<BandCount(Engine&, const BandedSource&)> band_loader() {
    if (!g_mpi) return {};
    return [](Engine& engine, const BandedSource& source) { return g_mpi->fill_rows(engine, source); };
}

}  // namespace tilelife::cli
