// The man page and shell completions, written from the CLI11 definitions themselves so that they
// cannot drift from the options the parser accepts. The build runs `tilelife generate-docs` (a hidden
// subcommand) to write them; CMake installs them.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace tilelife::cli {

// troff (man(7) macros) for tilelife(1): every visible subcommand with its options and descriptions.
std::string man_page(const CLI::App& app, const std::string& version);
// A bash completion script: subcommands, each subcommand's options, file names for the rest.
std::string bash_completion(const CLI::App& app);
// A zsh completion function (#compdef tilelife): the same, with the descriptions.
std::string zsh_completion(const CLI::App& app);

// Registers the hidden `generate-docs --man FILE --bash FILE --zsh FILE`.
void add_generate_docs(CLI::App& app);

}  // namespace tilelife::cli
