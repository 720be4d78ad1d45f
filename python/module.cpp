// tilelife._tilelife: the C++ library for Python (pybind11). Boards, patterns, the engine registry
// and errors; the pure-Python package (tilelife/__init__.py) adds Golly's verbs on top.
//
// Stepping releases the GIL. Ctrl+C during step(): while the main thread steps, a forwarding SIGINT
// handler raises the board's interrupt flag (EngineOptions::interrupt, which engines such as the
// unbounded board poll) and then calls the handler it replaced (Python's, which only records the
// signal). Engines that do not poll are stepped in chunks of growing size (a few tens of
// milliseconds each) with the flag checked between chunks. Once the flag is up, the step stops at a
// generation boundary and Python's handler runs (KeyboardInterrupt by default); generation says how
// far the board got.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tilelife/board_setup.hpp"
#include "tilelife/builtin.hpp"
#include "tilelife/engine.hpp"
#include "tilelife/error.hpp"
#include "tilelife/memory.hpp"
#include "tilelife/pattern.hpp"
#include "tilelife/rule.hpp"

namespace py = pybind11;
using namespace tilelife;

namespace {

static_assert(sizeof(Cell) == 2 * sizeof(std::int64_t) && offsetof(Cell, x) == 0 && offsetof(Cell, y) == 8,
              "cell lists are handed to NumPy as (N, 2) int64 arrays without copying");

// ---------------------------------------------------------------------------------------------
// Errors: tilelife.Error, with InputError (also a ValueError) and RuntimeError (also Python's).

PyObject* g_error = nullptr;
PyObject* g_input_error = nullptr;
PyObject* g_runtime_error = nullptr;

PyObject* new_exception(py::module_& m, const char* name, py::tuple bases, const char* doc) {
    const std::string qualified = std::string("tilelife.") + name;
    PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
    if (!type) throw py::error_already_set();
    m.add_object(name, py::handle(type));
    return type;
}

// ---------------------------------------------------------------------------------------------
// Keyword arguments shared by Board(), Board.load() and Board.parse().

// The library's default (tilelife/memory.hpp): half of what the process may use, as the CLI's.
std::int64_t default_memory_budget() { return memory_limits().budget(); }

ReadLimits read_limits_for(std::int64_t budget) {  // as the CLI's: a file's cells fit the budget
    ReadLimits limits;
    if (budget <= 0) return limits;
    limits.max_cells = std::clamp<std::int64_t>(budget / 64, 1 << 20, limits.max_cells);
    limits.max_file_bytes = std::clamp<std::int64_t>(budget / 8, 1 << 24, limits.max_file_bytes);
    return limits;
}

struct Settings {
    std::optional<std::string> rule;
    std::optional<Topology> topology;
    std::optional<std::pair<std::int64_t, std::int64_t>> size;
    std::optional<std::string> engine;  // "backend:kernel", an alias, or a backend ("cpu", "opencl")
    EngineOptions options;
    std::vector<std::pair<std::string, std::string>> params;  // as given; names matched to the engine's later
};

std::pair<std::int64_t, std::int64_t> size_of(py::handle v, const char* what) {
    if (py::isinstance<py::str>(v)) {
        const std::string text = v.cast<std::string>();
        const auto x = text.find_first_of("xX");
        try {
            std::size_t a = 0, b = 0;
            if (x == std::string::npos) throw std::invalid_argument(text);
            const std::int64_t w = std::stoll(text.substr(0, x), &a), h = std::stoll(text.substr(x + 1), &b);
            if (a != x || b != text.size() - x - 1) throw std::invalid_argument(text);
            return {w, h};
        } catch (const std::logic_error&) {
            throw InputError(std::string(what) + " '" + text + "' is not WxH (e.g. 1024x768)");
        }
    }
    if (py::isinstance<py::sequence>(v) && py::len(v) == 2) {
        auto seq = py::reinterpret_borrow<py::sequence>(v);
        return {py::cast<std::int64_t>(seq[0]), py::cast<std::int64_t>(seq[1])};
    }
    throw py::type_error(std::string(what) + " must be (width, height) or 'WxH'");
}

std::string param_text(const std::string& name, py::handle v) {
    if (py::isinstance<py::bool_>(v))
        throw py::type_error("engine parameter " + name + " takes a string or a whole number, not a bool");
    if (py::isinstance<py::str>(v)) return v.cast<std::string>();
    if (py::isinstance<py::int_>(v)) return std::to_string(v.cast<std::int64_t>());
    throw py::type_error("engine parameter " + name + " takes a string or a whole number");
}

Settings settings_from(const py::kwargs& kw, bool rule_allowed) {
    Settings s;
    s.options.max_bytes = default_memory_budget();
    for (auto [k, v] : kw) {
        const std::string key = py::cast<std::string>(k);
        if (key == "rule" && rule_allowed) {
            if (!v.is_none()) s.rule = py::cast<std::string>(v);
        } else if (key == "topology") {
            if (v.is_none()) continue;
            const std::string t = py::cast<std::string>(v);
            s.topology = parse_topology(t);
            if (!s.topology) throw InputError("topology '" + t + "' is not unbounded, torus or plane");
        } else if (key == "size") {
            if (!v.is_none()) s.size = size_of(v, "size");
        } else if (key == "engine") {
            if (!v.is_none()) s.engine = py::cast<std::string>(v);
        } else if (key == "device") {
            if (!v.is_none()) s.options.device = py::isinstance<py::int_>(v) ? std::to_string(v.cast<int>()) : py::cast<std::string>(v);
        } else if (key == "threads") {
            s.options.threads = py::cast<int>(v);
            if (s.options.threads < 0) throw InputError("threads must be 0 (the engine's choice) or more");
        } else if (key == "wg") {
            if (v.is_none()) continue;
            const auto [w, h] = size_of(v, "wg");
            if (w < 1 || h < 1 || w > 4096 || h > 4096) throw InputError("wg must be two sizes from 1 to 4096");
            s.options.wg_width = static_cast<int>(w), s.options.wg_height = static_cast<int>(h);
        } else if (key == "steps_per_launch") {
            s.options.steps_per_launch = py::cast<int>(v);
            if (s.options.steps_per_launch < 0) throw InputError("steps_per_launch must be 0 (the default) or more");
        } else if (key == "max_bytes") {
            s.options.max_bytes = v.is_none() ? default_memory_budget() : py::cast<std::int64_t>(v);
            if (s.options.max_bytes < 0) throw InputError("max_bytes must be 0 (no budget) or more");
        } else if (key == "params") {
            if (v.is_none()) continue;
            for (auto [pk, pv] : py::cast<py::dict>(v)) {
                const std::string name = py::cast<std::string>(pk);
                s.params.emplace_back(name, param_text(name, pv));
            }
        } else {
            s.params.emplace_back(key, param_text(key, v));
        }
    }
    return s;
}

// The engine a board gets: the named one, a backend's default for the topology, or the CPU's.
std::string engine_for(const Settings& s, Topology topology) {
    if (!s.engine) return default_engine("cpu", topology);
    if (s.engine->find(':') == std::string::npos) return default_engine(*s.engine, topology);
    if (const auto info = find_engine(*s.engine)) return info->name;
    return *s.engine;  // create_engine names what exists
}

// Keyword names are Python identifiers: rows_per_item=... reaches a parameter declared "rows-per-item".
EngineOptions options_for(const Settings& s, const std::string& engine) {
    EngineOptions o = s.options;
    const auto info = find_engine(engine);
    for (auto [name, value] : s.params) {
        if (info) {
            const auto declared = [&](const std::string& n) {
                return std::any_of(info->parameters.begin(), info->parameters.end(),
                                   [&](const ParameterSpec& p) { return p.name == n; });
            };
            std::string dashed = name;
            std::replace(dashed.begin(), dashed.end(), '_', '-');
            if (!declared(name) && declared(dashed)) name = dashed;
        }
        o.params[name] = value;
    }
    return o;
}

// ---------------------------------------------------------------------------------------------
// Ctrl+C while stepping.

std::atomic<std::atomic<bool>*> g_sigint_target{nullptr};
std::atomic<unsigned> g_sigints{0};  // SIGINTs seen by the forwarding handler
struct sigaction g_previous_sigint;  // written only while no forwarding handler is installed

extern "C" void forward_sigint(int sig, siginfo_t* info, void* context) {
    g_sigints.fetch_add(1);
    if (std::atomic<bool>* flag = g_sigint_target.load()) flag->store(true);
    if (g_previous_sigint.sa_flags & SA_SIGINFO) {
        g_previous_sigint.sa_sigaction(sig, info, context);
    } else if (g_previous_sigint.sa_handler != SIG_DFL && g_previous_sigint.sa_handler != SIG_IGN) {
        g_previous_sigint.sa_handler(sig);
    }
}

unsigned long g_main_thread = 0;  // threading.main_thread().ident

// Installs the forwarding handler for the duration of one step, when the main thread steps and
// SIGINT has a handler (Python's, normally): with SIG_DFL or SIG_IGN the signal keeps its meaning.
class SigintForwarding {
public:
    explicit SigintForwarding(std::atomic<bool>* flag) {
        if (PyThread_get_thread_ident() != g_main_thread) return;
        struct sigaction current {};
        if (sigaction(SIGINT, nullptr, &current) != 0) return;
        if (!(current.sa_flags & SA_SIGINFO) && (current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN)) return;
        g_previous_sigint = current;
        g_sigint_target.store(flag);
        struct sigaction mine {};
        mine.sa_sigaction = forward_sigint;
        mine.sa_mask = current.sa_mask;
        mine.sa_flags = (current.sa_flags & ~SA_RESETHAND) | SA_SIGINFO;
        seen_ = g_sigints.load();
        active_ = sigaction(SIGINT, &mine, nullptr) == 0;
        if (!active_) g_sigint_target.store(nullptr);
    }
    // Whether a SIGINT came since installation (it may have come while the board was busy in
    // another thread, and the flag been cleared since).
    bool signalled() const { return active_ && g_sigints.load() != seen_; }
    ~SigintForwarding() {
        if (!active_) return;
        sigaction(SIGINT, &g_previous_sigint, nullptr);
        g_sigint_target.store(nullptr);
    }
    bool active() const { return active_; }
    SigintForwarding(const SigintForwarding&) = delete;
    SigintForwarding& operator=(const SigintForwarding&) = delete;

private:
    bool active_ = false;
    unsigned seen_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Boards.

using Clock = std::chrono::steady_clock;

py::tuple box_tuple(const Box& b) { return py::make_tuple(b.x, b.y, b.width, b.height); }

Box box_from(py::handle rect) {
    auto seq = py::cast<py::sequence>(rect);
    if (py::len(seq) != 4) throw py::type_error("a rectangle is (x, y, width, height)");
    const Box b{py::cast<std::int64_t>(seq[0]), py::cast<std::int64_t>(seq[1]), py::cast<std::int64_t>(seq[2]),
                py::cast<std::int64_t>(seq[3])};
    if (b.width < 0 || b.height < 0) throw InputError("a rectangle's width and height must be 0 or more");
    return b;
}

// (N, 2) int64 array over the vector's own memory (the capsule owns the vector).
py::array cells_array(std::vector<Cell>&& cells) {
    auto* owned = new std::vector<Cell>(std::move(cells));
    py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<Cell>*>(p); });
    const auto n = static_cast<py::ssize_t>(owned->size());
    return py::array_t<std::int64_t>({n, py::ssize_t{2}}, {py::ssize_t{sizeof(Cell)}, py::ssize_t{sizeof(std::int64_t)}},
                                     reinterpret_cast<const std::int64_t*>(owned->data()), owner);
}

