// tilelife convert IN OUT: change a pattern's format (chosen by OUT's extension), keeping its
// position (RLE "#CXRLE Pos"), rule and generation.
#include "cli/commands.hpp"
#include "tilelife/error.hpp"
#include "tilelife/pattern.hpp"

namespace tilelife::cli {

void add_convert(CLI::App& app, int& exit_code) {
    auto in = std::make_shared<std::string>();
    auto out = std::make_shared<std::string>();
    CLI::App* cmd = app.add_subcommand("convert", "convert a pattern to another format (by OUT's extension: .rle .cells)");
    cmd->add_option("in", *in, "input pattern (any readable format, or random:WxH[:density[:seed]])")->required();
    cmd->add_option("out", *out, "output file")->required();
    cmd->callback([in, out, &exit_code] {
        const OutputFormat format = output_format_for(*out);
        if (format == OutputFormat::png)
            throw InputError(*out + ": PNG output is not available in this build (use .rle or .cells)");
        const Pattern p = read_pattern(*in);
        std::string rule = "B3/S23";
        if (p.rule) {
            try {
                rule = parse_rule(*p.rule).to_string();
            } catch (const InputError& e) {
                throw InputError(located(*in, 0, e.what()));
            }
        }
        write_file_atomic(*out, format == OutputFormat::rle ? format_rle(p.cells, rule, p.generation)
                                                            : format_plaintext(p.cells, p.name.empty() ? *in : p.name));
        exit_code = 0;
    });
}

}  // namespace tilelife::cli
