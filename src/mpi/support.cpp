#include "mpi/support.hpp"

#include <algorithm>
#include <climits>
#include <vector>

namespace tilelife::mpi {

void agree(MPI_Comm comm, int rank, const Outcome& mine) { agree(comm, rank, mine, nullptr, 0); }

void agree(MPI_Comm comm, int rank, const Outcome& mine, double* maxima, int n) {
    // One reduction: the lowest failing rank (MIN) and the other values negated (MIN of -x is -MAX).
    std::vector<double> in(static_cast<std::size_t>(n) + 1), out(in.size());
    in[0] = mine.kind == Outcome::none ? INT_MAX : rank;
    for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i) + 1] = -maxima[i];
    MPI_Allreduce(in.data(), out.data(), n + 1, MPI_DOUBLE, MPI_MIN, comm);
    for (int i = 0; i < n; ++i) maxima[i] = -out[static_cast<std::size_t>(i) + 1];
    const int first = static_cast<int>(out[0]);
    if (first == INT_MAX) return;
    // The failing rank tells the others what happened.
    long long header[2] = {mine.kind, static_cast<long long>(mine.message.size())};
    MPI_Bcast(header, 2, MPI_LONG_LONG, first, comm);
    std::string message = mine.message;
    message.resize(static_cast<std::size_t>(header[1]));
    if (header[1] > 0) MPI_Bcast(message.data(), static_cast<int>(header[1]), MPI_CHAR, first, comm);
    if (first != 0) message = "rank " + std::to_string(first) + ": " + message;
    switch (header[0]) {
        case Outcome::input: throw InputError(message);
        case Outcome::range: throw std::out_of_range(message);
        case Outcome::other: throw std::runtime_error(message);
        default: throw RuntimeError(message);
    }
}

namespace {
constexpr std::size_t kPiece = std::size_t{1} << 30;
}

void send_bytes(MPI_Comm comm, const void* data, std::size_t bytes, int dest, int tag) {
    const auto* p = static_cast<const char*>(data);
    for (std::size_t at = 0; at < bytes; at += kPiece)
        MPI_Send(p + at, static_cast<int>(std::min(kPiece, bytes - at)), MPI_BYTE, dest, tag, comm);
}

void recv_bytes(MPI_Comm comm, void* data, std::size_t bytes, int source, int tag) {
    auto* p = static_cast<char*>(data);
    for (std::size_t at = 0; at < bytes; at += kPiece)
        MPI_Recv(p + at, static_cast<int>(std::min(kPiece, bytes - at)), MPI_BYTE, source, tag, comm, MPI_STATUS_IGNORE);
}

}  // namespace tilelife::mpi
