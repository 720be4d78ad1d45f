// One way to write an output file: opened before the work that fills it (a bad path fails first,
// not after a long run), written to a temporary file beside the target, and renamed over the target
// only when complete. Text writers, zlib (gz*), libpng and giflib all write through it.
//
// Atomic against the process dying (killed, crashed, out of disk): the target is either the old file
// or the complete new one. Durable against the machine losing power only with Sync::yes (fsync of
// the file and of its directory): that costs 1-10 ms of waiting on a disk, more than a small job's
// whole run, so only checkpoints ask for it; results are renamed into place as cp or Golly leave them.
#pragma once
#include <cstdio>
#include <string>
#include <string_view>

namespace tilelife {

class OutputFile {
public:
    enum class Compression { none, gzip };
    enum class Sync { no, yes };

    // Creates the temporary file now. "-" is standard output (written straight through, nothing to
    // rename). Throws InputError when `path` is a directory, RuntimeError when no file can be created
    // in its directory.
    explicit OutputFile(std::string path, Compression compression = Compression::none, Sync sync = Sync::no);
    ~OutputFile();  // removes the temporary file unless commit() completed
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    const std::string& path() const { return path_; }
    bool standard_output() const { return path_ == "-"; }

    // Appends bytes (gzip-compressed with zlib's gz* API when so constructed).
    void write(std::string_view bytes);
    // A stdio stream on the file for libraries that write through FILE* (libpng); owned here,
    // flushed and closed by commit(). Not with gzip.
    std::FILE* stream();
    // A descriptor of its own for libraries that close what they are given (giflib's
    // EGifOpenFileHandle): the caller owns and closes it; commit() still renames (and syncs) the file.
    int release_fd();

    // Flushes and renames the file over the target, syncing the file before and the directory after
    // with Sync::yes (standard output: flushes). Throws
    // RuntimeError naming the path on any I/O failure; the target is then left as it was.
    void commit();

private:
    [[noreturn]] void fail(const std::string& what, int err) const;
    void name_unnamed();

    std::string path_, temp_;  // temp_ is empty while the file has no name (O_TMPFILE)
    int fd_ = -1;
    std::FILE* stream_ = nullptr;
    void* gz_ = nullptr;  // gzFile
    Compression compression_;
    Sync sync_;
    bool committed_ = false;
    bool in_place_ = false;  // an existing target that is not a regular file, written where it is
    int slot_ = -1;  // its entry for remove_temporary_files(); -1: none
};

// Checks before any work that `path` can take an output file (the same checks OutputFile makes,
// leaving nothing behind): InputError for a directory, RuntimeError when its directory cannot take
// a new file, or when an existing target that is not a regular file (a device, a FIFO) cannot be
// written. "-" always can.
void check_output_path(const std::string& path);

// Removes the temporary file of every OutputFile not yet committed (at most 32 at a time are
// tracked). Async-signal-safe: for a signal handler that ends the process at once, where the
// destructors that would remove them never run.
void remove_temporary_files() noexcept;

}  // namespace tilelife
