#include "viewer/session.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "tilelife/board.hpp"
#include "tilelife/error.hpp"
#include "tilelife/pattern.hpp"

namespace tilelife::viewer {
namespace {

using Clock = std::chrono::steady_clock;

void sort_cells(std::vector<Cell>& v) {
    std::sort(v.begin(), v.end(), row_order);
    v.erase(std::unique(v.begin(), v.end()), v.end());
}
// a - b, both sorted by (y, x).
std::vector<Cell> minus(const std::vector<Cell>& a, const std::vector<Cell>& b) {
    std::vector<Cell> out;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out), row_order);
    return out;
}
bool inside(const Box& inner, const Box& outer) { return !inner.empty() && intersect(inner, outer) == inner; }
Box box_of(Cell a, Cell b) {
    const std::int64_t x0 = std::min(a.x, b.x), y0 = std::min(a.y, b.y);
    return Box{x0, y0, std::max(a.x, b.x) - x0 + 1, std::max(a.y, b.y) - y0 + 1};
}
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    const std::int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}
std::string human(double v) {
    char buf[32];
    if (v >= 1e12) std::snprintf(buf, sizeof buf, "%.2fT", v / 1e12);
    else if (v >= 1e9) std::snprintf(buf, sizeof buf, "%.2fG", v / 1e9);
    else if (v >= 1e6) std::snprintf(buf, sizeof buf, "%.2fM", v / 1e6);
    else if (v >= 1e3) std::snprintf(buf, sizeof buf, "%.1fk", v / 1e3);
    else std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}
std::string size_text(const Box& b) { return std::to_string(b.width) + "x" + std::to_string(b.height); }

constexpr std::int64_t kMaxStep = std::int64_t{1} << 62;
constexpr int kMaxDelay = 6;                                // one generation every 64 frames
constexpr std::int64_t kMaxFillCells = std::int64_t{16} << 20;  // random fill: at most 4096 x 4096
constexpr double kFillDensity = 0.5;                        // Golly's default random fill
constexpr int kHyperSteps = 64;                             // Golly: hyperspeed doubles the step every 64 steps

}  // namespace

std::int64_t Change::bytes() const {
    std::int64_t n = static_cast<std::int64_t>((born.size() + died.size()) * sizeof(Cell)) + 128;
    if (before) n += static_cast<std::int64_t>(before->live.size() * sizeof(Cell));
    if (after) n += static_cast<std::int64_t>(after->live.size() * sizeof(Cell));
    return n;
}

const std::vector<std::pair<std::string, std::string>>& Viewer::keys() {
    // Short lines: two columns fit a 1024-pixel window.
    static const std::vector<std::pair<std::string, std::string>> k = {
        {"Return", "start / stop generating"},
        {"Space, N", "next generation"},
        {"Tab", "next step: 2^exponent generations"},
        {"+ / -", "step exponent up / down"},
        {"Shift+H", "hyperspeed"},
        {"R, Ctrl+R", "reset to the starting pattern"},
        {"Z / Shift+Z", "undo / redo (Ctrl+Z, Ctrl+Y)"},
        {"Arrows", "pan"},
        {"] / [", "zoom in / out"},
        {"1 2 4 8 6 3", "scale 1:1 ... 1:32"},
        {"Wheel", "zoom about the cursor"},
        {"F / Shift+F", "fit pattern / selection"},
        {"M", "origin 0,0 to the middle"},
        {"T", "auto fit while generating"},
        {"Left drag", "draw; from a live cell: erase"},
        {"Shift+left", "erase"},
        {"Ctrl+left", "select"},
        {"Right drag", "pan"},
        {"F2 F4 F5, C", "mode: draw, select, move"},
        {"A / K", "select all / none"},
        {"S", "shrink selection and fit"},
        {"5", "random fill (selection)"},
        {"Delete", "clear the selection"},
        {"Shift+Delete", "clear outside it"},
        {"Ctrl+C / X", "copy / cut as RLE"},
        {"V, Ctrl+V", "paste (a click places it)"},
        {"Shift+M / L", "paste mode / location"},
        {"X / Y", "flip left-right / top-bottom"},
        {"> / <", "rotate clockwise / anti"},
        {"L, G", "cell grid"},
        {"W", "work-group tiles and halo"},
        {"B / Shift+B", "theme / colour by age"},
        {"P", "screenshot (PNG)"},
        {"Ctrl+S", "save as RLE"},
        {"H, ?, F1", "this help"},
        {"Esc", "cancel / stop; else quit"},
        {"Q, Ctrl+Q", "quit"},
    };
    return k;
}

Viewer::Viewer(Engine& engine, const Options& o, int width, int height)
    : engine_(engine), o_(o), w_(std::max(1, width)), h_(std::max(1, height)),
      bounded_(engine.topology() != Topology::unbounded), board_(engine.extent()),
      gen_offset_(o.generation0 - engine.generation()), theme_(o.theme) {
    (void)image::theme(theme_, "--theme");
    running_ = !o.paused;
    step_size_ = std::clamp<std::int64_t>(o.step, 1, kMaxStep);
    tiles_ = o.tiles;
    grid_ = o.grid;
    ages_ = o.ages;
    // The starting pattern, for reset: kept when it fits the undo budget.
    if (engine.population() * static_cast<std::int64_t>(sizeof(Cell)) <= o.history_bytes) start_ = snapshot();
    device_ = engine.describe().device;
    const Box lb = live_bounds();
    if (o.zoom_log) {
        const Box c = lb.empty() ? board_ : lb;
        cam_.set(*o.zoom_log, 0, 0);
        cam_.centre_on(c.x + c.width / 2.0, c.y + c.height / 2.0, w_, h_);
    } else {
        cam_.fit(lb.empty() ? board_ : lb, w_, h_);
        autofit_ = !bounded_;  // an unbounded pattern is followed as it grows, until the view is moved
    }
}

