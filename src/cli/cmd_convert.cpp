// tilelife convert IN OUT: change a pattern's format (chosen by OUT's extension), keeping its
// position (RLE "#CXRLE Pos"), rule and generation.
#include "cli/commands.hpp"
#include "image/image.hpp"
#include "tilelife/error.hpp"
#include "tilelife/pattern.hpp"

namespace tilelife::cli {

void add_convert(CLI::App& app, int& exit_code) {
    auto in = std::make_shared<std::string>();
    auto out = std::make_shared<std::string>();
    auto scale = std::make_shared<int>(1);
    CLI::App* cmd = app.add_subcommand("convert", "convert a pattern to another format (by OUT's extension: .rle .cells .mc .png)");
    cmd->add_option("in", *in, "input pattern (any readable format, or random:WxH[:density[:seed]])")->required();
    cmd->add_option("out", *out, "output file")->required();
    cmd->add_option("--scale", *scale, "pixels per cell of a .png (1..64)")->default_val(1);
    cmd->callback([in, out, scale, &exit_code] {
        const OutputFormat format = output_format_for(*out);
#ifndef TILELIFE_HAVE_PNG
        if (format == OutputFormat::png)
            throw InputError(*out + ": PNG output is not available in this build (install libpng-dev and rebuild)");
#endif
        if (*scale < 1 || *scale > 64) throw InputError("--scale must be from 1 to 64 pixels per cell");
        // Macrocell input stays a tree for .mc and .rle output (written from it, however many cells);
        // the other formats list the cells, within the reader's cell limit.
        ReadLimits limits = read_limits_for(default_memory_budget());
        limits.list_tree_cells = format != OutputFormat::macrocell && format != OutputFormat::rle;
        const Pattern p = read_pattern(*in, limits);
        if (format == OutputFormat::png) {
            // The pattern's own frame (the RLE header's box) and every live cell, black on white.
            Box area = unite(p.frame, p.bounding_box());
            if (area.empty()) area = Box{0, 0, 1, 1};
            image::check_image_size(area, *scale, *out);
#ifdef TILELIFE_HAVE_PNG
            image::write_board_png(*out, area, *scale, image::cells_from_list(p.cells));
#endif
            exit_code = 0;
            return;
        }
        std::string rule = "B3/S23";
        if (p.rule) {
            try {
                rule = parse_rule(*p.rule).to_string();
            } catch (const InputError& e) {
                throw InputError(located(*in, 0, e.what()));
            }
        }
        if (format == OutputFormat::macrocell) {
            const Quadtree tree = p.tree ? *p.tree : Quadtree::from_cells(p.cells);
            write_file_atomic(*out, format_macrocell(tree, rule, p.generation));
        } else if (format == OutputFormat::rle) {
            std::string text;
            try {
                // No larger than what tilelife reads back.
                text = p.tree ? format_rle_tree(*p.tree, rule, p.generation, limits.max_file_bytes)
                              : format_rle(p.cells, rule, p.generation);
            } catch (const InputError& e) {
                throw InputError(*out + ": " + e.what());
            }
            write_file_atomic(*out, text);
        } else {
            write_file_atomic(*out, format_plaintext(p.cells, p.name.empty() ? *in : p.name));
        }
        exit_code = 0;
    });
}

}  // namespace tilelife::cli
