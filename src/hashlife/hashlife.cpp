// cpu:hashlife: Gosper's HashLife (docs/hashlife.md).
//
// Squares of side 2^level are hash-consed: one copy of each distinct square, found by its four
// quarters. Leaves are level 4 (16x16 cells, 32 bytes); nodes (level >= 5) hold four 32-bit child
// indices and their memoised results in 32 bytes, in one array, found through an open-addressing
// table of indices. The result of a node of level L is its centre square 2^(L-2) generations on (or
// 2^j, j < L - 2, for smaller steps); level-6 results come straight from the 64x64 block of its 16
// leaves, stepped by the bit-sliced leaf kernel. Memory stays inside the budget: when the store
// fills it is garbage-collected (keeping the pattern, the computation in progress and, when there is
// room, the results the next steps need) and the run carries on with the same cells. The store
// starts small and doubles at each collection up to a soft limit near Golly's default memory,
// beyond it only when the run's working set needs the room. With threads (--threads N > 1) a
// step's long queues of squares are split into pieces that this thread and the engine's helper
// threads evaluate on the same store ("threads" below).
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "core/cell_squares.hpp"
#include "core/huge_pages.hpp"
#include "hashlife/hashlife.hpp"
#include "tilelife/error.hpp"
#include "tilelife/memory.hpp"
#include "tilelife/quadtree.hpp"

namespace tilelife::hashlife {
using Wide = __int128;
namespace {

using Ref = std::uint32_t;

constexpr int kLeafLevel = 4;   // 16x16 cells
constexpr int kMinRoot = 6;     // the root is at least a level-6 node (its grandchildren are leaves)
constexpr int kMaxLevel = 63;   // squares of side up to 2^63; coordinates stay 64-bit
// Live cells stay within |x|, |y| < 2^60: a level-63 root then always has room to step them.
constexpr std::int64_t kPlane = std::int64_t{1} << 60;
// The largest step in one piece: 2^60 generations need a root of level 63 (the cells in its centre
// quarter), the largest whose coordinates fit 64 bits.
constexpr int kMaxStepLog = 60;
// Parallel steps: a level's queue of at least twice this many squares is split into tasks of at
// least this many (docs/hashlife.md, "Threads"); roots below kTaskRoot run on one thread.
constexpr std::size_t kTaskSquares = kDefaultTaskSquares;
constexpr int kTaskRoot = 12;
// Threads when --threads is 0: a thread a core up to 8 (on a 16-core Xeon, 8 threads came within 20%
// of 16's wall time on Golly's eight large patterns with 54-73% of their CPU time, docs/benchmarks.md).
constexpr int kDefaultThreads = 8;
// Free indices a worker takes from the store at a time in a parallel step.
constexpr std::size_t kBatch = 64;
// A worker fetches the free node (leaf) it will fill this many inserts ahead (prefetch_for_write).
constexpr std::size_t kNext = 8;
constexpr std::size_t kLine = 64;  // bytes in a cache line
// Prefetch distance, in lookups. A miss on this VM takes longer than 4 lookups' work: at 8 (the
// node 4 lookups after its slot) the table walk stalled; 32 took 10-22% less CPU on Golly's
// large macrocells, 16 and 64 about as much (docs/hashlife.md, "Prefetch distance").
constexpr std::size_t kAhead = 32;

struct Leaf {
    std::uint16_t row[16];  // bit x of row[y] = cell (x, y) of the square
};
static_assert(sizeof(Leaf) == 32);

struct Node {
    Ref kid[4];            // nw, ne, sw, se: leaves for level 5, nodes above
    Ref res;               // centre, 2^(level-2) generations on; 0: not known
    Ref res_slow;          // centre, 2^(tag-1) generations on (tag - 1 < level - 2); valid when tag != 0
    std::uint8_t level;    // 5..63; 0: a free slot (kid[0] links the free list)
    std::uint8_t tag;
    std::uint8_t mark;
    std::uint8_t spare;
    std::uint32_t queued;  // queued for evaluation by the worker with this id (0: not queued)
};
static_assert(sizeof(Node) == 32);

// Fetches p's line for writing: exclusive, so that a store or a compare-exchange to it need not
// first take it from another core or the memory (GCC emits PREFETCHW for __builtin_prefetch(p, 1)
// only with -mprfchw; CPUs without it take the instruction as a no-op).
inline void prefetch_for_write(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
    asm volatile("prefetchw %0" ::"m"(*static_cast<const char*>(p)));
#else
    __builtin_prefetch(p, 1);
#endif
}

struct Interrupted {};
struct Abort {};  // unwinds a task after another one failed or was interrupted

// Fields that threads share during a parallel step (table slots, results, marks) are read and
// written through atomic_ref; on x86 these are plain moves, so the single-threaded path pays nothing.
template <class T>
inline T ld(const T& x) {
    return std::atomic_ref<T>(const_cast<T&>(x)).load(std::memory_order_acquire);
}
template <class T>
inline void st(T& x, T v) {
    std::atomic_ref<T>(x).store(v, std::memory_order_release);
}

// The breadth-first evaluation's state for one level (see "evaluation" below).
struct Frame {
    std::vector<Ref> todo;  // squares of this level that need a result for the current step
    std::vector<Ref> rec;   // per square of the current chunk: its sub-squares (13 each)
    std::vector<Ref> keys;  // lookups of the current phase, 4 refs each
    std::vector<Ref> later;  // queued by other workers (parallel steps): evaluated here if still needed
    std::vector<std::uint64_t> hashes;
    std::vector<std::size_t> missed;  // parallel lookups not found in the pipeline (insert_missed)
    std::vector<std::uint32_t> live;  // lookups of the current phase that are not of the empty square
};

// One thread's evaluation state; the collector marks every worker's frames. In a parallel step
// each thread also owns batches of free node and leaf indices, taken from the store under a lock.
struct Worker {
    Frame frames[kMaxLevel + 1];
    std::vector<Ref> scratch[kMaxLevel + 1];
    std::uint32_t id = 1;  // Node::queued of the squares this worker queued
    std::vector<Ref> nodes, leaves;
    std::vector<Leaf> made;  // level-6 evaluation: the result leaves of a chunk, four a square
    // Task graph accounting (seconds): the task's own work so far, the time it waited for
    // children, the sum of its waits' longest child spans; `work` sums its tasks' own work.
    double waited = 0, child_span = 0, work = 0;
};
thread_local Worker* tl_worker = nullptr;  // the worker of the task this thread runs in a parallel step

constexpr std::size_t kHuge = std::size_t{2} << 20;

// Bytes rounded up to whole pages: 4 KiB ones under 2 MiB, huge ones from 2 MiB on (what the pools
// commit and the tables map).
inline std::size_t in_pages(std::size_t bytes) {
    return bytes < kHuge ? (bytes + 4095) / 4096 * 4096 : (bytes + kHuge - 1) / kHuge * kHuge;
}

// Where nodes and leaves live: ONE address range of at most the memory budget, reserved up front
// without being committed (PROT_NONE), 2 MiB aligned, nodes growing up from its start and leaves
// down from its end, each committed as it grows, so growing never moves or copies them and
// transparent huge pages back them (a lookup's TLB miss costs as much as its cache miss on a
// virtual machine otherwise). One range, not one per array: under an address-space limit
// (ulimit -v) the reservations themselves must fit the budget.
class Region {
public:
    Region() = default;
    Region(const Region&) = delete;
    Region& operator=(const Region&) = delete;
    ~Region() { release(); }
    void reserve(std::size_t max_bytes) {
        release();
        reserved_ = (max_bytes + kHuge - 1) / kHuge * kHuge + 2 * kHuge;
        void* m = ::mmap(nullptr, reserved_ + kHuge, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED) throw std::bad_alloc();
        map_ = m;
        low_ = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(m) + kHuge - 1) & ~(kHuge - 1));
    }
    char* low() const { return low_; }
    char* high() const { return low_ + reserved_; }
    std::size_t reserved() const { return reserved_; }
    // Commits [from, from + bytes); the two arrays' committed parts never overlap.
    void commit(char* from, std::size_t bytes, std::size_t& committed_total) {
        if (committed_total + bytes > reserved_) throw std::bad_alloc();
        if (::mprotect(from, bytes, PROT_READ | PROT_WRITE) != 0) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
        (void)::madvise(from, bytes, MADV_HUGEPAGE);
#endif
        // Pieces of under 2 MiB are 4 KiB pages that the array fills in order; larger ones are
        // huge pages (one fault each) and may stay partly unused, so they are left to fault.
        if (bytes < kHuge) populate(from, bytes);
        committed_total += bytes;
    }
    std::size_t committed = 0;  // both arrays together

private:
    void release() {
        if (map_) ::munmap(map_, reserved_ + kHuge);
        map_ = nullptr;
        low_ = nullptr;
        reserved_ = committed = 0;
    }
    void* map_ = nullptr;
    char* low_ = nullptr;
    std::size_t reserved_ = 0;
};

// A growable array in a Region: from its start up (Down = false) or from its end down (element i
// just below element i - 1).
template <class T, bool Down>
class Pool {
public:
    void attach(Region& region) {
        region_ = &region;
        base_ = Down ? reinterpret_cast<T*>(region.high()) - 1 : reinterpret_cast<T*>(region.low());
    }
    std::size_t capacity() const { return cap_; }
    std::size_t bytes() const { return cap_ * sizeof(T); }
    // The capacity grow(n) leaves: whole pages (4 KiB, or 2 MiB from 2 MiB on).
    std::size_t capacity_for(std::size_t n) const {
        if (n <= cap_) return cap_;
        return in_pages(n * sizeof(T)) / sizeof(T);
    }
    // Grows to at least n elements, keeping the contents; new elements are zero.
    void grow(std::size_t n) {
        if (n <= cap_) return;
        const std::size_t bytes = in_pages(n * sizeof(T));
        if (bytes > committed_) {
            char* from = Down ? region_->high() - bytes : region_->low() + committed_;
            region_->commit(from, bytes - committed_, region_->committed);
            committed_ = bytes;
        }
        cap_ = bytes / sizeof(T);
    }
    T& operator[](std::size_t i) const { return Down ? base_[-static_cast<std::ptrdiff_t>(i)] : base_[i]; }

private:
    Region* region_ = nullptr;
    T* base_ = nullptr;
    std::size_t cap_ = 0, committed_ = 0;
};

// A hash table of indices: rebuilt from nothing whenever it grows, so it needs no reservation; a
// larger one is a fresh mapping (2 MiB aligned for huge pages), a cleared one fresh pages.
class Table {
public:
    Table() = default;
    Table(const Table&) = delete;
    Table& operator=(const Table&) = delete;
    ~Table() { release(); }
    std::size_t bytes() const { return cap_ * sizeof(Ref); }
    // n zeroed slots (the old contents are dropped).
    void reset(std::size_t n) {
        const std::size_t want = n * sizeof(Ref);
        if (want <= mapped_) {
            // Cleared in place (the pages stay mapped); what lies beyond the new size goes back.
            const std::size_t keep = (want + 4095) / 4096 * 4096;
            std::memset(data_, 0, want);
            if (keep < mapped_) (void)::madvise(reinterpret_cast<char*>(data_) + keep, mapped_ - keep, MADV_DONTNEED);
            cap_ = n;
            return;
        }
        release();
        const std::size_t bytes = in_pages(want);
        const std::size_t len = bytes < kHuge ? bytes : bytes + kHuge;
        void* m = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) throw std::bad_alloc();
        map_ = m;
        map_len_ = len;
        char* p = static_cast<char*>(m);
        if (bytes >= kHuge) p = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(m) + kHuge - 1) & ~(kHuge - 1));
#ifdef MADV_HUGEPAGE
        if (bytes >= kHuge) (void)::madvise(p, bytes, MADV_HUGEPAGE);
#endif
        data_ = reinterpret_cast<Ref*>(p);
        mapped_ = bytes;
        cap_ = n;
        populate(p, bytes);  // a table at most half full has entries on every page
    }
    Ref& operator[](std::size_t i) const { return data_[i]; }

private:
    void release() {
        if (map_) ::munmap(map_, map_len_);
        map_ = nullptr;
        data_ = nullptr;
        cap_ = mapped_ = map_len_ = 0;
    }
    void* map_ = nullptr;
    Ref* data_ = nullptr;
    std::size_t cap_ = 0, mapped_ = 0, map_len_ = 0;
};

// A table entry holds a square's index and, in the bits above those an index needs (its array's
// capacity), the top bits of the square's hash: a probe passes over a slot whose bits differ
// without reading that square, a cache miss on a large store (a lookup that makes a new square
// read 1.5 other squares on average with the table at its fullest, half full). Fewer bits are left
// as the array grows, none from 2^31 squares on.
struct TagBits {
    Ref mask = 0;  // the tag's bits
    int index_bits = 0;
    Ref entry(std::uint64_t hash, Ref r) const { return r | (static_cast<Ref>(hash >> 32) & mask); }
    Ref index(Ref e) const { return e & ~mask; }
    bool fits(Ref e, std::uint64_t hash) const { return ((e ^ static_cast<Ref>(hash >> 32)) & mask) == 0; }
    // Room for indices below `capacity`: true when the bits changed (entries made before must be
    // made again).
    bool fit(std::size_t capacity) {
        const int bits = std::bit_width(capacity);
        if (bits <= index_bits) return false;
        index_bits = bits;
        mask = bits >= 32 ? 0 : ~((Ref{1} << bits) - 1);
        return true;
    }
};

inline std::uint64_t mix(std::uint64_t h) {
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ull;
    h ^= h >> 32;
    return h;
}
inline std::uint64_t node_hash(int level, Ref a, Ref b, Ref c, Ref d) {
    return mix(((std::uint64_t{a} << 32) | b) * 0x9E3779B97F4A7C15ull +
               ((std::uint64_t{c} << 32) | d) * 0xC2B2AE3D27D4EB4Full + static_cast<std::uint64_t>(level));
}
inline std::uint64_t leaf_hash(const Leaf& l) {
    std::uint64_t w[4];
    std::memcpy(w, l.row, sizeof w);
    return mix(w[0] * 0x9E3779B97F4A7C15ull ^ w[1] * 0xC2B2AE3D27D4EB4Full ^ w[2] * 0x165667B19E3779F9ull ^
               (w[3] + 0x27D4EB2F165667C5ull));
}
inline bool same_leaf(const Leaf& a, const Leaf& b) { return std::memcmp(a.row, b.row, sizeof a.row) == 0; }
inline std::uint32_t leaf_pop(const Leaf& l) {
    std::uint64_t w[4];
    std::memcpy(w, l.row, sizeof w);
    return static_cast<std::uint32_t>(__builtin_popcountll(w[0]) + __builtin_popcountll(w[1]) +
                                      __builtin_popcountll(w[2]) + __builtin_popcountll(w[3]));
}


class HashlifeEngine final : public Engine {
public:
    HashlifeEngine(const BoardSpec& spec, const EngineOptions& options, const Tuning& tuning)
        : rule_(spec.rule), masks_(rule_masks(spec.rule)), life_(spec.rule == Rule::life()),
          simd_(tuning.simd == 0 ? best_leaf_simd() : tuning.simd), kernel_(leaf_kernel(simd_)),
          interrupt_(options.interrupt) {
        // 0 (the engine's choice) is a thread a core, up to kDefaultThreads: helpers start only when
        // a step has a queue long enough to share, so small jobs never start one (docs/hashlife.md,
        // "Threads").
        threads_ = options.threads > 0 ? options.threads : std::min(usable_cores(), kDefaultThreads);
        if (threads_ > 1) {  // under ulimit -v: no more threads than their stacks fit, no arena each
            threads_ = threads_that_fit(threads_);
            share_malloc_arena_under_address_space_limit();
        }
        always_tasks_ = tuning.always_tasks;
        cut_for_ = std::max(0, tuning.cut_for);
        task_squares_ = tuning.task_squares > 0 ? static_cast<std::size_t>(tuning.task_squares) : kTaskSquares;
        idle_squares_ = static_cast<std::size_t>(std::max(0, tuning.idle_squares));
        gc_squares_ = static_cast<std::size_t>(std::max<std::int64_t>(0, tuning.gc_squares_per_thread));
        gc_team_ok_ = !memory_limits().address_space;
        workers_.push_back(std::make_unique<Worker>());
        if (spec.topology != Topology::unbounded)
            throw std::invalid_argument("cpu:hashlife runs only the unbounded plane");
        if (spec.rule.birth & 1u) throw InputError("rule " + spec.rule.to_string() + " has B0 (not on an unbounded plane)");
        budget_ = options.max_bytes > 0 ? options.max_bytes : memory_limits().budget(threads_);
        limit_ = std::min(budget_, std::max<std::int64_t>(tuning.initial_bytes, 1 << 16));
        soft_limit_ = std::max(limit_, options.store_bytes > 0 ? std::min(options.store_bytes, budget_)
                                                               : tuning.soft_limit_bytes);
        // The store keeps 40 bytes a node and 41 a leaf within the budget (make_room), so nodes and
        // leaves together never need more than 32/40 of it.
        region_.reserve(static_cast<std::size_t>(budget_ / 40 * 32));
        nodes_.attach(region_);
        leaves_.attach(region_);
        nodes_.grow(256);
        leaves_.grow(256);
        // Tag bits for arrays up to the soft limit at once: fitted to each growth, the tables were
        // rebuilt at every doubling as the store grew.
        const auto most = static_cast<std::size_t>(std::min(soft_limit_, budget_));
        node_tags_.fit(std::max(nodes_.capacity(), most / sizeof(Node)));
        leaf_tags_.fit(std::max(leaves_.capacity(), most / sizeof(Leaf)));
        rebuild_node_table(1024);
        rebuild_leaf_table(1024);
        leaf_mark_.assign(leaves_.capacity(), 0);
        node_top_ = 1;  // index 0 stays unused: 0 means "none" in results
        leaf_top_ = 1;
        Leaf blank{};
        empty_[kLeafLevel] = leaf(blank);
        for (int l = kLeafLevel + 1; l <= kMaxLevel; ++l) {
            const Ref e = empty_[l - 1];
            empty_[l] = node(l, e, e, e, e);
        }
        root_ = empty_[kMinRoot];
        level_ = kMinRoot;
        if (bytes() > budget_)
            throw InputError("cpu:hashlife needs at least " + std::to_string(bytes() >> 10) + " KiB (memory budget " +
                             std::to_string(budget_ >> 10) + " KiB)");
    }
    ~HashlifeEngine() override { stop_helpers(); }
    HashlifeEngine(const HashlifeEngine&) = delete;
    HashlifeEngine& operator=(const HashlifeEngine&) = delete;