std::int64_t Viewer::generation() const { return engine_.generation() + gen_offset_; }

BoardPlan Viewer::plan() const {
    BoardPlan p;
    p.spec = BoardSpec{board_.width, board_.height, engine_.topology(), engine_.rule()};
    p.golly_offset = o_.golly_offset;
    return p;
}

int Viewer::step_exponent() const {
    if (delay_ > 0) return -delay_;
    int e = 0;
    while (e < 62 && (std::int64_t{1} << (e + 1)) <= step_size_) ++e;
    return e;
}

const image::Colors& Viewer::colors() const { return image::theme(theme_); }

void Viewer::show(std::string message) {
    message_ = std::move(message);
    message_until_ = Clock::now() + std::chrono::seconds(5);
}

void Viewer::resize(int w, int h, double sx, double sy) {
    const int w0 = w_, h0 = h_;
    w_ = std::max(1, w);
    h_ = std::max(1, h);
    sx_ = sx > 0 ? sx : 1;
    sy_ = sy > 0 ? sy : 1;
    cam_.resize(w0, h0, w_, h_);
}

Cell Viewer::cell_under(int x, int y) const {
    return cam_.cell_at(static_cast<std::int64_t>(x * sx_), static_cast<std::int64_t>(y * sy_));
}

// ---------------------------------------------------------------------------------------------
// Events

void Viewer::handle(const SDL_Event& e) {
    switch (e.type) {
        case SDL_QUIT: quit_ = true; break;
        case SDL_KEYDOWN: key(e.key.keysym); break;
        case SDL_TEXTINPUT: text(e.text.text); break;
        case SDL_MOUSEBUTTONDOWN: mouse_down(e.button); break;
        case SDL_MOUSEBUTTONUP: mouse_up(e.button); break;
        case SDL_MOUSEMOTION: mouse_move(e.motion); break;
        case SDL_MOUSEWHEEL: wheel(e.wheel); break;
        case SDL_WINDOWEVENT:
            if (e.window.event == SDL_WINDOWEVENT_LEAVE) cursor_.reset();
            break;
        default: break;
    }
}

// Keys that are not characters (and Ctrl combinations, which type nothing). Characters come as
// SDL_TEXTINPUT, so '<', '?', '+' and friends work on every keyboard layout.
void Viewer::key(const SDL_Keysym& k) {
    const bool shift = (k.mod & KMOD_SHIFT) != 0, ctrl = (k.mod & (KMOD_CTRL | KMOD_GUI)) != 0;
    if (ctrl) {
        switch (k.sym) {
            case SDLK_z: shift ? redo() : undo(); break;
            case SDLK_y: redo(); break;
            case SDLK_c: copy(false); break;
            case SDLK_x: copy(true); break;
            case SDLK_v: paste(); break;
            case SDLK_a: select_all(); break;
            case SDLK_k: selection_.reset(); break;
            case SDLK_r: reset(); break;
            case SDLK_f: shift ? (selection_ ? fit_box(*selection_) : show("no selection to fit")) : fit_pattern(); break;
            case SDLK_5:
            case SDLK_KP_5: random_fill(); break;
            case SDLK_s: {
                const std::string path = filename(".rle");
                try {
                    // The board as Golly saves it (positions, :T/:P suffix), through the atomic writer.
                    PatternMeta meta = o_.meta;
                    meta.generation = generation();
                    write_file_atomic(path, format_board(OutputFormat::rle, engine_, plan(), meta));
                    show("saved " + path);
                } catch (const std::exception& ex) {
                    show(std::string("save failed: ") + ex.what());
                }
                break;
            }
            case SDLK_q: quit_ = true; break;
            default: break;
        }
        return;
    }
    switch (k.sym) {
        case SDLK_RETURN:
        case SDLK_KP_ENTER: start_stop(); break;
        case SDLK_SPACE:
            stop();
            request(1, "next generation");
            break;
        case SDLK_TAB:
            stop();
            request(step_size_, "next step");
            break;
        case SDLK_ESCAPE:
            if (paste_) {
                paste_.reset();
                show("paste cancelled");
            } else if (drag_ == Drag::select) {
                drag_ = Drag::none;
                selection_.reset();
            } else if (running_ || pending_ > 0) {
                stop();
            } else {
                quit_ = true;
            }
            break;
        case SDLK_LEFT: pan(1, 0); break;
        case SDLK_RIGHT: pan(-1, 0); break;
        case SDLK_UP: pan(0, 1); break;
        case SDLK_DOWN: pan(0, -1); break;
        case SDLK_DELETE:
        case SDLK_BACKSPACE: clear(shift); break;
        case SDLK_F1: help_ = !help_; break;
        case SDLK_F2: mode_ = Mode::draw; break;
        case SDLK_F4: mode_ = Mode::select; break;
        case SDLK_F5: mode_ = Mode::move; break;
        default: break;
    }
}

