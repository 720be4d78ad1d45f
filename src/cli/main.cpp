#include <CLI/CLI.hpp>
#include "tilelife/builtin.hpp"
int main(int argc, char** argv) {
    tilelife::register_builtin_engines();
    CLI::App app{"tilelife"};
    CLI11_PARSE(app, argc, argv);
    return 0;
}
