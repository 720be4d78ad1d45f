// Helpers shared by the readers: line splitting, trimming, integers, rule validation, cell sets.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "io/detail.hpp"
#include "tilelife/rule.hpp"

namespace tilelife::io {

bool Lines::next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    // memchr (vectorised in libc) finds the next '\n' and the next '\r'; each is remembered until
    // passed, so every byte is scanned at most twice in all (no rescans: a file of lone '\r' line
    // ends with one '\n' at its end stays linear).
    const char* base = text_.data();
    const std::size_t size = text_.size();
    const auto next_of = [&](char c) {
        const void* p = std::memchr(base + pos_, c, size - pos_);
        return p ? static_cast<std::size_t>(static_cast<const char*>(p) - base) : size;
    };
    if (number_ == 0 || next_nl_ < pos_) next_nl_ = next_of('\n');
    if (number_ == 0 || next_cr_ < pos_) next_cr_ = next_of('\r');
    std::size_t end = std::min(next_nl_, next_cr_);
    line = text_.substr(pos_, end - pos_);
    if (end < text_.size() && text_[end] == '\r' && end + 1 < text_.size() && text_[end + 1] == '\n') ++end;
    pos_ = end + 1;
    ++number_;
    return true;
}

std::string_view trim(std::string_view s) {
    std::size_t a = 0, b = s.size();
    while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\f' || s[a] == '\v')) ++a;
    while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\f' || s[b - 1] == '\v')) --b;
    return s.substr(a, b - a);
}

bool is_blank(std::string_view s) { return trim(s).empty(); }

std::string describe_byte(char c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
    return std::string("unexpected byte ") + buf + " (not a text pattern?)";
}

bool parse_int(std::string_view text, std::int64_t& out) {
    if (!text.empty() && text[0] == '+') text.remove_prefix(1);
    if (text.empty()) return false;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && ptr == text.data() + text.size();
}

std::string checked_rule(std::string_view text, const std::string& source, std::int64_t line) {
    const std::string_view t = trim(text);
    try {
        (void)parse_rule(t);
    } catch (const InputError& e) {
        fail(source, line, e.what());
    }
    return std::string(t);
}

void normalize(std::vector<Cell>& cells) {
    if (!std::is_sorted(cells.begin(), cells.end(), row_order)) std::sort(cells.begin(), cells.end(), row_order);
    cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
}

}  // namespace tilelife::io