// Cells from an (N, 2) array of integers, or Golly's flat list [x0, y0, x1, y1, ...].
std::vector<Cell> cells_from(py::handle obj) {
    py::module_ np = py::module_::import("numpy");
    py::array a = np.attr("asarray")(obj);
    if (a.size() == 0) return {};
    const char kind = a.dtype().kind();
    if (kind != 'i' && kind != 'u') throw py::type_error("cells must be integers (an (N, 2) array or a flat x, y list)");
    if (a.ndim() == 1) {
        if (a.size() % 2) throw InputError("a flat cell list has an even number of coordinates (x0, y0, x1, y1, ...)");
        a = a.attr("reshape")(-1, 2);
    }
    if (a.ndim() != 2 || a.shape(1) != 2) throw InputError("cells must be an (N, 2) array of x, y coordinates");
    auto c = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(a);
    if (!c) throw py::error_already_set();
    std::vector<Cell> out(static_cast<std::size_t>(c.shape(0)));
    std::memcpy(static_cast<void*>(out.data()), c.data(), out.size() * sizeof(Cell));
    return out;
}

struct Board {
    std::unique_ptr<std::atomic<bool>> interrupt = std::make_unique<std::atomic<bool>>(false);
    std::unique_ptr<Engine> engine;
    BoardSpec spec;
    std::int64_t base_generation = 0;  // the pattern's own generation (#CXRLE Gen, macrocell #G)
    Cell golly_offset;                 // engine coordinate + offset = Golly's coordinate
    PatternMeta meta;                  // the loaded pattern's name, authors and comments, kept in saves
    std::string source;                // what it was loaded from (a .cells file's name when it has none)
    std::mutex mutex;                  // one call into the engine at a time (the GIL is released in them)
    std::int64_t chunk = 1;            // generations per engine call while Ctrl+C is watched (step())