    std::string name() const override { return "cpu:hashlife"; }
    Topology topology() const override { return Topology::unbounded; }
    Rule rule() const override { return rule_; }
    std::int64_t generation() const override { return generation_; }

    Box extent() const override { return live_box(); }
    Box bounding_box() const override { return live_box(); }
    bool wants_whole_runs() const override { return true; }
    bool load_quadtree(const Quadtree& t) override {
        load(t);
        return true;
    }

    std::int64_t population() const override {
        if (!pop_valid_) {
            const CellCount n = count_all();
            pop_ = n > static_cast<CellCount>(INT64_MAX) ? INT64_MAX : static_cast<std::int64_t>(n);
            pop_valid_ = true;
        }
        return pop_;
    }

    void step(std::int64_t generations) override {
        if (generations < 0) throw InputError("cpu:hashlife: cannot step a negative number of generations");
        if (generations == 0) return;
        if (generation_ > INT64_MAX - generations)
            throw InputError("cpu:hashlife: generation " + std::to_string(generation_) + " + " +
                             std::to_string(generations) + " is beyond 2^63 - 1: refused before running");
        if (root_ == empty_[level_]) {
            generation_ += generations;
            return;
        }
        // Where the light cone (one cell a generation) stays on the plane, nothing can leave it.
        // Otherwise the run goes in pieces of at most 2^60 generations, each checked: a piece
        // started on the plane has room in a level-63 root, so its result is exact, and a result
        // off the plane undoes the whole call (the engine is left as it was) and is refused.
        const bool watch = !light_cone_fits(generations);
        const Saved start{root_, level_, generation_};
        if (watch) saved_root_ = root_;
        try {
            for (int j = 0; j < 63 && generations > 0; ++j) {
                const std::int64_t bit = std::int64_t{1} << j;
                if (!(generations & bit)) continue;
                // Bits above 2^60 go as 2 or 4 pieces of 2^60.
                const int piece = std::min(j, kMaxStepLog);
                for (std::int64_t k = 0; k < bit >> piece; ++k) {
                    if (interrupted()) throw Interrupted{};
                    const Saved before{root_, level_, generation_};
                    if (watch) piece_root_ = root_;
                    step_pow2(piece);
                    if (watch) check_on_plane(start, before);
                }
                generations -= bit;
            }
        } catch (const Interrupted&) {
            protect_.clear();
        } catch (...) {
            protect_.clear();
            saved_root_ = piece_root_ = 0;
            throw;
        }
        saved_root_ = piece_root_ = 0;
    }
    void set_cells(const std::vector<Cell>& cells) override {
        if (cells.empty()) return;
        GcPause pause(*this);
        auto [tree, level] = build(cells);
        merge(tree, level);
    }

    void write_region(const Box& box, const std::uint8_t* cells) override {
        if (box.empty()) return;
        std::vector<Cell> live;
        for (std::int64_t y = 0; y < box.height; ++y)
            for (std::int64_t x = 0; x < box.width; ++x)
                if (cells[y * box.width + x]) live.push_back(Cell{box.x + x, box.y + y});
        GcPause pause(*this);
        const Cell o = origin(level_);
        root_ = clear_box(root_, level_, o.x, o.y, box);
        changed();
        if (!live.empty()) {
            auto [tree, level] = build(live);
            merge(tree, level);
        } else {
            shrink();
        }
    }

    void read_region(const Box& box, std::uint8_t* out) const override {
        if (box.empty()) return;
        std::memset(out, 0, static_cast<std::size_t>(box.width * box.height));
        const Cell o = origin(level_);
        fill(root_, level_, o.x, o.y, box, out);
    }

    std::vector<Cell> live_cells_in(const Box& box) const override {
        const std::shared_ptr<const Quadtree> t = quadtree();
        return t->cells(&box);
    }

    std::shared_ptr<const Quadtree> quadtree() const override {
        if (!exported_) exported_ = std::make_shared<const Quadtree>(export_tree());
        return exported_;
    }

    EngineDescription describe() const override {
        EngineDescription d;
        d.name = name();
        d.backend = "cpu";
        d.threads = threads_;
        d.host_bytes = bytes();
        d.properties = {
            {"nodes", static_cast<std::int64_t>(node_count_)},
            {"leaves", static_cast<std::int64_t>(leaf_count_)},
            {"bytes", bytes()},
            {"memory budget bytes", budget_},
            {"soft limit bytes", soft_limit_},
            {"collections", collections_},
            {"step exponent", static_cast<std::int64_t>(last_j_)},
            {"root level", static_cast<std::int64_t>(level_)},
            {"leaf kernel", std::string(simd_ == 3 ? "avx512" : simd_ == 2 ? "avx2" : "baseline")},
            {"task squares", static_cast<std::int64_t>(task_squares_)},
            {"idle squares", static_cast<std::int64_t>(idle_squares_)},
            {"cut for", static_cast<std::int64_t>(cut_for_ ? cut_for_ : std::max(threads_, 1))},
            {"parallel steps", parallel_steps_},
            {"tasks", tasks_.load()},
            {"idle splits", idle_splits_.load()},
            {"collector threads", static_cast<std::int64_t>(gc_threads_)},
            {"parallel collections", parallel_collections_},
            {"workers", static_cast<std::int64_t>(workers_.size())},
            {"worker bytes", worker_bytes()},
            {"task work seconds", work_seconds_},
            {"task span seconds", span_seconds_},
        };
        return d;
    }

    // What the workers' frames hold (their vectors' capacities).
    std::int64_t worker_bytes() const {
        std::size_t b = 0;
        for (const auto& w : workers_) {
            b += sizeof(Worker) + (w->nodes.capacity() + w->leaves.capacity()) * sizeof(Ref) +
                 w->made.capacity() * sizeof(Leaf);
            for (const Frame& f : w->frames)
                b += (f.todo.capacity() + f.rec.capacity() + f.keys.capacity() + f.later.capacity()) * sizeof(Ref) +
                     f.hashes.capacity() * sizeof(std::uint64_t) + f.live.capacity() * sizeof(std::uint32_t);
            for (const auto& v : w->scratch) b += v.capacity() * sizeof(Ref);
        }
        return static_cast<std::int64_t>(b);
    }

    // Replaces the cells by a tree's (load_quadtree).
    void load(const Quadtree& t) {
        GcPause pause(*this);
        root_ = empty_[kMinRoot];
        level_ = kMinRoot;
        changed();
        if (t.root() == 0) return;
        const Box box = t.bounding_box();
        check_plane(box);
        // The store and its tables sized for the tree at once (at most one square of ours for each
        // of its squares of level 4 and up): grown as the import went, the tables were rebuilt at
        // every doubling. A tree that repeats squares may need less than that bound: if the bound
        // is over the budget, the import grows the store as it goes (and stops only if the squares
        // themselves do not fit).
        std::size_t want_nodes = 0, want_leaves = 0;
        for (const Quadtree::Node& n : t.nodes()) {
            want_nodes += n.level > kLeafLevel;
            want_leaves += n.level == kLeafLevel;
        }
        bool sized = true;
        try {
            make_room_for(want_nodes, want_leaves);
        } catch (const RuntimeError&) {
            sized = false;
        }
        if (sized && overfull(node_count_ + want_nodes, node_slots_))
            rebuild_node_table(slots_for(node_count_ + want_nodes));
        if (sized && overfull(leaf_count_ + want_leaves, leaf_slots_))
            rebuild_leaf_table(slots_for(leaf_count_ + want_leaves));
        std::vector<Ref> memo(t.nodes().size() + 1, 0);
        // The tree's root of level L nests in the centre of ours: same placement (Golly's).
        Ref r;
        int level = t.level();
        if (level < kLeafLevel) level = kLeafLevel;
        r = t.level() > Quadtree::leaf_level ? import_by_levels(t, memo) : import(t, t.root(), t.level(), memo);
        // A level-3 or level-4 root: wrap it in empty squares up to the minimum root level.
        if (t.level() == Quadtree::leaf_level) level = kLeafLevel;  // import made a centred leaf
        while (level < kMinRoot) {
            r = expand(r, level);
            ++level;
        }
        // Trim a root larger than the plane we run (its cells are inside it, checked above).
        while (level > kMinRoot && border_empty(r, level)) {
            r = centre(r, level);
            --level;
        }
        root_ = r;
        level_ = level;
        shrink();
        changed();
    }

private:
    // ---- the store ----

    Leaf& L(Ref r) const { return leaves_[r]; }
    Node& N(Ref r) const { return nodes_[r]; }
    bool is_empty(Ref r, int level) const { return r == empty_[level]; }

    std::int64_t bytes() const {
        return static_cast<std::int64_t>(nodes_.bytes() + leaves_.bytes() + node_table_.bytes() + leaf_table_.bytes() +
                                         leaf_mark_.capacity());
    }

    // Bounds what export_tree() and the StreamLife probe's reading of that tree take: per node in
    // the store, its tree node (33 bytes), its index during the export and the probe's memo (4
    // each); per leaf, four 8x8 quarters and their 8x8 node (33 bytes each), the quarters' table
    // (up to 64 bytes a quarter) and the probe's memo. Every square of the store counts, a bound:
    // the export makes only the pattern's. And the probe's lane lists: up to 64 bytes for each
    // occurrence of a 64x64 square with cells (at most one a cell), twice that as vectors grow.
    std::int64_t export_bound() const {
        constexpr std::int64_t kLaneBytes = 128, kCells = std::int64_t{1} << 40;  // (no overflow)
        return static_cast<std::int64_t>(node_count_ + 1) * 48 + static_cast<std::int64_t>(leaf_count_ + 1) * 448 +
               std::min(population(), kCells) * kLaneBytes;
    }

    // Pauses collections while a caller holds references the collector cannot see (building and
    // merging trees); the budget is checked again afterwards.
    struct GcPause {
        explicit GcPause(HashlifeEngine& e, bool on = true) : e_(e), was_(e.gc_allowed_), on_(on) {
            if (on_) e.gc_allowed_ = false;
        }
        ~GcPause() {
            if (on_) e_.gc_allowed_ = was_;
        }
        HashlifeEngine& e_;
        bool was_, on_;
    };

    Ref leaf(const Leaf& l) { return leaf_hashed(leaf_hash(l), l); }

    // Where a table's probe for a square stopped: its slot, and the square (0: an empty slot, where
    // it would go).
    struct Probe {
        std::size_t slot;
        Ref found;
    };
    Probe probe_leaf(std::uint64_t hash, const Leaf& l) const {
        const std::size_t mask = leaf_slots_ - 1;
        for (std::size_t slot = hash & mask;; slot = (slot + 1) & mask) {
            const Ref e = ld(leaf_table_[slot]);
            if (e == 0) return {slot, 0};
            if (leaf_tags_.fits(e, hash) && same_leaf(leaves_[leaf_tags_.index(e)], l)) return {slot, leaf_tags_.index(e)};
        }
    }
    Probe probe_node(std::uint64_t hash, int level, Ref a, Ref b, Ref c, Ref d) const {
        const std::size_t mask = node_slots_ - 1;
        for (std::size_t slot = hash & mask;; slot = (slot + 1) & mask) {
            const Ref e = ld(node_table_[slot]);
            if (e == 0) return {slot, 0};
            if (!node_tags_.fits(e, hash)) continue;
            const Ref s = node_tags_.index(e);
            const Node& n = nodes_[s];
            if (n.kid[0] == a && n.kid[1] == b && n.kid[2] == c && n.kid[3] == d && n.level == level) return {slot, s};
        }
    }

    // After an array grows: room for its indices below the tag bits (TagBits), the table
    // rebuilt when they change.
    void fit_node_tags() {
        if (node_tags_.fit(nodes_.capacity()) && node_slots_) rebuild_node_table(node_slots_);
    }
    void fit_leaf_tags() {
        if (leaf_tags_.fit(leaves_.capacity()) && leaf_slots_) rebuild_leaf_table(leaf_slots_);
    }

    Ref leaf_hashed(std::uint64_t hash, const Leaf& l) {
        if (par_) [[unlikely]]
            return leaf_par(hash, l);
        const auto [slot, found] = probe_leaf(hash, l);
        if (found) return found;
        if (!leaf_free_ && leaf_top_ == leaves_.capacity()) {
            make_room(0, 1);
            return leaf_hashed(hash, l);  // the table may have been rebuilt
        }
        const Ref r = pop_leaf();
        leaves_[r] = l;
        leaf_table_[slot] = leaf_tags_.entry(hash, r);
        if (overfull(++leaf_count_, leaf_slots_)) rebuild_leaf_table(leaf_slots_ * 2);
        return r;
    }

    // An unused index: the head of the free list, or the top of the array (which has room).
    Ref pop_node() {
        if (!node_free_) return static_cast<Ref>(node_top_++);
        const Ref r = node_free_;
        node_free_ = nodes_[r].kid[0];
        --node_free_count_;
        return r;
    }
    Ref pop_leaf() {
        if (!leaf_free_) return static_cast<Ref>(leaf_top_++);
        const Ref r = leaf_free_;
        std::memcpy(&leaf_free_, leaves_[r].row, sizeof(Ref));
        --leaf_free_count_;
        return r;
    }

    Ref node(int level, Ref a, Ref b, Ref c, Ref d) { return node_hashed(node_hash(level, a, b, c, d), level, a, b, c, d); }

    Ref node_hashed(std::uint64_t hash, int level, Ref a, Ref b, Ref c, Ref d) {
        if (par_) [[unlikely]]
            return node_par(hash, level, a, b, c, d);
        const auto [slot, found] = probe_node(hash, level, a, b, c, d);
        if (found) return found;
        if (!node_free_ && node_top_ == nodes_.capacity()) {
            make_room(1, 0);
            return node_hashed(hash, level, a, b, c, d);
        }
        const Ref r = pop_node();
        Node& n = nodes_[r];
        n = Node{};
        n.kid[0] = a, n.kid[1] = b, n.kid[2] = c, n.kid[3] = d;
        n.level = static_cast<std::uint8_t>(level);
        node_table_[slot] = node_tags_.entry(hash, r);
        if (overfull(++node_count_, node_slots_)) rebuild_node_table(node_slots_ * 2);
        return r;
    }

    // A table holds at most kLoadNum/kLoadDen as many squares as it has slots. With TagBits a
    // probe passes over other squares' slots reading only their entries, 16 to a cache line, so a
    // fuller table is cheaper than it was; but 3/4 (2026-12-07, dev-epyc) ran hexadecimal and
    // metapixel-p216-gun 0.87x as fast, while the stores at their soft limit, with more squares in
    // the same memory, gained (Caterloopillar_5c21 1.12x, centipede 1.08x): docs/hashlife.md.
    static constexpr std::size_t kLoadNum = 1, kLoadDen = 2;
    static bool overfull(std::size_t count, std::size_t slots) { return count * kLoadDen > slots * kLoadNum; }
    static std::size_t slots_for(std::size_t count) { return std::bit_ceil((count * kLoadDen + kLoadNum - 1) / kLoadNum); }

    // The most a table for `cap` entries can take (see make_room's projected).
    static std::size_t table_bytes(std::size_t cap) {
        return std::max<std::size_t>(1024, slots_for(cap)) * sizeof(Ref);
    }