void Viewer::text(const char* t) {
    // Typed characters with Ctrl, Alt or GUI held belong to key() (some systems type them too).
    if ((SDL_GetModState() & (KMOD_CTRL | KMOD_ALT | KMOD_GUI)) != 0) return;
    if (!t || !t[0] || t[1]) return;  // one ASCII character
    switch (t[0]) {
        case '+':
        case '=': faster(); break;
        case '-':
        case '_': slower(); break;
        case ']': zoom_centre(1); break;
        case '[': zoom_centre(-1); break;
        case '1': set_scale(0); break;
        case '2': set_scale(1); break;
        case '4': set_scale(2); break;
        case '8': set_scale(3); break;
        case '6': set_scale(4); break;
        case '3': set_scale(5); break;
        case '5': random_fill(); break;
        case 'n':
            stop();
            request(1, "next generation");
            break;
        case 'H':
            hyper_ = !hyper_;
            steps_at_size_ = 0;
            show(hyper_ ? "hyperspeed on" : "hyperspeed off");
            break;
        case 'r': reset(); break;
        case 'z': undo(); break;
        case 'Z': redo(); break;
        case 'f': fit_pattern(); break;
        case 'F':
            if (selection_) fit_box(*selection_);
            else show("no selection to fit");
            break;
        case 'm': {
            const Cell origin{-o_.golly_offset.x, -o_.golly_offset.y};
            cam_.centre_on(origin.x + 0.5, origin.y + 0.5, w_, h_);
            manual_view();
            break;
        }
        case 't':
            autofit_ = !autofit_;
            show(autofit_ ? "auto fit on" : "auto fit off");
            break;
        case 'a': select_all(); break;
        case 'k': selection_.reset(); break;
        case 's': shrink_selection(); break;
        case 'x': transform(0); break;
        case 'y': transform(1); break;
        case '>': transform(2); break;
        case '<': transform(3); break;
        case 'v': paste(); break;
        case 'M':
            paste_mode_ = static_cast<PasteMode>((static_cast<int>(paste_mode_) + 1) % 3);
            show(std::string("paste mode ") + (paste_mode_ == PasteMode::orr ? "or" : paste_mode_ == PasteMode::copy ? "copy" : "xor"));
            break;
        case 'L': {
            static const char* const names[] = {"top left", "top right", "bottom right", "bottom left", "middle"};
            paste_at_ = static_cast<PasteAt>((static_cast<int>(paste_at_) + 1) % 5);
            show(std::string("paste location ") + names[static_cast<int>(paste_at_)]);
            break;
        }
        case 'c':
            mode_ = mode_ == Mode::draw ? Mode::select : mode_ == Mode::select ? Mode::move : Mode::draw;
            break;
        case 'l':
        case 'g': grid_ = !grid_; break;
        case 'w':
            tiles_ = !tiles_;
            tiles_known_ = false;
            break;
        case 'b':
            theme_ = theme_ == "dark" ? "light" : "dark";
            break;
        case 'B':
            ages_ = !ages_;
            age_.clear();
            age_generation_ = -1;
            show(ages_ ? "colour by age: born, alive, died" : "colour by age off");
            break;
        case 'p': screenshot_ = true; break;
        case 'h':
        case '?': help_ = !help_; break;
        case 'q': quit_ = true; break;
        default: break;
    }
}

void Viewer::mouse_down(const SDL_MouseButtonEvent& b) {
    const Cell c = cell_under(b.x, b.y);
    cursor_ = c;
    if (b.button == SDL_BUTTON_RIGHT || b.button == SDL_BUTTON_MIDDLE) {
        drag_ = Drag::pan;
        return;
    }
    if (b.button != SDL_BUTTON_LEFT) return;
    if (paste_) {
        place_paste();
        return;
    }
    const SDL_Keymod mods = SDL_GetModState();
    const Mode mode = (mods & KMOD_CTRL) ? Mode::select : mode_;
    if (mode == Mode::move) {
        drag_ = Drag::pan;
    } else if (mode == Mode::select) {
        drag_ = Drag::select;
        drag_moved_ = false;
        if ((mods & KMOD_SHIFT) && selection_) {
            // Golly: shift-click extends the selection; the drag then moves the clicked corner.
            const Box s = unite(*selection_, Box{c.x, c.y, 1, 1});
            drag_from_ = Cell{c.x <= s.x ? s.right() - 1 : s.x, c.y <= s.y ? s.bottom() - 1 : s.y};
            selection_ = box_of(drag_from_, c);
            drag_moved_ = true;
        } else {
            drag_from_ = c;
            selection_.reset();  // a click without a drag removes the selection (Golly)
        }
    } else {
        if (!on_board(c)) return;
        begin_edit();
        const bool erase = (mods & KMOD_SHIFT) || engine_.get_cell(c.x, c.y);
        drag_ = erase ? Drag::erase : Drag::draw;
        stroke_born_.clear();
        stroke_died_.clear();
        last_ = c;
        stroke_to(c);
    }
}

void Viewer::mouse_move(const SDL_MouseMotionEvent& m) {
    const Cell c = cell_under(m.x, m.y);
    cursor_ = c;
    switch (drag_) {
        case Drag::pan:
            cam_.pan_pixels(std::llround(m.xrel * sx_), std::llround(m.yrel * sy_));
            manual_view();
            break;
        case Drag::draw:
        case Drag::erase: stroke_to(c); break;
        case Drag::select: {
            // A click without a drag selects nothing (Golly).
            if (c == drag_from_ && !drag_moved_) break;
            drag_moved_ = true;
            Box s = box_of(drag_from_, c);
            if (bounded_) s = intersect(s, board_);
            if (!s.empty()) selection_ = s;
            break;
        }
        case Drag::none: break;
    }
}

void Viewer::mouse_up(const SDL_MouseButtonEvent& b) {
    cursor_ = cell_under(b.x, b.y);
    if (drag_ == Drag::draw || drag_ == Drag::erase) end_stroke();
    drag_ = Drag::none;
}

void Viewer::wheel(const SDL_MouseWheelEvent& w) {
    // One zoom step per wheel click (a fast spin reports several at once).
    int steps = std::clamp(w.y, -4, 4);
    if (w.direction == SDL_MOUSEWHEEL_FLIPPED) steps = -steps;
    if (!steps) return;
    cam_.zoom_about(w.mouseX * sx_, w.mouseY * sy_, steps);
    manual_view();
}

// ---------------------------------------------------------------------------------------------
// Generating

