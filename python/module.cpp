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

#include "cli/json.hpp"
#include "tilelife/board.hpp"
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
    // max_bytes stays 0 unless given: the board layer (open_board) then sets the default budget,
    // with the threads' stacks, as for the CLI.
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
        } else if (key == "work_group" || key == "wg") {  // describe()'s name; wg kept for older scripts
            if (v.is_none()) continue;
            const auto [w, h] = size_of(v, key.c_str());
            if (w < 1 || h < 1 || w > 4096 || h > 4096) throw InputError(key + " must be two sizes from 1 to 4096");
            s.options.wg_width = static_cast<int>(w), s.options.wg_height = static_cast<int>(h);
        } else if (key == "steps_per_launch") {
            s.options.steps_per_launch = py::cast<int>(v);
            if (s.options.steps_per_launch < 0) throw InputError("steps_per_launch must be 0 (the default) or more");
        } else if (key == "max_bytes") {
            if (v.is_none()) continue;
            const auto bytes = py::cast<std::int64_t>(v);
            if (bytes < 0) throw InputError("max_bytes must be 0 (no budget) or more");
            if (bytes > 0) name_memory_budget(s.options, bytes);
            else s.options.max_bytes = INT64_MAX;  // no budget (the board layer's 0 is the default)
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

// A generation count from Python: a whole number from 0 to 2^63 - 1, else a one-line TypeError or
// ValueError (pybind11's own refusal lists every overload over several lines).
std::int64_t generations_of(py::handle n, const char* what) {
    if (py::isinstance<py::bool_>(n) || !PyIndex_Check(n.ptr()))
        throw py::type_error(std::string(what) + "() takes a whole number of generations, not " +
                             py::str(n.get_type().attr("__name__")).cast<std::string>());
    const py::object v = py::reinterpret_steal<py::object>(PyNumber_Index(n.ptr()));
    if (!v) throw py::error_already_set();
    const std::string text = py::repr(v).cast<std::string>();
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (overflow > 0) throw InputError(std::string(what) + "() takes at most 2^63 - 1 generations, not " + text);
    if (overflow < 0 || x < 0) throw InputError(std::string(what) + "() takes 0 or more generations, not " + text);
    return x;
}

struct Board {
    std::unique_ptr<std::atomic<bool>> interrupt = std::make_unique<std::atomic<bool>>(false);
    std::unique_ptr<Engine> engine;
    BoardSpec spec;
    std::int64_t base_generation = 0;  // the pattern's own generation (#CXRLE Gen, macrocell #G)
    Cell golly_offset;                 // engine coordinate + offset = Golly's coordinate
    PatternMeta meta;                  // the loaded pattern's name, authors and comments, kept in saves
    std::string source;                // what it was loaded from (a .cells file's name when it has none)
    EngineOptions options;             // what the engine was made with (copies are made alike)
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

    // A failure while stepping (the budget, leaving HashLife's plane) names the pattern as the CLI's
    // run does, with the same note on the generation the engine counts from.
    void step(std::int64_t n) {
        try {
            step_unnamed(n);
        } catch (const RuntimeError& e) {
            if (source.empty()) throw;
            throw RuntimeError(source + ": " + e.what() +
                               (base_generation ? " (engine generations: the pattern started at generation " +
                                                      std::to_string(base_generation) + ")"
                                                : std::string()));
        }
    }

    void step_unnamed(std::int64_t n) {
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

    // The engine's own answer (a tree's root, a scan of words): never a list of the cells.
    Box bounding_box() { return locked_nogil([&] { return engine->bounding_box(); }); }

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
        const BoardPlan plan{spec, {}, golly_offset, {}};
        return locked_nogil([&] { return format_board(format, *engine, plan, m); });
    }
    std::string to_rle() { return formatted(OutputFormat::rle, {}); }

    // An independent board alike: the same engine, board, cells, generation and metadata. A tree
    // engine's tree is handed over whole (trees are immutable), other engines get the live cells.
    std::unique_ptr<Board> copy() {
        auto c = std::make_unique<Board>();
        c->spec = spec;
        c->golly_offset = golly_offset;
        c->meta = meta;
        c->source = source;
        c->options = options;
        c->options.interrupt = c->interrupt.get();
        locked_nogil([&] {
            c->base_generation = base_generation + engine->generation();
            c->engine = create_engine(engine->name(), spec, c->options);
            const auto tree = engine->quadtree();
            if (!(tree && c->engine->load_quadtree(*tree))) c->engine->set_cells(engine->live_cells());
        });
        return c;
    }

    // The board as pattern text in a format named as --format names it ("rle", "cells", "mc").
    std::string text(const std::string& name) {
        const auto format = output_format_named(name);
        if (!format || *format == OutputFormat::png)
            throw InputError("'" + name + "' is not a pattern format (rle, cells or mc)");
        return formatted(*format, {});
    }

    // Any pattern format the CLI writes, by the name's extension (.rle, .cells, .mc, each also .gz),
    // through the board layer's save_board (atomic; from the tree, rows of bits or cells).
    void save(const std::string& path) {
        const OutputTarget target = output_target(path);
        if (target.standard_output()) throw InputError("save() writes a file; use to_rle() for the text");
        PatternMeta m = meta;
        m.generation = generation();
        if (m.name.empty() && target.format == OutputFormat::plaintext) m.name = source.empty() ? path : source;
        const BoardPlan plan{spec, {}, golly_offset, {}};
        locked_nogil([&] { save_board(target, *engine, plan, m); });
    }
};

// A new empty board: an empty pattern with the rule, through the board layer (a size given for an
// unbounded board is refused there, as the CLI refuses it).
std::unique_ptr<Board> board_from_source(PatternSource source, const py::kwargs& kw);
std::unique_ptr<Board> new_board(const std::string& rule, const py::kwargs& kw) {
    const Settings s = settings_from(kw, false);
    const RuleSpec rs = parse_rule(rule);
    const Topology topology = s.topology ? *s.topology : rs.grid ? rs.grid->topology : Topology::unbounded;
    if (!s.size && !rs.grid && topology != Topology::unbounded)
        throw InputError("a " + std::string(to_string(topology)) +
                         " board needs a size: size=(width, height), or a rule suffix such as B3/S23:T64,64");
    Pattern empty;
    empty.rule = rule;
    return board_from_source(PatternSource{"", std::nullopt, std::move(empty)}, kw);
}

// A board holding a pattern source, through the board layer (the CLI's reading, placement, engine
// choice and budget policy): a file, random: spec, text or a Pattern already read.
std::unique_ptr<Board> board_from_source(PatternSource source, const py::kwargs& kw) {
    Settings s = settings_from(kw, true);
    BoardRequest request;
    request.source = std::move(source);
    request.overrides.rule = s.rule;
    request.overrides.topology = s.topology;
    if (s.size) request.overrides.width = s.size->first, request.overrides.height = s.size->second;
    request.engine = s.engine.value_or("");
    request.options = s.options;
    auto b = std::make_unique<Board>();
    py::gil_scoped_release release;
    OpenedBoard opened = open_board(request);
    EngineOptions o = options_for(s, opened.engine_name());
    o.max_bytes = opened.budget();
    o.interrupt = b->interrupt.get();
    b->engine = opened.create_engine(o);
    b->options = o;
    b->spec = opened.spec();
    b->golly_offset = opened.plan().golly_offset;
    b->base_generation = opened.pattern().generation;
    b->meta = opened.meta();
    b->source = opened.source();
    return b;
}

std::string path_text(py::handle p) { return py::str(py::module_::import("os").attr("fspath")(p)); }

// ---------------------------------------------------------------------------------------------
// Plain-data views.

// The same objects as the CLI's --json (src/cli/json.cpp, docs/json.md): one vocabulary, one
// function per object, so Python and the CLI cannot drift apart.
py::dict dict_of(const cli::Json& j) {
    const std::string text = j.dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace);
    return py::module_::import("json").attr("loads")(text).cast<py::dict>();
}

