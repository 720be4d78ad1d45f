// cpu:auto — the unbounded plane on whichever of cpu:hashlife and cpu:bitpacked suits the job,
// switching during a run (docs/hashlife.md, "cpu:auto"); long runs of streams passing each other
// on cpu:streamlife.
//
// Measured here: HashLife wins by orders of magnitude on sparse or engineered patterns (guns,
// puffers, methuselahs, Golly's HashLife folder), and on long runs of anything; bit-parallel
// stepping wins while a large dense region is chaotic and the run is short (a 640x480 soup for
// 3000 generations: 2x), because HashLife pays once for every configuration the chaos visits. So:
//  - a sparse pattern (or a tree) starts on HashLife and stays there, unless at the first step of a
//    long run most of it is streams moving both ways (cpu:streamlife then);
//  - a dense one starts on cpu:bitpacked when the run is short enough that stepping its area is
//    cheaper than HashLife's one-off cost of the chaos (both estimated from the area), else on
//    HashLife;
//  - on cpu:bitpacked, HashLife is tried on the current cells as the run goes on (one jump of the
//    largest power of two left, within a time budget); the first trial that finishes takes over.
//    Failed trials cost at most an eighth of the time spent on cpu:bitpacked.
#include <algorithm>
#include <chrono>
#include <thread>

#include "hashlife/hashlife.hpp"
#include "hashlife/streamlife.hpp"
#include "tilelife/memory.hpp"
#include "tilelife/error.hpp"
#include "tilelife/quadtree.hpp"

namespace tilelife::hashlife {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Dense: at least this many cells, at least one per this many cells of their bounding box.
constexpr std::int64_t kDenseMinCells = 4096;
constexpr std::int64_t kDenseAreaPerCell = 16;
// Cells above which a tree is never listed for cpu:bitpacked.
constexpr CellCount kMaxListedCells = CellCount{1} << 26;
// Costs on this project's machine (docs/hashlife.md): cpu:bitpacked per cell of the pattern's box
// and generation on one thread (its board grows with the pattern, its activity tracking skips what
// settles: both roughly cancel over a soup's first 10^4 generations), and HashLife's one-off cost of
// a dense chaotic region per cell of its box. Only their ratio matters: it puts the break-even of a
// 640x480 soup at about 7000 generations per cpu:bitpacked thread.
constexpr double kBitpackedCellGen = 3e-11;
constexpr double kHashlifeChaosCell = 2.2e-7;
// Moving cells from cpu:bitpacked into HashLife: per live cell and per cell of the board scanned.
constexpr double kMoveCell = 100e-9;
constexpr double kMoveArea = 1e-9;
// cpu:streamlife (docs/streamlife.md, "cpu:auto"): for a run of at least this many generations, a
// pattern of this many cells at most, at least a quarter of whose cells are streams moving forward
// and a quarter streams moving backward, and at least half streams that pass each other and run
// into nothing (StreamShare::apart). Random glider trains passing each other: HashLife wins at 4096
// generations, cpu:streamlife 2.6x at 16384, 3.9-8.8x at 32768. Streams that meet constructions
// lose on cpu:streamlife (Golly's demonoid: 10x slower at 2^18), so they stay on HashLife. Looking
// reads HashLife's tree of the pattern: for hbk_gun.mc.gz's 3.4 million cells, 4-5 ms to export it
// and 2 ms for a sample of its cells that rules it out; 7 ms in all for the demonoid's 10^5 cells,
// which the sample does not rule out.
constexpr std::int64_t kStreamMinGens = 32768;
constexpr std::int64_t kStreamMinCells = 256;
constexpr std::int64_t kStreamMaxCells = std::int64_t{1} << 22;
// The first trial comes after this much time on cpu:bitpacked (seconds); trials may use this share
// of the time spent on cpu:bitpacked.
constexpr double kFirstTrial = 4e-3;
constexpr double kTrialShare = 1.0 / 8;

class AutoEngine final : public Engine {
public:
    AutoEngine(const BoardSpec& spec, const EngineOptions& options, const AutoTuning& tuning)
        : spec_(spec), options_(options), tuning_(tuning) {
        if (spec.topology != Topology::unbounded) throw std::invalid_argument("cpu:auto runs only the unbounded plane");
        spec_.width = spec_.height = 0;
        threads_ = options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    }

