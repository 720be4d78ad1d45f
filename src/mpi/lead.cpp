// Led mode (distributed.hpp): rank 0 announces each call of its engine; the other ranks, in
// follow(), make the same call on their part of the DistributedEngine.
#include <chrono>
#include <cstring>
#include <map>
#include <thread>

#include "mpi/distributed.hpp"
#include "mpi/support.hpp"
#include "tilelife/board.hpp"

namespace tilelife::mpi {
namespace {

enum Op : std::int64_t { create = 1, destroy, write, read, set, list, step, population, release_all, read_packed, fill };

// One announcement: the operation, the engine it is for, and up to four numbers (a box, a count).
struct Command {
    std::int64_t op = 0, id = 0;
    std::int64_t a[4] = {0, 0, 0, 0};
};

// Announcements are non-blocking broadcasts waited on with short sleeps: a follower waiting while
// rank 0 reads a pattern or writes a file then leaves the CPU to it (a blocking broadcast would
// spin on a core). Both sides must use the non-blocking form (MPI does not match the two).
void announce(MPI_Comm comm, Command& c) {
    MPI_Request r;
    MPI_Ibcast(&c, 6, MPI_INT64_T, 0, comm, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
}

Command next_command(MPI_Comm comm) {
    Command c;
    MPI_Request r;
    MPI_Ibcast(&c, 6, MPI_INT64_T, 0, comm, &r);
    auto pause = std::chrono::microseconds(20);
    for (;;) {
        int done = 0;
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
        if (done) return c;
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::microseconds(2000));
    }
}

// ---- the create command's arguments as bytes ----
class Writer {
public:
    void num(std::int64_t v) { bytes_.append(reinterpret_cast<const char*>(&v), sizeof v); }
    void text(const std::string& s) {
        num(static_cast<std::int64_t>(s.size()));
        bytes_ += s;
    }
    std::string& bytes() { return bytes_; }

private:
    std::string bytes_;
};

class Reader {
public:
    explicit Reader(const std::string& b) : bytes_(b) {}
    std::int64_t num() {
        std::int64_t v = 0;
        std::memcpy(&v, bytes_.data() + at_, sizeof v);
        at_ += sizeof v;
        return v;
    }
    std::string text() {
        const auto n = static_cast<std::size_t>(num());
        std::string s = bytes_.substr(at_, n);
        at_ += n;
        return s;
    }

private:
    const std::string& bytes_;
    std::size_t at_ = 0;
};

struct CreateArgs {
    std::string inner;
    BoardSpec spec;
    EngineOptions options;
    DistributedOptions distributed;
};

std::string encode(const CreateArgs& c) {
    Writer w;
    w.text(c.inner);
    w.num(c.spec.width);
    w.num(c.spec.height);
    w.num(static_cast<std::int64_t>(c.spec.topology));
    w.num(c.spec.rule.birth);
    w.num(c.spec.rule.survival);
    w.text(c.options.device);
    w.num(c.options.wg_width);
    w.num(c.options.wg_height);
    w.num(c.options.threads);
    w.num(c.options.steps_per_launch);
    w.num(c.options.max_bytes);
    w.num(c.options.store_bytes);
    w.num(static_cast<std::int64_t>(c.options.params.size()));
    for (const auto& [k, v] : c.options.params) {
        w.text(k);
        w.text(v);
    }
    w.num(c.distributed.ghost_rows);
    w.num(c.distributed.packed ? 1 : 0);
    return std::move(w.bytes());
}

// A board read in bands: what every rank needs to read its own (read_board_rows).
std::string encode(const BandedSource& b) {
    Writer w;
    w.text(b.name);
    w.num(b.spec.width);
    w.num(b.spec.height);
    w.num(static_cast<std::int64_t>(b.spec.topology));
    w.num(b.spec.rule.birth);
    w.num(b.spec.rule.survival);
    w.num(b.offset.x);
    w.num(b.offset.y);
    w.num(b.limits.max_cells);
    w.num(b.limits.max_file_bytes);
    return std::move(w.bytes());
}

BandedSource decode_banded(const std::string& bytes) {
    Reader r(bytes);
    BandedSource b;
    b.name = r.text();
    b.spec.width = r.num();
    b.spec.height = r.num();
    b.spec.topology = static_cast<Topology>(r.num());
    b.spec.rule.birth = static_cast<std::uint16_t>(r.num());
    b.spec.rule.survival = static_cast<std::uint16_t>(r.num());
    b.offset.x = r.num();
    b.offset.y = r.num();
    b.limits.max_cells = r.num();
    b.limits.max_file_bytes = r.num();
    return b;
}

// Every rank reads its band; rank 0 gets the whole board's count (sum and bounding box of the bands').
BandCount fill_from(DistributedEngine& e, const BandedSource& source, MPI_Comm comm) {
    BandCount mine;
    e.fill_owned_rows([&](std::int64_t y, std::int64_t rows, std::uint64_t* words) {
        mine = read_board_rows(source, y, rows, words);
    });
    const Box& b = mine.bounding_box;
    const bool empty = mine.population == 0;
    std::int64_t lo[2] = {empty ? INT64_MAX : b.x, empty ? INT64_MAX : b.y};
    std::int64_t hi[2] = {empty ? INT64_MIN : b.right() - 1, empty ? INT64_MIN : b.bottom() - 1};
    std::int64_t total = 0, lo_all[2] = {0, 0}, hi_all[2] = {0, 0};
    MPI_Reduce(&mine.population, &total, 1, MPI_INT64_T, MPI_SUM, 0, comm);
    MPI_Reduce(lo, lo_all, 2, MPI_INT64_T, MPI_MIN, 0, comm);
    MPI_Reduce(hi, hi_all, 2, MPI_INT64_T, MPI_MAX, 0, comm);
    BandCount all;
    all.population = total;
    if (total > 0) all.bounding_box = Box{lo_all[0], lo_all[1], hi_all[0] - lo_all[0] + 1, hi_all[1] - lo_all[1] + 1};
    return all;
}

CreateArgs decode(const std::string& bytes) {
    Reader r(bytes);
    CreateArgs c;
    c.inner = r.text();
    c.spec.width = r.num();
    c.spec.height = r.num();
    c.spec.topology = static_cast<Topology>(r.num());
    c.spec.rule.birth = static_cast<std::uint16_t>(r.num());
    c.spec.rule.survival = static_cast<std::uint16_t>(r.num());
    c.options.device = r.text();
    c.options.wg_width = static_cast<int>(r.num());
    c.options.wg_height = static_cast<int>(r.num());
    c.options.threads = static_cast<int>(r.num());
    c.options.steps_per_launch = static_cast<int>(r.num());
    c.options.max_bytes = r.num();
    c.options.store_bytes = r.num();
    for (std::int64_t n = r.num(); n > 0; --n) {
        std::string k = r.text();
        c.options.params[k] = r.text();
    }
    c.distributed.ghost_rows = r.num();
    c.distributed.packed = r.num() != 0;
    return c;
}

// Rank 0's engine: announces each collective call, then makes it on its own part.
class Led final : public Engine {
public:
    Led(MPI_Comm comm, std::int64_t id, std::unique_ptr<DistributedEngine> engine)
        : comm_(comm), id_(id), engine_(std::move(engine)) {}
    ~Led() override {
        Command c{destroy, id_};
        announce(comm_, c);
    }