    // Fills a table being rebuilt (no square is put in twice): the squares come in the order
    // their arrays are read (the hardware prefetcher follows); their slots are random, so each
    // slot is prefetched kAhead squares before it is written. Threads of a team share the table,
    // claiming empty slots by compare-exchange.
    class Filler {
    public:
        Filler(Table& t, std::size_t slots, bool shared) : t_(t), mask_(slots - 1), shared_(shared) {}
        void add(std::uint64_t hash, Ref r) {
            const std::size_t slot = hash & mask_, k = n_++ % kAhead;
            // The slot is written (by a team, with a compare-exchange that waits for its line held
            // exclusive): fetched for reading, what GCC makes of __builtin_prefetch(p, 1), the line
            // was taken over at the swap, and two threads sweeping caterpillar.mc.gz's nodes spent
            // 0.23-0.26 s where one spent 0.13 (0.17-0.19 s since).
            prefetch_for_write(&t_[slot]);
            if (n_ > kAhead) claim_slot(t_, slot_[k], mask_, ref_[k], shared_);
            slot_[k] = slot;
            ref_[k] = r;
        }
        void finish() {
            for (std::size_t i = n_ > kAhead ? n_ - kAhead : 0; i < n_; ++i)
                claim_slot(t_, slot_[i % kAhead], mask_, ref_[i % kAhead], shared_);
            n_ = 0;
        }

    private:
        Table& t_;
        std::size_t mask_;
        bool shared_;
        std::size_t n_ = 0;
        std::size_t slot_[kAhead];
        Ref ref_[kAhead];
    };
    static std::uint64_t node_hash_of(const Node& n) { return node_hash(n.level, n.kid[0], n.kid[1], n.kid[2], n.kid[3]); }

    void rebuild_node_table(std::size_t cap) {
        node_table_.reset(cap);
        node_slots_ = cap;
        const std::size_t team = gc_team();
        run_ranges(node_top_, team, [&](std::size_t, std::size_t lo, std::size_t hi) {
            Filler fill(node_table_, node_slots_, team > 1);
            for (std::size_t i = lo; i < hi; ++i)
                if (nodes_[i].level) {
                    const std::uint64_t h = node_hash_of(nodes_[i]);
                    fill.add(h, node_tags_.entry(h, static_cast<Ref>(i)));
                }
            fill.finish();
        });
    }

    void rebuild_leaf_table(std::size_t cap) {
        leaf_table_.reset(cap);
        leaf_slots_ = cap;
        std::vector<bool> is_free(leaf_top_, false);
        for (Ref f = leaf_free_; f; std::memcpy(&f, leaves_[f].row, sizeof(Ref))) is_free[f] = true;
        const std::size_t team = gc_team();
        run_ranges(leaf_top_, team, [&](std::size_t, std::size_t lo, std::size_t hi) {
            Filler fill(leaf_table_, leaf_slots_, team > 1);
            for (std::size_t i = lo; i < hi; ++i)
                if (!is_free[i]) {
                    const std::uint64_t h = leaf_hash(leaves_[i]);
                    fill.add(h, leaf_tags_.entry(h, static_cast<Ref>(i)));
                }
            fill.finish();
        });
    }

    // Puts r in the first empty slot from `slot` on (a table being rebuilt: no square is there twice).
    static void claim_slot(Table& t, std::size_t slot, std::size_t mask, Ref r, bool shared) {
        if (!shared) {
            while (t[slot]) slot = (slot + 1) & mask;
            t[slot] = r;
            return;
        }
        for (;; slot = (slot + 1) & mask) {
            Ref empty = 0;
            if (!ld(t[slot]) && std::atomic_ref<Ref>(t[slot]).compare_exchange_strong(empty, r, std::memory_order_relaxed))
                return;
        }
    }

    // ---- the collector's team ----
    //
    // With --threads above 1 a collection or a table rebuild of a large store runs on a thread for
    // each gc_squares_ squares (nodes and leaves) in use, up to threads_: this one and threads
    // started for each phase, so that nothing spins or waits between collections. In a parallel
    // step the other workers are parked meanwhile, their cores idle: with one thread collecting,
    // the world stood still for 1.0 s of the 3.1 s that Golly's caterpillar.mc.gz took to 1024
    // generations on 16 threads of a Xeon (0.34 s of 2.1 s with the team). Starting and joining a
    // thread costs about 56 us on dev-epyc: 15 of them for every phase of a small store made
    // metapixel-galaxy 0.91x as fast on 16 threads. A smaller team than kMinRebuildTeam rebuilds
    // the tables on this thread alone: on dev-epyc's two cores a team of two for everything made
    // demonoid's two threads 0.91x as fast, the rebuilds no faster. The mark and sweep take a
    // team from kMinCollectTeam: two threads collecting caterpillar.mc.gz took 0.25-0.32 s against
    // 0.44-0.48, and its runs on two threads were faster in 10 paired runs of 10 (1.03x; demonoid
    // 1.02x, the eight other large macrocells 1.01x: docs/hashlife.md, "Threads", Collections).
    // Under an address-space limit (ulimit -v)
    // there is no team: its threads' stacks are not in the budget, and before the engine made
    // threads share malloc's arena there, each took an arena of its own (64 MiB of address space):
    // caterpillar.mc.gz on 4 threads under `ulimit -v 700000` ran out of memory.
    static constexpr std::size_t kMinRebuildTeam = 4, kMinCollectTeam = 2;
    // The team for the phase about to run, counted in gc_threads_.
    std::size_t gc_team(std::size_t min_team = kMinRebuildTeam) {
        const std::size_t team = team_size(min_team);
        gc_threads_ = std::max(gc_threads_, team);
        return team;
    }
    std::size_t team_size(std::size_t min_team) const {
        const auto threads = static_cast<std::size_t>(threads_);
        if (threads <= 1 || !gc_team_ok_) return 1;
        if (gc_squares_ == 0) return threads;  // (the tests: every collection on all the threads)
        const std::size_t team = std::min((node_top_ + leaf_top_) / gc_squares_, threads);
        return team >= min_team ? team : 1;
    }

    // Runs part(p) for every p < parts on `team` threads (all on this one when team is 1, or when
    // the system refuses a thread); the first exception is rethrown here once every thread is done.
    template <class Part>
    static void run_parts(std::size_t parts, std::size_t team, Part part) {
        if (team <= 1 || parts <= 1) {
            for (std::size_t p = 0; p < parts; ++p) part(p);
            return;
        }
        std::atomic<std::size_t> next{0};
        std::mutex m;
        std::exception_ptr failed;
        auto body = [&] {
            try {
                for (std::size_t p; (p = next.fetch_add(1)) < parts;) part(p);
            } catch (...) {
                std::lock_guard lk(m);
                if (!failed) failed = std::current_exception();
                next.store(parts);
            }
        };
        std::vector<std::thread> extra;
        extra.reserve(team);  // (no reallocation once a thread runs)
        for (std::size_t t = 1; t < std::min(team, parts); ++t) {
            try {
                extra.emplace_back(body);
            } catch (const std::system_error&) {
                break;  // fewer threads: the parts are the same
            }
        }
        body();
        for (auto& t : extra) t.join();
        if (failed) std::rethrow_exception(failed);
    }
    // fn(p, lo, hi) for the ranges p < ranges(team) of [1, top), in order, four a thread.
    static std::size_t ranges(std::size_t team) { return team > 1 ? 4 * team : 1; }
    template <class Fn>
    static void run_ranges(std::size_t top, std::size_t team, Fn fn) {
        const std::size_t parts = ranges(team);
        const std::size_t n = top > 1 ? top - 1 : 0, each = (n + parts - 1) / parts;
        run_parts(parts, team, [&](std::size_t p) {
            const std::size_t lo = std::min(top, 1 + p * each), hi = std::min(top, lo + each);
            fn(p, lo, hi);
        });
    }

    // Room for `nodes` more nodes and `leaves` more leaves without a collection: grows the arrays
    // within the current limit, else collects (when allowed), else grows within the budget, else
    // refuses to go on (RuntimeError: the pattern and the step in progress need more than the budget).
    void make_room(std::size_t nodes, std::size_t leaves) {
        auto free_nodes = [&] { return nodes_.capacity() - node_top_ + node_free_count_; };
        auto free_leaves = [&] { return leaves_.capacity() - leaf_top_ + leaf_free_count_; };
        // Bytes of a store grown to these capacities, as bytes() will count them: the arrays in
        // whole pages (Pool::grow), the leaves' mark bytes, and the largest tables they can come to
        // need (a power of two of slots, at least 1024, doubled when more than half full: up to
        // bit_ceil(2 * capacity), 8-16 bytes a node). Counting 8 (2026-11-28) let a full store
        // pass its budget by up to a quarter (Golly's caterpillar.mc.gz: 267 MB in a 240 MiB budget).
        auto projected = [&](std::size_t ncap, std::size_t lcap) {
            ncap = nodes_.capacity_for(ncap);
            lcap = leaves_.capacity_for(lcap);
            return static_cast<std::int64_t>(ncap * sizeof(Node) + table_bytes(ncap) + lcap * (sizeof(Leaf) + 1) +
                                             table_bytes(lcap));
        };
        // Doubles what is short, or grows it by as much as still fits (at least an eighth).
        auto try_grow = [&](std::int64_t limit) {
            std::size_t ncap = nodes_.capacity(), lcap = leaves_.capacity();
            const bool short_n = free_nodes() < nodes, short_l = free_leaves() < leaves;
            if (!short_n && !short_l) return true;
            for (int eighths = 8; eighths >= 1; eighths /= 2) {
                const std::size_t n2 = short_n ? ncap + std::max(ncap * eighths / 8, nodes + 1024) : ncap;
                const std::size_t l2 = short_l ? lcap + std::max(lcap * eighths / 8, leaves + 1024) : lcap;
                if (projected(n2, l2) > limit) continue;
                nodes_.grow(n2);
                fit_node_tags();
                leaves_.grow(l2);
                fit_leaf_tags();
                leaf_mark_.reserve(leaves_.capacity());  // exactly: bytes() counts its capacity
                leaf_mark_.resize(leaves_.capacity(), 0);
                return true;
            }
            return false;
        };
        if (try_grow(limit_)) return;
        if (gc_allowed_) {
            collect(true);
            // When the next collection comes: the store doubles at each collection up to the soft
            // limit (the early ones are cheap, and memory stays near what the run keeps, as with
            // Golly's doubling hash table); past it, it doubles only when a collection freed less
            // than half of it (the run's working set needs the room).
            const auto kept = static_cast<std::int64_t>(node_count_ * sizeof(Node) + leaf_count_ * sizeof(Leaf));
            const std::int64_t store = static_cast<std::int64_t>(nodes_.bytes() + leaves_.bytes());
            std::int64_t next = limit_ < soft_limit_ ? std::min(2 * limit_, soft_limit_) : limit_;
            if (2 * kept > store) next = std::max(next, 2 * limit_);
            limit_ = std::min(next, budget_);
            if (free_nodes() >= nodes && free_leaves() >= leaves && !nearly_full()) return;
            if (try_grow(limit_)) return;
            // Nothing more to grow into: drop the memoised results too, keep only what the pattern
            // and the computation in progress need.
            collect(false);
            if (free_nodes() >= nodes && free_leaves() >= leaves && !nearly_full()) return;
        }
        if (try_grow(budget_)) return;
        throw RuntimeError("cpu:hashlife: the pattern needs more than the memory budget of " +
                           std::to_string(budget_ >> 20) + " MiB (" + std::to_string(node_count_) + " nodes, " +
                           std::to_string(leaf_count_) + " leaves in use)");
    }

    // Under 1/16 of the store free after a collection: collections would follow each other
    // faster than they pay.
    bool nearly_full() const {
        return node_count_ * 16 > nodes_.capacity() * 15 || leaf_count_ * 16 > leaves_.capacity() * 15;
    }

    // Marks square r (unless marked) and stacks what it keeps alive: its children, and with
    // keep_results its results. Marks are shared by the collector's team (see collect).
    void mark_one(Ref r, std::vector<Ref>& todo, bool keep_results) {
        Node& n = nodes_[r];
        if (ld(n.mark)) return;
        st(n.mark, std::uint8_t{1});
        if (n.level == kLeafLevel + 1) {
            for (Ref k : n.kid) st(leaf_mark_[k], std::uint8_t{1});
        } else {
            for (Ref k : n.kid) todo.push_back(k);
        }
        if (keep_results) {
            if (n.res) todo.push_back(n.res);
            if (n.tag == j_ + 1 && n.res_slow) todo.push_back(n.res_slow);
        }
    }
    // Depth first from `todo`, but a square taken off the stack waits in a window of kMarkAhead
    // squares, its line prefetched, before it is read: one dependent cache miss after another
    // (before 2026-11-28) took 12% longer on a caterpillar-class run. Squares are stacked unread
    // (a marked one is skipped when it leaves the window).
    static constexpr std::size_t kMarkAhead = 16;
    void mark_from(std::vector<Ref>& todo, bool keep_results) {
        Ref window[kMarkAhead];
        std::size_t in_window = 0, next = 0;
        for (;;) {
            while (in_window < kMarkAhead && !todo.empty()) {
                const Ref r = todo.back();
                todo.pop_back();
                __builtin_prefetch(&nodes_[r]);
                window[(next + in_window++) % kMarkAhead] = r;
            }
            if (in_window == 0) return;
            const Ref r = window[next];
            next = (next + 1) % kMarkAhead;
            --in_window;
            mark_one(r, todo, keep_results);
        }
    }

    // Mark and sweep. Roots: the pattern, the empty squares, the computation in progress
    // (protect_) and, with keep_results, every result reachable from them (what the next steps of
    // a run reuse). Freed slots go on free lists; indices of live squares never change.
    void collect(bool keep_results) {
        ++collections_;
        if (par_) ++parallel_collections_;
        std::vector<Ref> todo;
        todo.reserve(4096);
        auto push = [&](Ref r) {
            if (!nodes_[r].mark) todo.push_back(r);
        };
        push(root_);
        if (saved_root_) push(saved_root_);  // a watched step may still be undone
        if (piece_root_) push(piece_root_);  // and the piece of it that is being checked
        for (int l = kLeafLevel + 1; l <= kMaxLevel; ++l) push(empty_[l]);
        for (Ref r : protect_) push(r);
        // The evaluation in progress: the squares queued and those of the chunks being worked on,
        // with their results (read by the phases that follow).
        std::vector<Ref> with_results;
        for (const auto& w : workers_)
            for (int l = kMinRoot; l <= kMaxLevel; ++l) {
                for (Ref r : w->frames[l].todo) push(r);
                for (Ref r : w->frames[l].later) push(r);
                for (Ref r : w->frames[l].rec)
                    if (r) {
                        push(r);
                        with_results.push_back(r);
                    }
                for (Ref r : w->scratch[l])
                    if (r) push(r);
            }
        for (Ref r : with_results) {
            const Node& n = nodes_[r];
            if (n.res) push(n.res);
            if (n.tag == j_ + 1 && n.res_slow) push(n.res_slow);
        }
        leaf_mark_[empty_[kLeafLevel]] = 1;
        const std::size_t team = gc_team(kMinCollectTeam);
        if (team == 1) {
            mark_from(todo, keep_results);
        } else {
            // Breadth first until the frontier can be shared, then each thread marks depth first
            // from slices of it, taken in turn until none is left. Marks are stored without a
            // claim: two threads that reach one square at once both walk below it, which costs
            // time, not correctness. (Until 2026-11-29 each thread had every team-th square of the
            // frontier: one whose squares led to more, or whose CPU was slower, kept the other
            // waiting.)
            std::size_t head = 0;
            while (head < todo.size() && todo.size() - head < 256 * team) mark_one(todo[head++], todo, keep_results);
            constexpr std::size_t kSlice = 4;
            std::atomic<std::size_t> next{head};
            run_parts(team, team, [&](std::size_t) {
                std::vector<Ref> mine;
                for (std::size_t lo; (lo = next.fetch_add(kSlice, std::memory_order_relaxed)) < todo.size();) {
                    mine.assign(todo.begin() + static_cast<std::ptrdiff_t>(lo),
                                todo.begin() + static_cast<std::ptrdiff_t>(std::min(todo.size(), lo + kSlice)));
                    mark_from(mine, keep_results);
                }
            });
        }
        // Results that point at squares about to be freed are forgotten (the result squares'
        // lines prefetched kMarkAhead squares ahead; the nodes themselves are read in order).
        run_ranges(node_top_, team, [&](std::size_t, std::size_t lo, std::size_t hi) {
            for (std::size_t i = lo; i < hi; ++i) {
                if (i + kMarkAhead < hi) {
                    const Node& a = nodes_[i + kMarkAhead];
                    if (a.mark) {
                        if (a.res) __builtin_prefetch(&nodes_[a.res]);
                        if (a.tag) __builtin_prefetch(&nodes_[a.res_slow]);
                    }
                }
                Node& n = nodes_[i];
                if (!n.level || !n.mark) continue;
                if (n.res && !nodes_[n.res].mark) n.res = 0;
                if (n.tag && !nodes_[n.res_slow].mark) n.tag = 0, n.res_slow = 0;
            }
        });
        // The sweeps: each range's free squares chained in ascending order, the chains joined in
        // the order of the ranges (the free lists come out as the serial sweep made them).
        struct Chain {
            Ref head = 0, tail = 0;
            std::size_t free = 0, live = 0;
        };
        const std::size_t parts = ranges(team);
        std::vector<Chain> chains(parts);
        // Each range is read in order: its free squares chained in ascending order (each appended),
        // its kept ones put back in the table in the same order, so that of two squares hashing to
        // one slot the older keeps it. The older squares are the more looked up: put back newest
        // first, they were the ones displaced from the slot the lookups prefetch, and one thread ran
        // Golly's caterpillar.mc.gz 9% slower. The tables are refilled here, not rebuilt after the
        // sweeps, so the arrays are read once (collections of caterpillar.mc.gz on two threads:
        // 0.28-0.35 s, 0.35-0.43 s before).
        auto sweep = [&](std::size_t top, Table& t, std::size_t slots, auto keep, auto link) {
            t.reset(slots);
            run_ranges(top, team, [&](std::size_t p, std::size_t lo, std::size_t hi) {
                Chain c;
                Filler fill(t, slots, team > 1);
                for (std::size_t i = lo; i < hi; ++i) {
                    if (keep(i, fill)) {
                        ++c.live;
                        continue;
                    }
                    if (c.tail) link(c.tail, static_cast<Ref>(i));
                    else c.head = static_cast<Ref>(i);
                    c.tail = static_cast<Ref>(i);
                    ++c.free;
                }
                fill.finish();
                chains[p] = c;
            });
        };
        // The chains joined, the last first: link(tail, next) points a chain's tail at the list after it.
        auto join = [&](Ref& list, std::size_t& free_count, std::size_t& live_count, auto link) {
            list = 0;
            free_count = live_count = 0;
            for (std::size_t p = parts; p-- > 0;) {
                const Chain& c = chains[p];
                live_count += c.live;
                if (!c.head) continue;
                link(c.tail, list);
                list = c.head;
                free_count += c.free;
            }
        };
        const auto link_node = [&](Ref tail, Ref next) { nodes_[tail].kid[0] = next; };
        sweep(
            node_top_, node_table_, node_slots_,
            [&](std::size_t i, Filler& fill) {
                Node& n = nodes_[i];
                if (n.level && n.mark) {
                    n.mark = 0;
                    const std::uint64_t h = node_hash_of(n);
                    fill.add(h, node_tags_.entry(h, static_cast<Ref>(i)));
                    return true;
                }
                n = Node{};
                return false;
            },
            link_node);
        join(node_free_, node_free_count_, node_count_, link_node);
        const auto link_leaf = [&](Ref tail, Ref next) { std::memcpy(leaves_[tail].row, &next, sizeof(Ref)); };
        sweep(
            leaf_top_, leaf_table_, leaf_slots_,
            [&](std::size_t i, Filler& fill) {
                if (leaf_mark_[i]) {
                    leaf_mark_[i] = 0;
                    const std::uint64_t h = leaf_hash(leaves_[i]);
                    fill.add(h, leaf_tags_.entry(h, static_cast<Ref>(i)));
                    return true;
                }
                leaves_[i] = Leaf{};
                return false;
            },
            link_leaf);
        join(leaf_free_, leaf_free_count_, leaf_count_, link_leaf);
    }