    std::string name() const override { return "cpu:auto"; }
    Topology topology() const override { return Topology::unbounded; }
    Rule rule() const override { return spec_.rule; }
    std::int64_t generation() const override { return offset_ + (cur_ ? cur_->generation() : 0); }

    Box extent() const override { return cur_ ? cur_->extent() : Box{}; }
    std::int64_t population() const override { return cur_ ? cur_->population() : 0; }
    void set_cells(const std::vector<Cell>& cells) override {
        // The first cells choose where to start: a dense pattern on cpu:bitpacked (the first step,
        // knowing the run's length, may still move it), anything else on HashLife.
        if (!cur_) start(!dense(cells.size(), tilelife::bounding_box(cells)));
        cur_->set_cells(cells);
    }
    void write_region(const Box& box, const std::uint8_t* cells) override {
        if (!cur_) start(true);
        cur_->write_region(box, cells);
    }
    void read_region(const Box& box, std::uint8_t* out) const override {
        if (!cur_) return (void)std::fill(out, out + box.width * box.height, std::uint8_t{0});
        cur_->read_region(box, out);
    }
    std::vector<Cell> live_cells_in(const Box& box) const override {
        return cur_ ? cur_->live_cells_in(box) : std::vector<Cell>{};
    }
    std::shared_ptr<const Quadtree> quadtree() const override { return cur_ ? cur_->quadtree() : nullptr; }
    Box bounding_box() const override { return cur_ ? cur_->bounding_box() : Box{}; }
    bool wants_whole_runs() const override { return true; }
    bool load_quadtree(const Quadtree& tree) override {
        load(tree);
        return true;
    }

    // load_quadtree: a tree goes to HashLife unless it is a dense pattern small enough to list.
    void load(const Quadtree& tree) {
        cur_.reset();
        offset_ = 0;
        const CellCount pop = tree.population();
        if (pop <= kMaxListedCells && dense(pop, tree.bounding_box())) return set_cells(tree.cells());
        start(true);
        cur_->load_quadtree(tree);
    }

    void step(std::int64_t generations) override {
        if (generations < 0) throw InputError("cpu:auto: cannot step a negative number of generations");
        if (!cur_) start(true);
        if (!decided_) decide(generations);
        std::int64_t left = generations;
        while (left > 0 && !interrupted()) {
            if (on_hashlife_) {
                // HashLife pays for every distinct step size: the rest in one step.
                const std::int64_t g0 = cur_->generation();
                cur_->step(left);
                left -= cur_->generation() - g0;
                break;
            }
            const std::int64_t n = std::min(chunk_, left);
            const auto t0 = Clock::now();
            cur_->step(n);
            const double dt = since(t0);
            left -= n;
            elapsed_ += dt;
            if (dt > 0) rate_ = n / dt;
            // Chunks of a few milliseconds: cheap bookkeeping, trials on time.
            if (dt < 2e-3) chunk_ *= 2;
            else if (dt > 8e-3 && chunk_ > 1) chunk_ /= 2;
            if (left > 0 && (elapsed_ >= next_trial_ || tuning_.always_try)) left -= trial(left);
        }
    }