    std::string name() const override { return engine_->name(); }
    Topology topology() const override { return engine_->topology(); }
    Rule rule() const override { return engine_->rule(); }
    Box extent() const override { return engine_->extent(); }
    std::int64_t generation() const override { return engine_->generation(); }
    EngineDescription describe() const override { return engine_->describe(); }

    void write_region(const Box& box, const std::uint8_t* cells) override {
        send(write, box);
        engine_->write_region(box, cells);
    }
    void read_region(const Box& box, std::uint8_t* cells) const override {
        send(read, box);
        engine_->read_region(box, cells);
    }
    void set_cells(const std::vector<Cell>& cells) override {
        send(set, Box{});
        engine_->set_cells(cells);
    }
    std::vector<Cell> live_cells_in(const Box& box) const override {
        send(list, box);
        return engine_->live_cells_in(box);
    }
    void step(std::int64_t generations) override {
        if (generations <= 0) return;
        send(Op::step, Box{generations, 0, 0, 0});
        engine_->step(generations);
    }
    std::int64_t population() const override {
        send(Op::population, Box{});
        return engine_->population();
    }
    void read_rows_packed(std::int64_t y, std::int64_t rows, std::uint64_t* words) const override {
        send(read_packed, Box{0, y, 0, rows});
        engine_->read_rows_packed(y, rows, words);
    }