void Viewer::start_stop() {
    if (running_) {
        stop();
    } else {
        running_ = true;
        steps_at_size_ = 0;
    }
}

void Viewer::stop() {
    running_ = false;
    pending_ = 0;
    commit_run();
}

void Viewer::request(std::int64_t n, const char*) {
    if (n > kMaxStep - pending_) n = kMaxStep - pending_;
    pending_ += n;
}

void Viewer::faster() {
    if (delay_ > 0) {
        --delay_;
    } else {
        std::int64_t p = 1;
        while (p <= step_size_ && p < kMaxStep) p *= 2;  // the next power of two above
        step_size_ = p;
    }
    steps_at_size_ = 0;
}

void Viewer::slower() {
    if (step_size_ > 1) {
        std::int64_t p = 1;
        while (p * 2 < step_size_) p *= 2;  // the power of two below
        step_size_ = p;
    } else {
        delay_ = std::min(delay_ + 1, kMaxDelay);
    }
    steps_at_size_ = 0;
}

Snapshot Viewer::snapshot() const { return Snapshot{engine_.live_cells(), generation()}; }

void Viewer::commit_run() {
    if (!run_start_) return;
    Snapshot before = std::move(*run_start_);
    run_start_.reset();
    if (before.generation == generation()) return;  // nothing ran
    Change c;
    c.what = "generating";
    c.before = std::move(before);
    push(std::move(c));
}

void Viewer::frame() {
    ++frame_no_;
    // No generations under a stroke being drawn: the stroke is one edit of one generation's board.
    if (drag_ == Drag::draw || drag_ == Drag::erase) return;
    if (running_ && pending_ == 0) {
        if (delay_ == 0) request(step_size_, "step");
        else if (frame_no_ % (std::int64_t{1} << delay_) == 0) request(1, "step");
    }
    run_pending();
    if (autofit_ && (running_ || pending_ > 0 || o_.frames > 0)) follow();
}

void Viewer::run_pending() {
    if (pending_ <= 0) return;
    // The board before these generations, for undo (taken once per run of generations).
    if (!run_start_ && o_.history_bytes > 0) {
        if (engine_.population() * static_cast<std::int64_t>(sizeof(Cell)) <= o_.history_bytes) {
            run_start_ = snapshot();
        } else if (!undo_.empty()) {
            undo_.clear();
            redo_.clear();
            history_bytes_ = 0;
            show("undo history cleared: the board is too large to keep for undo");
        }
    }
    const double budget = o_.frames > 0 ? 0 : o_.frame_budget_ms / 1000.0;
    const auto t_start = Clock::now();
    for (;;) {
        const std::int64_t n = budget > 0 ? std::min(pending_, chunk_) : pending_;
        const std::int64_t g0 = engine_.generation();
        const auto t0 = Clock::now();
        try {
            engine_.step(n);
        } catch (const std::exception& ex) {
            if (o_.frames > 0) throw;
            running_ = false;
            pending_ = 0;
            commit_run();
            show(std::string("stopped: ") + ex.what());
            return;
        }
        const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
        const std::int64_t done = std::max<std::int64_t>(0, engine_.generation() - g0);
        const Box e = engine_.extent();
        rate_.push_back({Clock::now(), generation(), static_cast<double>(done) * static_cast<double>(e.width) * static_cast<double>(e.height)});
        while (rate_.size() > 2 && rate_.back().t - rate_.front().t > std::chrono::seconds(1)) rate_.pop_front();
        pending_ = done >= n ? pending_ - n : (done == 0 ? 0 : pending_ - done);
        if (budget > 0) {
            if (dt < budget / 8) chunk_ = std::min(chunk_ * 2, kMaxStep);
            else if (dt > budget / 2) chunk_ = std::max<std::int64_t>(1, chunk_ / 2);
        }
        if (pending_ <= 0 || budget <= 0) break;
        if (std::chrono::duration<double>(Clock::now() - t_start).count() >= budget) break;
    }
    if (pending_ > 0) return;
    pending_ = 0;
    if (running_) {
        if (hyper_ && delay_ == 0 && ++steps_at_size_ >= kHyperSteps) {
            faster();
            steps_at_size_ = 0;
        }
    } else {
        commit_run();
    }
}

// ---------------------------------------------------------------------------------------------
// Editing and history

void Viewer::begin_edit() {
    // Generations run so far become their own history entry before the edit's.
    pending_ = 0;
    commit_run();
    chunk_ = 1;
}

void Viewer::push(Change c) {
    redo_.clear();
    if (o_.history_bytes <= 0) return;
    const std::int64_t b = c.bytes();
    if (b > o_.history_bytes) {
        // Older entries are relative to this one: without it they cannot be undone either.
        undo_.clear();
        history_bytes_ = 0;
        show("undo history cleared: " + c.what + " is too large to keep for undo");
        return;
    }
    history_bytes_ += b;
    undo_.push_back(std::move(c));
    while (history_bytes_ > o_.history_bytes && !undo_.empty()) {
        history_bytes_ -= undo_.front().bytes();
        undo_.pop_front();
    }
}

