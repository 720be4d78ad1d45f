// The distributed engine: one bounded board split into bands of rows, one band per MPI rank, each
// band run by an ordinary engine of the registry (cpu:bitpacked, opencl:bitpacked, ...) with ghost
// rows that are exchanged with the neighbouring ranks every `ghost_rows` generations.
// Design, measurements and the scaling model: docs/distributed.md.
//
// Two ways to drive it:
// - SPMD: every rank of the communicator makes the same calls in the same order (DistributedEngine).
//   Bulk data lives on rank 0: write_region/set_cells take their cells from rank 0 (the other ranks'
//   arguments are ignored) and scatter them; read_region/live_cells_in gather into rank 0 (the other
//   ranks get nothing). Failures on any rank are agreed on: every rank throws the same error (the
//   failing rank's message), so no rank is left waiting in a collective call.
// - Led: rank 0 alone holds an Engine (lead()) and the other ranks run follow(), which repeats
//   every call of rank 0 on their part. The command line uses this: only rank 0 parses, reads
//   the pattern, prints and writes files.
#pragma once
#include <mpi.h>

#include <functional>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tilelife/board.hpp"
#include "tilelife/engine.hpp"

namespace tilelife::mpi {

struct DistributedOptions {
    // Ghost rows on each side of a band, and so the generations between two exchanges. 0: chosen
    // from the engine (a multiple of an OpenCL engine's generations per launch). Always capped by
    // the thinnest band.
    std::int64_t ghost_rows = 0;
    // Exchange rows as bits (Engine::read_rows_packed/write_rows_packed); false moves them through
    // the byte regions (kept to measure what the packed calls save).
    bool packed = true;
    // A round that uses up the ghost rows ends with the next exchange, overlapped with its step
    // (Engine::step_reading_rows: the edge rows first, sent while the rest computes); false
    // exchanges at the start of the next step, after the whole step (kept to measure the overlap).
    // Only with packed rows.
    bool overlap = true;
};

// Rows of the board owned by each rank: `active` ranks (min(ranks, height)) own bands whose heights
// differ by at most one; the others own none.
struct Layout {
    std::int64_t width = 0, height = 0;
    int ranks = 1, active = 1;
    std::int64_t first_row(int rank) const;  // rank's first owned row (height for inactive ranks)
    std::int64_t rows(int rank) const;       // rows rank owns
    int owner(std::int64_t y) const;         // rank owning row y
};
Layout make_layout(std::int64_t width, std::int64_t height, int ranks);

// Time one rank spent in the parts of its steps (seconds, since creation).
struct ExchangeStats {
    std::int64_t exchanges = 0;
    double read_seconds = 0;   // edge rows out of the engine (for a device engine: waits for its kernels)
    double mpi_seconds = 0;    // sends and receives, waiting for the neighbours included
    double write_seconds = 0;  // ghost rows into the engine
    double step_seconds = 0;   // the engine's step() calls (for a device engine: enqueueing)
    double agree_seconds = 0;  // agreeing that no rank failed (and on the interrupt flag)
    std::int64_t agreements = 0;  // step()'s agreements (every few rounds, DistributedEngine::step)
    // Exchanges overlapped with a step (also counted in `exchanges`): their reads are inside
    // step_seconds (until the edge rows were read), their messages and writes as above.
    std::int64_t overlapped = 0;
    std::int64_t bytes_sent = 0;
};

struct Outcome;  // mpi/support.hpp

class DistributedEngine final : public Engine {
public:
    // Collective. `inner` names a bounded engine of the registry; `options.device` empty gives rank r
    // the device (node-local rank) mod (the backend's GPUs, or its devices when it has no GPU);
    // "a,b,c" gives rank r the entry r mod 3; anything else is used by every rank. For CPU engines,
    // threads = 0 means the node's cores divided by the ranks on the node.
    DistributedEngine(std::string_view inner, const BoardSpec& spec, const EngineOptions& options, MPI_Comm comm,
                      const DistributedOptions& distributed = {});
    ~DistributedEngine() override;

    std::string name() const override { return "mpi:" + inner_name_; }
    Topology topology() const override { return spec_.topology; }
    Rule rule() const override { return spec_.rule; }
    Box extent() const override { return Box{0, 0, spec_.width, spec_.height}; }

    // Collective (see the top of this file).
    void write_region(const Box& box, const std::uint8_t* cells) override;
    void read_region(const Box& box, std::uint8_t* cells) const override;
    void set_cells(const std::vector<Cell>& cells) override;
    std::vector<Cell> live_cells_in(const Box& box) const override;
    void step(std::int64_t generations) override;
    std::int64_t population() const override;  // on every rank
    // Collective: rows gathered into rank 0's `words` as bits (what the output writers read, a band
    // at a time: rank 0 holds the band asked for, never the board). Other ranks pass null.
    void read_rows_packed(std::int64_t y, std::int64_t rows, std::uint64_t* words) const override;
    std::int64_t generation() const override { return generation_; }
    // Local: this rank's engine's description, with the layout in properties.
    EngineDescription describe() const override;

