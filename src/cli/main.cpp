// tilelife: the command line. Exit codes: 0 ok, 2 usage or bad input, 1 runtime failure.
#include <CLI/CLI.hpp>
#include <iostream>
#include <new>

#include "cli/commands.hpp"
#include "cli/mpi_session.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/error.hpp"

namespace {

int run_cli(int argc, char** argv) {
    using namespace tilelife;
    CLI::App app{"tilelife - exact, fast Conway's Life and every Life-like rule, on CPUs and OpenCL devices"};
    app.set_version_flag("--version", std::string("tilelife ") + TILELIFE_VERSION);
    app.require_subcommand(1);
    app.fallthrough(false);
    int exit_code = 0;
    cli::add_run(app, exit_code);
    cli::add_convert(app, exit_code);
    cli::add_info(app, exit_code);
    cli::add_engines(app, exit_code);
    cli::add_devices(app, exit_code);
    cli::add_bench(app, exit_code);
    cli::add_view(app, exit_code);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        // Usage errors are bad input too: one line, exit 2.
        std::cerr << "tilelife: " << e.what() << " (see tilelife --help)\n";
        return 2;
    } catch (const InputError& e) {
        std::cerr << "tilelife: " << e.what() << "\n";
        return 2;
    } catch (const RuntimeError& e) {
        std::cerr << "tilelife: " << e.what() << "\n";
        return 1;
    } catch (const std::bad_alloc&) {
        std::cerr << "tilelife: out of memory\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "tilelife: " << e.what() << "\n";
        return 1;
    }
    return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
    tilelife::register_builtin_engines();
    // Under mpirun only rank 0 runs the command; the other ranks serve its engine (docs/distributed.md).
    tilelife::cli::MpiSession mpi(argc, argv);
    if (mpi.follower()) return mpi.follow();
    return mpi.finish(run_cli(argc, argv));
}
