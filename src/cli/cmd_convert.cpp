// tilelife convert IN OUT: change a pattern's format (by OUT's extension or --format), keeping its
// position (RLE "#CXRLE Pos"), rule, generation, name, authors and comments.
#include "cli/commands.hpp"
#include "cli/outputs.hpp"
#include "cli/modules.hpp"
#include "image/image.hpp"
#include "tilelife/board.hpp"
#include "tilelife/error.hpp"
#include "tilelife/formats.hpp"
#include "tilelife/output_file.hpp"
#include "tilelife/pattern.hpp"

namespace tilelife::cli {

void add_convert(CLI::App& app, int& exit_code) {
    auto in = std::make_shared<std::string>();
    auto out = std::make_shared<std::string>();
    auto format = std::make_shared<std::string>();
    auto scale = std::make_shared<int>(1);
    auto theme = std::make_shared<std::string>("print");
    CLI::App* cmd = app.add_subcommand(
        "convert", "convert a pattern to another format (by OUT's extension: " + output_extensions() + ")");
    cmd->add_option("in", *in, "input pattern (any readable format), - for standard input, or random:WxH[:density[:seed]]")
        ->required();
    cmd->add_option("out", *out, "output file, or - for standard output (RLE unless --format says otherwise)")->required();
    cmd->add_option("--format", *format, "format of OUT when its name cannot say: " + output_format_names());
    cmd->add_option("--scale", *scale, "pixels per cell of a .png (1..64)")->default_val(1);
    cmd->add_option("--theme", *theme, "colours of a .png: print (black on white), dark or light")->default_val("print");
    cmd->callback([in, out, format, scale, theme, &exit_code] {
        std::optional<OutputFormat> forced;
        if (!format->empty() && !(forced = output_format_named(*format)))
            throw InputError("--format '" + *format + "' is not " + output_format_names());
        const OutputTarget target = output_target(*out, forced);
        if (*scale < 1 || *scale > 64) throw InputError("--scale must be from 1 to 64 pixels per cell");
        const image::Style style{image::theme(*theme, "--theme"), false};
        const bool image = target.format == OutputFormat::png;
#ifndef TILELIFE_HAVE_PNG
        if (image) throw InputError(*out + ": PNG output is not available in this build (install libpng-dev and rebuild)");
#endif
        // The output is opened (or probed) before the input is read; a signal from then on leaves
        // no temporary file behind.
        const StopSignalsRemoveOutputs signals;
        std::optional<OutputFile> file;
        if (image) {
            check_output_path(*out);
            (void)image_module();  // a missing module fails before the input is read
        } else
            file.emplace(*out, target.gzip ? OutputFile::Compression::gzip : OutputFile::Compression::none);
        // Macrocell input stays a tree for .mc and .rle output (written from it, however many cells);
        // the other formats list the cells, within the reader's cell limit.
        const std::int64_t budget = default_memory_budget();
        const bool from_tree = target.format == OutputFormat::macrocell || target.format == OutputFormat::rle;
        const Pattern p = read_source(PatternSource{*in, std::nullopt, std::nullopt}, budget, !from_tree);
        if (image) {
            // The pattern's own frame (the RLE header's box) and every live cell, black on white.
            Box area = unite(p.frame, p.bounding_box());
            if (area.empty()) area = Box{0, 0, 1, 1};
            image::check_image_size(area, *scale, *out);
            write_png_output(*out, area, *scale, image::cells_from_list(p.cells), style);
            exit_code = 0;
            return;
        }
        PatternMeta meta = meta_of(p);
        try {
            meta.rule = parse_rule(meta.rule).to_string();
        } catch (const InputError& e) {
            throw InputError(located(*in, 0, e.what()));
        }
        // A .cells file has nowhere else to say what it is.
        if (meta.name.empty() && target.format == OutputFormat::plaintext) meta.name = *in;
        try {
            write_pattern(target.format, p, meta, read_limits_for(budget), [&](std::string_view text) { file->write(text); });
        } catch (const InputError& e) {
            throw InputError(*out + ": " + e.what());
        }
        file->commit();
        exit_code = 0;
    });
}

}  // namespace tilelife::cli