// Writes the changes: in one region where they are dense (one transfer for a device engine), else
// row by row or cell by cell.
void Viewer::apply(const std::vector<Cell>& born, const std::vector<Cell>& died) {
    if (born.empty() && died.empty()) return;
    struct Put {
        Cell c;
        std::uint8_t v;
    };
    std::vector<Put> puts;
    puts.reserve(born.size() + died.size());
    for (const Cell& c : died) puts.push_back({c, 0});
    for (const Cell& c : born) puts.push_back({c, 1});
    std::sort(puts.begin(), puts.end(), [](const Put& a, const Put& b) { return row_order(a.c, b.c); });
    const auto source = image::cells_from_engine(engine_);
    auto write_box = [&](const Box& box, std::size_t from, std::size_t to) {
        std::vector<std::uint8_t> buf(static_cast<std::size_t>(box.width * box.height));
        source(box, buf.data());
        for (std::size_t i = from; i < to; ++i)
            buf[(puts[i].c.y - box.y) * box.width + (puts[i].c.x - box.x)] = puts[i].v;
        engine_.write_region(box, buf.data());
    };
    std::vector<Cell> cells;
    cells.reserve(puts.size());
    for (const Put& p : puts) cells.push_back(p.c);
    const Box all = bounding_box(cells);
    const std::int64_t n = static_cast<std::int64_t>(puts.size());
    if (all.width <= (std::int64_t{1} << 24) && all.height <= (std::int64_t{1} << 24) &&
        all.width * all.height <= std::min<std::int64_t>(std::int64_t{16} << 20, 8 * n + 4096)) {
        write_box(all, 0, puts.size());
        return;
    }
    for (std::size_t i = 0; i < puts.size();) {
        std::size_t j = i;
        while (j < puts.size() && puts[j].c.y == puts[i].c.y) ++j;
        const std::int64_t span = puts[j - 1].c.x - puts[i].c.x + 1;
        if (span <= 8 * static_cast<std::int64_t>(j - i) + 64) {
            write_box(Box{puts[i].c.x, puts[i].c.y, span, 1}, i, j);
        } else {
            for (std::size_t k = i; k < j; ++k) engine_.set_cell(puts[k].c.x, puts[k].c.y, puts[k].v != 0);
        }
        i = j;
    }
}

void Viewer::edit(const std::string& what, std::vector<Cell> born, std::vector<Cell> died,
                  std::optional<Box> selection_after, bool change_selection) {
    sort_cells(born);
    sort_cells(died);
    if (born.empty() && died.empty() && !change_selection) return;
    apply(born, died);
    Change c;
    c.what = what;
    c.born = std::move(born);
    c.died = std::move(died);
    if (change_selection) {
        c.selection_before = selection_;
        c.selection_after = selection_after;
        selection_ = selection_after;
    }
    push(std::move(c));
}

void Viewer::undo() {
    if (running_ || pending_ > 0) stop();
    if (drag_ == Drag::draw || drag_ == Drag::erase) end_stroke();
    if (undo_.empty()) {
        show("nothing to undo");
        return;
    }
    Change c = std::move(undo_.back());
    undo_.pop_back();
    history_bytes_ -= c.bytes();
    if (c.before) {
        c.after = snapshot();
        restore(*c.before);
    } else {
        apply(c.died, c.born);
    }
    if (c.selection_before || c.selection_after) selection_ = c.selection_before;
    age_.clear();
    show("undid " + c.what);
    redo_.push_back(std::move(c));
}

void Viewer::redo() {
    if (running_ || pending_ > 0) stop();
    if (redo_.empty()) {
        show("nothing to redo");
        return;
    }
    Change c = std::move(redo_.back());
    redo_.pop_back();
    if (c.before) {
        restore(*c.after);
        c.after.reset();
    } else {
        apply(c.born, c.died);
    }
    if (c.selection_before || c.selection_after) selection_ = c.selection_after;
    age_.clear();
    show("redid " + c.what);
    history_bytes_ += c.bytes();
    undo_.push_back(std::move(c));
}

void Viewer::restore(const Snapshot& s) {
    const std::vector<Cell> now = engine_.live_cells();
    apply(minus(s.live, now), minus(now, s.live));
    gen_offset_ = s.generation - engine_.generation();
}

void Viewer::reset() {
    if (running_ || pending_ > 0) stop();
    if (!start_) {
        show("cannot reset: the starting pattern is larger than the undo budget");
        return;
    }
    if (generation() == start_->generation && engine_.live_cells() == start_->live) {
        show("already at the starting pattern");
        return;
    }
    Change c;
    c.what = "reset";
    c.before = snapshot();
    restore(*start_);
    // Undoing a reset goes back to the board before it: the entry's `before` is that board, and
    // its `after` (the start) is taken again when it is undone.
    age_.clear();
    push(std::move(c));
    show("reset to generation " + std::to_string(start_->generation));
}

void Viewer::stroke_to(Cell c) {
    const bool alive = drag_ == Drag::draw;
    for (const Cell& p : line_cells(last_, c)) {
        if (!on_board(p) || engine_.get_cell(p.x, p.y) == alive) continue;
        engine_.set_cell(p.x, p.y, alive);
        (alive ? stroke_born_ : stroke_died_).push_back(p);
    }
    last_ = c;
}

void Viewer::end_stroke() {
    const bool alive = drag_ == Drag::draw;
    drag_ = Drag::none;
    std::vector<Cell> born = std::move(stroke_born_), died = std::move(stroke_died_);
    stroke_born_.clear();
    stroke_died_.clear();
    sort_cells(born);
    sort_cells(died);
    if (born.empty() && died.empty()) return;
    Change c;
    c.what = alive ? "drawing" : "erasing";
    c.born = std::move(born);
    c.died = std::move(died);
    push(std::move(c));
}

std::vector<Cell> Viewer::live_in(const Box& box) const {
    const Box b = intersect(box, engine_.extent());
    return b.empty() ? std::vector<Cell>{} : engine_.live_cells_in(b);
}

