// libFuzzer target for the rule parser: either a RuleSpec or an InputError, and a parsed rule must
// print to a string that parses back to itself.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tilelife/error.hpp"
#include "tilelife/rule.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const tilelife::RuleSpec spec = tilelife::parse_rule(text);
        const tilelife::RuleSpec again = tilelife::parse_rule(spec.to_string());
        if (!(again.rule == spec.rule) || !(again.grid == spec.grid)) std::abort();
    } catch (const tilelife::InputError&) {
    }
    return 0;
}