    // ---- stepping ----

    static Cell origin(int level) {
        const std::int64_t half = std::int64_t{1} << (level - 1);
        return Cell{-half, 1 - half};
    }

    bool interrupted() const {
        if (interrupt_ && interrupt_->load(std::memory_order_relaxed)) return true;
        return deadline_ != Clock::time_point{} && Clock::now() >= deadline_;
    }

public:
    using Clock = std::chrono::steady_clock;
    void set_deadline(Clock::time_point t) { deadline_ = t; }
    ExportCost export_cost() const { return {bytes(), export_bound()}; }

    // Tests: each square is stored once and found by its contents; results name live squares.
    std::string check() const {
        std::size_t nodes = 0, leaves = 0;
        for (std::size_t i = 1; i < node_top_; ++i) {
            const Node& n = nodes_[i];
            if (!n.level) continue;
            ++nodes;
            const Ref found = probe_node(node_hash_of(n), n.level, n.kid[0], n.kid[1], n.kid[2], n.kid[3]).found;
            if (found != i)
                return "node " + std::to_string(i) + " (level " + std::to_string(n.level) + ") found as " +
                       std::to_string(found);
            if (n.res && !nodes_[n.res].level) return "node " + std::to_string(i) + ": result is a free slot";
            if (n.tag && !nodes_[n.res_slow].level) return "node " + std::to_string(i) + ": slow result is a free slot";
            if (n.queued) return "node " + std::to_string(i) + " still marked queued";
        }
        std::vector<bool> is_free(leaf_top_, false);
        for (Ref f = leaf_free_; f; std::memcpy(&f, leaves_[f].row, sizeof(Ref))) is_free[f] = true;
        for (std::size_t i = 1; i < leaf_top_; ++i) {
            if (is_free[i]) continue;
            ++leaves;
            const Ref found = probe_leaf(leaf_hash(leaves_[i]), leaves_[i]).found;
            if (found != i) return "leaf " + std::to_string(i) + " found as " + std::to_string(found);
        }
        if (nodes != node_count_ || leaves != leaf_count_)
            return "counts: " + std::to_string(nodes) + " nodes, " + std::to_string(leaves) + " leaves in the arrays, " +
                   std::to_string(node_count_) + " and " + std::to_string(leaf_count_) + " counted";
        return {};
    }
    void replace(const std::vector<Cell>& cells) {
        root_ = empty_[kMinRoot];
        level_ = kMinRoot;
        changed();
        set_cells(cells);
    }

private:

    struct Saved {
        Ref root;
        int level;
        std::int64_t generation;
    };

    // The live cells, grown by one cell a generation, stay on the plane (|x|, |y| < 2^60).
    bool light_cone_fits(std::int64_t generations) const {
        // The root square bounds the cells; only when it is not enough is the exact box needed.
        const Cell o = origin(level_);
        const std::int64_t side_1 = static_cast<std::int64_t>((std::uint64_t{1} << level_) - 1);
        if (level_ < 62 && hashlife_run_fits(Box{o.x, o.y, side_1 + 1, side_1 + 1}, generations)) return true;
        return hashlife_run_fits(live_box(), generations);
    }

    // After a piece of a watched step: cells off the plane undo the step and refuse it, naming the
    // first generation off the plane (RuntimeError: the count is valid, the plane is this engine's
    // limit).
    void check_on_plane(const Saved& start, const Saved& piece) {
        const Box b = live_box();
        if (b.empty() || hashlife_run_fits(b, 0)) return;
        const std::int64_t asked_end = generation_;
        const std::int64_t off = first_off_plane(piece);
        const Box at_off = live_box();
        root_ = start.root;
        level_ = start.level;
        generation_ = start.generation;
        changed();
        throw RuntimeError("cpu:hashlife: the pattern would leave the plane this engine runs (|x|, |y| < 2^60) at "
                           "generation " + std::to_string(off) + " (bounding box then x=" + std::to_string(at_off.x) +
                           " y=" + std::to_string(at_off.y) + " width=" + std::to_string(at_off.width) +
                           " height=" + std::to_string(at_off.height) + "); the step to generation " +
                           std::to_string(asked_end) + " is refused and the cells are as before it");
    }

    // The first generation after `piece` (a state on the plane) whose cells are off it, found bit by
    // bit from the top: each trial steps at most 2^59 generations from a state on the plane, which a
    // level-63 root holds exactly. Leaves the engine at that generation.
    std::int64_t first_off_plane(const Saved& piece) {
        Saved on = piece;
        const auto back_to_on = [&] {
            root_ = on.root, level_ = on.level, generation_ = on.generation;
            piece_root_ = on.root;
            changed();
        };
        for (int j = kMaxStepLog - 1; j >= 0; --j) {
            back_to_on();
            step_pow2(j);
            const Box b = live_box();
            if (b.empty() || hashlife_run_fits(b, 0)) on = Saved{root_, level_, generation_};
        }
        back_to_on();
        step_pow2(0);
        return generation_;
    }

    void step_pow2(int j) {
        j_ = j;
        last_j_ = j;
        // The cells must lie in the centre quarter of a root of level >= j + 3: its centre half,
        // 2^j generations on, is then the whole pattern.
        while (level_ < j + 2 || !border_empty(root_, level_)) grow_root();
        grow_root();
        protect_.clear();
        tasks_ok_ = use_tasks();
        const Ref r = advance(*workers_[0], root_, level_);
        root_ = r;
        --level_;
        generation_ += std::int64_t{1} << j;
        changed();
        shrink();
    }

    void grow_root() {
        if (level_ >= kMaxLevel) throw RuntimeError("cpu:hashlife: internal error: the root outgrew level 63");
        root_ = expand(root_, level_);
        ++level_;
    }

    // The square of level + 1 with `r` at its centre.
    Ref expand(Ref r, int level) {
        const Ref e = empty_[level - 1];
        if (level == kLeafLevel) {
            // A leaf: its quarters become the inner corners of four leaves.
            make_room_for(1, 4);
            GcPause pause(*this);
            const Leaf l = leaves_[r];
            Leaf q[4]{};
            for (int y = 0; y < 8; ++y) {
                q[0].row[8 + y] = static_cast<std::uint16_t>((l.row[y] & 0xff) << 8);
                q[1].row[8 + y] = static_cast<std::uint16_t>(l.row[y] >> 8);
                q[2].row[y] = static_cast<std::uint16_t>((l.row[8 + y] & 0xff) << 8);
                q[3].row[y] = static_cast<std::uint16_t>(l.row[8 + y] >> 8);
            }
            const Ref a = leaf(q[0]), b = leaf(q[1]), c = leaf(q[2]), d = leaf(q[3]);
            return node(kLeafLevel + 1, a, b, c, d);
        }
        const Node n = nodes_[r];
        const std::size_t sp = protect_.size();
        const Ref a = node(level, e, e, e, n.kid[0]);
        protect_.push_back(a);
        const Ref b = node(level, e, e, n.kid[1], e);
        protect_.push_back(b);
        const Ref c = node(level, e, n.kid[2], e, e);
        protect_.push_back(c);
        const Ref d = node(level, n.kid[3], e, e, e);
        protect_.push_back(d);
        const Ref out = node(level + 1, a, b, c, d);
        protect_.resize(sp);
        return out;
    }

    // Live cells only in the centre half of a square of level >= 6 (its 12 outer grandchildren empty).
    bool border_empty(Ref r, int level) const {
        const Node& n = nodes_[r];
        const Ref e = empty_[level - 2];
        static constexpr int outer[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};
        for (int q = 0; q < 4; ++q) {
            const Node& k = nodes_[n.kid[q]];
            for (int g : outer[q])
                if (k.kid[g] != e) return false;
        }
        return true;
    }

    Ref centre(Ref r, int level) {
        const Node n = nodes_[r];
        return node(level - 1, nodes_[n.kid[0]].kid[3], nodes_[n.kid[1]].kid[2], nodes_[n.kid[2]].kid[1],
                    nodes_[n.kid[3]].kid[0]);
    }

    void shrink() {
        while (level_ > kMinRoot && border_empty(root_, level_)) {
            root_ = centre(root_, level_);
            --level_;
        }
    }

    // ---- evaluation ----
    //
    // Results are computed breadth first, a chunk of up to kChunk squares of one level at a time:
    // every lookup a phase needs (the squares between the quarters, the squares of their results,
    // the result itself) is known before any is made, so they go through the table as a pipeline
    // of prefetches whose cache misses overlap, instead of one dependent miss after another as in a
    // depth-first recursion. A phase's sub-squares of the level below are gathered (each once) and
    // evaluated the same way before the next phase reads their results. Memory per level stays a
    // few chunks' worth.

    static constexpr std::size_t kChunk = 256;

    bool full_step(int level) const { return level - 2 <= j_; }

    // The result of a square of level >= 6 for the current step, or 0 when not known yet.
    Ref result_of(Ref r, int level) const {
        if (r == empty_[level]) return empty_[level - 1];
        const Node& n = nodes_[r];
        if (full_step(level)) return ld(n.res);
        return ld(n.tag) == j_ + 1 ? ld(n.res_slow) : 0;
    }

    void set_result(Ref r, int level, Ref result) {
        Node& n = nodes_[r];
        // Two threads may store the same result (both equal); the tag is stored last.
        if (full_step(level)) {
            st(n.res, result);
        } else {
            st(n.res_slow, result);
            st(n.tag, static_cast<std::uint8_t>(j_ + 1));
        }
    }

    // Adds `r` to the squares of `level` to evaluate, unless it has a result or is queued already
    // (Node::queued marks queued squares until they are evaluated).
    // In a parallel step a square may be queued by several workers: each evaluates what it queued
    // (a result computed twice is the same square), and a mark overwritten by another worker only
    // costs a duplicate in a queue. A square another worker has queued is put off (Frame::later):
    // evaluated here only if its result is still missing once this worker's own queue is done
    // (tasks working on neighbouring squares share most of the squares below them).
    void enqueue(Worker& w, Ref r, int level) {
        if (r == empty_[level]) return;
        Node& n = nodes_[r];
        const std::uint32_t q = ld(n.queued);
        if (q == w.id) return;
        if (full_step(level) ? ld(n.res) != 0 : ld(n.tag) == j_ + 1) return;
        if (q != 0 && par_) {
            w.frames[level].later.push_back(r);
            return;
        }
        st(n.queued, w.id);
        w.frames[level].todo.push_back(r);
    }

    // Finds or makes the squares keys[4i..4i+3] of `level` into out[i], i < n, through pipeline().
    // A square of four empty quarters is the empty square, known without the table, and takes no
    // place in the pipeline: 56% of the lookups of Caterloopillar_5c21.rle (49.8 of 88.6 million
    // to 16384 generations) were of it. Their own cost was small (their lines stay in the caches);
    // their places were what cost: skipped in place, one thread gained nothing, taken out of the
    // pipeline 1.06-1.22x on the caterloopillars (docs/hashlife.md, "Prefetch distance").
    // `out` must be reachable by the collector (it is a frame's rec); unused entries are 0.
    void lookup_many(int level, Frame& f, Ref* out, std::size_t n) {
        f.hashes.resize(n);
        f.missed.clear();  // (a lookup_many that threw may have left some)
        const Ref* k = f.keys.data();
        const Ref e = empty_[level - 1];
        const std::size_t live = drop_empty(f, out, n, empty_[level], [&](std::size_t i) {
            return (k[4 * i] == e) & (k[4 * i + 1] == e) & (k[4 * i + 2] == e) & (k[4 * i + 3] == e);
        });
        pipeline(
            f, live, node_table_, node_slots_, node_tags_, nodes_,
            [&](std::size_t m) { return node_hash(level, k[4 * m], k[4 * m + 1], k[4 * m + 2], k[4 * m + 3]); },
            [&](std::size_t m) {
                if (!par_) {
                    out[m] = node_hashed(f.hashes[m], level, k[4 * m], k[4 * m + 1], k[4 * m + 2], k[4 * m + 3]);
                } else {
                    const Probe p = probe_node(f.hashes[m], level, k[4 * m], k[4 * m + 1], k[4 * m + 2], k[4 * m + 3]);
                    if (!(out[m] = p.found)) {
                        f.missed.push_back(m);
                        prefetch_for_write(&node_table_[p.slot]);  // where the swap will go
                    }
                }
            });
        insert_missed(f, [&](std::size_t m) {
            out[m] = node_par(f.hashes[m], level, k[4 * m], k[4 * m + 1], k[4 * m + 2], k[4 * m + 3]);
        });
    }

