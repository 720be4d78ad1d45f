// tilelife: the command line. Exit codes: 0 ok, 2 usage or bad input, 1 runtime failure.
#include <CLI/CLI.hpp>
#include <malloc.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <new>
#include <optional>
#include <stdexcept>

#include "cli/cli_docs.hpp"
#include "core/edit_distance.hpp"
#include "cli/commands.hpp"
#include "cli/json.hpp"
#include "cli/mpi_session.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/error.hpp"
#include "tilelife/rule.hpp"
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

std::vector<std::string> visible_subcommand_names(CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::App* sub : every_subcommand(app))
        if (!sub->get_group().empty()) names.push_back(sub->get_name());
    return names;
}

std::string subcommand_names(CLI::App& app) {
    std::string names;
    for (const std::string& name : visible_subcommand_names(app)) names += (names.empty() ? "" : ", ") + name;
    return names;
}

// The candidate a mistyped word most likely meant: the only one it is a prefix of ("--gen" ->
// "--gens"), else the nearest within two edits, fewer for short words ("rnu" -> "run", but "-x" is
// not taken for "-h"); empty when none is close.
std::string closest(const std::string& word, const std::vector<std::string>& candidates) {
    std::vector<std::string> extending;
    for (const std::string& c : candidates)
        if (c.size() > word.size() && c.compare(0, word.size(), word) == 0) extending.push_back(c);
    if (extending.size() == 1 && word.find_first_not_of('-') != std::string::npos) return extending.front();
    const std::size_t letters = word.size() - std::min(word.find_first_not_of('-'), word.size());
    std::string best;
    std::size_t best_distance = std::min<std::size_t>(2, letters > 0 ? letters - 1 : 0) + 1;  // exclusive
    for (const std::string& c : candidates) {
        const std::size_t d = tilelife::edit_distance(word, c);
        if (d < best_distance) best_distance = d, best = c;
    }
    return best;
}

// A first word that is not an option and not a subcommand ("tilelife rnu x"): say so, instead of
// CLI11's "a subcommand is required".
const char* unknown_subcommand(CLI::App& app, int argc, char** argv) {
    if (argc < 2 || argv[1][0] == '-') return nullptr;
    for (const CLI::App* sub : every_subcommand(app))
        if (sub->check_name(argv[1])) return nullptr;
    return argv[1];
}

// The first word CLI11 left over that looks like an option ("--gen" of "--gen=5" or "--gen 5").
std::string unknown_option(CLI::App& app, CLI::App* sub) {
    for (const CLI::App* a : {static_cast<const CLI::App*>(sub), static_cast<const CLI::App*>(&app)}) {
        if (!a) continue;
        for (const std::string& w : a->remaining()) {
            if (w.size() < 2 || w[0] != '-' || std::isdigit(static_cast<unsigned char>(w[1]))) continue;
            return w.substr(0, w.find('='));
        }
    }
    return {};
}

std::vector<std::string> option_names(const CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::Option* o : app.get_options([](const CLI::Option* o) { return !o->get_group().empty(); })) {
        for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
        for (const std::string& s : o->get_snames()) names.push_back("-" + s);
    }
    return names;
}

// Every --rule is checked as it is parsed, so that `-r ""` is refused like any other bad rule
// rather than taken for "not given". parse_rule's InputError passes through CLI11 (which catches
// only its own ValidationError), so the message is the library's, as for any other bad input.
void check_rules(CLI::App& app) {
    for (CLI::App* sub : every_subcommand(app)) {
        CLI::Option* rule = sub->get_option_no_throw("--rule");
        if (!rule) continue;
        rule->check(CLI::Validator(
            [](std::string& text) -> std::string {
                (void)tilelife::parse_rule(text);
                return {};
            },
            "", "rule"));
    }
}

bool g_json = false;  // --json: failures are a JSON object on stderr too (docs/json.md)

int fail(int code, const std::string& message, CLI::App* command) {
    const std::string text = tilelife::cli::with_flag_hint(message, command);
    if (g_json) tilelife::cli::print_json_error(code, text, command ? command->get_name() : "");
    else std::cerr << "tilelife: " << text << "\n";
    return code;
}