    EngineDescription describe() const override {
        EngineDescription d = cur_ ? cur_->describe() : EngineDescription{};
        const std::string running = cur_ ? cur_->name() : "none yet";
        d.name = name();
        d.backend = "cpu";
        std::vector<std::pair<std::string, DescriptionValue>> props = {
            {"running", running},
            {"started on", started_on_},
            {"switched at generation", switched_at_ >= 0 ? DescriptionValue(switched_at_) : DescriptionValue(nullptr)},
            {"hashlife trials", trials_},
        };
        for (auto& p : d.properties) props.push_back({running + " " + p.first, p.second});
        d.properties = std::move(props);
        return d;
    }

private:
    // While cpu:bitpacked runs, the budget is shared: a quarter for HashLife's trials (a trial that
    // takes over keeps it), the rest for the board, so the two never reserve more than the whole.
    // HashLife alone (from the start, or chosen at the first step) has all of it.
    EngineOptions share(bool trial) const {
        EngineOptions o = options_;
        const std::int64_t whole = budget();
        o.max_bytes = trial ? whole / 4 : whole - whole / 4;
        return o;
    }
    // The whole memory budget: --max-memory, or the default from physical memory, rlimits, cgroups.
    std::int64_t budget() const { return options_.max_bytes > 0 ? options_.max_bytes : memory_limits().budget(); }

    bool interrupted() const { return options_.interrupt && options_.interrupt->load(std::memory_order_relaxed); }

    static bool dense(CellCount pop, const Box& box) {
        if (pop < static_cast<CellCount>(kDenseMinCells) || box.empty()) return false;
        const CellCount area = static_cast<CellCount>(box.width) * static_cast<CellCount>(box.height);
        return pop * kDenseAreaPerCell >= area;
    }

    // At the first step, knowing the run's length: a dense pattern stays on cpu:bitpacked when
    // stepping its area that long is cheaper than HashLife's one-off cost of the chaos.
    void decide(std::int64_t generations) {
        decided_ = true;
        if (on_hashlife_ && generations >= kStreamMinGens) return consider_streamlife();
        if (on_hashlife_ || generations == 0) return;
        const Box box = cur_->extent();
        const double area = static_cast<double>(box.width) * static_cast<double>(box.height);
        if (static_cast<double>(generations) * kBitpackedCellGen / threads_ <= kHashlifeChaosCell) return;
        (void)area;  // both costs scale with it
        // The board goes before HashLife reserves its store: never both within one budget.
        const std::vector<Cell> cells = cur_->live_cells();
        offset_ += cur_->generation();
        cur_.reset();
        trial_.reset();
        cur_ = make_hashlife(spec_, options_);
        cur_->set_cells(cells);
        on_hashlife_ = true;
        started_on_ = "cpu:hashlife";
    }

    // Streams moving both ways go to cpu:streamlife, which steps them apart where they cannot meet.
    // The share is read from HashLife's tree of the pattern; when chosen, HashLife's store goes
    // before the engine that runs is filled.
    void consider_streamlife() {
        const std::int64_t pop = cur_->population();
        if (pop < kStreamMinCells || pop > kStreamMaxCells) return;
        choose_streamlife();
        // The exported tree and the reader's arrays were on the heap, whose freed blocks the CLI
        // keeps: returned, or a long HashLife run holds them resident (Caterloopillar_5c21.rle:
        // 17 MiB of heap with the former probe's store, its whole process then further above
        // Golly's).
        return_free_heap();
    }
    void choose_streamlife() {
        // The tree is exported beside HashLife's store, and read while both are held: not when the
        // two could pass the memory budget (the run stays on HashLife).
        const hashlife::ExportCost cost = hashlife::export_cost(*cur_);
        if (cost.store_bytes + cost.export_bytes > budget()) return;
        const std::shared_ptr<const Quadtree> tree = cur_->quadtree();
        if (!tree) return;
        // Most patterns are far from a quarter each way: a sample (0.1-3 ms) spares them the exact
        // count (10-15 ms of the large engineered patterns'). With a quarter each way, 512 cells
        // show under an eighth of either with probability below 10^-10 (Chernoff).
        if (!streamlife::sampled_both_ways(*tree, spec_.rule, 1.0 / 8)) return;
        const streamlife::StreamShare streams = streamlife::stream_share(*tree, spec_.rule);
        if (streams.forward * 4 < streams.population || streams.backward * 4 < streams.population ||
            streams.apart * 2 < streams.population)
            return;
        offset_ += cur_->generation();
        cur_.reset();
        trial_.reset();
        cur_ = streamlife::make_streamlife(spec_, options_);
        cur_->load_quadtree(*tree);
        started_on_ = "cpu:streamlife";
    }