    ~Board() { engine.reset(); }  // before the interrupt flag it points to

    bool bounded() const { return spec.topology != Topology::unbounded; }
    Box board_box() const { return Box{0, 0, spec.width, spec.height}; }

    // Runs f with the board locked; waits for another thread's call without holding the GIL.
    template <class F>
    auto locked(F&& f) {
        std::unique_lock lock(mutex, std::try_to_lock);
        if (!lock.owns_lock()) {
            py::gil_scoped_release release;
            lock.lock();
        }
        return f();
    }
    template <class F>
    auto locked_nogil(F&& f) {
        py::gil_scoped_release release;
        std::lock_guard lock(mutex);
        return f();
    }

    void check_inside(const Box& b, const char* what) const {
        if (!bounded() || b.empty()) return;
        if (b.x < 0 || b.y < 0 || b.right() > spec.width || b.bottom() > spec.height)
            throw InputError(std::string(what) + " (" + std::to_string(b.x) + ", " + std::to_string(b.y) + ", " +
                             std::to_string(b.width) + ", " + std::to_string(b.height) + ") is not inside the " +
                             std::to_string(spec.width) + "x" + std::to_string(spec.height) + " " +
                             std::string(to_string(spec.topology)) + " board (cells 0.." +
                             std::to_string(spec.width - 1) + ", 0.." + std::to_string(spec.height - 1) + ")");
    }
    void check_cells(const std::vector<Cell>& cells) const {
        if (!bounded()) return;
        for (const Cell& c : cells)
            if (c.x < 0 || c.y < 0 || c.x >= spec.width || c.y >= spec.height)
                throw InputError("cell (" + std::to_string(c.x) + ", " + std::to_string(c.y) + ") is outside the " +
                                 std::to_string(spec.width) + "x" + std::to_string(spec.height) + " " +
                                 std::string(to_string(spec.topology)) + " board (cells 0.." +
                                 std::to_string(spec.width - 1) + ", 0.." + std::to_string(spec.height - 1) + ")");
    }