    // ---- rank-local access to the owned band, for boards too large to pass through rank 0 ----
    int rank() const { return rank_; }
    int ranks() const { return layout_.ranks; }
    const Layout& layout() const { return layout_; }
    std::int64_t ghost_rows() const { return ghost_; }
    std::int64_t owned_first() const { return y0_; }  // this rank's rows [owned_first, owned_first + owned_rows)
    std::int64_t owned_rows() const { return rows_; }
    // Collective: each rank writes rows [y, y + rows) of its own band (global row numbers; rows may
    // be 0), packed as in Engine::write_rows_packed.
    void write_owned_rows_packed(std::int64_t y, std::int64_t rows, const std::uint64_t* words);
    // Collective: each rank fills its own band with `read(first row, rows, words)` (global row
    // numbers; not called on ranks without rows): a board that no rank holds whole
    // (read_board_rows). Failures are agreed as in the other collective calls.
    void fill_owned_rows(const std::function<void(std::int64_t, std::int64_t, std::uint64_t*)>& read);
    // Local: reads rows of this rank's own band.
    void read_owned_rows_packed(std::int64_t y, std::int64_t rows, std::uint64_t* words) const;
    // Collective: exchanges ghost rows now (step() does it when needed; for measuring).
    void exchange();
    const ExchangeStats& stats() const { return stats_; }
    const Engine* local_engine() const { return local_.get(); }  // null on ranks without rows

private:
    void exchange_now(Outcome& failed);
    void step_and_exchange(std::int64_t generations, Outcome& failed);
    std::int64_t local_row(std::int64_t y) const { return y - y0_ + top_; }

    MPI_Comm comm_ = MPI_COMM_NULL;
    std::string inner_name_;
    BoardSpec spec_;
    DistributedOptions dist_;
    Layout layout_;
    int rank_ = 0;
    std::int64_t y0_ = 0, rows_ = 0;  // owned rows
    std::int64_t ghost_ = 0;          // ghost rows per exchange (and generations between exchanges)
    std::int64_t top_ = 0, bottom_ = 0;  // ghost rows above and below the band in the local engine
    int north_ = -1, south_ = -1;        // neighbour ranks (-1: none, at a plane's edge)
    std::int64_t words_per_row_ = 0;
    std::unique_ptr<Engine> local_;
    std::int64_t valid_ = 0;  // generations the ghost rows stay exact for (0: exchange before stepping)
    // The ghost rows on the device are those received in the last exchange, still where they arrived
    // (no step or write since): population() counts them there instead of reading them back.
    bool ghost_known_ = false;
    const std::uint64_t* ghost_words_[2] = {nullptr, nullptr};
    std::int64_t generation_ = 0;
    int agree_in_ = 1;  // step(): rounds until the next agreement (the same on every rank)
    const std::atomic<bool>* interrupt_ = nullptr;  // EngineOptions::interrupt (step() stops when any rank's is set)
    mutable ExchangeStats stats_;
    std::vector<std::uint64_t> send_top_, send_bottom_, recv_top_, recv_bottom_;
    std::vector<std::uint8_t> bytes_out_top_, bytes_out_bottom_, bytes_in_top_, bytes_in_bottom_;  // !packed
};

// The ghost rows DistributedOptions::ghost_rows = 0 stands for (before the thinnest band caps them).
std::int64_t default_ghost_rows(std::string_view inner, const EngineOptions& options);

// The device a rank uses (DistributedEngine's constructor says how), from its rank on its node.
std::string device_for_rank(const std::string& backend, const std::string& given, int local_rank);
// This rank's position among the ranks of its node, and their number (collective).
std::pair<int, int> node_rank(MPI_Comm comm);

// ---- led mode: rank 0 drives, the other ranks follow ----

// Rank 0: creates the engine on every rank (the others must be in follow()) and returns an Engine
// whose calls are repeated on every rank. Throws as DistributedEngine does (on rank 0; the
// followers go on waiting for the next command).
std::unique_ptr<Engine> lead(std::string_view inner, const BoardSpec& spec, const EngineOptions& options, MPI_Comm comm,
                             const DistributedOptions& distributed = {});
// Rank 0: fills a board read in bands (BoardRequest::load_rows): each rank of the engine lead()
// made reads its own band (read_board_rows); any other engine gets the whole board from here.
// Returns the whole board's count.
BandCount fill_rows(Engine& engine, const BandedSource& source);
// Ranks other than 0: serve rank 0's engines until it calls release(); returns release's code.
int follow(MPI_Comm comm);
// Rank 0: ends the followers' follow() with `code` (after every led engine is gone).
void release(MPI_Comm comm, int code);

}  // namespace tilelife::mpi