    void start(bool on_hashlife) {
        on_hashlife_ = on_hashlife;
        started_on_ = on_hashlife ? "cpu:hashlife" : "cpu:bitpacked";
        cur_ = on_hashlife ? make_hashlife(spec_, options_) : create_engine("cpu:bitpacked", spec_, share(false));
        next_trial_ = kFirstTrial;
        chunk_ = 16;
    }

    // Tries HashLife on the current cells: one jump of the largest power of two generations left,
    // within a time budget; when it finishes in time it takes over the run (keeping that jump).
    // Returns the generations it made (0 when the trial ran out of time and is dropped). The budget
    // is what remains of the trials' share of the time spent so far, at most a quarter of what
    // cpu:bitpacked still needs at its current rate. The trial engine is kept between trials: what
    // it computed (the ash's still lifes, oscillators, gliders) serves the next one.
    std::int64_t trial(std::int64_t left) {
        next_trial_ = elapsed_ * 2;
        if (rate_ <= 0 && !tuning_.always_try) return 0;
        const double budget = tuning_.always_try ? 1e9 : std::min(elapsed_ * kTrialShare - trial_seconds_, left / rate_ / 4);
        const Box ext = cur_->extent();
        const double guess = (static_cast<double>(cur_->population()) * kMoveCell +
                              static_cast<double>(ext.width) * static_cast<double>(ext.height) * kMoveArea) *
                             move_factor_;
        if (budget < 2 * guess) return 0;  // moving the cells would take most of it
        ++trials_;
        const auto t0 = Clock::now();
        if (!trial_) trial_ = make_hashlife(spec_, share(true));
        Engine& h = *trial_;
        replace_cells(h, cur_->live_cells());
        if (guess > 0) move_factor_ = std::max(0.5, move_factor_ * since(t0) / guess);
        if (!tuning_.always_try)
            set_deadline(h, t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(budget)));
        const std::int64_t start = h.generation();
        const std::int64_t jump = std::int64_t{1} << (63 - __builtin_clzll(static_cast<std::uint64_t>(left)));
        h.step(jump);
        const std::int64_t made = h.generation() - start;
        set_deadline(h, {});
        trial_seconds_ += since(t0);
        elapsed_ += since(t0);
        next_trial_ = elapsed_ * 2;
        if (made < jump) return 0;
        // HashLife carries on from where the trial left it.
        offset_ += cur_->generation() - start;
        switched_at_ = offset_ + start;
        cur_ = std::move(trial_);
        on_hashlife_ = true;
        return made;
    }

    BoardSpec spec_;
    EngineOptions options_;
    AutoTuning tuning_;
    int threads_ = 1;
    std::unique_ptr<Engine> cur_, trial_;
    bool on_hashlife_ = false;
    std::string started_on_ = "none yet";
    bool decided_ = false;       // the first step has checked the choice
    std::int64_t offset_ = 0;    // generation at which cur_ started
    std::int64_t chunk_ = 16;
    double elapsed_ = 0;         // seconds spent stepping on cpu:bitpacked, trials included
    double trial_seconds_ = 0;
    double next_trial_ = kFirstTrial;
    double rate_ = 0;            // cpu:bitpacked's generations per second, last chunk
    double move_factor_ = 3;     // measured / guessed time to move the cells (pessimistic at first)
    std::int64_t trials_ = 0;
    std::int64_t switched_at_ = -1;
};

}  // namespace

std::unique_ptr<Engine> make_auto(const BoardSpec& spec, const EngineOptions& options, const AutoTuning& tuning) {
    return std::make_unique<AutoEngine>(spec, options, tuning);
}


}  // namespace tilelife::hashlife
