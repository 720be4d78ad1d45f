#include "cli/outputs.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdio>

#include "cli/modules.hpp"
#include "image/image.hpp"
#include "tilelife/error.hpp"
#include "tilelife/quadtree.hpp"

namespace tilelife::cli {

namespace {
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void on_stop_signal_outside_run(int sig) { remove_outputs_and_exit(sig); }
}  // namespace

// unlink() (inside remove_temporary_files), write() and _exit() are safe in a signal handler.
void remove_outputs_and_exit(int sig) noexcept {
    remove_temporary_files();
    static const char kMessage[] = "tilelife: interrupted; unfinished output files removed\n";
    (void)!::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
    ::_exit(128 + sig);
}

struct StopSignalsRemoveOutputs::Saved {
    struct sigaction previous[std::size(kStopSignals)];
};

StopSignalsRemoveOutputs::StopSignalsRemoveOutputs() : saved_(std::make_unique<Saved>()) {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal_outside_run;
    sigemptyset(&sa.sa_mask);
    for (int sig : kStopSignals) sigaddset(&sa.sa_mask, sig);
    for (std::size_t i = 0; i < std::size(kStopSignals); ++i) {
        sigaction(kStopSignals[i], nullptr, &saved_->previous[i]);
        if (saved_->previous[i].sa_handler != SIG_IGN) sigaction(kStopSignals[i], &sa, nullptr);
    }
}

StopSignalsRemoveOutputs::~StopSignalsRemoveOutputs() {
    for (std::size_t i = 0; i < std::size(kStopSignals); ++i) sigaction(kStopSignals[i], &saved_->previous[i], nullptr);
}

namespace {

constexpr std::string_view kCheckpointTag = "tilelife-checkpoint";

bool is_checkpoint_line(const std::string& comment) { return comment.rfind(kCheckpointTag, 0) == 0; }

bool image_fits(const Box& b, int scale) {
    const std::int64_t w = b.width * scale, h = b.height * scale;
    return w <= image::kMaxSide && h <= image::kMaxSide && w * h <= image::kMaxPixels;
}

// The most generations a pattern inside `b` can run while its image surely fits (it grows at most one
// cell a generation on each side); -1 when `b` itself does not fit.
std::int64_t image_horizon(const Box& b, int scale) {
    if (!image_fits(b, scale)) return -1;
    std::int64_t lo = 0, hi = image::kMaxSide;
    while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo + 1) / 2;
        if (image_fits(grow(b, mid), scale)) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

// The image of live cells: their bounding box and a one-cell margin, so that no cell touches the
// border (one dead cell when there are none).
Box framed(const Box& b) { return b.empty() ? Box{0, 0, 1, 1} : grow(b, 1); }

std::string mib(std::int64_t bytes) {
    if (bytes == INT64_MAX) return "over 8 EiB";
    char buf[64];
    const double b = static_cast<double>(bytes);
    if (b >= 1099511627776.0) std::snprintf(buf, sizeof buf, "%.1f TiB", b / 1099511627776.0);
    else if (b >= 1073741824.0) std::snprintf(buf, sizeof buf, "%.1f GiB", b / 1073741824.0);
    else std::snprintf(buf, sizeof buf, "%.1f MiB", b / 1048576.0);
    return buf;
}

}  // namespace

void write_png_output(const std::string& path, const Box& area, int scale, const image::CellSource& cells,
                      const image::Style& style) {
#ifdef TILELIFE_HAVE_PNG
    image_module().write_board_png(path, area, scale, cells, style);  // "-": OutputFile writes standard output
#else
    (void)area, (void)scale, (void)cells, (void)style;
    throw InputError(path + ": PNG output is not available in this build (install libpng-dev and rebuild)");
#endif
}

std::optional<CheckpointRun> checkpoint_run(const Pattern& p) {
    for (const std::string& c : p.comments) {
        long long start = 0, gens = 0;
        if (is_checkpoint_line(c) &&
            std::sscanf(c.c_str() + kCheckpointTag.size(), " start=%lld gens=%lld", &start, &gens) == 2)
            return CheckpointRun{start, gens};
    }
    return std::nullopt;
}

std::vector<std::string> comments_without_checkpoint(const std::vector<std::string>& comments) {
    std::vector<std::string> out;
    for (const std::string& c : comments)
        if (!is_checkpoint_line(c)) out.push_back(c);
    return out;
}

Checkpoints::Checkpoints(std::string path) : path_(std::move(path)) {
    const OutputTarget t = output_target(path_);
    if ((t.format != OutputFormat::rle && t.format != OutputFormat::macrocell) || t.standard_output())
        throw InputError(path_ + ": a checkpoint is written as RLE or macrocell; name it *.rle or *.mc (or .gz of either)");
    format_ = t.format;
    gzip_ = t.gzip;
    check_output_path(path_);
}

void Checkpoints::check_board(const BoardPlan& plan) const {
    // Macrocell has no bounded grids (no :T/:P rule suffix in Golly's .mc).
    if (format_ == OutputFormat::macrocell && plan.spec.topology != Topology::unbounded)
        throw InputError(path_ + ": a " + std::string(to_string(plan.spec.topology)) +
                         " board is checkpointed as RLE (macrocell holds only unbounded patterns); name it *.rle");
}

void Checkpoints::save(const Engine& engine, const BoardPlan& plan, const CheckpointRun& job, PatternMeta meta) const {
    std::vector<std::string> comments{std::string(kCheckpointTag) + " start=" + std::to_string(job.start) +
                                      " gens=" + std::to_string(job.gens)};
    for (std::string& c : comments_without_checkpoint(meta.comments)) comments.push_back(std::move(c));
    meta.comments = std::move(comments);
    // Synced: a checkpoint is what a long run falls back on after the machine, not only the process, stops.
    OutputFile file(path_, gzip_ ? OutputFile::Compression::gzip : OutputFile::Compression::none, OutputFile::Sync::yes);
    // Through the board layer, as -o writes: a tree engine's macrocell goes to the file in pieces
    // (never its whole text), other engines' cells as one text.
    write_board(format_, engine, plan, std::move(meta), [&file](std::string_view text) { file.write(text); });
    file.commit();
}

GifOutput::GifOutput(std::string path, std::optional<Box> area, int scale, int delay_cs, std::int64_t frames_total,
                     const image::Style& style)
    : path_(std::move(path)), area_(area), scale_(scale), delay_cs_(delay_cs), frames_total_(frames_total), style_(style) {
#ifndef TILELIFE_HAVE_GIF
    throw InputError(path_ + ": GIF output is not available in this build (install libgif-dev and rebuild)");
#else
    image::check_gif_size(area_ ? *area_ : Box{0, 0, 1, 1}, scale_, frames_total_, path_);
    const ImageModule& module = image_module();  // loaded now: a missing module fails before the run
    if (area_) writer_ = module.open_gif(path_, *area_, scale_, delay_cs_, style_);
#endif
}

GifOutput::~GifOutput() = default;

void GifOutput::frame(const Engine& engine) {
    ++frames_;
    if (writer_) {
        writer_->add_frame(image::cells_from_engine(engine));
        return;
    }
    // Counted before anything is listed: a HashLife run can hold 10^11 cells (16 bytes each listed).
    constexpr std::int64_t kMaxKeptCells = std::int64_t{32} << 20;
    const std::int64_t population = engine.population();
    if (population > kMaxKeptCells - kept_cells_)
        throw InputError(path_ + ": after " + std::to_string(engine.generation()) + " generations this unbounded run has " +
                         std::to_string(population) + " live cells, and the frames may hold " +
                         std::to_string(kMaxKeptCells >> 20) + " Mi in all; give --region x,y,w,h");
    // Tree engines know their bounding box without listing: an image too large is refused first.
    if (engine.quadtree()) image::check_gif_size(framed(unite(kept_box_, engine.bounding_box())), scale_, frames_total_, path_);
    kept_.push_back(engine.live_cells());
    kept_cells_ += static_cast<std::int64_t>(kept_.back().size());
    kept_box_ = unite(kept_box_, bounding_box(kept_.back()));
    image::check_gif_size(framed(kept_box_), scale_, frames_total_, path_);
}

void GifOutput::finish() {
    if (!writer_) {
        writer_ = image_module().open_gif(path_, framed(kept_box_), scale_, delay_cs_, style_);
        for (const auto& f : kept_) writer_->add_frame(image::cells_from_list(f));
    }
    writer_->finish();
}

OutputShape shape_of(const Engine& engine) {
    if (const auto tree = engine.quadtree()) return tilelife::shape_of(*tree);
    OutputShape s;
    s.population = static_cast<CellCount>(engine.population());
    s.box = engine.extent();
    s.box_exact = false;
    return s;
}

FinalOutput::FinalOutput(OutputTarget target, int scale, const image::Style& style, std::int64_t budget)
    : target_(std::move(target)), scale_(scale), style_(style), budget_(budget) {
    if (image()) {
#ifndef TILELIFE_HAVE_PNG
        throw InputError(target_.path + ": PNG output is not available in this build (install libpng-dev and rebuild)");
#endif
        check_output_path(target_.path);
        (void)image_module();  // loaded now: a missing module fails before the run
    } else {
        // Checked now, created when written: a run killed outright (SIGKILL, the OOM killer, a rank
        // of an MPI job dying) then leaves no temporary file behind.
        check_output_path(target_.path);
    }
}

std::optional<Box> image_area(const BoardPlan& plan, std::optional<Box> region) {
    if (region) return region;
    if (plan.spec.topology != Topology::unbounded) return Box{0, 0, plan.spec.width, plan.spec.height};
    return std::nullopt;
}

void FinalOutput::set_area(std::optional<Box> area) {
    if (!image()) return;
    area_ = area;
    if (area_) image::check_image_size(*area_, scale_, target_.path);
}

void FinalOutput::check_growth(const Engine& engine, std::int64_t gens_left) {
    if (!image() || area_) return;
    // The engine's extent holds every live cell; only when it is too large for an image are the live
    // box itself measured (from a tree engine's tree; a cell-by-cell engine's board bounds the list).
    std::int64_t horizon = image_horizon(grow(engine.extent(), 1), scale_);
    if (horizon < 0) {
        const Box live = framed(engine.bounding_box());
        if (!image_fits(live, scale_)) {
            // Said as what it is: the size after the generations run so far, not at the end.
            const std::int64_t done = engine.generation();
            throw InputError(target_.path + ": after " + std::to_string(done) + " of the " +
                             std::to_string(done + gens_left) + " generations the live cells (with a one-cell margin) "
                             "already span " + std::to_string(live.width) + "x" + std::to_string(live.height) +
                             " cells, an image of " + std::to_string(live.width * scale_) + "x" +
                             std::to_string(live.height * scale_) + " pixels, over the limit of " +
                             std::to_string(image::kMaxSide) + " a side and " +
                             std::to_string(image::kMaxPixels >> 20) + " MPixel; choose a part with --region x,y,w,h" +
                             (scale_ > 1 ? " (or a smaller --scale)" : ""));
        }
        horizon = image_horizon(live, scale_);
    }
    gens_before_check_ = horizon >= gens_left ? INT64_MAX : std::max<std::int64_t>(1, horizon);
}

std::int64_t FinalOutput::max_step(std::int64_t done, std::int64_t gens) const {
    if (!image() || !style_.ages) return INT64_MAX;
    const std::int64_t from = gens - image::kTrailSteps;
    return done < from ? from - done : 1;
}

void FinalOutput::after_step(const Engine& engine, std::int64_t done, std::int64_t gens) {
    if (!image() || !style_.ages || done < gens - image::kTrailSteps) return;
    if (ages_box_.empty()) {
        // Fixed for the last generations: the area, or every cell the pattern can reach by the end
        // (one a generation on each side) and the margin.
        ages_box_ = area_ ? *area_ : grow(framed(engine.bounding_box()), gens - done);
        image::check_image_size(ages_box_, scale_, target_.path);
    }
    std::vector<std::uint8_t> cells(static_cast<std::size_t>(ages_box_.width * ages_box_.height));
    image::cells_from_engine(engine)(ages_box_, cells.data());
    ages_.step(ages_box_, cells.data());
}

void FinalOutput::check_size(const Engine& engine, const BoardPlan& plan) {
    if (image()) {
        if (!area_) image::check_image_size(image_box(engine), scale_, target_.path);
        return;
    }
    // What write_board() lists: nothing for a tree written as a tree or a bounded board written
    // from its rows; the live cells (16 bytes each) and the whole text otherwise.
    const FormatInfo& f = format_info(target_.format);
    const bool no_offset = plan.golly_offset.x == 0 && plan.golly_offset.y == 0;
    if ((f.from_tree && no_offset && engine.quadtree()) || (f.from_rows && plan.spec.topology != Topology::unbounded))
        return;
    const OutputShape shape = shape_of(engine);
    const std::int64_t need = listing_bytes(f, shape);
    if (need <= budget_) return;
    // Exit 2, as the other refusals of an output (an image over its limits, RLE text over 1 GiB): the
    // run itself is fine, the request is what has to change (another format, --region, a budget).
    std::string formats;
    if (engine.quadtree())
        for (const FormatInfo& row : tilelife::formats())
            if (row.from_tree) formats += std::string(formats.empty() ? "" : " or ") + std::string(row.extensions.front());
    throw InputError(target_.path + ": writing " + std::string(f.title) + " would list the " +
                     to_string_count(shape.population) + " live cells of the result (" + mib(need) +
                     " with the text), over the memory budget of " + mib(budget_) + "; " +
                     (formats.empty() ? std::string("give --max-memory") : "write " + formats + " instead"));
}

Box FinalOutput::image_box(const Engine& engine) const {
    if (area_) return *area_;
    return framed(engine.bounding_box());
}

void FinalOutput::write(const Engine& engine, const BoardPlan& plan, const PatternMeta& meta) {
    check_size(engine, plan);
    if (!image()) {
        const OutputFormat format = target_.format;
        OutputFile file(target_.path, target_.gzip ? OutputFile::Compression::gzip : OutputFile::Compression::none);
        write_board(format, engine, plan, meta, [&file](std::string_view text) { file.write(text); });
        file.commit();
        return;
    }
    const Box box = image_box(engine);
    if (style_.ages && !ages_box_.empty())
        write_png_output(target_.path, box, scale_, ages_.source(), style_);
    else
        write_png_output(target_.path, box, scale_, image::cells_from_engine(engine), image::Style{style_.colors, false});
}

}  // namespace tilelife::cli