    std::int64_t generation() { return base_generation + locked([&] { return engine->generation(); }); }
    std::int64_t population() { return locked([&] { return engine->population(); }); }

    void step(std::int64_t n) {
        if (n < 0) throw InputError("step takes a number of generations of 0 or more, not " + std::to_string(n));
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();
        std::int64_t left = n;
        while (left > 0) {
            SigintForwarding forwarding(interrupt.get());
            locked_nogil([&] {
                interrupt->store(false);
                const std::int64_t g0 = engine->generation();
                if (forwarding.signalled()) {  // while waiting for the board
                } else if (!forwarding.active()) {  // nothing can interrupt: one call
                    engine->step(left);
                } else {
                    // Chunks of about 25-100 ms: the interrupt is seen soon, and the calls add
                    // nothing measurable (a call can cost milliseconds: a multi-threaded engine wakes
                    // its threads). The size is learnt once per board, so repeated small steps are
                    // one call each.
                    std::int64_t done = 0;
                    while (done < left && !interrupt->load()) {
                        const std::int64_t k = std::min(chunk, left - done);
                        const auto t0 = Clock::now();
                        engine->step(k);
                        done = engine->generation() - g0;  // an engine that polls the flag may stop early
                        const auto took = Clock::now() - t0;
                        if (k == chunk && took < std::chrono::milliseconds(25))
                            chunk = std::min(chunk * (took < std::chrono::milliseconds(3) ? 8 : 2), std::int64_t{1} << 40);
                        if (took > std::chrono::milliseconds(100) && chunk > 1) chunk /= 2;
                    }
                }
                left -= engine->generation() - g0;
            });
            if (left > 0 && PyErr_CheckSignals() != 0) throw py::error_already_set();
            // A handler that did not raise: carry on with the rest.
        }
    }

    Box bounding_box() {
        const std::vector<Cell> cells = locked_nogil([&] { return engine->live_cells(); });
        return tilelife::bounding_box(cells);
    }

    py::array cells(py::object rect) {
        std::optional<Box> box;
        if (!rect.is_none()) box = box_from(rect);
        std::vector<Cell> out = locked_nogil([&] { return box ? engine->live_cells_in(*box) : engine->live_cells(); });
        return cells_array(std::move(out));
    }