    // Sets out[i] to `empty` for each lookup i < n of the empty square (is_empty(i)) and lists the
    // others, in order, in f.live; returns how many those are. Without branches: the empty squares
    // come in no order.
    template <class IsEmpty>
    static std::size_t drop_empty(Frame& f, Ref* out, std::size_t n, Ref empty, IsEmpty is_empty) {
        f.live.resize(n);
        std::size_t live = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const bool e = is_empty(i);
            out[i] = e ? empty : 0;
            f.live[live] = static_cast<std::uint32_t>(i);
            live += !e;
        }
        return live;
    }

    // The pipeline of lookup_many and leaf_many over the lookups f.live[0 .. live): lookup m's hash
    // (hash_of(m), kept in f.hashes[m]) and its table slot fetched d lookups ahead, the slot's
    // square (when its tag fits) d/2 ahead, then find(m). d is kAhead, or the number of lookups
    // when fewer, so that a short list is not a long loop of empty iterations.
    template <class Items, class HashOf, class Find>
    void pipeline(Frame& f, std::size_t live, const Table& table, std::size_t slots, const TagBits& tags,
                  const Items& items, HashOf hash_of, Find find) {
        const std::uint32_t* l = f.live.data();
        const std::size_t d = std::min(kAhead, live), h = d / 2;
        for (std::size_t i = 0; i < live + d; ++i) {
            if (i < live) {
                const std::size_t m = l[i];
                f.hashes[m] = hash_of(m);
                __builtin_prefetch(&table[f.hashes[m] & (slots - 1)]);
            }
            if (i >= h && i - h < live) {
                const std::uint64_t hash = f.hashes[l[i - h]];
                if (const Ref x = ld(table[hash & (slots - 1)]); x && tags.fits(x, hash))
                    __builtin_prefetch(&items[tags.index(x)]);
            }
            if (i >= d) find(l[i - d]);
        }
    }

    // A parallel step's lookups only find in the pipeline; the squares not found are made
    // afterwards, their slots fetched for writing when the miss was seen. A new square is published
    // with a locked compare-exchange, which waits for its slot's line: fetched for reading only, the
    // line had to be taken over first (on 2 threads the compare-exchange held a fifth of
    // lookup_many's samples on demonoid, a twentieth after). A square found missing may have been
    // made meanwhile, by another worker or an earlier miss here: node_par finds it then.
    template <class Make>
    static void insert_missed(Frame& f, Make make) {
        for (std::size_t m : f.missed) make(m);
        f.missed.clear();
    }

    // Evaluates frames_[level].todo (squares of level >= 6 without a result): afterwards each has one.
    void evaluate(Worker& w, int level) {
        if (!par_) {
            // The first queue long enough to split opens the threads (evaluate_parallel): a step
            // with none stays on this thread, with no thread team to start or wait for.
            if (tasks_ok_ && w.frames[level].todo.size() >= 2 * task_squares_) evaluate_parallel(w, level);
            else evaluate_here(w, level);
            return;
        }
        Frame& f = w.frames[level];
        for (;;) {
            if (should_split(f.todo.size())) evaluate_pieces(w, level);
            else evaluate_here(w, level);
            if (f.later.empty()) return;
            // What other workers had queued and have not finished: evaluated here too.
            for (Ref r : f.later)
                if (!result_of(r, level) && ld(nodes_[r].queued) != w.id) {
                    st(nodes_[r].queued, w.id);
                    f.todo.push_back(r);
                }
            f.later.clear();
            if (f.todo.empty()) return;
        }
    }

    // A queue is split when a thread has nothing to run (idlers_ counts threads that found no piece
    // they may take, even with pieces pooled: see run_pooled), or when long; on two threads, long
    // and no piece waiting in the pool, the other thread's next work. Cutting every long queue cut
    // pieces again at each level, down to 64-127 squares whose lookup pipelines ran short: 257k
    // chunks on Golly's caterpillar to 1024 on two threads against 74k on one (78k since), and
    // about a tenth more CPU time than one thread, as much with both threads on one CPU. On the
    // lent Xeon the rule ran that job as fast with 4 threads and 16% slower with 16, and its general
    // form (pooled < threads_ - 1) 0.98x, 1.00x and 0.94x on 4, 8 and 16, so it stays with two
    // (docs/hashlife.md, "Threads").
    bool should_split(std::size_t n) const {
        if (idle_squares_ && n >= 2 * idle_squares_ && idlers_.load(std::memory_order_relaxed) > 0) return true;
        if (n < 2 * task_squares_) return false;
        return threads_ != 2 || pooled_.load(std::memory_order_relaxed) == 0;
    }

    void evaluate_here(Worker& w, int level) {
        Frame& f = w.frames[level];
        for (std::size_t c0 = 0; c0 < f.todo.size(); c0 += kChunk) {
            if (interrupted()) throw Interrupted{};
            if (par_) safe_point();
            const std::size_t n = std::min(kChunk, f.todo.size() - c0);
            const Ref* sq = f.todo.data() + c0;
            if (level == kMinRoot) evaluate_leaves(w, f, sq, n);
            else if (full_step(level)) evaluate_full(w, level, f, sq, n);
            else evaluate_slow(w, level, f, sq, n);
            for (std::size_t i = 0; i < n; ++i) unqueue(w, sq[i]);
        }
        f.todo.clear();
    }

    // Reads the results of rec[i * 13 + from .. + count] (squares of `level`) into `out`.
    void results_of(int level, const Frame& f, std::size_t n, int from, int count, Ref* out) {
        for (std::size_t i = 0; i < n; ++i)
            for (int k = 0; k < count; ++k) __builtin_prefetch(&nodes_[f.rec[i * 13 + from + k]]);
        for (std::size_t i = 0; i < n; ++i)
            for (int k = 0; k < count; ++k) out[i * count + k] = result_of(f.rec[i * 13 + from + k], level);
    }

    // Full step (2^(level-2)): the nine overlapping squares of level - 1 advanced 2^(level-3), then
    // the four squares their results make advanced 2^(level-3) again. rec per square: the five
    // squares between the quarters, the four quarters, then the four second-stage squares.
    void evaluate_full(Worker& w, int level, Frame& f, const Ref* sq, std::size_t n) {
        const int l1 = level - 1;
        f.rec.assign(n * 13, 0);
        f.keys.resize(n * 5 * 4);
        for (std::size_t i = 0; i < n; ++i)
            for (Ref k : nodes_[sq[i]].kid) __builtin_prefetch(&nodes_[k]);
        for (std::size_t i = 0; i < n; ++i) {
            const Node& x = nodes_[sq[i]];
            const Node &A = nodes_[x.kid[0]], &B = nodes_[x.kid[1]], &C = nodes_[x.kid[2]], &D = nodes_[x.kid[3]];
            const Ref between[5][4] = {{A.kid[1], B.kid[0], A.kid[3], B.kid[2]},
                                       {A.kid[2], A.kid[3], C.kid[0], C.kid[1]},
                                       {A.kid[3], B.kid[2], C.kid[1], D.kid[0]},
                                       {B.kid[2], B.kid[3], D.kid[0], D.kid[1]},
                                       {C.kid[1], D.kid[0], C.kid[3], D.kid[2]}};
            std::memcpy(&f.keys[i * 20], between, sizeof between);
            for (int q = 0; q < 4; ++q) f.rec[i * 13 + 5 + q] = x.kid[q];
        }
        {
            // The five between-squares of each square land in rec[i*13 .. +4].
            std::vector<Ref>& t = w.scratch[level];
            t.assign(n * 5, 0);
            lookup_many(l1, f, t.data(), n * 5);
            for (std::size_t i = 0; i < n; ++i)
                for (int k = 0; k < 5; ++k) f.rec[i * 13 + k] = t[i * 5 + k];
            t.clear();
        }
        for (std::size_t i = 0; i < n; ++i)
            for (int k = 0; k < 9; ++k) enqueue(w, f.rec[i * 13 + k], l1);
        evaluate(w, l1);
        // Stage two: the 3x3 results in order (r00 r01 r02 / r10 r11 r12 / r20 r21 r22).
        std::vector<Ref>& r9 = w.scratch[level];
        r9.resize(n * 9);
        {
            Ref* tmp = r9.data();
            std::vector<Ref> raw(n * 9);
            results_of(l1, f, n, 0, 9, raw.data());
            for (std::size_t i = 0; i < n; ++i) {
                const Ref* q = &raw[i * 9];  // t01 t10 t11 t12 t21, kid0 kid1 kid2 kid3
                Ref* o = tmp + i * 9;
                o[0] = q[5], o[1] = q[0], o[2] = q[6], o[3] = q[1], o[4] = q[2], o[5] = q[3], o[6] = q[7], o[7] = q[4],
                o[8] = q[8];
            }
        }
        f.keys.resize(n * 4 * 4);
        for (std::size_t i = 0; i < n; ++i) {
            const Ref* r = &r9[i * 9];
            const Ref quads[4][4] = {{r[0], r[1], r[3], r[4]}, {r[1], r[2], r[4], r[5]}, {r[3], r[4], r[6], r[7]},
                                     {r[4], r[5], r[7], r[8]}};
            std::memcpy(&f.keys[i * 16], quads, sizeof quads);
        }
        r9.clear();
        // The results just read are reachable only through the squares in rec (kept by the
        // collector with their results) until the second-stage squares exist.
        {
            std::vector<Ref>& t = w.scratch[level];
            t.assign(n * 4, 0);
            lookup_many(l1, f, t.data(), n * 4);
            for (std::size_t i = 0; i < n; ++i)
                for (int k = 0; k < 4; ++k) f.rec[i * 13 + 9 + k] = t[i * 4 + k];
            t.clear();
        }
        for (std::size_t i = 0; i < n; ++i)
            for (int k = 9; k < 13; ++k) enqueue(w, f.rec[i * 13 + k], l1);
        evaluate(w, l1);
        finish(w, level, f, sq, n);
    }

    // Slow step (2^j_ < 2^(level-2)): the nine squares of level - 2 around the centre, not advanced,
    // make four squares of level - 1 that are advanced 2^j_. rec per square: the four at 9..12.
    void evaluate_slow(Worker& w, int level, Frame& f, const Ref* sq, std::size_t n) {
        f.rec.assign(n * 13, 0);
        f.keys.resize(n * 9 * 4);
        for (std::size_t i = 0; i < n; ++i) {
            Ref E[8][8];  // the level - 3 squares of the square
            const Node& x = nodes_[sq[i]];
            for (int q = 0; q < 4; ++q) {
                const Node& k = nodes_[x.kid[q]];
                for (int g = 0; g < 4; ++g) {
                    const Node& gg = nodes_[k.kid[g]];
                    for (int e = 0; e < 4; ++e)
                        E[(q >> 1) * 4 + (g >> 1) * 2 + (e >> 1)][(q & 1) * 4 + (g & 1) * 2 + (e & 1)] = gg.kid[e];
                }
            }
            Ref* key = &f.keys[i * 36];
            for (int a = 0; a < 3; ++a)
                for (int b = 0; b < 3; ++b) {
                    Ref* k4 = key + (a * 3 + b) * 4;
                    k4[0] = E[2 * a + 1][2 * b + 1], k4[1] = E[2 * a + 1][2 * b + 2];
                    k4[2] = E[2 * a + 2][2 * b + 1], k4[3] = E[2 * a + 2][2 * b + 2];
                }
        }
        // The nine centres go in rec[i*13 .. +8] (kept there until the four squares exist).
        {
            std::vector<Ref>& t = w.scratch[level];
            t.assign(n * 9, 0);
            lookup_many(level - 2, f, t.data(), n * 9);
            for (std::size_t i = 0; i < n; ++i)
                for (int k = 0; k < 9; ++k) f.rec[i * 13 + k] = t[i * 9 + k];
            t.clear();
        }
        f.keys.resize(n * 16);
        for (std::size_t i = 0; i < n; ++i) {
            const Ref* c = &f.rec[i * 13];
            const Ref quads[4][4] = {{c[0], c[1], c[3], c[4]}, {c[1], c[2], c[4], c[5]}, {c[3], c[4], c[6], c[7]},
                                     {c[4], c[5], c[7], c[8]}};
            std::memcpy(&f.keys[i * 16], quads, sizeof quads);
        }
        {
            std::vector<Ref>& t = w.scratch[level];
            t.assign(n * 4, 0);
            lookup_many(level - 1, f, t.data(), n * 4);
            for (std::size_t i = 0; i < n; ++i)
                for (int k = 0; k < 4; ++k) f.rec[i * 13 + 9 + k] = t[i * 4 + k];
            t.clear();
        }
        for (std::size_t i = 0; i < n; ++i)
            for (int k = 9; k < 13; ++k) enqueue(w, f.rec[i * 13 + k], level - 1);
        evaluate(w, level - 1);
        finish(w, level, f, sq, n);
    }

    // Last phase of both: each square's result is the square of the four results in rec[9..12].
    void finish(Worker& w, int level, Frame& f, const Ref* sq, std::size_t n) {
        std::vector<Ref>& s4 = w.scratch[level];
        s4.resize(n * 4);
        results_of(level - 1, f, n, 9, 4, s4.data());
        f.keys.assign(s4.begin(), s4.end());
        s4.assign(n, 0);
        // The outputs are kept in rec[0..] of their square until stored as its result.
        lookup_many(level - 1, f, s4.data(), n);
        for (std::size_t i = 0; i < n; ++i) set_result(sq[i], level, s4[i]);
        s4.clear();
        f.rec.clear();
    }

    // Level 6: the 64x64 block of each square's 16 leaves through the kernel; its centre 32x32 is
    // the result (four leaves and their level-5 node). A chunk's squares are run first, then their
    // 4n result leaves and n nodes go through the tables as pipelines of prefetches (lookup_many):
    // one square at a time, each node's lookup waited for its two misses (11.7% of the samples of
    // a caterpillar-class run, centipede.rle, in node() alone).
    void evaluate_leaves(Worker& w, Frame& f, const Ref* sq, std::size_t n) {
        const int gens = full_step(kMinRoot) ? 16 : 1 << j_;
        std::vector<Leaf>& made = w.made;
        made.resize(4 * n);
        for (std::size_t i = 0; i < n && i < 2; ++i)
            for (Ref k : nodes_[sq[i]].kid) __builtin_prefetch(&nodes_[k]);
        for (std::size_t i = 0; i < n; ++i) {
            if (i + 2 < n)
                for (Ref k : nodes_[sq[i + 2]].kid) __builtin_prefetch(&nodes_[k]);
            if (i + 1 < n)
                for (Ref k : nodes_[sq[i + 1]].kid)
                    for (Ref g : nodes_[k].kid) __builtin_prefetch(&leaves_[g]);
            run_leaves(sq[i], gens, &made[4 * i]);
        }
        // Room first: the new leaves are nobody's children until their nodes exist, the nodes
        // nobody's until they are results. With threads, the whole chunk's room is reserved at
        // once too (reserve() takes a reservation whole). Reserved 16 squares at a time before,
        // the lookups ran as pipelines of 16 nodes and 64 leaves, and one thread on the task path
        // ran caterpillar.mc.gz 0.94x as fast as the plain path (1.01x since).
        if (par_) reserve(w, n, 4 * n);
        else make_room_for(n, 4 * n);
        GcPause pause(*this, !par_);
        std::vector<Ref>& out = w.scratch[kMinRoot];
        f.keys.resize(4 * n);
        leaf_many(made.data(), f, f.keys.data(), 4 * n);
        out.assign(n, 0);
        lookup_many(kLeafLevel + 1, f, out.data(), n);
        for (std::size_t i = 0; i < n; ++i) set_result(sq[i], kMinRoot, out[i]);
        out.clear();
    }

    // Finds or makes the leaves l[0..n) into out[0..n), as lookup_many does the nodes.
    void leaf_many(const Leaf* l, Frame& f, Ref* out, std::size_t n) {
        f.hashes.resize(n);
        f.missed.clear();
        const std::size_t live = drop_empty(f, out, n, empty_[kLeafLevel], [&](std::size_t i) {
            std::uint64_t w[4];
            std::memcpy(w, &l[i], sizeof w);
            return (w[0] | w[1] | w[2] | w[3]) == 0;
        });
        pipeline(
            f, live, leaf_table_, leaf_slots_, leaf_tags_, leaves_, [&](std::size_t m) { return leaf_hash(l[m]); },
            [&](std::size_t m) {
                if (!par_) out[m] = leaf_hashed(f.hashes[m], l[m]);
                else if (const Probe p = probe_leaf(f.hashes[m], l[m]); !(out[m] = p.found)) {
                    f.missed.push_back(m);
                    prefetch_for_write(&leaf_table_[p.slot]);
                }
            });
        insert_missed(f, [&](std::size_t m) { out[m] = leaf_par(f.hashes[m], l[m]); });
    }

    void unqueue(const Worker& w, Ref r) {
        Node& n = nodes_[r];
        if (ld(n.queued) == w.id) st(n.queued, std::uint32_t{0});
    }

    // The centre square of `n` (the root, or a square of a parallel step's task), 2^j_ generations
    // on, evaluated breadth first by one worker.
    Ref advance(Worker& w, Ref n, int level) {
        if (const Ref r = result_of(n, level)) return r;
        for (auto& fr : w.frames) fr.todo.clear();
        enqueue(w, n, level);
        try {
            evaluate(w, level);
        } catch (...) {
            // Abandoned mid-way: unmark what was queued, drop the frames.
            for (auto& fr : w.frames) {
                for (Ref r : fr.todo) unqueue(w, r);
                fr.todo.clear();
                fr.rec.clear();
                fr.later.clear();
            }
            for (auto& sc : w.scratch) sc.clear();
            throw;
        }
        return result_of(n, level);
    }

    // Level 6 alone: the kernel on the 16 leaves of square n; out[0..3] the four leaves of its
    // centre, gens generations on.
    void run_leaves(Ref n, int gens, Leaf* out) const {
        alignas(64) std::uint64_t rows[64];
        const Node& x = nodes_[n];
        for (int q = 0; q < 4; ++q) {
            const Node& k = nodes_[x.kid[q]];
            for (int g = 0; g < 4; ++g) {
                const Leaf& l = leaves_[k.kid[g]];
                const int R = (q >> 1) * 2 + (g >> 1), C = (q & 1) * 2 + (g & 1);
                for (int y = 0; y < 16; ++y) {
                    std::uint64_t& row = rows[R * 16 + y];
                    const std::uint64_t bits = std::uint64_t{l.row[y]} << (16 * C);
                    row = C == 0 ? bits : row | bits;
                }
            }
        }
        kernel_(rows, gens, masks_, life_);
        for (int y = 0; y < 16; ++y) {
            out[0].row[y] = static_cast<std::uint16_t>(rows[16 + y] >> 16);
            out[1].row[y] = static_cast<std::uint16_t>(rows[16 + y] >> 32);
            out[2].row[y] = static_cast<std::uint16_t>(rows[32 + y] >> 16);
            out[3].row[y] = static_cast<std::uint16_t>(rows[32 + y] >> 32);
        }
    }

    // ---- threads ----
    //
    // A parallel step evaluates breadth first as the single-threaded one does, but a level's queue of
    // at least 2 * task_squares_ squares (2 * idle_squares_ while a thread has nothing to run) is
    // split into pieces (tasks), each evaluating its piece (and everything below it) with a worker
    // of its own, splitting again where its queues grow long; the task that split runs pooled
    // pieces until its own are done. The store is shared: lookups
    // probe the tables without a lock and insert with a compare-and-swap; each worker takes free
    // indices in batches under a lock. Results are stored atomically (two workers computing the same
    // result store the same square). When a batch cannot be refilled, the worker stops the world:
    // every other worker parks at its next safe point (a refill, a chunk boundary, a task's start),
    // and the one worker grows or collects the store alone (make_room), marking every worker's
    // frames (those of waiting tasks too), so the step carries on where it was.

    bool use_tasks() const { return (threads_ > 1 || always_tasks_) && level_ >= kTaskRoot; }

    void enter() {
        std::unique_lock lk(world_m_);
        world_cv_.wait(lk, [&] { return !stopping_; });
        ++active_;
    }
    void leave() {
        std::lock_guard lk(world_m_);
        --active_;
        if (stopping_) world_cv_.notify_all();  // the worker that stopped the world counts us
    }
    void park(std::unique_lock<std::mutex>& lk) {
        if (!stopping_) return;
        ++parked_;
        world_cv_.notify_all();
        world_cv_.wait(lk, [&] { return !stopping_; });
        --parked_;
    }
    // Everything this worker holds is in its frames whenever it calls this.
    void safe_point() {
        if (stop_flag_.load(std::memory_order_relaxed)) {
            std::unique_lock lk(world_m_);
            park(lk);
        }
        if (abort_.load(std::memory_order_relaxed)) throw Abort{};
    }
    void fail(std::exception_ptr e) {
        std::lock_guard lk(world_m_);
        if (!failure_) failure_ = e;
        abort_.store(true);
    }
    // Runs fn with every other active worker parked; false (fn not run) when another worker had
    // stopped the world first: the caller tries again.
    template <class F>
    bool alone(F&& fn) {
        std::unique_lock lk(world_m_);
        if (stopping_) {
            park(lk);
            return false;
        }
        stopping_ = true;
        stop_flag_.store(true);
        world_cv_.wait(lk, [&] { return parked_ == active_ - 1; });
        try {
            fn();
        } catch (...) {
            if (!failure_) failure_ = std::current_exception();
            abort_.store(true);
            stopping_ = false;
            stop_flag_.store(false);
            world_cv_.notify_all();
            throw Abort{};
        }
        stopping_ = false;
        stop_flag_.store(false);
        world_cv_.notify_all();
        return true;
    }

    // Unused batches back to the free lists (alone, or after the parallel step).
    void return_batches() {
        for (auto& w : workers_) {
            for (Ref r : w->nodes) {
                Node& n = nodes_[r];
                n = Node{};
                n.kid[0] = node_free_;
                node_free_ = r;
                ++node_free_count_;
                --node_count_;
            }
            w->nodes.clear();
            for (Ref r : w->leaves) {
                Leaf& l = leaves_[r];
                l = Leaf{};
                std::memcpy(l.row, &leaf_free_, sizeof(Ref));
                leaf_free_ = r;
                ++leaf_free_count_;
                --leaf_count_;
            }
            w->leaves.clear();
        }
    }

    // Alone: room for a batch per worker of both kinds, and `nodes` and `leaves` more, in the
    // arrays and in the tables (which stay at most half full, as in the single-threaded path).
    void make_room_alone(std::size_t nodes = 0, std::size_t leaves = 0) {
        return_batches();
        const std::size_t want = kBatch * workers_.size();
        make_room(want + nodes, want + leaves);
        while (overfull(node_count_ + want + nodes, node_slots_)) rebuild_node_table(node_slots_ * 2);
        while (overfull(leaf_count_ + want + leaves, leaf_slots_)) rebuild_leaf_table(leaf_slots_ * 2);
    }

    // Batches of free indices for w until it holds at least `nodes` and `leaves` (taken counts as
    // used until returned), under one lock: none are taken (false) unless the arrays and the tables
    // have room for all of them. A chunk of level 6 reserves up to 16 batches of leaves, taken
    // before a batch at a time, each locked.
    bool take_all(Worker& w, std::size_t nodes, std::size_t leaves) {
        const auto batches = [](std::size_t want, std::size_t have) {
            return want > have ? (want - have + kBatch - 1) / kBatch * kBatch : 0;
        };
        const std::size_t n = batches(nodes, w.nodes.size()), l = batches(leaves, w.leaves.size());
        if (!n && !l) return true;
        std::lock_guard lk(store_m_);
        if (nodes_.capacity() - node_top_ + node_free_count_ < n || overfull(node_count_ + n, node_slots_) ||
            leaves_.capacity() - leaf_top_ + leaf_free_count_ < l || overfull(leaf_count_ + l, leaf_slots_))
            return false;
        for (std::size_t i = 0; i < n; ++i) w.nodes.push_back(pop_node());
        node_count_ += n;
        for (std::size_t i = 0; i < l; ++i) w.leaves.push_back(pop_leaf());
        leaf_count_ += l;
        return true;
    }

    // At least `nodes` and `leaves` free indices in w's batches (a safe point: the world may stop
    // here, tables rebuilt and every batch returned). Out of room, w stops the world, makes room
    // for its whole reservation besides a batch a worker, and takes it before the others resume:
    // taken a batch at a time across stops, a reservation of several batches could lose them at
    // every stop and wait for ever.
    void reserve(Worker& w, std::size_t nodes, std::size_t leaves) {
        for (;;) {
            safe_point();
            if (take_all(w, nodes, leaves)) return;
            bool done = false;
            alone([&] {
                const auto whole = [](std::size_t n) { return (n + kBatch - 1) / kBatch * kBatch; };
                make_room_alone(whole(nodes), whole(leaves));
                done = take_all(w, nodes, leaves);
                if (!done) throw RuntimeError("cpu:hashlife: internal error: no batch after making room for it");
            });
            if (done) return;
        }
    }
    // A batch of one kind (a safe point).
    void refill(Worker& w, bool leaf) { reserve(w, leaf ? 0 : w.nodes.size() + 1, leaf ? w.leaves.size() + 1 : 0); }

    Ref node_par(std::uint64_t hash, int level, Ref a, Ref b, Ref c, Ref d) {
        Worker& w = *tl_worker;
        for (;;) {
            Ref mine = 0;
            const std::size_t mask = node_slots_ - 1;
            for (std::size_t slot = hash & mask;; slot = (slot + 1) & mask) {
                Ref s = ld(node_table_[slot]);
                if (s == 0) {
                    if (!mine) {
                        if (w.nodes.empty()) break;
                        mine = w.nodes.back();
                        w.nodes.pop_back();
                        if (w.nodes.size() >= kNext) prefetch_for_write(&nodes_[w.nodes[w.nodes.size() - kNext]]);
                        Node& n = nodes_[mine];
                        n = Node{};
                        n.kid[0] = a, n.kid[1] = b, n.kid[2] = c, n.kid[3] = d;
                        n.level = static_cast<std::uint8_t>(level);
                    }
                    // Published with its contents; a lost race means another worker put a square
                    // in this slot, maybe this one.
                    if (std::atomic_ref<Ref>(node_table_[slot])
                            .compare_exchange_strong(s, node_tags_.entry(hash, mine), std::memory_order_acq_rel))
                        return mine;
                }
                if (!node_tags_.fits(s, hash)) continue;
                const Node& n = nodes_[node_tags_.index(s)];
                if (n.kid[0] == a && n.kid[1] == b && n.kid[2] == c && n.kid[3] == d && n.level == level) {
                    if (mine) w.nodes.push_back(mine);  // unpublished: reused
                    return node_tags_.index(s);
                }
            }
            refill(w, false);  // the tables may be new after it
        }
    }

    Ref leaf_par(std::uint64_t hash, const Leaf& l) {
        Worker& w = *tl_worker;
        for (;;) {
            Ref mine = 0;
            const std::size_t mask = leaf_slots_ - 1;
            for (std::size_t slot = hash & mask;; slot = (slot + 1) & mask) {
                Ref s = ld(leaf_table_[slot]);
                if (s == 0) {
                    if (!mine) {
                        if (w.leaves.empty()) break;
                        mine = w.leaves.back();
                        w.leaves.pop_back();
                        if (w.leaves.size() >= kNext) prefetch_for_write(&leaves_[w.leaves[w.leaves.size() - kNext]]);
                        leaves_[mine] = l;
                    }
                    if (std::atomic_ref<Ref>(leaf_table_[slot])
                            .compare_exchange_strong(s, leaf_tags_.entry(hash, mine), std::memory_order_acq_rel))
                        return mine;
                }
                if (leaf_tags_.fits(s, hash) && same_leaf(leaves_[leaf_tags_.index(s)], l)) {
                    if (mine) w.leaves.push_back(mine);
                    return leaf_tags_.index(s);
                }
            }
            refill(w, true);
        }
    }

    using Seconds = std::chrono::duration<double>;

    // A worker for a task (its frames must not be those of a task suspended on this thread).
    Worker& acquire() {
        std::lock_guard lk(pool_m_);
        if (idle_.empty()) {
            workers_.push_back(std::make_unique<Worker>());
            workers_.back()->id = static_cast<std::uint32_t>(workers_.size());
            return *workers_.back();
        }
        Worker* w = idle_.back();
        idle_.pop_back();
        return *w;
    }
    void release(Worker& w) {
        std::lock_guard lk(pool_m_);
        idle_.push_back(&w);
    }

    // One task: squares sq[0..n) of `level` (queued by the parent) evaluated breadth first by a
    // worker of its own; returns the task's span.
    double run_piece(const Ref* sq, std::size_t n, int level) {
        double span = 0;
        enter();
        Worker& w = acquire();
        Worker* const outer = tl_worker;
        tl_worker = &w;
        const auto t0 = Clock::now();
        w.waited = w.child_span = 0;
        bool clean = false;
        try {
            safe_point();
            tasks_.fetch_add(1, std::memory_order_relaxed);
            w.frames[level].todo.assign(sq, sq + n);
            evaluate_here(w, level);
            clean = true;
        } catch (const Abort&) {
        } catch (...) {
            fail(std::current_exception());
        }
        if (!clean) {
            // Abandoned mid-way: unmark what was queued, drop the frames.
            for (auto& fr : w.frames) {
                for (Ref r : fr.todo) unqueue(w, r);
                fr.todo.clear();
                fr.rec.clear();
                fr.later.clear();
            }
            for (auto& sc : w.scratch) sc.clear();
        }
        const double self = Seconds(Clock::now() - t0).count() - w.waited;
        w.work += self;
        span = self + w.child_span;
        tl_worker = outer;
        release(w);
        leave();
        return span;
    }

    // A piece of a split queue, waiting in pool_ for a thread (parallel sections).
    struct Piece {
        const Ref* sq;
        std::size_t n;
        int level;
        double span;
        std::atomic<std::size_t>* left;  // the splitting task's pieces not finished yet
    };

    // Runs a piece from the pool, if there is one it may take: the most recently split, so a
    // waiting thread takes the smaller pieces below the ones already running. A task waiting for
    // its pieces (`own`, split from its queue of level `below`) takes its own, or another task's of
    // a lower level: each piece a thread runs inside another is then of a lower level, so a thread
    // holds at most one worker a level (before 2026-11-28 any piece: Golly's caterpillar.mc.gz
    // nested 778 workers, 57 MB of frames, on 2 threads). A helper thread takes any.
    bool run_pooled(int below = kMaxLevel + 1, const std::atomic<std::size_t>* own = nullptr) {
        if (pooled_.load(std::memory_order_acquire) == 0) return false;
        Piece* p = nullptr;
        {
            std::lock_guard lk(piece_m_);
            std::size_t at = pool_.size();
            // A task waiting for its pieces runs its own first, from the end next to the piece it
            // ran (pooled first); others take pieces from the far end of the queue (pooled last):
            // each thread keeps to one side, so fewer neighbouring pieces lie on two cores.
            if (own)
                for (std::size_t i = 0; i < pool_.size() && at == pool_.size(); ++i)
                    if (pool_[i]->left == own) at = i;
            if (at == pool_.size())
                for (std::size_t i = pool_.size(); i-- > 0;)
                    if (pool_[i]->left == own || pool_[i]->level < below) {
                        at = i;
                        break;
                    }
            if (at == pool_.size()) return false;
            p = pool_[at];
            pool_.erase(pool_.begin() + static_cast<std::ptrdiff_t>(at));
            pooled_.store(pool_.size(), std::memory_order_release);
        }
        p->span = run_piece(p->sq, p->n, p->level);
        p->left->fetch_sub(1, std::memory_order_acq_rel);
        signal();
        return true;
    }

    // Splits a long queue of `level` into pieces (the last one run here) and waits for them. While
    // it waits, this thread runs whatever piece is pooled, its own or not: OpenMP's taskwait in
    // libgomp runs only the waiting task's own children, so a thread whose pieces were all taken sat
    // idle while the other thread split its piece again (docs/hashlife.md, "Threads").
    void evaluate_pieces(Worker& w, int level) {
        Frame& f = w.frames[level];
        const std::size_t n = f.todo.size();
        // Two pieces a thread (of at least task_squares_): few pieces keep most of the breadth-first
        // order's reuse of the squares that neighbours share, two a thread even out their lengths.
        // (Up to 16 pieces of at most a chunk, whatever the threads, made 2 threads slower than one
        // on every pattern measured: docs/hashlife.md, "Threads".)
        const std::size_t parts = 2 * static_cast<std::size_t>(cut_for_ ? cut_for_ : std::max(threads_, 1));
        const bool idle_split = n < 2 * task_squares_;
        if (idle_split) idle_splits_.fetch_add(1, std::memory_order_relaxed);
        const std::size_t piece = std::max<std::size_t>(idle_split ? idle_squares_ : task_squares_, (n + parts - 1) / parts);
        const std::size_t pieces = (n + piece - 1) / piece;
        Piece few[16];
        std::vector<Piece> many(pieces > 16 ? pieces : 0);
        Piece* const ps = pieces > 16 ? many.data() : few;
        std::atomic<std::size_t> left{pieces - 1};
        const Ref* sq = f.todo.data();
        for (std::size_t p = 0; p < pieces; ++p)
            ps[p] = Piece{sq + p * piece, std::min(piece, n - p * piece), level, 0.0, &left};
        const auto t0 = Clock::now();
        leave();  // this task waits: it holds nothing the collector cannot see (its frames)
        if (pieces > 1) {
            {
                std::lock_guard lk(piece_m_);
                for (std::size_t p = pieces - 1; p-- > 0;) pool_.push_back(&ps[p]);
                pooled_.store(pool_.size(), std::memory_order_release);
            }
            signal();
        }
        ps[pieces - 1].span = run_piece(ps[pieces - 1].sq, ps[pieces - 1].n, level);
        help_until([&] { return left.load(std::memory_order_acquire) == 0; }, level, &left);
        enter();
        w.waited += Seconds(Clock::now() - t0).count();
        double longest = 0;
        for (std::size_t p = 0; p < pieces; ++p) longest = std::max(longest, ps[p].span);
        w.child_span += longest;
        for (Ref r : f.todo) unqueue(w, r);
        f.todo.clear();
        if (abort_.load()) throw Abort{};
    }

    // Runs pooled pieces until done(); a thread that finds none counts itself in idlers_ (which
    // lets running pieces split shorter queues for it) and waits in idle().
    template <class Done>
    void help_until(Done done, int below = kMaxLevel + 1, const std::atomic<std::size_t>* own = nullptr) {
        unsigned spins = 0;
        bool counted = false;
        for (;;) {
            const std::uint32_t seen = events_.load();
            if (done()) break;
            if (pooled_.load(std::memory_order_acquire) != 0) {
                if (counted) idlers_.fetch_sub(1, std::memory_order_relaxed), counted = false;
                if (run_pooled(below, own)) {
                    spins = 0;
                    continue;
                }
            }
            if (!counted) idlers_.fetch_add(1, std::memory_order_relaxed), counted = true;
            idle(spins, seen);
        }
        if (counted) idlers_.fetch_sub(1, std::memory_order_relaxed);
    }

    // A thread with nothing to run spins briefly (a piece is usually split within microseconds),
    // then sleeps until the next event (a piece pooled or finished, a section done), so that idle
    // threads cost no CPU time.
    void idle(unsigned& spins, std::uint32_t seen) {
        if (++spins < 1024) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        } else {
            sleepers_.fetch_add(1);
            events_.wait(seen);
            sleepers_.fetch_sub(1);
        }
    }
    // Wakes the threads sleeping in idle() (seq_cst against their sleepers_ / events_ order).
    void signal() {
        events_.fetch_add(1);
        if (sleepers_.load() > 0) events_.notify_all();
    }

    // A parallel section: the step's first queue long enough to split (`level`'s, of worker w, the
    // step's one worker until now) cut into pieces on threads_ threads, every long queue below cut
    // again; then the step carries on on this thread. Opened only where there is work to share: a
    // section that opened for every step of a large root cost small jobs 4-10 ms of a thread team
    // that had nothing to do (docs/hashlife.md, "Threads").
    void evaluate_parallel(Worker& w, int level) {
        failure_ = nullptr;
        abort_.store(false);
        for (auto& x : workers_) x->work = 0;
        w.waited = w.child_span = 0;
        // Room for every thread's first batch, so that the first refills rarely stop the world.
        make_room_alone();
        // Pieces take workers of their own; w keeps the frames of the levels above.
        idle_.clear();
        for (auto& x : workers_)
            if (x.get() != &w) idle_.push_back(x.get());
        Worker* const outer = tl_worker;
        tl_worker = &w;
        start_helpers();
        par_ = true;
        in_section_.store(true);
        signal();
        enter();
        try {
            evaluate_pieces(w, level);
        } catch (const Abort&) {
        } catch (...) {
            fail(std::current_exception());
        }
        leave();
        // Every piece is done: the helpers touch nothing but the pool's atomics from here on.
        in_section_.store(false);
        par_ = false;
        tl_worker = outer;
        return_batches();
        ++parallel_steps_;
        for (auto& x : workers_) work_seconds_ += x->work;
        span_seconds_ += w.child_span;
        if (failure_) {
            std::exception_ptr e = failure_;
            failure_ = nullptr;
            std::rethrow_exception(e);
        }
    }

    // The engine's own threads_ - 1 helper threads, started by the first parallel section and kept
    // until the engine goes: between sections they sleep (idle()), so a job with small sections
    // pays no spinning thread beside it (OpenMP's team spun between regions: docs/hashlife.md).
    // A thread the system refuses (EAGAIN under a process limit) leaves fewer helpers: the pool's
    // pieces are then run by the threads there are, the cells the same.
    void start_helpers() {
        while (helpers_.size() + 1 < static_cast<std::size_t>(threads_) && !helpers_refused_) {
            try {
                helpers_.emplace_back([this] { helper(); });
            } catch (const std::system_error&) {
                helpers_refused_ = true;
            }
        }
    }
    void helper() {
        unsigned spins = 0;
        for (;;) {
            const std::uint32_t seen = events_.load();
            if (quit_.load()) return;
            if (in_section_.load()) {
                help_until([&] { return !in_section_.load() || quit_.load(); });
                spins = 0;
                continue;
            }
            idle(spins, seen);
        }
    }
    void stop_helpers() {
        quit_.store(true);
        signal();
        for (auto& t : helpers_) t.join();
        helpers_.clear();
    }

    void make_room_for(std::size_t nodes, std::size_t leaves) {
        if (nodes_.capacity() - node_top_ + node_free_count_ >= nodes &&
            leaves_.capacity() - leaf_top_ + leaf_free_count_ >= leaves)
            return;
        make_room(nodes, leaves);
    }

    // ---- cells in and out ----

    void changed() {
        // A large export dropped here (by a step after cpu:auto's StreamLife probe, a checkpoint
        // or an output) gives its heap pages back: the CLI keeps freed blocks for reuse, and a run
        // whose store then fills never reuses them (Caterloopillar_5c21.rle: cpu:auto 4.5 MiB
        // above cpu:hashlife mid-run before, its process above Golly's; 1.6 MiB at the peak since).
        const bool large = exported_ && exported_.use_count() == 1 && exported_->nodes().size() >= kTrimSquares;
        exported_.reset();
        if (large) return_free_heap();
        box_valid_ = false;
        pop_valid_ = false;
    }

    static void check_plane(const Box& b) {
        if (b.empty()) return;
        if (b.x <= -kPlane || b.y <= -kPlane || Wide(b.x) + b.width > kPlane || Wide(b.y) + b.height > kPlane)
            throw InputError("cpu:hashlife runs cells with |x|, |y| < 2^60; the pattern spans x=" + std::to_string(b.x) +
                             " y=" + std::to_string(b.y) + " width=" + std::to_string(b.width) +
                             " height=" + std::to_string(b.height));
    }

    // A tree of these cells (its root centred, level >= kMinRoot), bottom-up (core/cell_squares.hpp).
    std::pair<Ref, int> build(const std::vector<Cell>& cells) {
        const Box box = tilelife::bounding_box(cells);
        check_plane(box);
        const int level = root_level_for(box, kMinRoot);
        std::vector<cell_squares::Square> squares, up;
        cell_squares::for_each_leaf(cells, origin(level), kLeafLevel,
                                    [&](std::uint64_t kx, std::uint64_t ky, const cell_squares::CellBit* first,
                                        const cell_squares::CellBit* last) {
                                        Leaf l{};
                                        for (; first != last; ++first)
                                            l.row[first->y] = static_cast<std::uint16_t>(l.row[first->y] | (1u << first->x));
                                        squares.push_back({kx, ky, leaf(l)});
                                    });
        for (int lv = kLeafLevel + 1; lv <= level; ++lv) {
            cell_squares::parents(squares, empty_[lv - 1], up,
                                  [&](const std::uint32_t* k) { return node(lv, k[0], k[1], k[2], k[3]); });
            squares.swap(up);
        }
        return {squares.front().ref, level};
    }

    // root_ |= tree (both centred).
    void merge(Ref tree, int level) {
        while (level_ < level) grow_root();
        while (level < level_) {
            tree = expand(tree, level);
            ++level;
        }
        std::unordered_map<std::uint64_t, Ref> memo;
        root_ = unite(root_, tree, level_, memo);
        changed();
        shrink();
    }

    Ref unite(Ref a, Ref b, int level, std::unordered_map<std::uint64_t, Ref>& memo) {
        if (a == b || is_empty(b, level)) return a;
        if (is_empty(a, level)) return b;
        if (level == kLeafLevel) {
            Leaf l = leaves_[a];
            const Leaf& m = leaves_[b];
            for (int y = 0; y < 16; ++y) l.row[y] = static_cast<std::uint16_t>(l.row[y] | m.row[y]);
            return leaf(l);
        }
        const std::uint64_t key = (std::uint64_t{a} << 32) | b;
        if (const auto it = memo.find(key); it != memo.end()) return it->second;
        const Node x = nodes_[a], y = nodes_[b];
        Ref k[4];
        for (int q = 0; q < 4; ++q) k[q] = unite(x.kid[q], y.kid[q], level - 1, memo);
        const Ref r = node(level, k[0], k[1], k[2], k[3]);
        memo.emplace(key, r);
        return r;
    }

    Ref clear_box(Ref r, int level, std::int64_t x, std::int64_t y, const Box& box) {
        if (is_empty(r, level)) return r;
        const Wide side = Wide(1) << level;
        const Wide bx1 = Wide(box.x) + box.width, by1 = Wide(box.y) + box.height;
        if (x >= bx1 || y >= by1 || Wide(x) + side <= box.x || Wide(y) + side <= box.y) return r;
        if (x >= box.x && y >= box.y && Wide(x) + side <= bx1 && Wide(y) + side <= by1) return empty_[level];
        if (level == kLeafLevel) {
            Leaf l = leaves_[r];
            for (int yy = 0; yy < 16; ++yy)
                for (int xx = 0; xx < 16; ++xx)
                    if (box.contains(Cell{x + xx, y + yy})) l.row[yy] = static_cast<std::uint16_t>(l.row[yy] & ~(1u << xx));
            return leaf(l);
        }
        const std::int64_t half = std::int64_t{1} << (level - 1);
        const Node n = nodes_[r];
        Ref k[4];
        for (int q = 0; q < 4; ++q) k[q] = clear_box(n.kid[q], level - 1, x + (q & 1) * half, y + (q >> 1) * half, box);
        return node(level, k[0], k[1], k[2], k[3]);
    }

    void fill(Ref r, int level, std::int64_t x, std::int64_t y, const Box& box, std::uint8_t* out) const {
        if (is_empty(r, level)) return;
        const Wide side = Wide(1) << level;
        if (x >= Wide(box.x) + box.width || y >= Wide(box.y) + box.height || Wide(x) + side <= box.x ||
            Wide(y) + side <= box.y)
            return;
        if (level == kLeafLevel) {
            const Leaf& l = leaves_[r];
            for (int yy = 0; yy < 16; ++yy)
                for (unsigned bits = l.row[yy]; bits; bits &= bits - 1) {
                    const Cell c{x + __builtin_ctz(bits), y + yy};
                    if (box.contains(c)) out[(c.y - box.y) * box.width + (c.x - box.x)] = 1;
                }
            return;
        }
        const std::int64_t half = std::int64_t{1} << (level - 1);
        const Node& n = nodes_[r];
        for (int q = 0; q < 4; ++q) fill(n.kid[q], level - 1, x + (q & 1) * half, y + (q >> 1) * half, box, out);
    }

    // The live cells of the root, each node counted once. A node's count is kept in a dense array,
    // its place there in the node's own Node::queued (0 between steps, put back to 0 however the
    // count ends); a leaf is counted again each time it is met, which costs less than looking it up.
    // With a hash map of counts by Ref (before 2026-11-29) this took 0.13 s of every reported run
    // after Golly's caterpillar.mc.gz had run 1024 generations (dev-epyc).
    CellCount count_all() const {
        struct Counts {
            const HashlifeEngine& e;
            std::vector<CellCount> n;
            std::vector<Ref> nodes;
            ~Counts() {
                for (Ref r : nodes) e.nodes_[r].queued = 0;
            }
        } c{*this, {}, {}};
        const auto count = [&](const auto& self, Ref r, int level) -> CellCount {
            if (level == kLeafLevel) return leaf_pop(leaves_[r]);
            if (is_empty(r, level)) return 0;
            Node& node = nodes_[r];
            if (node.queued) return c.n[node.queued - 1];
            for (Ref k : node.kid)
                if (!is_empty(k, level - 1)) __builtin_prefetch(level - 1 == kLeafLevel ? static_cast<const void*>(&leaves_[k])
                                                                                         : static_cast<const void*>(&nodes_[k]));
            CellCount s = 0;
            for (Ref k : node.kid) s += self(self, k, level - 1);
            c.nodes.push_back(r);  // (first: a node whose `queued` is set is always put back)
            c.n.push_back(s);
            node.queued = static_cast<std::uint32_t>(c.n.size());
            return s;
        };
        return count(count, root_, level_);
    }

    // The live cells' extreme along one side of square r (which has some), relative to its corner:
    // side 0 the smallest x, 1 the largest x, 2 the smallest y, 3 the largest y. Only the squares
    // along that side are visited: the two quarters nearer it, when either has cells, hold the
    // extreme. Visiting every square of the pattern (before 2026-11-28) took 0.11 s after Golly's
    // caterpillar.mc.gz had run 1024 generations, a tenth of what two threads did not share.
    std::int64_t edge_of(Ref r, int level, int side, std::unordered_map<Ref, std::int64_t>& memo) const {
        const bool y_axis = side >= 2, far = side & 1;
        if (level == kLeafLevel) {
            const Leaf& l = leaves_[r];
            std::int64_t e = far ? -1 : 16;
            for (int y = 0; y < 16; ++y) {
                const unsigned row = l.row[y];
                if (!row) continue;
                const int v = y_axis ? y : far ? 31 - __builtin_clz(row) : __builtin_ctz(row);
                e = far ? std::max<std::int64_t>(e, v) : std::min<std::int64_t>(e, v);
            }
            return e;
        }
        if (const auto it = memo.find(r); it != memo.end()) return it->second;
        const std::int64_t half = std::int64_t{1} << (level - 1);
        const Node& n = nodes_[r];
        std::int64_t e = 0;
        bool found = false;
        // The two quarters with their coordinate bit == far first (they hold the extreme when any
        // has cells), then the other two.
        for (int pass = 0; pass < 2 && !found; ++pass) {
            const int bit = pass == 0 ? far : !far;
            for (int q = 0; q < 4; ++q) {
                if ((y_axis ? q >> 1 : q & 1) != bit || is_empty(n.kid[q], level - 1)) continue;
                const std::int64_t v = edge_of(n.kid[q], level - 1, side, memo) + bit * half;
                e = !found ? v : far ? std::max(e, v) : std::min(e, v);
                found = true;
            }
        }
        memo.emplace(r, e);
        return e;
    }

    Box live_box() const {
        if (box_valid_) return box_;
        box_ = Box{};
        if (!is_empty(root_, level_)) {
            std::int64_t e[4];
            for (int side = 0; side < 4; ++side) {
                std::unordered_map<Ref, std::int64_t> memo;
                e[side] = edge_of(root_, level_, side, memo);
            }
            const Cell o = origin(level_);
            box_ = Box{o.x + e[0], o.y + e[2], e[1] - e[0] + 1, e[3] - e[2] + 1};
        }
        box_valid_ = true;
        return box_;
    }

    // Our 16x16 leaf from a tree's square of level 4 (four 8x8 quarters).
    static Leaf leaf_of(const Quadtree& t, const Quadtree::Node& n) {
        Leaf l{};
        for (int q = 0; q < 4; ++q) {
            const std::uint64_t bits = n.kids[q] ? t.node(n.kids[q]).bits : 0;
            for (int y = 0; y < 8; ++y)
                l.row[(q >> 1) * 8 + y] = static_cast<std::uint16_t>(
                    l.row[(q >> 1) * 8 + y] | (((bits >> (8 * y)) & 0xff) << ((q & 1) * 8)));
        }
        return l;
    }

    Ref import(const Quadtree& t, Quadtree::Index i, int level, std::vector<Ref>& memo) {
        if (i == 0) return level == Quadtree::leaf_level ? 0 : empty_[level];
        if (memo[i]) return memo[i];
        const Quadtree::Node& n = t.node(i);
        Ref r;
        if (level == Quadtree::leaf_level) {
            // A level-3 root alone: centre its 8x8 cells in a leaf (the placements nest).
            Leaf l{};
            for (int y = 0; y < 8; ++y) l.row[4 + y] = static_cast<std::uint16_t>(((n.bits >> (8 * y)) & 0xff) << 4);
            r = leaf(l);
        } else if (level == kLeafLevel) {
            r = leaf(leaf_of(t, n));
        } else {
            Ref k[4];
            for (int q = 0; q < 4; ++q) k[q] = import(t, n.kids[q], level - 1, memo);
            r = node(level, k[0], k[1], k[2], k[3]);
        }
        memo[i] = r;
        return r;
    }

    // The squares that t's root reaches, made level by level, leaves first: each level's lookups
    // go through the tables as pipelines (leaf_many, lookup_many), their children being made
    // already, where the depth-first import (above) waited for one table miss after another
    // (loading Golly's caterpillar.mc.gz: 50 -> 41 ms, 2026-11-29). Equal squares, equal trees: the
    // store holds what import() would have made (the same squares, other indices). memo as
    // import()'s; returns the root's square.
    Ref import_by_levels(const Quadtree& t, std::vector<Ref>& memo) {
        const Quadtree::Index root = t.root();
        const int top = t.level();
        // What the root reaches (a tree may hold other squares), and those squares by level.
        std::vector<std::uint8_t> reached(root + std::size_t{1}, 0);
        reached[root] = 1;
        std::size_t at_level[Quadtree::max_level + 2] = {};
        for (Quadtree::Index i = root; i >= 1; --i) {
            if (!reached[i]) continue;
            const Quadtree::Node& n = t.node(i);
            ++at_level[n.level];
            if (n.level > Quadtree::leaf_level)
                for (Quadtree::Index k : n.kids) reached[k] = 1;
        }
        std::size_t start[Quadtree::max_level + 2] = {};
        for (int l = kLeafLevel; l <= top; ++l) start[l + 1] = start[l] + at_level[l];
        std::vector<Quadtree::Index> order(start[top + 1]);
        for (Quadtree::Index i = 1; i <= root; ++i)
            if (reached[i] && t.node(i).level >= kLeafLevel) order[start[t.node(i).level]++] = i;
        // (start[l] is now where level l ends, which is where level l + 1 begins)
        Frame f;
        std::vector<Leaf> ls;
        std::vector<Ref> out;
        std::size_t from = 0;
        for (int level = kLeafLevel; level <= top; ++level) {
            const std::size_t end = start[level];
            for (std::size_t c0 = from; c0 < end; c0 += kChunk) {
                const std::size_t n = std::min(kChunk, end - c0);
                const Quadtree::Index* const idx = order.data() + c0;
                out.resize(n);
                if (level == kLeafLevel) {
                    ls.resize(n);
                    for (std::size_t j = 0; j < n; ++j) ls[j] = leaf_of(t, t.node(idx[j]));
                    leaf_many(ls.data(), f, out.data(), n);
                } else {
                    f.keys.resize(4 * n);
                    for (std::size_t j = 0; j < n; ++j) {
                        const Quadtree::Node& node = t.node(idx[j]);
                        for (int q = 0; q < 4; ++q)
                            f.keys[4 * j + q] = node.kids[q] ? memo[node.kids[q]] : empty_[level - 1];
                    }
                    lookup_many(level, f, out.data(), n);
                }
                for (std::size_t j = 0; j < n; ++j) memo[idx[j]] = out[j];
            }
            from = end;
        }
        return memo[root];
    }

    // The export's walks fetch a node's four quarters (a leaf's entry in `leaf_ids` too; a node's
    // number is in the node) before the first is visited: depth first, each quarter's square is a
    // miss of its own, and the walks were most of writing caterpillar.mc.gz after a run.
    void prefetch_square(Ref r, int level, const Quadtree::Index* leaf_ids, bool leaf_rows) const {
        if (is_empty(r, level)) return;
        if (level == kLeafLevel) {
            __builtin_prefetch(&leaf_ids[r]);
            if (leaf_rows) __builtin_prefetch(&leaves_[r]);
        } else {
            __builtin_prefetch(&nodes_[r]);  // (its index in the export is in it: Node::queued)
        }
    }

    // The pattern as a shared Quadtree, its root the smallest of level >= 4 holding the cells
    // (what Golly writes after a run).
    Quadtree export_tree() const {
        Quadtree t;
        if (is_empty(root_, level_)) {
            t.set_root(0, 4);
            t.set_canonical();
            return t;
        }
        const int want = std::max(4, root_level_for(live_box(), 4));
        // Each square's index once made, by its Ref (0: not yet; a nonempty square's is never 0).
        // A node's is kept in its own Node::queued, which is 0 between steps (check()) and is put
        // back to 0 below: the walk reads the node's line anyway. Until 2026-11-29 the nodes' were
        // in a flat array indexed by Ref (15 MB after Golly's caterpillar.mc.gz had run 1024
        // generations, of which the walk touched every page): fresh pages that dev-epyc's host
        // supplies at about 0.5 GB/s, some 30 ms of writing that file. The leaves' are in such an
        // array (a leaf has no spare bytes); before 2026-11-28 both were hash maps (0.12 s of
        // that export). The squares are added depth first, nw ne sw se, each when first met, and
        // the engine's squares are distinct: the tree is canonical (Quadtree::set_canonical).
        const ZeroedBytes leaf_mem(leaf_top_ * sizeof(Quadtree::Index), /*bound_only=*/true);
        if (!leaf_mem) throw std::bad_alloc();
        Quadtree::Index* const leaf_node_ids = static_cast<Quadtree::Index*>(leaf_mem.data());
        // The nodes whose Node::queued the export wrote (at most the live ones), zeroed again
        // however it ends.
        struct Unmark {
            const HashlifeEngine& e;
            ZeroedBytes mem;
            std::size_t n = 0;
            Ref* nodes() const { return static_cast<Ref*>(mem.data()); }
            void add(Ref r) { nodes()[n++] = r; }
            ~Unmark() {
                const Ref* const r = nodes();
                for (std::size_t i = 0; i < n; ++i) {
                    if (i + kAhead < n) prefetch_for_write(&e.nodes_[r[i + kAhead]]);
                    e.nodes_[r[i]].queued = 0;
                }
            }
        } unmark{*this, ZeroedBytes((node_count_ + 1) * sizeof(Ref), /*bound_only=*/true)};
        if (!unmark.mem) throw std::bad_alloc();
        const auto id_of = [&](Ref r, int level) -> Quadtree::Index& {
            return level == kLeafLevel ? leaf_node_ids[r] : nodes_[r].queued;
        };
        // The tree is reserved at once, in huge pages: grown as it was built, its copies and fresh
        // pages made reading and writing caterpillar.mc.gz (--gens 0) take 0.319 s against 0.278.
        // What the store holds bounds it (at most four quarters a leaf, and a centre leaf's); only
        // the pages written are ever touched, so a bound of up to kReserveAtMost squares is reserved
        // as it is, and only a larger one (a long run's store can hold far more than its last
        // generation) is replaced by a count: a first walk over the squares, which marks those it
        // met kSeen (a Quadtree's indices stay below UINT32_MAX - 1) and took 45 ms of writing
        // caterpillar.mc.gz after 1024 generations.
        constexpr std::size_t kReserveAtMost = std::size_t{1} << 24;
        constexpr Quadtree::Index kSeen = UINT32_MAX;
        std::size_t squares = node_count_ + 5 * leaf_count_ + 6;
        const auto count = [&](const auto& self, Ref r, int level) -> void {
            if (is_empty(r, level)) return;
            Quadtree::Index& seen = id_of(r, level);
            if (seen) return;
            seen = kSeen;
            if (level > kLeafLevel) unmark.add(r);
            squares += level == kLeafLevel ? 5 : 1;
            if (level > kLeafLevel) {
                const Node& n = nodes_[r];
                for (Ref k : n.kid) prefetch_square(k, level - 1, leaf_node_ids, false);
                for (Ref k : n.kid) self(self, k, level - 1);
            }
        };
        // Under an address-space limit (ulimit -v) the bound may not be had where the count can.
        bool reserved = false;
        if (squares <= kReserveAtMost) {
            try {
                t.reserve(squares, /*bound_only=*/true);
                reserved = true;
            } catch (const std::bad_alloc&) {
            } catch (const std::length_error&) {
            }
        }
        if (!reserved) {
            squares = 1;
            count(count, root_, level_);
            t.reserve(squares);
        }
        // The distinct 8x8 quarters, in a flat open-addressed table kept at most half full (key 0,
        // an empty quarter, marks a free slot): with std::unordered_map these lookups were 9% of
        // reading and writing caterpillar.mc.gz. It grows as it fills: sized for the most there can be
        // (four a leaf), its fresh pages cost more than the lookups.
        // (ZeroedBytes: from 256 KiB up each size is a huge page or a few, not 4 KiB faults.)
        struct Slot {
            std::uint64_t bits;
            Quadtree::Index id;
        };
        const auto slots_of = [](std::size_t n) {
            ZeroedBytes b(n * sizeof(Slot));
            if (!b) throw std::bad_alloc();
            return b;
        };
        int shift = 52;
        std::size_t mask = (std::size_t{1} << (64 - shift)) - 1, distinct = 0;
        ZeroedBytes table = slots_of(mask + 1);
        Slot* leaf_ids = static_cast<Slot*>(table.data());
        const auto home = [&shift](std::uint64_t bits) { return (bits * 0x9E3779B97F4A7C15ull) >> shift; };
        auto quarter = [&](std::uint64_t bits) -> Quadtree::Index {
            if (!bits) return 0;
            std::size_t i = home(bits);
            for (; leaf_ids[i].bits != bits; i = (i + 1) & mask)
                if (leaf_ids[i].bits == 0) {
                    const Quadtree::Index id = t.add_leaf(bits);
                    leaf_ids[i] = {bits, id};
                    if (2 * ++distinct > mask + 1) {
                        ZeroedBytes old = std::exchange(table, slots_of(2 * (mask + 1)));
                        const Slot* const from = static_cast<const Slot*>(old.data());
                        leaf_ids = static_cast<Slot*>(table.data());
                        --shift;
                        for (std::size_t k = 0; k <= mask; ++k)
                            if (from[k].bits) {
                                std::size_t j = home(from[k].bits);
                                while (leaf_ids[j].bits) j = (j + 1) & (2 * mask + 1);
                                leaf_ids[j] = from[k];
                            }
                        mask = 2 * mask + 1;
                    }
                    return id;
                }
            return leaf_ids[i].id;
        };
        // Recursion through a generic lambda (depth <= 63): no std::function call per square.
        const auto visit = [&](const auto& self, Ref r, int level) -> Quadtree::Index {
            if (is_empty(r, level)) return 0;
            Quadtree::Index& id = id_of(r, level);
            if (id != 0 && id != kSeen) return id;
            if (id == 0 && level > kLeafLevel) unmark.add(r);
            std::array<Quadtree::Index, 4> k{};
            if (level == kLeafLevel) {
                const Leaf& l = leaves_[r];
                for (int q = 0; q < 4; ++q) {
                    std::uint64_t bits = 0;
                    for (int y = 0; y < 8; ++y)
                        bits |= static_cast<std::uint64_t>((l.row[(q >> 1) * 8 + y] >> ((q & 1) * 8)) & 0xff) << (8 * y);
                    k[q] = quarter(bits);
                }
            } else {
                const Node& n = nodes_[r];
                for (Ref kid : n.kid) prefetch_square(kid, level - 1, leaf_node_ids, true);
                for (int q = 0; q < 4; ++q) k[q] = self(self, n.kid[q], level - 1);
            }
            // (`id` still refers to the right entry: the arrays never grow here)
            return id = t.add_node(level, k);
        };
        const auto out = [&](Ref r, int level) { return visit(visit, r, level); };
        // Descend through centres to the wanted level (the cells are in every centre on the way).
        if (want >= level_) {
            t.set_root(out(root_, level_), level_);
            t.set_canonical();
            return t;
        }
        // Centre squares of the root, built from its grandchildren down to `want`.
        std::array<Ref, 4> ring = {nodes_[root_].kid[0], nodes_[root_].kid[1], nodes_[root_].kid[2],
                                   nodes_[root_].kid[3]};
        int level = level_;
        // A centre of level L - 1 is the four inner grandchildren; keep taking inner parts.
        std::array<Ref, 4> inner = {nodes_[ring[0]].kid[3], nodes_[ring[1]].kid[2], nodes_[ring[2]].kid[1],
                                    nodes_[ring[3]].kid[0]};
        --level;  // `inner` are the quarters of the centre of level `level`
        while (level > want) {
            // The centre of the square with quarters `inner`: the inner quarter of each.
            if (level - 1 <= kLeafLevel) break;
            inner = {nodes_[inner[0]].kid[3], nodes_[inner[1]].kid[2], nodes_[inner[2]].kid[1], nodes_[inner[3]].kid[0]};
            --level;
        }
        if (level > want) {
            // want == 4 and level == 5: the centre leaf from the four leaf quarters.
            const Leaf &a = leaves_[inner[0]], &b = leaves_[inner[1]], &c = leaves_[inner[2]], &d = leaves_[inner[3]];
            std::array<Quadtree::Index, 4> k{};
            auto q8 = [](const Leaf& l, int qy, int qx) {
                std::uint64_t bits = 0;
                for (int y = 0; y < 8; ++y)
                    bits |= static_cast<std::uint64_t>((l.row[qy * 8 + y] >> (qx * 8)) & 0xff) << (8 * y);
                return bits;
            };
            k[0] = quarter(q8(a, 1, 1));
            k[1] = quarter(q8(b, 1, 0));
            k[2] = quarter(q8(c, 0, 1));
            k[3] = quarter(q8(d, 0, 0));
            t.set_root(t.add_node(kLeafLevel, k), kLeafLevel);
            t.set_canonical();
            return t;
        }
        std::array<Quadtree::Index, 4> k{};
        for (int q = 0; q < 4; ++q) k[q] = out(inner[q], level - 1);
        t.set_root(t.add_node(level, k), level);
        t.set_canonical();
        return t;
    }

    // ---- state ----
    // What the threads of a parallel section write (locks, the free lists and their counts, the
    // pool's counters) sits on cache lines of its own (alignas(kLine)), apart from what every
    // lookup reads (the tables and their sizes, par_, empty_): on a shared line each such write
    // cost the other core a miss on its next lookup (docs/hashlife.md, "Threads").
    Rule rule_;
    bitpacked::RuleMasks masks_;
    bool life_;
    int simd_;
    LeafKernel kernel_;
    const std::atomic<bool>* interrupt_;
    std::chrono::steady_clock::time_point deadline_{};

    Region region_;  // before the arrays in it
    Pool<Node, false> nodes_;
    Pool<Leaf, true> leaves_;
    Table node_table_, leaf_table_;
    std::size_t node_slots_ = 0, leaf_slots_ = 0;  // table sizes (powers of two)
    TagBits node_tags_, leaf_tags_;
    std::vector<std::uint8_t> leaf_mark_;
    alignas(kLine) std::size_t node_top_ = 1, leaf_top_ = 1, node_count_ = 0, leaf_count_ = 0;
    std::size_t node_free_count_ = 0, leaf_free_count_ = 0;
    Ref node_free_ = 0, leaf_free_ = 0;
    alignas(kLine) std::int64_t budget_ = 0, limit_ = 0, soft_limit_ = 0;
    bool gc_allowed_ = true;
    std::int64_t collections_ = 0;
    std::vector<Ref> protect_;
    Ref saved_root_ = 0;  // the root before a watched step (step() restores it when refused)
    Ref piece_root_ = 0;  // the root before the piece of it being stepped or searched
    std::vector<std::unique_ptr<Worker>> workers_;  // workers_[0] also runs the single-threaded steps
    int threads_ = 1;
    std::size_t task_squares_ = kTaskSquares, idle_squares_ = 0;
    std::size_t gc_squares_ = 0;  // Tuning::gc_squares_per_thread
    bool gc_team_ok_ = true;      // no address-space limit (gc_team)
    std::size_t gc_threads_ = 1;  // the largest team a collection or rebuild ran on (describe())
    alignas(kLine) std::mutex pool_m_;
    std::vector<Worker*> idle_;  // workers_ not in use by a task (parallel steps)
    alignas(kLine) std::mutex piece_m_;
    std::vector<Piece*> pool_;           // pieces no thread has taken yet (piece_m_)
    alignas(kLine) std::atomic<std::size_t> pooled_{0};  // pool_.size(), read without the lock
    alignas(kLine) std::atomic<int> idlers_{0};           // threads of a section with nothing to run
    alignas(kLine) std::atomic<std::uint32_t> events_{0};  // counts pieces pooled and finished, sections done
    std::atomic<int> sleepers_{0};          // threads sleeping on events_
    std::atomic<bool> in_section_{false}, quit_{false};
    bool helpers_refused_ = false;
    std::vector<std::thread> helpers_;      // joined by the destructor, before any member goes
    bool always_tasks_ = false;
    int cut_for_ = 0;  // Tuning::cut_for
    bool par_ = false;  // a parallel section is running: the store is shared (node_par, leaf_par)
    bool tasks_ok_ = false;  // this step may open parallel sections (use_tasks())
    alignas(kLine) std::mutex store_m_;  // free lists and counts while par_
    alignas(kLine) std::mutex world_m_;
    std::condition_variable world_cv_;
    int active_ = 0, parked_ = 0;  // workers running engine code; those of them parked at a safe point
    bool stopping_ = false;        // one worker runs alone (world_m_)
    alignas(kLine) std::atomic<bool> stop_flag_{false}, abort_{false};
    std::exception_ptr failure_;  // the first exception of a parallel step's tasks
    std::int64_t parallel_steps_ = 0, parallel_collections_ = 0;
    alignas(kLine) std::atomic<std::int64_t> tasks_{0}, idle_splits_{0};
    alignas(kLine) char pad_after_[kLine]{};  // keeps the counters above off the next fields' line
    double work_seconds_ = 0, span_seconds_ = 0;

    alignas(kLine) Ref empty_[kMaxLevel + 1]{};
    Ref root_ = 0;
    int level_ = kMinRoot;
    int j_ = 0, last_j_ = 0;
    std::uint64_t advances_ = 0;
    std::int64_t generation_ = 0;

    mutable std::shared_ptr<const Quadtree> exported_;
    static constexpr std::size_t kTrimSquares = std::size_t{1} << 16;  // about 2 MiB of tree
    mutable Box box_;
    mutable bool box_valid_ = false;
    mutable std::int64_t pop_ = 0;
    mutable bool pop_valid_ = false;
};

}  // namespace