// The engine object of `run --json`, plus `autotune`: the option sets `bench --autotune` tries.
py::dict description_dict(const EngineDescription& e) {
    cli::Json j = cli::engine_json(e);
    j["autotune"] = cli::Json::array();
    for (const EngineOptions& o : e.autotune) j["autotune"].push_back(cli::options_json(o));
    return dict_of(j);
}

py::dict engine_dict(const EngineInfo& e) { return dict_of(cli::engine_info_json(e)); }

py::dict device_dict(const DeviceInfo& dev) { return dict_of(cli::device_json(dev)); }

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

    py::class_<Pattern>(m, "PatternFile", "A pattern file as read (read_pattern): cells in the file's coordinates and its metadata.")
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
            return "<tilelife.PatternFile " + std::string(to_string(p.format)) + (p.name.empty() ? "" : " '" + p.name + "'") +
                   ", " + std::to_string(p.cells.size()) + " cells" + (p.rule ? ", rule " + *p.rule : "") + ">";
        });

    m.def("read_pattern", [](py::object path, py::object max_bytes) {
              const std::int64_t budget = max_bytes.is_none() ? 0 : max_bytes.cast<std::int64_t>();
              const std::string name = path_text(path);
              py::gil_scoped_release release;
              return read_source(PatternSource{name, std::nullopt, std::nullopt}, budget);
          },
          py::arg("path"), py::arg("max_bytes") = py::none(),
          "Reads a pattern file (RLE, Life 1.05/1.06, plaintext, macrocell, gzip of any) or a random:WxH[:density[:seed]] spec.");
    m.def("parse_pattern", [](const std::string& text, const std::string& source) {
              py::gil_scoped_release release;
              return read_source(PatternSource{source, text, std::nullopt});
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
                            return board_from_source(PatternSource{"<pattern>", std::nullopt, source.cast<Pattern>()}, kw);
                        return board_from_source(PatternSource{path_text(source), std::nullopt, std::nullopt}, kw);
                    },
                    py::arg("source"),
                    "Board.load(path_or_pattern, *, rule=None, topology=None, size=None, engine=None, ...): a board "
                    "holding a pattern file (or random:WxH[:density[:seed]] spec, or a Pattern), placed as Golly places it.")
        .def_static("parse", [](const std::string& text, const py::kwargs& kw) {
                        return board_from_source(PatternSource{"<string>", text, std::nullopt}, kw);
                    },
                    py::arg("text"), "Board.parse(text, **same as load): a board holding pattern text (RLE, plaintext, ...).")
        .def("step", [](Board& b, py::handle n) { b.step(generations_of(n, "step")); }, py::arg("generations") = 1,
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
        .def("text", &Board::text, py::arg("format") = "rle",
             "The board as pattern text: format \"rle\", \"cells\" or \"mc\" (what save() writes).")
        .def("copy", &Board::copy, "An independent board alike: same engine, board, cells, generation, metadata.")
        .def("__copy__", &Board::copy)
        .def("__deepcopy__", [](Board& b, py::handle) { return b.copy(); })
        .def(py::pickle(
            [](Board& b) {
                // Macrocell for tree engines (any size), RLE otherwise (positions and the :T/:P suffix).
                const bool tree = b.locked([&] { return static_cast<bool>(b.engine->quadtree()); });
                return py::make_tuple(b.text(tree ? "mc" : "rle"), b.locked([&] { return b.engine->name(); }));
            },
            [](py::tuple state) {
                if (state.size() != 2) throw InputError("not a pickled tilelife.Board");
                py::kwargs kw;
                kw["engine"] = state[1];
                return board_from_source(PatternSource{"<pickle>", state[0].cast<std::string>(), std::nullopt}, kw);
            }))
        .def("save", [](Board& b, py::object path) { b.save(path_text(path)); }, py::arg("path"),
             "Writes the board atomically as .rle, .cells or .mc (each also .gz), as `tilelife run -o` writes it.")
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
