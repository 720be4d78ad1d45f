// What `tilelife run` (and convert) write besides the report: checkpoints, the animated GIF, the final
// image. Each is checked (and its file opened or probed) when constructed, before any work.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "image/image.hpp"
#include "tilelife/board.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/formats.hpp"
#include "tilelife/output_file.hpp"
#include "tilelife/pattern.hpp"


namespace tilelife::cli {

class GifFrames;  // modules.hpp

// While it lives, Ctrl+C, SIGTERM and SIGHUP remove every unfinished output's temporary file and
// exit at once with 128 + the signal's number, as `run` does outside its steps (commands that only
// write, like convert). A signal ignored by whoever started us stays ignored.
// What a stop signal does outside a run's steps: the temporary files go, one line, _exit(128 + sig).
// Async-signal-safe.
[[noreturn]] void remove_outputs_and_exit(int sig) noexcept;

class StopSignalsRemoveOutputs {
public:
    StopSignalsRemoveOutputs();
    ~StopSignalsRemoveOutputs();
    StopSignalsRemoveOutputs(const StopSignalsRemoveOutputs&) = delete;
    StopSignalsRemoveOutputs& operator=(const StopSignalsRemoveOutputs&) = delete;

private:
    struct Saved;
    std::unique_ptr<Saved> saved_;
};

// The cells of `area` as a PNG on `path` ("-": standard output) in `style`'s colours, through the
// image module (modules.hpp); InputError in a build without libpng.
void write_png_output(const std::string& path, const Box& area, int scale, const image::CellSource& cells,
                      const image::Style& style);

// Every `every` generations (0: never), counted from the start of the run; no overflow near 2^63.
class Every {
public:
    explicit Every(std::int64_t every = 0) : every_(every), next_(every > 0 ? every : INT64_MAX) {}
    bool on() const { return every_ > 0; }
    std::int64_t next() const { return next_; }
    bool due(std::int64_t done) const { return on() && done == next_; }
    void advance() { next_ = next_ > INT64_MAX - every_ ? INT64_MAX : next_ + every_; }

private:
    std::int64_t every_, next_;
};

// A checkpoint is the board in RLE (rule with its :T/:P suffix, #CXRLE Pos and Gen) or, for an
// unbounded board, in macrocell (#G; from the tree of a tree engine, so a HashLife-scale board is
// never listed), plus one comment line ("#C tilelife-checkpoint start=S gens=N") saying which run it
// belongs to, so `--resume FILE` alone continues to the same final generation.
struct CheckpointRun {
    std::int64_t start = 0;  // generation the original run started from
    std::int64_t gens = 0;   // generations the original run was asked for
};
// The run a checkpoint belongs to; nullopt for a pattern that is not a checkpoint.
std::optional<CheckpointRun> checkpoint_run(const Pattern& p);
// The pattern's comments without a checkpoint's own line (a resumed run's outputs equal the
// uninterrupted run's).
std::vector<std::string> comments_without_checkpoint(const std::vector<std::string>& comments);

class Checkpoints {
public:
    // Probes `path` (a directory, or one that cannot take a file, is refused now); its name says
    // the format: .rle or .mc, either also .gz.
    explicit Checkpoints(std::string path);
    // Once the board is known: InputError for a macrocell checkpoint of a bounded board.
    void check_board(const BoardPlan& plan) const;
    // `meta`: the source pattern's name, authors and comments.
    void save(const Engine& engine, const BoardPlan& plan, const CheckpointRun& job, PatternMeta meta) const;
    const std::string& path() const { return path_; }

private:
    std::string path_;
    OutputFormat format_ = OutputFormat::rle;
    bool gzip_ = false;
};

// The animated GIF: straight to the file when the area is fixed (bounded board or --region); an
// unbounded run without --region keeps each frame's live cells and writes them over their common
// bounding box at the end, refusing (InputError) as soon as that box or the kept cells pass the
// limits.
class GifOutput {
public:
    GifOutput(std::string path, std::optional<Box> area, int scale, int delay_cs, std::int64_t frames_total,
              const image::Style& style);
    ~GifOutput();
    void frame(const Engine& engine);
    void finish();
    std::int64_t frames() const { return frames_; }
    const std::string& path() const { return path_; }

private:
    std::string path_;
    std::optional<Box> area_;
    int scale_, delay_cs_;
    std::int64_t frames_total_, frames_ = 0;
    image::Style style_;
    std::unique_ptr<GifFrames> writer_;  // from the image module
    std::vector<std::vector<Cell>> kept_;
    std::int64_t kept_cells_ = 0;
    Box kept_box_;
};

// What images of the board show: `region` when given, else the whole bounded board; nothing fixed for
// an unbounded board without a region (its images cover the live cells).
std::optional<Box> image_area(const BoardPlan& plan, std::optional<Box> region);

// The final result, -o FILE|- (RLE on standard output unless --format says otherwise): a pattern
// text (its file opened now, committed by write()) or a PNG of the board (the whole bounded board,
// --region, else the live cells' bounding box with a one-cell margin).
class FinalOutput {
public:
    // `budget`: the memory budget (--max-memory), which listing the cells of a huge result must not
    // pass. `style.ages`: the PNG colours the cells by age over the last generations.
    FinalOutput(OutputTarget target, int scale, const image::Style& style, std::int64_t budget);
    bool image() const { return target_.format == OutputFormat::png; }
    const std::string& path() const { return target_.path; }
    // Once the board is known: the image's area (image_area()), checked against the image limits.
    void set_area(std::optional<Box> area);
    // An unbounded PNG without --region: refuses (InputError) as soon as the pattern's bounding box
    // is too large for an image, not after the run (a pattern growing at the speed of light would
    // never finish), saying after how many generations. A pattern grows at most one cell a
    // generation on each side, so the check says how many generations can run before it is needed
    // again.
    void check_growth(const Engine& engine, std::int64_t gens_left);
    std::int64_t gens_before_check() const { return gens_before_check_; }
    // Ages (a PNG with --ages): the most generations the next step may take when `done` of `gens`
    // have run (the last kTrailSteps are single steps), and the board after each step.
    std::int64_t max_step(std::int64_t done, std::int64_t gens) const;
    void after_step(const Engine& engine, std::int64_t done, std::int64_t gens);
    // Refuses (InputError, before anything is listed or written) a result whose cells would have to
    // be listed beyond the memory budget, or whose image is over the limits.
    void check_size(const Engine& engine, const BoardPlan& plan);
    void write(const Engine& engine, const BoardPlan& plan, const PatternMeta& meta);

private:
    Box image_box(const Engine& engine) const;
    OutputTarget target_;
    int scale_;
    image::Style style_;
    std::int64_t budget_;
    std::optional<Box> area_;
    std::int64_t gens_before_check_ = INT64_MAX;
    image::AgeTracker ages_;
    Box ages_box_;
};

// The live cells' bounding box of an engine without listing them when it keeps a tree (empty when
// none); other engines list their cells (bounded by their board in memory).
Box live_box(const Engine& engine);
// The shape of an engine's result for the format table's estimates (format_info().estimate).
OutputShape shape_of(const Engine& engine);

}  // namespace tilelife::cli