void Viewer::random_fill() {
    Box area;
    if (selection_) {
        area = bounded_ ? intersect(*selection_, board_) : *selection_;
    } else {
        const Box vis = cam_.visible(w_, h_);
        area = bounded_ ? intersect(vis, board_) : vis;
        // No selection: the view (an unbounded one only near its centre, at most 2048 x 2048).
        if (!bounded_ && (area.width > 2048 || area.height > 2048)) {
            const std::int64_t fw = std::min<std::int64_t>(area.width, 2048), fh = std::min<std::int64_t>(area.height, 2048);
            area = Box{area.x + (area.width - fw) / 2, area.y + (area.height - fh) / 2, fw, fh};
        }
    }
    if (area.empty()) {
        show("nothing to fill: the selection is off the board");
        return;
    }
    if (area.width > kMaxFillCells || area.height > kMaxFillCells || area.width * area.height > kMaxFillCells) {
        show("random fill: " + size_text(area) + " is over 16 Mi cells; select less");
        return;
    }
    begin_edit();
    std::vector<std::uint8_t> old(static_cast<std::size_t>(area.width * area.height));
    image::cells_from_engine(engine_)(area, old.data());
    std::bernoulli_distribution alive(kFillDensity);
    std::vector<Cell> born, died;
    for (std::int64_t y = 0; y < area.height; ++y)
        for (std::int64_t x = 0; x < area.width; ++x) {
            const bool now = alive(rng_), was = old[y * area.width + x] != 0;
            if (now && !was) born.push_back(Cell{area.x + x, area.y + y});
            if (!now && was) died.push_back(Cell{area.x + x, area.y + y});
        }
    edit("random fill", std::move(born), std::move(died));
    show("random fill " + size_text(area) + " (50%)");
}

void Viewer::clear(bool outside) {
    if (!selection_) {
        show("no selection (drag in select mode, F4, or Ctrl+drag; A selects all)");
        return;
    }
    begin_edit();
    std::vector<Cell> died;
    if (outside) {
        for (const Cell& c : engine_.live_cells())
            if (!selection_->contains(c)) died.push_back(c);
    } else {
        died = live_in(*selection_);
    }
    edit(outside ? "clear outside" : "clear", {}, std::move(died));
}

void Viewer::copy(bool cut) {
    if (!selection_) {
        show("no selection to copy");
        return;
    }
    std::vector<Cell> cells = live_in(*selection_);
    std::string text = format_rle(cells, rule_for_output(plan().spec), 0);
    // Positions mean nothing elsewhere: plain RLE of the cells' bounding box, as Golly copies.
    if (text.rfind("#CXRLE", 0) == 0) text.erase(0, text.find('\n') + 1);
    if (SDL_SetClipboardText(text.c_str()) != 0) {
        show(std::string("clipboard: ") + SDL_GetError());
        return;
    }
    if (cut) {
        begin_edit();
        edit("cut", {}, std::move(cells));
    }
    show(std::string(cut ? "cut " : "copied ") + size_text(*selection_) + " as RLE");
}

void Viewer::paste() {
    char* raw = SDL_GetClipboardText();
    const std::string text = raw ? raw : "";
    SDL_free(raw);
    if (text.empty()) {
        show("the clipboard is empty");
        return;
    }
    try {
        ReadLimits limits;
        limits.max_cells = std::int64_t{16} << 20;
        limits.max_file_bytes = std::int64_t{256} << 20;
        Pattern p = parse_pattern(text, "clipboard", limits);
        if (p.cells.empty()) {
            show("the clipboard's pattern has no live cells");
            return;
        }
        const Box b = p.bounding_box();
        Paste paste;
        paste.w = b.width;
        paste.h = b.height;
        for (const Cell& c : p.cells) paste.cells.push_back(Cell{c.x - b.x, c.y - b.y});
        paste_ = std::move(paste);
        show("paste " + std::to_string(b.width) + "x" + std::to_string(b.height) +
             ": click to place (Esc cancels; X Y < > transform; Shift+M mode, Shift+L location)");
    } catch (const std::exception& ex) {
        show(std::string("cannot paste: ") + ex.what());
    }
}

Box Viewer::paste_box() const {
    if (!paste_) return Box{};
    const Cell c = cursor_.value_or(cam_.cell_at(w_ / 2, h_ / 2));
    const std::int64_t w = paste_->w, h = paste_->h;
    switch (paste_at_) {
        case PasteAt::top_left: return Box{c.x, c.y, w, h};
        case PasteAt::top_right: return Box{c.x - w + 1, c.y, w, h};
        case PasteAt::bottom_right: return Box{c.x - w + 1, c.y - h + 1, w, h};
        case PasteAt::bottom_left: return Box{c.x, c.y - h + 1, w, h};
        case PasteAt::middle: return Box{c.x - w / 2, c.y - h / 2, w, h};
    }
    return Box{};
}

const std::vector<Cell>& Viewer::paste_cells() const {
    paste_placed_.clear();
    if (!paste_) return paste_placed_;
    const Box b = paste_box();
    for (const Cell& c : paste_->cells) paste_placed_.push_back(Cell{c.x + b.x, c.y + b.y});
    return paste_placed_;
}

void Viewer::place_paste() {
    const Box box = paste_box();
    std::vector<Cell> cells = paste_cells();
    if (bounded_)
        std::erase_if(cells, [&](const Cell& c) { return !board_.contains(c); });
    begin_edit();
    const std::vector<Cell> old = live_in(box);
    std::vector<Cell> born, died;
    switch (paste_mode_) {
        case PasteMode::orr: born = minus(cells, old); break;
        case PasteMode::copy:
            born = minus(cells, old);
            died = minus(old, cells);
            break;
        case PasteMode::xorr: {
            std::vector<Cell> both;
            std::set_intersection(cells.begin(), cells.end(), old.begin(), old.end(), std::back_inserter(both), row_order);
            born = minus(cells, old);
            died = std::move(both);
            break;
        }
    }
    paste_.reset();
    edit("paste", std::move(born), std::move(died));
    show("pasted at " + std::to_string(to_golly(Cell{box.x, box.y}).x) + "," + std::to_string(to_golly(Cell{box.x, box.y}).y));
}