    BandCount fill(const BandedSource& source) {
        const std::string args = encode(source);
        Command c{Op::fill, id_, {static_cast<std::int64_t>(args.size()), 0, 0, 0}};
        announce(comm_, c);
        MPI_Bcast(const_cast<char*>(args.data()), static_cast<int>(args.size()), MPI_CHAR, 0, comm_);
        return fill_from(*engine_, source, comm_);
    }

private:
    void send(Op op, const Box& box) const {
        Command c{op, id_, {box.x, box.y, box.width, box.height}};
        announce(comm_, c);
    }

    MPI_Comm comm_;
    std::int64_t id_;
    std::unique_ptr<DistributedEngine> engine_;
};

std::int64_t g_next_id = 1;

}  // namespace

std::unique_ptr<Engine> lead(std::string_view inner, const BoardSpec& spec, const EngineOptions& options, MPI_Comm comm,
                             const DistributedOptions& distributed) {
    const std::string args = encode(CreateArgs{std::string(inner), spec, options, distributed});
    Command c{create, g_next_id++, {static_cast<std::int64_t>(args.size()), 0, 0, 0}};
    announce(comm, c);
    MPI_Bcast(const_cast<char*>(args.data()), static_cast<int>(args.size()), MPI_CHAR, 0, comm);
    auto engine = std::make_unique<DistributedEngine>(inner, spec, options, comm, distributed);
    return std::make_unique<Led>(comm, c.id, std::move(engine));
}

BandCount fill_rows(Engine& engine, const BandedSource& source) {
    if (auto* led = dynamic_cast<Led*>(&engine)) return led->fill(source);
    // Not split across ranks: this process reads the whole board.
    const std::int64_t nw = (source.spec.width + 63) / 64;
    std::vector<std::uint64_t> words(static_cast<std::size_t>(nw * source.spec.height));
    const BandCount all = read_board_rows(source, 0, source.spec.height, words.data());
    engine.write_rows_packed(0, source.spec.height, words.data());
    return all;
}

void release(MPI_Comm comm, int code) {
    Command c{release_all, 0, {code, 0, 0, 0}};
    announce(comm, c);
}

int follow(MPI_Comm comm) {
    std::map<std::int64_t, std::unique_ptr<DistributedEngine>> engines;
    for (;;) {
        const Command c = next_command(comm);
        if (c.op == release_all) return static_cast<int>(c.a[0]);
        if (c.op == create) {
            std::string bytes(static_cast<std::size_t>(c.a[0]), '\0');
            MPI_Bcast(bytes.data(), static_cast<int>(bytes.size()), MPI_CHAR, 0, comm);
            const CreateArgs args = decode(bytes);
            try {
                engines[c.id] = std::make_unique<DistributedEngine>(args.inner, args.spec, args.options, comm,
                                                                    args.distributed);
            } catch (const std::exception&) {
                // Every rank failed alike (the engine agrees on failures); rank 0 reports it.
            }
            continue;
        }
        if (c.op == fill) {
            std::string bytes(static_cast<std::size_t>(c.a[0]), '\0');
            MPI_Bcast(bytes.data(), static_cast<int>(bytes.size()), MPI_CHAR, 0, comm);
            const auto it = engines.find(c.id);
            if (it == engines.end()) continue;
            try {
                (void)fill_from(*it->second, decode_banded(bytes), comm);
            } catch (const std::exception&) {
                // Agreed on every rank; rank 0 reports it.
            }
            continue;
        }
        if (c.op == destroy) {
            engines.erase(c.id);
            continue;
        }
        const auto it = engines.find(c.id);
        if (it == engines.end()) continue;  // cannot happen: rank 0 has no engine without ours
        DistributedEngine& e = *it->second;
        const Box box{c.a[0], c.a[1], c.a[2], c.a[3]};
        try {
            switch (c.op) {
                case write: e.write_region(box, nullptr); break;
                case read: e.read_region(box, nullptr); break;
                case set: e.set_cells({}); break;
                case list: (void)e.live_cells_in(box); break;
                case step: e.step(c.a[0]); break;
                case population: (void)e.population(); break;
                case read_packed: e.read_rows_packed(c.a[1], c.a[3], nullptr); break;
                default: break;
            }
        } catch (const std::exception&) {
            // The same error was thrown on every rank; rank 0 reports it.
        }
    }
}

}  // namespace tilelife::mpi
