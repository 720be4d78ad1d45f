// Golly's own pattern collection (Life/ and Life-Like/): every file whose rule tilelife supports is
// run for a modest number of generations on tilelife and on bgolly and compared cell by cell.
// Golly decides where a pattern goes; gen 0 tells us the translation between its coordinates and
// tilelife's (none at all on bounded grids, where placement must agree exactly).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <regex>

#include "golly/golly_harness.hpp"

namespace tilelife {
namespace {

namespace fs = std::filesystem;
using test::Cells;

const char* kCollection = "/usr/share/golly/Patterns";

bool has_ext(const std::string& name, const std::string& ext) {
    return name.size() >= ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0;
}

// The rule a file names, by a plain look at its text (so that a reader failure can be told apart
// from an unsupported rule). Empty when the file names none (Golly then uses B3/S23).
std::string rule_named_in(const std::string& text) {
    static const std::regex rle(R"(rule\s*=\s*([^\s,]+))"), hash(R"((?:^|\n)#R\s+(\S+))");
    std::smatch m;
    const std::string head = text.substr(0, 4096);
    if (std::regex_search(head, m, rle)) return m[1];
    if (std::regex_search(head, m, hash)) return m[1];
    return {};
}

struct Budget {
    double cell_updates_per_file;  // what one engine may spend on one file
};

TEST(GollyCollection, LifeAndLifeLikePatternsMatchBgolly) {
    if (test::bgolly_path().empty()) GTEST_SKIP() << "bgolly not found: install golly to compare its collection";
    if (!fs::exists(kCollection)) GTEST_SKIP() << kCollection << " not found (golly's pattern collection)";
    const std::string engine = test::fast_cpu_engine();
    // cpu:bitpacked does ~1e9 cell updates/s on 2 cores, cpu:reference ~1e8: keep the whole walk to
    // a few minutes either way.
    const Budget budget{engine == "cpu:reference" ? 1e8 : 4e9};
    const std::int64_t default_gens = 200, min_gens = 10;
    const std::uintmax_t max_file_bytes = 256 * 1024;

    std::vector<std::string> files;
    for (const char* sub : {"Life", "Life-Like"})
        for (const auto& e : fs::recursive_directory_iterator(std::string(kCollection) + "/" + sub))
            if (e.is_regular_file()) files.push_back(e.path().string());
    std::sort(files.begin(), files.end());

    test::TempDir dir;
    int compared = 0;
    std::map<std::string, int> skipped;  // reason -> count
    std::vector<std::string> skipped_files;
    const auto t0 = std::chrono::steady_clock::now();

    for (const std::string& path : files) {
        const std::string rel = path.substr(std::string(kCollection).size() + 1);
        auto skip = [&](const std::string& reason) {
            ++skipped[reason];
            skipped_files.push_back(rel + " (" + reason + ")");
        };
        std::string base = path;
        const bool gz = has_ext(base, ".gz");
        if (gz) base = base.substr(0, base.size() - 3);
        if (!(has_ext(base, ".rle") || has_ext(base, ".lif") || has_ext(base, ".cells") || has_ext(base, ".mc"))) {
            skip("not a pattern file tilelife reads");
            continue;
        }
        if (fs::file_size(path) > max_file_bytes) {
            skip("file too large for this test");
            continue;
        }
        // The rule, from the text (gzip files: from what tilelife reads, below).
        std::string rule_text = gz ? std::string() : rule_named_in(test::read_text(path));
        if (!gz && !rule_text.empty()) {
            try {
                parse_rule(rule_text);
            } catch (const InputError&) {
                skip("rule not supported by tilelife");
                continue;
            }
        }
        Pattern p;
        try {
            p = read_pattern(path);
        } catch (const std::exception& e) {
            if (gz && std::string(e.what()).find("gzip") != std::string::npos) {
                skip("gzip input not built in");
                continue;
            }
            ADD_FAILURE() << rel << ": Golly reads this file (rule '" << rule_text
                          << "' is supported) but tilelife does not: " << e.what();
            continue;
        }
        if (p.rule) rule_text = *p.rule;
        RuleSpec spec;
        try {
            spec = parse_rule(rule_text.empty() ? "B3/S23" : rule_text);
        } catch (const InputError&) {
            skip("rule not supported by tilelife");
            continue;
        }
        const Topology topo = spec.grid ? spec.grid->topology : Topology::unbounded;
        const std::int64_t W = spec.grid ? spec.grid->width : 0, H = spec.grid ? spec.grid->height : 0;
        if (topo == Topology::unbounded && (spec.rule.birth & 1u)) {
            skip("B0 rule on an unbounded board (refused by tilelife)");
            continue;
        }
        if (p.cells.empty()) {
            skip("empty pattern");
            continue;
        }

        // Golly's gen 0 fixes the translation; then choose generations within the budget.
        const golly::GollyResult g0 = golly::run_bgolly(path, 0, dir.path(), "g0");
        if (!g0.ok) {
            ADD_FAILURE() << rel << ": " << g0.error;
            continue;
        }
        std::int64_t gens = default_gens;
        golly::GollyResult gn = golly::run_bgolly(path, gens, dir.path(), "gn");
        if (!gn.ok) {
            ADD_FAILURE() << rel << ": " << gn.error;
            continue;
        }
        auto cost = [&](const golly::GollyResult& r, std::int64_t n) {
            if (topo != Topology::unbounded) return static_cast<double>(W) * H * n;
            const Box b = unite(test::bbox(g0.cells), test::bbox(r.cells));
            return (static_cast<double>(b.width) + 64) * (static_cast<double>(b.height) + 64) * n;
        };
        if (cost(gn, gens) > budget.cell_updates_per_file) {
            gens = std::max<std::int64_t>(min_gens, static_cast<std::int64_t>(budget.cell_updates_per_file / cost(gn, 1)));
            if (gens >= default_gens) gens = default_gens;
            gn = golly::run_bgolly(path, gens, dir.path(), "gn");
            if (!gn.ok) {
                ADD_FAILURE() << rel << ": " << gn.error;
                continue;
            }
            if (cost(gn, gens) > 4 * budget.cell_updates_per_file) {
                skip("pattern too large for this test's time budget");
                continue;
            }
        }

        // tilelife's gen 0 and the translation onto Golly's.
        const Cells mine0 = topo == Topology::unbounded ? test::sorted(p.cells) : golly::place_bounded(p, W, H);
        std::int64_t dx = 0, dy = 0;
        if (topo == Topology::unbounded) {
            const Box a = test::bbox(g0.cells), b = test::bbox(mine0);
            dx = a.x - b.x;
            dy = a.y - b.y;
        } else {
            dx = -(W / 2);
            dy = -(H / 2);
        }
        const std::string d0 = test::diff(g0.cells, test::translated(mine0, dx, dy));
        if (!d0.empty()) {
            ADD_FAILURE() << rel << " (" << to_string(topo) << "): generation 0 differs from Golly's "
                          << (topo == Topology::unbounded ? "(under the bounding-box translation)" : "(grid placement)")
                          << ": " << d0;
            continue;
        }
        std::string why;
        auto e = test::try_create(engine, BoardSpec{W, H, topo, spec.rule}, &why);
        ASSERT_TRUE(e) << why;
        e->set_cells(mine0);
        e->step(gens);
        const std::string dn = test::diff(gn.cells, test::translated(e->live_cells(), dx, dy));
        EXPECT_TRUE(dn.empty()) << rel << " (" << spec.to_string() << ", " << to_string(topo) << "), generation "
                                << gens << " on " << engine << ": " << dn;
        ++compared;
        std::printf("  compared %-62s %-24s %4lld gens %7zu cells\n", rel.c_str(), spec.to_string().c_str(),
                    static_cast<long long>(gens), gn.cells.size());
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    int n_skipped = 0;
    for (const auto& [reason, n] : skipped) n_skipped += n;
    std::printf("Golly collection: %d files compared with bgolly on %s, %d skipped, %.1f s\n", compared,
                engine.c_str(), n_skipped, secs);
    for (const auto& [reason, n] : skipped) std::printf("  skipped %3d: %s\n", n, reason.c_str());
    for (const std::string& s : skipped_files) std::printf("    %s\n", s.c_str());
    RecordProperty("compared", compared);
    RecordProperty("skipped", n_skipped);
    // The collection holds well over a hundred Life files tilelife supports.
    EXPECT_GE(compared, 100);
}

}  // namespace
}  // namespace tilelife
