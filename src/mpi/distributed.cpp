// The distributed engine (distributed.hpp; design in docs/distributed.md).
#include "mpi/distributed.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstring>
#include <new>
#include <stdexcept>
#include <thread>

#include "core/cpu_features.hpp"
#include "mpi/support.hpp"
#include "tilelife/error.hpp"

namespace tilelife::mpi {
namespace {

// Tags of the ghost-row messages: rows travelling to the north neighbour (which keeps them below
// its band) and to the south one (which keeps them above). Two ranks on a torus are each other's
// north and south, so the direction must be in the tag.
constexpr int kNorthward = 101, kSouthward = 102, kGather = 103, kScatter = 104;

// A message's element count must fit an int.
constexpr std::int64_t kMaxMessageWords = std::int64_t{1} << 27;

std::string backend_of(std::string_view name) { return std::string(name.substr(0, name.find(':'))); }

// Live cells in packed words. Baseline x86-64 has no POPCNT (std::popcount is then a sequence of
// shifts and adds: population() of a 131072-wide band with 96 ghost rows took 2.7 ms with it, 1.6
// with the instruction, docs/distributed.md), so the instruction is enabled for one copy of the loop.
std::int64_t count_bits(const std::uint64_t* words, std::size_t count) {
    std::int64_t n = 0;
    for (std::size_t i = 0; i < count; ++i) n += std::popcount(words[i]);
    return n;
}
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("popcnt"))) std::int64_t count_bits_popcnt(const std::uint64_t* words, std::size_t count) {
    return count_bits(words, count);
}
#endif
std::int64_t popcount_words(const std::uint64_t* words, std::size_t count) {
#if defined(__x86_64__) && defined(__GNUC__)
    static const bool popcnt = cpu::has(cpu::Feature::popcnt);
    if (popcnt) return count_bits_popcnt(words, count);
#endif
    return count_bits(words, count);
}

}  // namespace

std::string device_for_rank(const std::string& backend, const std::string& given, int local_rank) {
    if (given.find(',') != std::string::npos) {
        std::vector<std::string> list;
        std::size_t start = 0;
        for (;;) {
            const std::size_t comma = given.find(',', start);
            list.push_back(given.substr(start, comma - start));
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        return list[static_cast<std::size_t>(local_rank) % list.size()];
    }
    if (!given.empty() || backend == "cpu") return given;
    std::vector<DeviceInfo> all;
    try {
        for (const BackendInfo& b : registered_backends())
            if (b.name == backend && b.devices) all = b.devices();
    } catch (const std::exception&) {
        return given;  // no device at all: creating the engine says so
    }
    std::vector<DeviceInfo> gpus;
    for (const DeviceInfo& d : all)
        if (d.type == "GPU") gpus.push_back(d);
    const std::vector<DeviceInfo>& pick = gpus.empty() ? all : gpus;
    if (pick.empty()) return given;
    return pick[static_cast<std::size_t>(local_rank) % pick.size()].id;
}

// Several OpenCL launches per exchange (each runs `steps_per_launch` generations, 12 by default on
// GPUs and 4 on CPUs: 96 is a multiple of both), so that the fixed costs of an exchange (the
// device's transfers, the messages' latency) are spread over many generations; measured in
// docs/distributed.md. A CPU engine's exchange costs little, and its redundant rows cost as
// much as any other: fewer.
std::int64_t default_ghost_rows(std::string_view inner, const EngineOptions& options) {
    if (backend_of(inner) == "cpu") return 32;
    return 8 * (options.steps_per_launch > 0 ? options.steps_per_launch : 12);
}

std::pair<int, int> node_rank(MPI_Comm comm) {
    MPI_Comm node;
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &rank);
    MPI_Comm_size(node, &size);
    MPI_Comm_free(&node);
    return {rank, size};
}

// ---- layout ----

