// tilelife: the command line. Exit codes: 0 ok, 2 usage or bad input, 1 runtime failure.
#include <CLI/CLI.hpp>
#include <cstring>
#include <iostream>
#include <new>
#include <optional>

#include "cli/commands.hpp"
#include "cli/mpi_session.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/error.hpp"
#include "tilelife/memory.hpp"

namespace {

// The subcommand the command line chose (nullptr before one was recognised).
CLI::App* chosen_subcommand(CLI::App& app) {
    const auto chosen = app.get_subcommands();
    return chosen.empty() ? nullptr : chosen.front();
}

std::vector<CLI::App*> every_subcommand(CLI::App& app) {
    const std::function<bool(CLI::App*)> all = [](CLI::App*) { return true; };
    return app.get_subcommands(all);
}

std::string subcommand_names(CLI::App& app) {
    std::string names;
    for (const CLI::App* sub : every_subcommand(app)) names += (names.empty() ? "" : ", ") + sub->get_name();
    return names;
}

// A first word that is not an option and not a subcommand ("tilelife runn x"): say so, instead of
// CLI11's "a subcommand is required".
const char* unknown_subcommand(CLI::App& app, int argc, char** argv) {
    if (argc < 2 || argv[1][0] == '-') return nullptr;
    for (const CLI::App* sub : every_subcommand(app))
        if (sub->check_name(argv[1])) return nullptr;
    return argv[1];
}

int fail(int code, const std::string& message, CLI::App* command) {
    std::cerr << "tilelife: " << tilelife::cli::with_flag_hint(message, command) << "\n";
    return code;
}

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
    if (const char* word = unknown_subcommand(app, argc, argv)) {
        std::cerr << "tilelife: unknown subcommand '" << word << "' (subcommands: " << subcommand_names(app)
                  << "; see tilelife --help)\n";
        return 2;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        // Usage errors are bad input too: one line, exit 2, pointing to the help of the subcommand.
        const CLI::App* sub = chosen_subcommand(app);
        std::cerr << "tilelife: " << e.what() << " (see tilelife " << (sub ? sub->get_name() + " " : "")
                  << "--help)\n";
        return 2;
    } catch (const InputError& e) {
        return fail(2, e.what(), chosen_subcommand(app));
    } catch (const RuntimeError& e) {
        return fail(1, e.what(), chosen_subcommand(app));
    } catch (const std::bad_alloc&) {
        // The phrase "memory budget" brings the --max-memory hint of commands that have it.
        const MemoryLimits m = memory_limits();
        return fail(1,
                    "out of memory (this process may use " + bytes_text(m.available()) + ", limited by " +
                        m.limited_by() + "); give a smaller memory budget",
                    chosen_subcommand(app));
    } catch (const std::exception& e) {
        return fail(1, e.what(), chosen_subcommand(app));
    }
    return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
    tilelife::register_builtin_engines();
    // Under mpirun only rank 0 runs the command; the other ranks serve its engine (docs/distributed.md).
    std::optional<tilelife::cli::MpiSession> mpi;
    try {
        mpi.emplace(argc, argv, tilelife::cli::launched_by_mpirun());
    } catch (const std::exception& e) {  // the MPI module is missing or broken
        std::cerr << "tilelife: " << e.what() << "\n";
        return 1;
    }
    if (mpi->follower()) return mpi->follow();
    return mpi->finish(run_cli(argc, argv));
}
