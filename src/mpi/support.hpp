// Small MPI helpers of the distributed engine: agreeing on failures, and messages of any size.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>

#include "tilelife/error.hpp"

namespace tilelife::mpi {

// What a rank's local part of a collective call ended with.
struct Outcome {
    enum Kind : int { none = 0, input = 1, runtime = 2, range = 3, other = 4 } kind = none;
    std::string message;
};

// Runs `f`, turning what it throws into an Outcome (so that the rank still joins the agreement).
template <class F>
Outcome attempt(F&& f) {
    try {
        f();
        return {};
    } catch (const InputError& e) {
        return {Outcome::input, e.what()};
    } catch (const RuntimeError& e) {
        return {Outcome::runtime, e.what()};
    } catch (const std::out_of_range& e) {
        return {Outcome::range, e.what()};
    } catch (const std::bad_alloc&) {
        return {Outcome::runtime, "out of memory"};
    } catch (const std::exception& e) {
        return {Outcome::other, e.what()};
    }
}

// Collective: when any rank's outcome is a failure, every rank throws the failure of the lowest
// such rank (its message prefixed with "rank N: " when N is not 0), as the same exception type.
void agree(MPI_Comm comm, int rank, const Outcome& mine);
// The same, with `n` more values reduced in the same call: each of maxima[0..n) becomes its largest
// value over the ranks (a flag, a time), before any failure is thrown.
void agree(MPI_Comm comm, int rank, const Outcome& mine, double* maxima, int n);

// Point-to-point messages of any length (split into pieces whose counts fit an int).
void send_bytes(MPI_Comm comm, const void* data, std::size_t bytes, int dest, int tag);
void recv_bytes(MPI_Comm comm, void* data, std::size_t bytes, int source, int tag);

}  // namespace tilelife::mpi