// The subcommands, in the order --help lists them.
struct Subcommand {
    const char* name;
    void (*add)(CLI::App&, int&);
};
constexpr Subcommand kSubcommands[] = {{"run", tilelife::cli::add_run},         {"convert", tilelife::cli::add_convert},
                                       {"info", tilelife::cli::add_info},       {"engines", tilelife::cli::add_engines},
                                       {"devices", tilelife::cli::add_devices}, {"bench", tilelife::cli::add_bench},
                                       {"view", tilelife::cli::add_view}};

int run_cli(int argc, char** argv) {
    using namespace tilelife;
    // `tilelife help run` is `tilelife run --help`, `tilelife help` is `tilelife --help`: the words are
    // rewritten before parsing, so the two print the same.
    std::vector<char*> args(argv, argv + argc);
    static char help_flag[] = "--help";
    if (args.size() >= 2 && std::strcmp(args[1], "help") == 0 && (args.size() == 2 || args[2][0] != '-')) {
        args.erase(args.begin() + 1);
        if (args.size() > 2) args.resize(2);
        args.push_back(help_flag);
    }
    argc = static_cast<int>(args.size());
    argv = args.data();
    // Building a subcommand's options (CLI11 allocates names, validators and callbacks for each) costs
    // a small run as much as its stepping (issue 23): when the first word names a subcommand, only
    // that one is built, since CLI11 takes no other subcommand's words after it (one subcommand at
    // most). Anything else (--help, --version, a mistyped word, generate-docs) sees them all.
    const Subcommand* only = nullptr;
    for (const Subcommand& s : kSubcommands)
        if (argc >= 2 && std::strcmp(argv[1], s.name) == 0) only = &s;
    CLI::App app{"tilelife - exact, fast Conway's Life and every Life-like rule, on CPUs and OpenCL devices"};
    app.set_version_flag("--version", std::string("tilelife ") + TILELIFE_VERSION);
    app.require_subcommand(1);
    app.fallthrough(false);
    int exit_code = 0;
    for (const Subcommand& s : kSubcommands) {
        if (only && only != &s) continue;
        s.add(app, exit_code);
        if (every_subcommand(app).back()->get_name() != s.name)  // the table must name what add() adds
            throw std::logic_error(std::string("subcommand table: ") + s.name + " added " +
                                   every_subcommand(app).back()->get_name());
    }
    if (!only) {
        // This entry is what --help, the man page and the completions show for `help`.
        app.add_subcommand("help", "print the help of a subcommand (tilelife help run = tilelife run --help)")
            ->add_option("subcommand", "the subcommand whose help to print");
        cli::add_generate_docs(app);
    }
    check_rules(app);
    g_json = cli::json_requested(argc, argv);
    if (const char* word = unknown_subcommand(app, argc, argv)) {
        const std::string close = closest(word, visible_subcommand_names(app));
        return fail(2, "unknown subcommand '" + std::string(word) + "' (" +
                           (close.empty() ? "" : "did you mean " + close + "?; ") + "subcommands: " +
                           subcommand_names(app) + "; see tilelife --help)", nullptr);
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ExtrasError& e) {
        // An unknown option: name it and the option it most likely meant.
        CLI::App* sub = chosen_subcommand(app);
        const std::string word = unknown_option(app, sub);
        const std::string where = sub ? sub->get_name() + " " : "";
        if (word.empty()) return fail(2, std::string(e.what()) + " (see tilelife " + where + "--help)", sub);
        const std::string close = closest(word, option_names(sub ? *sub : app));
        return fail(2, "unknown option '" + word + "' for tilelife " + where + "(" +
                           (close.empty() ? "" : "did you mean " + close + "?; ") + "see tilelife " + where + "--help)",
                    sub);
    } catch (const CLI::ParseError& e) {
        // Usage errors are bad input too: one line, exit 2, pointing to the help of the subcommand.
        CLI::App* sub = chosen_subcommand(app);
        return fail(2, std::string(e.what()) + " (see tilelife " + (sub ? sub->get_name() + " " : "") + "--help)", sub);
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
    // Freed blocks stay in the heap for the next allocation instead of going back to the kernel
    // (glibc's defaults: blocks of 128 KiB and up are mapped and unmapped each time, and the heap's
    // top is trimmed): every page handed back is faulted in again by the next reader, tree or
    // writer, at ~15 us a fault on a VM. Blocks over 32 MiB are still mapped and returned (issue 23).
    ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
    ::mallopt(M_TRIM_THRESHOLD, 256 << 20);
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
