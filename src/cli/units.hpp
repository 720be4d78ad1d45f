// Numbers for people: rates from a few cell-updates per second to a HashLife run's 2^80 and beyond.
#pragma once
#include <string>

namespace tilelife::cli {

// "0 ", "999 ", "1.00 k", "4.15 Y": three significant digits with an SI prefix (k, M, G, T, P, E, Z, Y),
// whole numbers below 1000, and "1.00e+27 " (scientific) from 1000 Y up, so the unit can follow
// directly ("4.15 Ycell-updates/s"). Rounding never prints "1000.00 k": it moves to the next prefix.
// Negative, NaN and infinite values print as printf's %g does.
std::string si_prefixed(double value);

}  // namespace tilelife::cli