Layout make_layout(std::int64_t width, std::int64_t height, int ranks) {
    Layout l;
    l.width = width;
    l.height = height;
    l.ranks = ranks;
    l.active = static_cast<int>(std::min<std::int64_t>(ranks, height));
    return l;
}

std::int64_t Layout::rows(int rank) const {
    if (rank >= active) return 0;
    return height / active + (rank < height % active ? 1 : 0);
}

std::int64_t Layout::first_row(int rank) const {
    if (rank >= active) return height;
    const std::int64_t base = height / active, extra = height % active;
    return rank * base + std::min<std::int64_t>(rank, extra);
}

int Layout::owner(std::int64_t y) const {
    const std::int64_t base = height / active, extra = height % active;
    if (y < extra * (base + 1)) return static_cast<int>(y / (base + 1));
    return static_cast<int>(extra + (y - extra * (base + 1)) / base);
}

// ---- the engine ----

DistributedEngine::DistributedEngine(std::string_view inner, const BoardSpec& spec, const EngineOptions& options,
                                     MPI_Comm comm, const DistributedOptions& distributed)
    : inner_name_(inner), spec_(spec), dist_(distributed), interrupt_(options.interrupt) {
    // Every rank has the same arguments, so these checks fail alike everywhere.
    if (spec.topology == Topology::unbounded)
        throw InputError("unbounded boards do not run across MPI ranks: give a torus or a plane (with a size)");
    if (spec.width < 1 || spec.height < 1)
        throw InputError("board size " + std::to_string(spec.width) + "x" + std::to_string(spec.height) +
                         " is invalid (both dimensions must be at least 1)");
    if (distributed.ghost_rows < 0) throw InputError("ghost rows must be 0 (automatic) or more");
    const auto info = find_engine(inner);
    if (!info) {
        (void)create_engine(inner, spec, options);  // throws the registry's "unknown engine" message
        throw InputError("unknown engine '" + std::string(inner) + "'");
    }
    if (!info->bounded) throw InputError(info->name + " runs only unbounded boards and cannot be split across ranks");
    inner_name_ = info->name;

    MPI_Comm_dup(comm, &comm_);
    int size = 1;
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size);
    layout_ = make_layout(spec.width, spec.height, size);
    y0_ = layout_.first_row(rank_);
    rows_ = layout_.rows(rank_);
    words_per_row_ = (spec.width + 63) / 64;

    const int active = layout_.active;
    if (active >= 2) {
        const std::string backend = backend_of(inner_name_);
        std::int64_t g = distributed.ghost_rows > 0 ? distributed.ghost_rows : default_ghost_rows(inner_name_, options);
        g = std::min(g, layout_.rows(active - 1));  // the thinnest band
        g = std::max<std::int64_t>(1, std::min(g, kMaxMessageWords / words_per_row_));
        if (!distributed.packed) g = std::max<std::int64_t>(1, std::min(g, kMaxMessageWords * 8 / spec.width));
        ghost_ = g;
        if (rank_ < active) {
            if (spec.topology == Topology::torus) {
                north_ = (rank_ + active - 1) % active;
                south_ = (rank_ + 1) % active;
            } else {
                north_ = rank_ > 0 ? rank_ - 1 : -1;
                south_ = rank_ + 1 < active ? rank_ + 1 : -1;
            }
            top_ = north_ >= 0 ? ghost_ : 0;
            bottom_ = south_ >= 0 ? ghost_ : 0;
        }
    }

    // The node-local rank picks the device; the ranks on a node share its cores.
    const std::pair<int, int> node = node_rank(comm_);
    const int local_rank = node.first, local_size = node.second;

    const Outcome made = attempt([&] {
        if (rows_ == 0) return;
        BoardSpec local = spec;
        local.height = top_ + rows_ + bottom_;
        // A torus band keeps the torus's columns; its rows wrap too, which puts wrong cells only
        // into the ghost rows (they come within `ghost_` generations of the band, never into it).
        local.topology = spec.topology;
        EngineOptions opts = options;
        opts.interrupt = nullptr;  // every rank must run every generation it is asked for
        const std::string backend = backend_of(inner_name_);
        opts.device = device_for_rank(backend, options.device, local_rank);
        if (backend == "cpu" && opts.threads <= 0)
            opts.threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / local_size);
        local_ = create_engine(inner_name_, local, opts);
    });
    try {
        agree(comm_, rank_, made);
    } catch (...) {
        local_.reset();
        MPI_Comm_free(&comm_);
        throw;
    }
    const std::size_t edge = static_cast<std::size_t>(ghost_ * words_per_row_);
    if (dist_.packed) {
        send_top_.resize(top_ ? edge : 0);
        recv_top_.resize(top_ ? edge : 0);
        send_bottom_.resize(bottom_ ? edge : 0);
        recv_bottom_.resize(bottom_ ? edge : 0);
    }
}