void Viewer::transform(int kind) {
    // (x, y) in a w x h box -> its place in the transformed box.
    auto map = [kind](Cell c, std::int64_t w, std::int64_t h) {
        switch (kind) {
            case 0: return Cell{w - 1 - c.x, c.y};
            case 1: return Cell{c.x, h - 1 - c.y};
            case 2: return Cell{h - 1 - c.y, c.x};
            default: return Cell{c.y, w - 1 - c.x};
        }
    };
    static const char* const names[] = {"flip left-right", "flip top-bottom", "rotate clockwise", "rotate anticlockwise"};
    if (paste_) {
        for (Cell& c : paste_->cells) c = map(c, paste_->w, paste_->h);
        if (kind >= 2) std::swap(paste_->w, paste_->h);
        sort_cells(paste_->cells);
        return;
    }
    if (!selection_) {
        show(std::string("no selection to ") + names[kind]);
        return;
    }
    const Box s = *selection_;
    // Rotations turn the selection about its centre (Golly).
    const Box t = kind < 2 ? s : Box{s.x + (s.width - s.height) / 2, s.y + (s.height - s.width) / 2, s.height, s.width};
    if (bounded_ && !inside(t, board_)) {
        show(std::string("cannot ") + names[kind] + ": the result would leave the board");
        return;
    }
    begin_edit();
    const Box both = unite(s, t);
    const std::vector<Cell> old = live_in(both);
    // The selection's cells move; cells the turned rectangle covers outside the selection stay
    // (merged), so nothing unselected is destroyed.
    std::vector<Cell> next;
    for (const Cell& c : old)
        if (!s.contains(c)) next.push_back(c);
    for (const Cell& c : old)
        if (s.contains(c)) {
            const Cell m = map(Cell{c.x - s.x, c.y - s.y}, s.width, s.height);
            next.push_back(Cell{t.x + m.x, t.y + m.y});
        }
    sort_cells(next);
    edit(names[kind], minus(next, old), minus(old, next), t, true);
}

void Viewer::select_all() {
    const Box b = live_bounds();
    if (b.empty()) {
        selection_.reset();
        show("no live cells to select");
    } else {
        selection_ = b;
    }
}

void Viewer::shrink_selection() {
    if (!selection_) {
        show("no selection to shrink");
        return;
    }
    const std::vector<Cell> cells = live_in(*selection_);
    if (cells.empty()) {
        selection_.reset();
        show("no live cells in the selection");
        return;
    }
    selection_ = bounding_box(cells);
    fit_box(*selection_);
}

// ---------------------------------------------------------------------------------------------
// View

Box Viewer::live_bounds() const {
    // The engine knows it best: its tree's root, its words, or a scan of its rows as bits.
    return engine_.bounding_box();
}

void Viewer::fit_box(const Box& b) { cam_.fit(b, w_, h_); }

void Viewer::fit_pattern() {
    const Box lb = live_bounds();
    if (!lb.empty()) fit_box(lb);
    else if (bounded_) fit_box(board_);
    else show("no live cells to fit");
}

// While generating with auto fit: zoom out (never in) when live cells leave the view. The extent
// (which holds every live cell) is free to ask; the cells are looked at only when it pokes out,
// at most twice a second interactively (every frame in headless runs and tests).
void Viewer::follow() {
    const Box vis = cam_.visible(w_, h_);
    if (inside(engine_.extent(), vis)) return;
    if (o_.frames == 0 && o_.frame_budget_ms > 0 && Clock::now() - last_follow_ < std::chrono::milliseconds(500)) return;
    last_follow_ = Clock::now();
    const Box lb = live_bounds();
    if (!lb.empty() && !inside(lb, vis)) cam_.fit(lb, w_, h_, cam_.zoom_log());
}

void Viewer::manual_view() {
    // Golly: scrolling or zooming while generating turns auto fit off.
    if (autofit_) {
        autofit_ = false;
        if (running_) show("auto fit off (T turns it on)");
    }
}

void Viewer::zoom_centre(int steps) {
    cam_.zoom_about(w_ / 2.0, h_ / 2.0, steps);
    manual_view();
}

void Viewer::set_scale(int log) {
    cam_.zoom_about(w_ / 2.0, h_ / 2.0, log - cam_.zoom_log());
    manual_view();
}

void Viewer::pan(int dx, int dy) {
    // An eighth of the view, at least a cell.
    const std::int64_t cell = std::max<std::int64_t>(1, std::llround(cam_.zoom()));
    const std::int64_t sx = std::max<std::int64_t>(cell, w_ / 8 / cell * cell), sy = std::max<std::int64_t>(cell, h_ / 8 / cell * cell);
    cam_.pan_pixels(dx * sx, dy * sy);
    manual_view();
}

void Viewer::refresh_tiles() {
    const Box e = engine_.extent();
    if (tiles_known_ && e == tiles_for_extent_) return;
    tile_geometry_ = engine_.describe().tiles;
    tiles_for_extent_ = e;
    tiles_known_ = true;
}