    void set_cells(py::handle obj, bool alive) {
        std::vector<Cell> cells = cells_from(obj);
        check_cells(cells);
        if (cells.empty()) return;
        locked_nogil([&] {
            if (alive) {
                std::sort(cells.begin(), cells.end(), [](const Cell& a, const Cell& b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
                engine->set_cells(cells);
                return;
            }
            // Killing: cells outside the extent are dead already; the rest by one region, or one
            // by one when they are few and far apart.
            const Box box = intersect(tilelife::bounding_box(cells), engine->extent());
            if (box.empty()) return;
            const std::int64_t area = box.width * box.height;
            if (area <= 16 * static_cast<std::int64_t>(cells.size()) + (1 << 16)) {
                std::vector<std::uint8_t> buf(static_cast<std::size_t>(area));
                engine->read_region(box, buf.data());
                for (const Cell& c : cells)
                    if (box.contains(c)) buf[static_cast<std::size_t>((c.y - box.y) * box.width + (c.x - box.x))] = 0;
                engine->write_region(box, buf.data());
            } else {
                for (const Cell& c : cells)
                    if (box.contains(c)) engine->set_cell(c.x, c.y, false);
            }
        });
    }

    py::array region(std::int64_t x, std::int64_t y, std::int64_t w, std::int64_t h) {
        if (w < 0 || h < 0) throw InputError("a region's width and height must be 0 or more");
        const Box box{x, y, w, h};
        check_inside(box, "the region");
        py::array_t<std::uint8_t> out({static_cast<py::ssize_t>(h), static_cast<py::ssize_t>(w)});
        std::uint8_t* data = out.mutable_data();
        if (!box.empty()) locked_nogil([&] { engine->read_region(box, data); });
        return out;
    }

    void set_region(std::int64_t x, std::int64_t y, py::handle obj) {
        py::module_ np = py::module_::import("numpy");
        py::array a = np.attr("asarray")(obj);
        if (a.ndim() != 2) throw InputError("a region is a 2-D array (rows of cells)");
        const char kind = a.dtype().kind();
        if (kind != 'b' && kind != 'i' && kind != 'u')
            throw py::type_error("a region holds integers or booleans (0 dead, anything else alive)");
        const bool bytes = a.dtype().itemsize() == 1 && (a.flags() & py::array::c_style);
        // One byte per cell, 0 or 1, is what engines take: bool and 0/1 uint8 arrays go as they are.
        bool usable = bytes && kind == 'b';
        if (bytes && kind == 'u') {
            const auto* p = static_cast<const std::uint8_t*>(a.data());
            usable = std::all_of(p, p + a.size(), [](std::uint8_t v) { return v <= 1; });
        }
        if (!usable) a = np.attr("ascontiguousarray")(np.attr("not_equal")(a, 0));
        const Box box{x, y, a.shape(1), a.shape(0)};
        check_inside(box, "the region");
        if (box.empty()) return;
        const auto* data = static_cast<const std::uint8_t*>(a.data());
        locked_nogil([&] { engine->write_region(box, data); });
    }

    bool get_cell(std::int64_t x, std::int64_t y) {
        check_cells({Cell{x, y}});
        return locked([&] { return engine->get_cell(x, y); });
    }
    void set_cell(std::int64_t x, std::int64_t y, bool alive) {
        check_cells({Cell{x, y}});
        locked([&] { engine->set_cell(x, y, alive); });
    }

    // The board as `tilelife run -o` writes it (format_board): Golly's coordinates, the rule with its
    // :T/:P suffix, the generation, and the pattern's name, authors and comments.
    std::string formatted(OutputFormat format, const std::string& path) {
        PatternMeta m = meta;
        m.generation = generation();
        if (m.name.empty() && format == OutputFormat::plaintext) m.name = source.empty() ? path : source;
        const BoardPlan plan{spec, {}, golly_offset};
        return locked_nogil([&] { return format_board(format, *engine, plan, m); });
    }
    std::string to_rle() { return formatted(OutputFormat::rle, {}); }

    void save(const std::string& path) {
        std::string ext = std::filesystem::path(path).extension().string();
        for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (ext != ".rle" && ext != ".cells")
            throw InputError(located(path, 0, (ext.empty() ? std::string("no file extension") : "unsupported extension '" + ext + "'") +
                                                  " for a saved pattern (supported: .rle, .cells)"));
        const std::string text = formatted(ext == ".rle" ? OutputFormat::rle : OutputFormat::plaintext, path);
        py::gil_scoped_release release;
        write_file_atomic(path, text);
    }
};

// A refusal of the engine names `source`, the pattern the board was made for, as the CLI's does.
std::unique_ptr<Board> make_board(const BoardSpec& spec, const std::string& engine, const EngineOptions& options,
                                  const std::vector<Cell>& cells, const std::string& source = {}) {
    auto b = std::make_unique<Board>();
    b->spec = spec;
    EngineOptions o = options;
    o.interrupt = b->interrupt.get();
    {
        py::gil_scoped_release release;
        try {
            b->engine = create_engine(engine, spec, o);
        } catch (const InputError& e) {
            if (source.empty()) throw;
            throw InputError(located(source, 0, e.what()));
        }
        b->engine->set_cells(cells);
    }
    if (b->bounded()) b->golly_offset = Cell{-(spec.width / 2), -(spec.height / 2)};
    return b;
}

std::unique_ptr<Board> new_board(const std::string& rule, const py::kwargs& kw) {
    Settings s = settings_from(kw, false);
    const RuleSpec rs = parse_rule(rule);
    BoardSpec spec;
    spec.rule = rs.rule;
    spec.topology = s.topology ? *s.topology : rs.grid ? rs.grid->topology : Topology::unbounded;
    if (s.size) {
        spec.width = s.size->first, spec.height = s.size->second;
    } else if (rs.grid) {
        spec.width = rs.grid->width, spec.height = rs.grid->height;
    } else if (spec.topology != Topology::unbounded) {
        throw InputError("a " + std::string(to_string(spec.topology)) +
                         " board needs a size: size=(width, height), or a rule suffix such as B3/S23:T64,64");
    }
    const std::string engine = engine_for(s, spec.topology);
    return make_board(spec, engine, options_for(s, engine), {});
}

std::unique_ptr<Board> board_from_pattern(Pattern pattern, const std::string& source, const py::kwargs& kw) {
    Settings s = settings_from(kw, true);
    BoardOverrides ov;
    ov.rule = s.rule;
    ov.topology = s.topology;
    if (s.size) ov.width = s.size->first, ov.height = s.size->second;
    const std::int64_t generation = pattern.generation;
    PatternMeta meta = meta_of(pattern);
    BoardPlan plan = plan_board(pattern, std::move(pattern.cells), ov, source);
    const std::string engine = engine_for(s, plan.spec.topology);
    auto b = make_board(plan.spec, engine, options_for(s, engine), plan.cells, source);
    b->base_generation = generation;
    b->golly_offset = plan.golly_offset;
    b->meta = std::move(meta);
    b->source = source;
    return b;
}

Pattern read_pattern_nogil(const std::string& path, std::int64_t budget) {
    py::gil_scoped_release release;
    return read_pattern(path, read_limits_for(budget));
}

std::string path_text(py::handle p) { return py::str(py::module_::import("os").attr("fspath")(p)); }

std::int64_t budget_of(const py::kwargs& kw) {
    if (kw.contains("max_bytes") && !kw["max_bytes"].is_none()) return py::cast<std::int64_t>(kw["max_bytes"]);
    return default_memory_budget();
}

// ---------------------------------------------------------------------------------------------
// Plain-data views.

py::object value_of(const DescriptionValue& v) {
    return std::visit([](const auto& x) -> py::object { return py::cast(x); }, v);
}

py::dict options_dict(const EngineOptions& o) {
    py::dict d;
    d["device"] = o.device;
    d["wg"] = o.wg_width || o.wg_height ? py::object(py::make_tuple(o.wg_width, o.wg_height)) : py::none();
    d["threads"] = o.threads;
    d["steps_per_launch"] = o.steps_per_launch;
    py::dict params;
    for (const auto& [k, v] : o.params) params[py::str(k)] = v;
    d["params"] = params;
    return d;
}

py::dict description_dict(const EngineDescription& e) {
    py::dict d;
    d["name"] = e.name;
    d["backend"] = e.backend;
    d["device"] = e.device;
    d["wg"] = e.wg_width || e.wg_height ? py::object(py::make_tuple(e.wg_width, e.wg_height)) : py::none();
    d["cells_per_item"] = e.cells_per_item;
    d["steps_per_launch"] = e.steps_per_launch;
    d["threads"] = e.threads;
    if (e.tiles) {
        py::dict t;
        t["width"] = e.tiles->width;
        t["height"] = e.tiles->height;
        t["halo_x"] = e.tiles->halo_x;
        t["halo_y"] = e.tiles->halo_y;
        t["origin"] = py::make_tuple(e.tiles->origin.x, e.tiles->origin.y);
        t["text"] = e.tiles->text;
        d["tiles"] = t;
    } else {
        d["tiles"] = py::none();
    }
    d["host_bytes"] = e.host_bytes;
    d["device_bytes"] = e.device_bytes;
    py::dict props;
    for (const auto& [k, v] : e.properties) props[py::str(k)] = value_of(v);
    d["properties"] = props;
    py::list tune;
    for (const EngineOptions& o : e.autotune) tune.append(options_dict(o));
    d["autotune"] = tune;
    return d;
}

py::dict engine_dict(const EngineInfo& e) {
    py::dict d;
    d["name"] = e.name;
    d["backend"] = e.backend();
    d["description"] = e.description;
    d["aliases"] = e.aliases;
    py::list params;
    for (const ParameterSpec& p : e.parameters) {
        py::dict q;
        q["name"] = p.name;
        q["description"] = p.description;
        q["choices"] = p.choices;
        q["min"] = p.min;
        q["max"] = p.max;
        q["default"] = p.default_value;
        params.append(q);
    }
    d["parameters"] = params;
    py::list defaults;
    for (Topology t : e.default_for) defaults.append(std::string(to_string(t)));
    d["default_for"] = defaults;
    d["native_unbounded"] = e.native_unbounded;
    d["bounded"] = e.bounded;
    return d;
}

py::dict device_dict(const DeviceInfo& dev) {
    py::dict d;
    d["backend"] = dev.backend;
    d["id"] = dev.id;
    d["name"] = dev.name;
    d["type"] = dev.type;
    py::dict props;
    for (const auto& [k, v] : dev.properties) props[py::str(k)] = value_of(v);
    d["properties"] = props;
    return d;
}

}  // namespace

PYBIND11_MODULE(_tilelife, m) {
    m.doc() = "tilelife's C++ library (use the tilelife package, which wraps this module)";
    register_builtin_engines();
    g_main_thread = py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
    m.attr("__version__") = TILELIFE_VERSION;

    g_error = new_exception(m, "Error", py::make_tuple(py::handle(PyExc_Exception)),
                            "Base class of tilelife's errors.");
    g_input_error = new_exception(m, "InputError", py::make_tuple(py::handle(g_error), py::handle(PyExc_ValueError)),
                                  "Bad input: a pattern file, rule, engine name or parameter (the CLI's exit code 2).");
    g_runtime_error =
        new_exception(m, "RuntimeError", py::make_tuple(py::handle(g_error), py::handle(PyExc_RuntimeError)),
                      "A failure while running good input: device, memory budget, I/O (the CLI's exit code 1).");
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const InputError& e) {
            PyErr_SetString(g_input_error, e.what());
        } catch (const RuntimeError& e) {
            PyErr_SetString(g_runtime_error, e.what());
        }
    });

    py::class_<Pattern>(m, "Pattern", "A pattern as read from a file or text: cells in the file's coordinates and metadata.")
        .def_property_readonly("cells", [](const Pattern& p) { return cells_array(std::vector<Cell>(p.cells)); },
                               "live cells, an (N, 2) int64 array of x, y sorted by (y, x)")
        .def_property_readonly("format", [](const Pattern& p) { return std::string(to_string(p.format)); })
        .def_property_readonly("rule", [](const Pattern& p) { return p.rule; }, "the rule as written in the file, or None")
        .def_readonly("generation", &Pattern::generation)
        .def_readonly("name", &Pattern::name)
        .def_readonly("comments", &Pattern::comments)
        .def_property_readonly("frame", [](const Pattern& p) { return box_tuple(p.frame); },
                               "(x, y, width, height) the file says the pattern occupies")
        .def_readonly("positioned", &Pattern::positioned, "whether the cells carry absolute positions")
        .def_property_readonly("population", [](const Pattern& p) { return static_cast<std::int64_t>(p.cells.size()); })
        .def_property_readonly("bounding_box", [](const Pattern& p) -> py::object {
            const Box b = p.bounding_box();
            return b.empty() ? py::object(py::none()) : py::object(box_tuple(b));
        })
        .def("__repr__", [](const Pattern& p) {
            return "<tilelife.Pattern " + std::string(to_string(p.format)) + (p.name.empty() ? "" : " '" + p.name + "'") +
                   ", " + std::to_string(p.cells.size()) + " cells" + (p.rule ? ", rule " + *p.rule : "") + ">";
        });

    m.def("read_pattern", [](py::object path, py::object max_bytes) {
              return read_pattern_nogil(path_text(path), max_bytes.is_none() ? default_memory_budget() : max_bytes.cast<std::int64_t>());
          },
          py::arg("path"), py::arg("max_bytes") = py::none(),
          "Reads a pattern file (RLE, Life 1.05/1.06, plaintext, macrocell, gzip of any) or a random:WxH[:density[:seed]] spec.");
    m.def("parse_pattern", [](const std::string& text, const std::string& source) {
              py::gil_scoped_release release;
              return parse_pattern(text, source, read_limits_for(default_memory_budget()));
          },
          py::arg("text"), py::arg("source") = "<string>", "Parses pattern text (any format read_pattern reads).");

    py::class_<Board>(m, "Board", R"(A board of cells on one engine.

Board(rule="B3/S23", *, topology=None, size=None, engine=None, device=None, threads=0, wg=None,
      steps_per_launch=0, max_bytes=None, params=None, **engine_params)

topology: "unbounded", "torus" or "plane" (default: the rule's :T/:P suffix, else unbounded).
size: (width, height) or "WxH" for a torus or plane. engine: "backend:kernel", an alias, or a
backend name for its default engine (default: the CPU's). Other keywords are engine parameters.)")
        .def(py::init([](const std::string& rule, const py::kwargs& kw) { return new_board(rule, kw); }),
             py::arg("rule") = "B3/S23")
        .def_static("load", [](py::object source, const py::kwargs& kw) {
                        if (py::isinstance<Pattern>(source))
                            return board_from_pattern(source.cast<Pattern>(), "<pattern>", kw);
                        const std::string path = path_text(source);
                        return board_from_pattern(read_pattern_nogil(path, budget_of(kw)), path, kw);
                    },
                    py::arg("source"),
                    "Board.load(path_or_pattern, *, rule=None, topology=None, size=None, engine=None, ...): a board "
                    "holding a pattern file (or random:WxH[:density[:seed]] spec, or a Pattern), placed as Golly places it.")
        .def_static("parse", [](const std::string& text, const py::kwargs& kw) {
                        Pattern p;
                        {
                            py::gil_scoped_release release;
                            p = parse_pattern(text, "<string>", read_limits_for(default_memory_budget()));
                        }
                        return board_from_pattern(std::move(p), "<string>", kw);
                    },
                    py::arg("text"), "Board.parse(text, **same as load): a board holding pattern text (RLE, plaintext, ...).")
        .def("step", &Board::step, py::arg("generations") = 1,
             "Advances the board. Releases the GIL; Ctrl+C stops it at a generation boundary (KeyboardInterrupt).")
        .def_property_readonly("generation", &Board::generation)
        .def_property_readonly("population", &Board::population)
        .def_property_readonly("engine", [](Board& b) { return b.locked([&] { return b.engine->name(); }); })
        .def_property_readonly("rule", [](const Board& b) { return b.spec.rule.to_string(); })
        .def_property_readonly("topology", [](const Board& b) { return std::string(to_string(b.spec.topology)); })
        .def_property_readonly("size", [](const Board& b) -> py::object {
            return b.bounded() ? py::object(py::make_tuple(b.spec.width, b.spec.height)) : py::object(py::none());
        }, "(width, height) of a torus or plane; None when unbounded")
        .def_property_readonly("extent", [](Board& b) { return box_tuple(b.locked([&] { return b.engine->extent(); })); },
                               "(x, y, width, height) the engine stores (grows and shrinks when unbounded)")
        .def_property_readonly("bounding_box", [](Board& b) -> py::object {
            const Box box = b.bounding_box();
            return box.empty() ? py::object(py::none()) : py::object(box_tuple(box));
        }, "(x, y, width, height) of the live cells; None when there are none")
        .def_property_readonly("golly_offset", [](const Board& b) { return py::make_tuple(b.golly_offset.x, b.golly_offset.y); },
                               "add to a board coordinate to get Golly's (bounded boards are centred on 0, 0 there)")
        .def("cells", &Board::cells, py::arg("rect") = py::none(),
             "Live cells (in rect=(x, y, w, h) if given): an (N, 2) int64 array of x, y, sorted by (y, x).")
        .def("set_cells", &Board::set_cells, py::arg("cells"), py::arg("alive") = true,
             "Makes the cells (an (N, 2) integer array or a flat x, y list) alive, or dead with alive=False.")
        .def("region", &Board::region, py::arg("x"), py::arg("y"), py::arg("width"), py::arg("height"),
             "The cells of a rectangle as a (height, width) uint8 array, 1 alive and 0 dead.")
        .def("set_region", &Board::set_region, py::arg("x"), py::arg("y"), py::arg("cells"),
             "Writes a 2-D array (nonzero alive) with its top-left cell at x, y.")
        .def("get_cell", &Board::get_cell, py::arg("x"), py::arg("y"))
        .def("set_cell", &Board::set_cell, py::arg("x"), py::arg("y"), py::arg("alive") = true)
        .def("describe", [](Board& b) { return description_dict(b.locked([&] { return b.engine->describe(); })); },
             "What the engine is and chose (device, work-group, tiles, memory, properties) as a dict.")
        .def("to_rle", &Board::to_rle, "The board as RLE text, as Golly writes it (Golly's coordinates).")
        .def("save", [](Board& b, py::object path) { b.save(path_text(path)); }, py::arg("path"),
             "Writes the board atomically as .rle or .cells (what `tilelife run -o` writes).")
        .def("__repr__", [](Board& b) {
            const std::string size = b.bounded() ? " " + std::to_string(b.spec.width) + "x" + std::to_string(b.spec.height) : "";
            return "<tilelife.Board " + b.locked([&] { return b.engine->name(); }) + " " + b.spec.rule.to_string() + " " +
                   std::string(to_string(b.spec.topology)) + size + " generation " + std::to_string(b.generation()) +
                   " population " + std::to_string(b.population()) + ">";
        });

    m.def("engines", [] {
        py::list out;
        for (const EngineInfo& e : registered_engines()) out.append(engine_dict(e));
        return out;
    }, "Every engine of this build, as dicts (name, backend, description, aliases, parameters, default_for, ...).");
    m.def("default_engine", [](const std::string& backend, const std::string& topology) {
        const auto t = parse_topology(topology);
        if (!t) throw InputError("topology '" + topology + "' is not unbounded, torus or plane");
        return default_engine(backend, *t);
    }, py::arg("backend") = "cpu", py::arg("topology") = "unbounded", "The backend's default engine for a topology.");
    m.def("devices", [](const std::string& backend) {
        py::list out;
        for (const BackendInfo& b : registered_backends()) {
            if (b.name != backend) continue;
            std::vector<DeviceInfo> devs;
            {
                py::gil_scoped_release release;
                devs = b.devices();
            }
            for (const DeviceInfo& d : devs) out.append(device_dict(d));
            return out;
        }
        std::string known;
        for (const BackendInfo& b : registered_backends()) known += (known.empty() ? "" : ", ") + b.name;
        throw InputError("this build of tilelife has no device backend '" + backend + "'" +
                         (known.empty() ? std::string(" (it has none)") : " (it has: " + known + ")"));
    }, py::arg("backend") = "opencl", "The devices of a backend (RuntimeError when it finds none).");
    m.def("backends", [] {
        std::vector<std::string> out;
        for (const BackendInfo& b : registered_backends()) out.push_back(b.name);
        return out;
    }, "Backends that list devices.");
    m.def("canonical_rule", [](const std::string& text) { return parse_rule(text).to_string(); }, py::arg("rule"),
          "The rule in canonical form (\"b3s23\" -> \"B3/S23\"; a :T/:P suffix kept); InputError when it is not a rule.");
}