DistributedEngine::~DistributedEngine() {
    local_.reset();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void DistributedEngine::exchange() {
    if (layout_.active < 2) return;
    Outcome failed;
    exchange_now(failed);
    const double now = MPI_Wtime();
    agree(comm_, rank_, failed);
    stats_.agree_seconds += MPI_Wtime() - now;
}

// Each rank sends its first and last `ghost_` rows to its neighbours and puts theirs into its
// ghost rows. Bits (8x less than bytes, no conversion) unless dist_.packed is off. Pipelined: the
// receives are posted first, each edge is sent as soon as it is read (the second edge's read
// overlaps the first one's message) and each ghost zone is written as soon as it arrives. The
// messages go whatever happens locally (a rank whose read failed, or that had failed before, sends
// what it has), so that no rank waits for a message that never comes; the caller agrees on `failed`.
void DistributedEngine::exchange_now(Outcome& failed) {
    const bool packed = dist_.packed;
    const std::int64_t g = ghost_, w = spec_.width;
    const int count = static_cast<int>(packed ? g * words_per_row_ : g * w);
    const MPI_Datatype type = packed ? MPI_UINT64_T : MPI_BYTE;
    if (!packed) {
        for (auto* b : {&bytes_out_top_, &bytes_in_top_}) b->resize(top_ ? static_cast<std::size_t>(g * w) : 0);
        for (auto* b : {&bytes_out_bottom_, &bytes_in_bottom_}) b->resize(bottom_ ? static_cast<std::size_t>(g * w) : 0);
    }
    void* in[2] = {packed ? static_cast<void*>(recv_top_.data()) : bytes_in_top_.data(),
                   packed ? static_cast<void*>(recv_bottom_.data()) : bytes_in_bottom_.data()};
    void* out[2] = {packed ? static_cast<void*>(send_top_.data()) : bytes_out_top_.data(),
                    packed ? static_cast<void*>(send_bottom_.data()) : bytes_out_bottom_.data()};
    // Edge k (0: top, 1: bottom): its neighbour, the first owned row it sends, where its ghosts go,
    // and the tags of what leaves and what arrives.
    const bool has[2] = {top_ > 0, bottom_ > 0};
    const int peer[2] = {north_, south_};
    const std::int64_t send_row[2] = {top_, top_ + rows_ - g}, ghost_row[2] = {0, top_ + rows_};
    const int out_tag[2] = {kNorthward, kSouthward}, in_tag[2] = {kSouthward, kNorthward};

    auto keep_first = [&](Outcome o) {
        if (failed.kind == Outcome::none) failed = std::move(o);
    };
    MPI_Request recv[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL}, send[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    for (int k = 0; k < 2; ++k)
        if (has[k]) MPI_Irecv(in[k], count, type, peer[k], in_tag[k], comm_, &recv[k]);
    for (int k = 0; k < 2; ++k) {
        if (!has[k]) continue;
        const double t = MPI_Wtime();
        if (failed.kind == Outcome::none)
            keep_first(attempt([&] {
                if (packed) local_->read_rows_packed(send_row[k], g, static_cast<std::uint64_t*>(out[k]));
                else local_->read_region(Box{0, send_row[k], w, g}, static_cast<std::uint8_t*>(out[k]));
            }));
        stats_.read_seconds += MPI_Wtime() - t;
        MPI_Isend(out[k], count, type, peer[k], out_tag[k], comm_, &send[k]);
        stats_.bytes_sent += static_cast<std::int64_t>(count) * (packed ? 8 : 1);
    }
    for (int k = 0; k < 2; ++k) {
        if (!has[k]) continue;
        double t = MPI_Wtime();
        MPI_Wait(&recv[k], MPI_STATUS_IGNORE);
        const double now = MPI_Wtime();
        stats_.mpi_seconds += now - t;
        if (failed.kind == Outcome::none)
            keep_first(attempt([&] {
                if (packed) local_->write_rows_packed(ghost_row[k], g, static_cast<const std::uint64_t*>(in[k]));
                else local_->write_region(Box{0, ghost_row[k], w, g}, static_cast<const std::uint8_t*>(in[k]));
            }));
        stats_.write_seconds += MPI_Wtime() - now;
    }
    double t = MPI_Wtime();
    MPI_Waitall(2, send, MPI_STATUSES_IGNORE);
    stats_.mpi_seconds += MPI_Wtime() - t;
    ++stats_.exchanges;
    valid_ = ghost_;
    // The ghost rows on the device are now the received ones: population() counts them there.
    ghost_known_ = packed && failed.kind == Outcome::none;
    ghost_words_[0] = static_cast<const std::uint64_t*>(in[0]);
    ghost_words_[1] = static_cast<const std::uint64_t*>(in[1]);
}

// The step that uses up the ghost rows, and the next exchange overlapped with it: the local engine
// reads the edge rows as soon as they are computed (Engine::step_reading_rows), they are sent from
// where it read them (its page-locked staging for a device engine) while the rest of the band
// computes, and the ghost rows that arrive are written behind the step. The ranks' rows at a
// round's end depend only on their own band and ghost rows, so the messages carry exactly what
// exchange_now() would read after the step. A rank whose step failed (or had failed before: its
// engine is then left alone) still sends what its buffers hold, so that no rank waits for a message
// that never comes; the caller agrees on `failed`.
void DistributedEngine::step_and_exchange(std::int64_t k, Outcome& failed) {
    ghost_known_ = false;
    const std::int64_t g = ghost_;
    const int count = static_cast<int>(g * words_per_row_);
    const bool has[2] = {top_ > 0, bottom_ > 0};
    const int peer[2] = {north_, south_};
    const std::int64_t send_row[2] = {top_, top_ + rows_ - g}, ghost_row[2] = {0, top_ + rows_};
    const int out_tag[2] = {kNorthward, kSouthward}, in_tag[2] = {kSouthward, kNorthward};
    std::uint64_t* in[2] = {recv_top_.data(), recv_bottom_.data()};
    std::uint64_t* out[2] = {send_top_.data(), send_bottom_.data()};
    // The ghost rows arrive straight in the engine's page-locked staging where it has one: no copy
    // before they are written. (Counted with the writes: the engine may wait for its staging.)
    const double staging_from = MPI_Wtime();
    if (failed.kind == Outcome::none && local_)
        failed = attempt([&] {
            if (std::uint64_t* staged = local_->write_staging(2 * static_cast<std::size_t>(count))) {
                in[0] = staged;
                in[1] = staged + count;
            }
        });
    stats_.write_seconds += MPI_Wtime() - staging_from;

    MPI_Request recv[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL}, send[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    for (int e = 0; e < 2; ++e)
        if (has[e]) MPI_Irecv(in[e], count, MPI_UINT64_T, peer[e], in_tag[e], comm_, &recv[e]);
    std::vector<Engine::RowsRead> reads;
    for (int e = 0; e < 2; ++e)
        if (has[e]) reads.push_back({send_row[e], g, out[e]});
    bool sent = false;
    auto send_edges = [&](const std::vector<const std::uint64_t*>& where) {
        for (int e = 0, i = 0; e < 2; ++e) {
            if (!has[e]) continue;
            MPI_Isend(where[static_cast<std::size_t>(i++)], count, MPI_UINT64_T, peer[e], out_tag[e], comm_, &send[e]);
            stats_.bytes_sent += static_cast<std::int64_t>(count) * 8;
        }
        sent = true;
    };
    double t = MPI_Wtime();
    if (failed.kind == Outcome::none)
        failed = attempt([&] {
            if (local_) local_->step_reading_rows(k, reads, send_edges);
        });
    if (!sent) {
        std::vector<const std::uint64_t*> mine;
        for (int e = 0; e < 2; ++e)
            if (has[e]) mine.push_back(out[e]);
        send_edges(mine);
    }
    double now = MPI_Wtime();
    stats_.step_seconds += now - t;
    for (int e = 0; e < 2; ++e) {
        if (!has[e]) continue;
        t = MPI_Wtime();
        MPI_Wait(&recv[e], MPI_STATUS_IGNORE);
        now = MPI_Wtime();
        stats_.mpi_seconds += now - t;
        if (failed.kind == Outcome::none) {
            Outcome o = attempt([&] { local_->write_rows_packed(ghost_row[e], g, in[e]); });
            if (o.kind != Outcome::none) failed = std::move(o);
        }
        stats_.write_seconds += MPI_Wtime() - now;
    }
    t = MPI_Wtime();
    MPI_Waitall(2, send, MPI_STATUSES_IGNORE);
    stats_.mpi_seconds += MPI_Wtime() - t;
    ++stats_.exchanges;
    ++stats_.overlapped;
    // As in exchange_now (the staging they arrived in is not reused before the next step).
    ghost_known_ = failed.kind == Outcome::none;
    ghost_words_[0] = in[0];
    ghost_words_[1] = in[1];
}

// The ranks agree (on failures and on the interrupt flag) every agree_in_ rounds and at the end, not
// every round: each agreement is a point where every rank waits for the slowest (0.87 ms of a 16 ms
// round on 4 GPUs, docs/distributed.md). Between agreements a failed rank goes on exchanging (stale
// rows, its engine left alone) so that the messages still match. The rounds until the next
// agreement follow from the slowest rank's time per round, reduced in the agreement itself, so that
// every rank counts the same rounds and stops at the same generation; an interrupt is then seen
// within about kAgreeSeconds (Open MPI kills the ranks 1 s after its SIGTERM).
void DistributedEngine::step(std::int64_t generations) {
    constexpr double kAgreeSeconds = 0.05;
    constexpr int kMostRoundsUnagreed = 16;
    const bool exchanging = layout_.active >= 2;
    Outcome failed;  // this rank's first failure since the last agreement
    int rounds = 0;
    double since = MPI_Wtime();
    for (std::int64_t left = generations; left > 0;) {
        if (exchanging && valid_ == 0) exchange_now(failed);
        const std::int64_t k = exchanging ? std::min(left, valid_) : left;
        if (exchanging && dist_.packed && dist_.overlap && k == valid_) {
            step_and_exchange(k, failed);
            valid_ = ghost_;
        } else {
            double t = MPI_Wtime();
            if (failed.kind == Outcome::none)
                failed = attempt([&] {
                    if (local_) local_->step(k);
                });
            stats_.step_seconds += MPI_Wtime() - t;
            ghost_known_ = false;
            if (exchanging) valid_ -= k;
        }
        left -= k;
        generation_ += k;
        ++rounds;
        if (left > 0 && rounds < agree_in_) continue;
        // Any rank's interrupt flag (under the command line, rank 0's: a signal) stops every rank
        // here, between sub-steps, so that a long step ends soon and alike everywhere.
        const double now = MPI_Wtime();
        double maxima[2] = {left > 0 && interrupt_ && interrupt_->load() ? 1.0 : 0.0, (now - since) / rounds};
        agree(comm_, rank_, failed, maxima, 2);
        since = MPI_Wtime();
        stats_.agree_seconds += since - now;
        ++stats_.agreements;
        rounds = 0;
        agree_in_ = static_cast<int>(std::clamp(kAgreeSeconds / std::max(maxima[1], 1e-9), 1.0,
                                                static_cast<double>(kMostRoundsUnagreed)));
        if (maxima[0] > 0) break;
    }
}

std::int64_t DistributedEngine::population() const {
    std::int64_t mine = 0;
    const Outcome counted = attempt([&] {
        if (!local_) return;
        mine = local_->population();
        // The local engine counts its ghost rows too: those of the last exchange where no step or
        // write came since (a device engine's rows need no reading back), else read back.
        std::vector<std::uint64_t> words;
        int side = 0;
        for (const auto& [y, n] : {std::pair{std::int64_t{0}, top_}, std::pair{top_ + rows_, bottom_}}) {
            const std::uint64_t* known = ghost_words_[side++];
            if (n == 0) continue;
            const auto count = static_cast<std::size_t>(n * words_per_row_);
            if (ghost_known_ && n == ghost_) {
                mine -= popcount_words(known, count);
                continue;
            }
            words.resize(count);
            local_->read_rows_packed(y, n, words.data());
            mine -= popcount_words(words.data(), count);
        }
    });
    agree(comm_, rank_, counted);
    std::int64_t total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, comm_);
    return total;
}

namespace {

void check_box(const Box& b, const BoardSpec& spec) {
    if (b.x < 0 || b.y < 0 || b.width < 0 || b.height < 0 || b.right() > spec.width || b.bottom() > spec.height)
        throw std::out_of_range("region outside the board");
}

}  // namespace

void DistributedEngine::read_region(const Box& box, std::uint8_t* cells) const {
    check_box(box, spec_);
    if (box.empty()) return;
    const std::int64_t a = std::max(box.y, y0_), b = std::min(box.bottom(), y0_ + rows_);
    std::vector<std::uint8_t> part;
    const Outcome read = attempt([&] {
        if (a >= b) return;
        const Box local{box.x, local_row(a), box.width, b - a};
        if (rank_ == 0) {
            local_->read_region(local, cells + (a - box.y) * box.width);
        } else {
            part.resize(static_cast<std::size_t>((b - a) * box.width));
            local_->read_region(local, part.data());
        }
    });
    agree(comm_, rank_, read);
    if (rank_ == 0) {
        for (int r = 1; r < layout_.active; ++r) {
            const std::int64_t ra = std::max(box.y, layout_.first_row(r));
            const std::int64_t rb = std::min(box.bottom(), layout_.first_row(r) + layout_.rows(r));
            if (ra < rb)
                recv_bytes(comm_, cells + (ra - box.y) * box.width, static_cast<std::size_t>((rb - ra) * box.width), r,
                           kGather);
        }
    } else if (a < b) {
        send_bytes(comm_, part.data(), part.size(), 0, kGather);
    }
}

void DistributedEngine::write_region(const Box& box, const std::uint8_t* cells) {
    check_box(box, spec_);
    if (box.empty()) return;
    const std::int64_t a = std::max(box.y, y0_), b = std::min(box.bottom(), y0_ + rows_);
    std::vector<std::uint8_t> part;
    if (rank_ == 0) {
        for (int r = 1; r < layout_.active; ++r) {
            const std::int64_t ra = std::max(box.y, layout_.first_row(r));
            const std::int64_t rb = std::min(box.bottom(), layout_.first_row(r) + layout_.rows(r));
            if (ra < rb)
                send_bytes(comm_, cells + (ra - box.y) * box.width, static_cast<std::size_t>((rb - ra) * box.width), r,
                           kScatter);
        }
    } else if (a < b) {
        part.resize(static_cast<std::size_t>((b - a) * box.width));
        recv_bytes(comm_, part.data(), part.size(), 0, kScatter);
    }
    const Outcome written = attempt([&] {
        if (a >= b) return;
        local_->write_region(Box{box.x, local_row(a), box.width, b - a},
                             rank_ == 0 ? cells + (a - box.y) * box.width : part.data());
    });
    valid_ = 0;
    ghost_known_ = false;
    agree(comm_, rank_, written);
}

void DistributedEngine::set_cells(const std::vector<Cell>& cells) {
    const int size = layout_.ranks;
    std::vector<std::int64_t> counts(static_cast<std::size_t>(size), 0);
    std::vector<Cell> ordered;  // rank 0: the cells grouped by owner, in rank order
    const Outcome sorted = attempt([&] {
        if (rank_ != 0) return;
        for (const Cell& c : cells) {
            if (c.x < 0 || c.y < 0 || c.x >= spec_.width || c.y >= spec_.height)
                throw std::out_of_range("cell outside the board");
            ++counts[static_cast<std::size_t>(layout_.owner(c.y))];
        }
        std::vector<std::int64_t> at(static_cast<std::size_t>(size), 0);
        for (int r = 1; r < size; ++r) at[r] = at[r - 1] + counts[r - 1];
        ordered.resize(cells.size());
        for (const Cell& c : cells) ordered[static_cast<std::size_t>(at[layout_.owner(c.y)]++)] = c;
    });
    agree(comm_, rank_, sorted);
    std::int64_t mine_count = 0;
    MPI_Scatter(counts.data(), 1, MPI_INT64_T, &mine_count, 1, MPI_INT64_T, 0, comm_);
    std::vector<Cell> mine;
    if (rank_ == 0) {
        std::int64_t at = counts[0];
        for (int r = 1; r < size; ++r) {
            if (counts[r] > 0) send_bytes(comm_, ordered.data() + at, static_cast<std::size_t>(counts[r]) * sizeof(Cell), r, kScatter);
            at += counts[r];
        }
        ordered.resize(static_cast<std::size_t>(counts[0]));
        mine = std::move(ordered);
    } else if (mine_count > 0) {
        mine.resize(static_cast<std::size_t>(mine_count));
        recv_bytes(comm_, mine.data(), mine.size() * sizeof(Cell), 0, kScatter);
    }
    const Outcome written = attempt([&] {
        if (mine.empty()) return;
        for (Cell& c : mine) c.y = local_row(c.y);
        local_->set_cells(mine);
    });
    valid_ = 0;
    ghost_known_ = false;
    agree(comm_, rank_, written);
}

std::vector<Cell> DistributedEngine::live_cells_in(const Box& wanted) const {
    const Box box = intersect(wanted, extent());
    if (box.empty()) return {};
    const std::int64_t a = std::max(box.y, y0_), b = std::min(box.bottom(), y0_ + rows_);
    std::vector<Cell> mine;
    const Outcome listed = attempt([&] {
        if (a >= b) return;
        mine = local_->live_cells_in(Box{box.x, local_row(a), box.width, b - a});
        for (Cell& c : mine) c.y = c.y - top_ + y0_;
    });
    agree(comm_, rank_, listed);
    std::int64_t n = static_cast<std::int64_t>(mine.size());
    std::vector<std::int64_t> counts(rank_ == 0 ? static_cast<std::size_t>(layout_.ranks) : 1);
    MPI_Gather(&n, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, 0, comm_);
    if (rank_ != 0) {
        if (n > 0) send_bytes(comm_, mine.data(), mine.size() * sizeof(Cell), 0, kGather);
        return {};
    }
    // Bands are in row order and each rank's cells are sorted: rank order keeps (y, x) order.
    std::int64_t total = 0;
    for (std::int64_t c : counts) total += c;
    std::vector<Cell> out;
    out.reserve(static_cast<std::size_t>(total));
    out.insert(out.end(), mine.begin(), mine.end());
    for (int r = 1; r < layout_.ranks; ++r) {
        if (counts[r] == 0) continue;
        const std::size_t at = out.size();
        out.resize(at + static_cast<std::size_t>(counts[r]));
        recv_bytes(comm_, out.data() + at, static_cast<std::size_t>(counts[r]) * sizeof(Cell), r, kGather);
    }
    return out;
}

void DistributedEngine::write_owned_rows_packed(std::int64_t y, std::int64_t rows, const std::uint64_t* words) {
    const Outcome written = attempt([&] {
        if (rows == 0) return;
        if (rows < 0 || y < y0_ || y + rows > y0_ + rows_) throw std::out_of_range("rows outside this rank's band");
        local_->write_rows_packed(local_row(y), rows, words);
    });
    valid_ = 0;
    ghost_known_ = false;
    agree(comm_, rank_, written);
}

void DistributedEngine::fill_owned_rows(const std::function<void(std::int64_t, std::int64_t, std::uint64_t*)>& read) {
    const Outcome filled = attempt([&] {
        if (rows_ == 0) return;
        std::vector<std::uint64_t> words(static_cast<std::size_t>(rows_ * words_per_row_));
        read(y0_, rows_, words.data());
        local_->write_rows_packed(local_row(y0_), rows_, words.data());
    });
    valid_ = 0;
    ghost_known_ = false;
    agree(comm_, rank_, filled);
}

void DistributedEngine::read_rows_packed(std::int64_t y, std::int64_t rows, std::uint64_t* words) const {
    if (y < 0 || rows < 0 || y > spec_.height - rows) throw std::out_of_range("rows outside the board");
    if (rows == 0) return;
    const std::int64_t a = std::max(y, y0_), b = std::min(y + rows, y0_ + rows_);
    std::vector<std::uint64_t> part;
    const Outcome read = attempt([&] {
        if (a >= b) return;
        if (rank_ == 0) {
            local_->read_rows_packed(local_row(a), b - a, words + (a - y) * words_per_row_);
        } else {
            part.resize(static_cast<std::size_t>((b - a) * words_per_row_));
            local_->read_rows_packed(local_row(a), b - a, part.data());
        }
    });
    agree(comm_, rank_, read);
    if (rank_ == 0) {
        for (int r = 1; r < layout_.active; ++r) {
            const std::int64_t ra = std::max(y, layout_.first_row(r));
            const std::int64_t rb = std::min(y + rows, layout_.first_row(r) + layout_.rows(r));
            if (ra < rb)
                recv_bytes(comm_, words + (ra - y) * words_per_row_,
                           static_cast<std::size_t>((rb - ra) * words_per_row_) * 8, r, kGather);
        }
    } else if (a < b) {
        send_bytes(comm_, part.data(), part.size() * 8, 0, kGather);
    }
}

void DistributedEngine::read_owned_rows_packed(std::int64_t y, std::int64_t rows, std::uint64_t* words) const {
    if (rows == 0) return;
    if (rows < 0 || y < y0_ || y + rows > y0_ + rows_) throw std::out_of_range("rows outside this rank's band");
    local_->read_rows_packed(local_row(y), rows, words);
}

EngineDescription DistributedEngine::describe() const {
    EngineDescription d = local_ ? local_->describe() : Engine::describe();
    d.name = name();
    d.backend = "mpi";
    d.properties.emplace_back("ranks", static_cast<std::int64_t>(layout_.ranks));
    d.properties.emplace_back("rank", static_cast<std::int64_t>(rank_));
    d.properties.emplace_back("rows", std::to_string(y0_) + ".." + std::to_string(y0_ + rows_ - 1));
    d.properties.emplace_back("ghost rows", ghost_);
    d.properties.emplace_back("exchange", std::string(dist_.packed ? "bits" : "bytes"));
    // Whether each exchange travels while the band's interior computes (step_and_exchange).
    d.properties.emplace_back("exchange overlapped", dist_.packed && dist_.overlap);
    return d;
}

}  // namespace tilelife::mpi