RenderStats Viewer::render(std::vector<std::uint32_t>& pixels) {
    if (tiles_) refresh_tiles();
    Overlay ov;
    ov.bounded = bounded_;
    ov.board = board_;
    ov.grid = grid_;
    if (tiles_ && tile_geometry_) {
        ov.tiles = tile_geometry_;
        const TileGeometry& t = *tile_geometry_;
        if (cursor_ && t.width > 0 && t.height > 0) {
            const std::int64_t tx = floor_div(cursor_->x - t.origin.x, t.width), ty = floor_div(cursor_->y - t.origin.y, t.height);
            const Box tile{t.origin.x + tx * t.width, t.origin.y + ty * t.height, t.width, t.height};
            if (!bounded_ || board_.contains(*cursor_)) ov.halo_tile = bounded_ ? intersect(tile, board_) : tile;
        }
    }
    if (selection_) ov.selection = *selection_;
    if (paste_) {
        ov.paste = &paste_cells();
        ov.paste_box = paste_box();
    }
    const Box readable = bounded_ ? board_ : engine_.extent();
    const Palette pal = Palette::of(colors(), ages_);
    CellReader reader;
    reader.read = [&](const Box& b, std::uint8_t* c) { engine_.read_region(b, c); };
    reader.list = [&](const Box& b) { return engine_.live_cells_in(b); };
    reader.population = engine_.population();
    const Box vis = intersect(cam_.visible(w_, h_), readable);
    const bool track = ages_ && !vis.empty() && vis.width <= kSparseCells && vis.height <= kSparseCells &&
                       vis.width * vis.height <= kSparseCells;
    if (track) {
        // Ages need every visible cell at each displayed generation (views up to 16 Mi cells).
        cells_.resize(static_cast<std::size_t>(vis.width * vis.height));
        engine_.read_region(vis, cells_.data());
        const std::int64_t g = generation();
        if (age_generation_ >= 0 && g > age_generation_) age_.step(vis, cells_.data());
        else age_.refresh(vis, cells_.data());
        age_generation_ = g;
        reader.read = age_.source();
    } else if (ages_) {
        age_.clear();
        age_generation_ = -1;
    }
    last_render_ = tilelife::viewer::render(pixels, w_, h_, cam_, readable, reader, ov, pal);
    return last_render_;
}

// ---------------------------------------------------------------------------------------------
// Status

std::vector<StatusField> Viewer::status_fields() const {
    std::vector<StatusField> f;
    f.push_back({"gen " + std::to_string(generation()), 100});
    f.push_back({"pop " + std::to_string(engine_.population()), 98});
    if (pending_ > 0 && !running_) f.push_back({"stepping, " + std::to_string(pending_) + " to go", 96});
    else f.push_back({running_ ? "generating" : "stopped", 96});
    std::string step = delay_ > 0 ? "delay 2^" + std::to_string(delay_)
                                  : "step 2^" + std::to_string(step_exponent());
    if (delay_ == 0 && (step_size_ & (step_size_ - 1)) != 0) step = "step " + std::to_string(step_size_);
    if (hyper_) step += " hyper";
    f.push_back({step, 90});
    f.push_back({"scale " + scale_text(cam_.zoom_log()), 88});
    if (cursor_) {
        const Cell g = to_golly(*cursor_);
        f.push_back({"xy " + std::to_string(g.x) + "," + std::to_string(g.y), 94});
    }
    if (selection_) f.push_back({"sel " + size_text(*selection_), 93});
    if (paste_) {
        static const char* const modes[] = {"or", "copy", "xor"};
        f.push_back({"paste " + std::to_string(paste_->w) + "x" + std::to_string(paste_->h) + " " +
                         modes[static_cast<int>(paste_mode_)], 95});
    }
    f.push_back({mode_ == Mode::draw ? "draw" : mode_ == Mode::select ? "select" : "move", 70});
    if (autofit_) f.push_back({"autofit", 40});
    if (!message_.empty() && Clock::now() < message_until_) f.push_back({"| " + message_, 92});
    // Second line material.
    double gens_s = 0, cells_s = 0;
    if (rate_.size() >= 2 && (running_ || pending_ > 0)) {
        const double dt = std::chrono::duration<double>(rate_.back().t - rate_.front().t).count();
        double work = 0;
        for (std::size_t i = 1; i < rate_.size(); ++i) work += rate_[i].cell_updates;
        if (dt > 0) {
            gens_s = (rate_.back().generation - rate_.front().generation) / dt;
            cells_s = work / dt;
        }
    }
    f.push_back({engine_.rule().to_string(), 60});
    const Box e = engine_.extent();
    f.push_back({std::string(to_string(engine_.topology())) + " " + size_text(e), 52});
    f.push_back({engine_.name(), 56});
    // Long device names (OpenCL's) are shortened: the rest of the line matters more.
    if (!device_.empty()) f.push_back({"[" + (device_.size() > 36 ? device_.substr(0, 33) + "..." : device_) + "]", 35});
    if (tiles_) {
        if (!tile_geometry_) {
            f.push_back({"no tiles: " + engine_.name() + " has no work-groups", 80});
        } else if (!last_render_.tiles_drawn) {
            f.push_back({"tiles " + std::to_string(tile_geometry_->width) + "x" + std::to_string(tile_geometry_->height) +
                             " hidden at this scale", 80});
        } else {
            std::string t = "tiles " + std::to_string(tile_geometry_->width) + "x" + std::to_string(tile_geometry_->height);
            if (tile_geometry_->halo_x || tile_geometry_->halo_y)
                t += " halo " + std::to_string(tile_geometry_->halo_x) + "," + std::to_string(tile_geometry_->halo_y);
            if (!tile_geometry_->text.empty()) t += " (" + tile_geometry_->text + ")";
            f.push_back({t, 80});
        }
    }
    if (ages_ && last_render_.mode != ReadMode::none && age_.box().empty())
        f.push_back({"ages hidden at this scale", 45});
    if (last_render_.mode == ReadMode::sampled) f.push_back({"sampled", 44});
    f.push_back({human(gens_s) + " gens/s", 50});
    f.push_back({human(cells_s) + " cell-updates/s", 48});
    f.push_back({"H: help", 30});
    return f;
}

std::vector<std::string> Viewer::status(int chars, int lines) const { return fit_status(status_fields(), chars, lines); }

std::string Viewer::filename(const char* ext) const {
    return o_.stem + "-gen" + std::to_string(generation()) + ext;
}

}  // namespace tilelife::viewer