std::unique_ptr<Engine> make_hashlife(const BoardSpec& spec, const EngineOptions& options, const Tuning& tuning) {
    return std::make_unique<HashlifeEngine>(spec, options, tuning);
}

}  // namespace tilelife::hashlife

namespace tilelife {
bool hashlife_run_fits(const Box& b, std::int64_t generations) {
    if (b.empty()) return true;
    const hashlife::Wide g = generations < 0 ? 0 : generations, lim = std::int64_t{1} << 60;
    return hashlife::Wide(b.x) - g > -lim && hashlife::Wide(b.y) - g > -lim &&
           hashlife::Wide(b.x) + b.width - 1 + g < lim && hashlife::Wide(b.y) + b.height - 1 + g < lim;
}
}  // namespace tilelife

namespace tilelife::hashlife {

void set_deadline(Engine& engine, std::chrono::steady_clock::time_point deadline) {
    if (auto* h = dynamic_cast<HashlifeEngine*>(&engine)) h->set_deadline(deadline);
}

ExportCost export_cost(const Engine& engine) {
    if (const auto* h = dynamic_cast<const HashlifeEngine*>(&engine)) return h->export_cost();
    return {};
}

std::string check_store(const Engine& engine) {
    if (const auto* h = dynamic_cast<const HashlifeEngine*>(&engine)) return h->check();
    return "not cpu:hashlife";
}

void replace_cells(Engine& engine, const std::vector<Cell>& cells) {
    if (auto* h = dynamic_cast<HashlifeEngine*>(&engine)) h->replace(cells);
}


}  // namespace tilelife::hashlife
