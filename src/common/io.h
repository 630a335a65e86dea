// File input and output.
//
// Input: MapFile() maps a whole file read-only and returns it as a Buffer
// whose owner unmaps on release, so arrays sliced out of it are zero-copy and
// keep the mapping alive. Recently mapped files stay mapped (up to 256 files)
// and are handed out again while device, inode, size and mtime are
// unchanged, so repeated queries over a file do not fault its pages in
// again. ReadFileFully() is the fallback for pipes/stdin.
//
// Output: OutputStream is the sink interface of every writer. AtomicFile
// writes to "<path>.tmp-XXXXXX" beside the target, fsyncs, and renames over
// the target only on Commit(); destroying it uncommitted removes the temporary
// file, so a failed or interrupted conversion never leaves a partial file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/buffer.h"
#include "common/status.h"

namespace quiver {

// Maps `path` read-only. Empty files yield an empty buffer.
Result<std::shared_ptr<Buffer>> MapFile(const std::string& path);
// Reads the whole file (or "-" for stdin) into memory.
Result<std::shared_ptr<Buffer>> ReadFileFully(const std::string& path);

class OutputStream {
 public:
  virtual ~OutputStream() = default;
  virtual Status Write(const void* data, int64_t size) = 0;
  Status Write(std::string_view s) { return Write(s.data(), static_cast<int64_t>(s.size())); }
  Status Write(const Buffer& b) { return Write(b.data(), b.size()); }
  // Bytes written so far.
  virtual int64_t Tell() const = 0;
  virtual Status Flush() { return Status::OK(); }
  virtual Status Close() { return Flush(); }
};

// Accumulates output in memory (tests, Flight messages).
class BufferOutputStream final : public OutputStream {
 public:
  using OutputStream::Write;
  Status Write(const void* data, int64_t size) override {
    buffer_.append(static_cast<const char*>(data), static_cast<size_t>(size));
    return Status::OK();
  }
  int64_t Tell() const override { return static_cast<int64_t>(buffer_.size()); }
  const std::string& contents() const { return buffer_; }
  std::string Take() { return std::move(buffer_); }

 private:
  std::string buffer_;
};

// Buffered writes to a file descriptor.
class FileOutputStream : public OutputStream {
 public:
  // Creates/truncates `path` ("-" = stdout).
  static Result<std::unique_ptr<FileOutputStream>> Open(const std::string& path);
  ~FileOutputStream() override;
  using OutputStream::Write;
  Status Write(const void* data, int64_t size) override;
  int64_t Tell() const override { return position_; }
  Status Flush() override;
  Status Close() override;
  Status Sync();  // flush + fsync
  const std::string& path() const { return path_; }

 protected:
  friend class AtomicFile;
  FileOutputStream(int fd, std::string path, bool owns_fd)
      : fd_(fd), path_(std::move(path)), owns_fd_(owns_fd) {}
  int fd_;
  std::string path_;
  bool owns_fd_;
  int64_t position_ = 0;
  std::string pending_;
  // When set (AtomicFile), written ranges are handed to the kernel for
  // writeback as we go, so the final fsync waits for little more than the tail.
  bool early_writeback_ = false;
  int64_t written_ = 0;       // bytes passed to write(2)
  int64_t writeback_to_ = 0;  // bytes already handed to sync_file_range

 private:
  Status WriteAll(const char* data, int64_t size);
};

// Writes to a temporary file beside `path`; Commit() fsyncs and renames it
// into place (and fsyncs the directory). Without Commit() the temporary file
// is removed.
class AtomicFile final : public OutputStream {
 public:
  static Result<std::unique_ptr<AtomicFile>> Create(const std::string& path);
  ~AtomicFile() override;
  using OutputStream::Write;
  Status Write(const void* data, int64_t size) override { return out_->Write(data, size); }
  int64_t Tell() const override { return out_->Tell(); }
  Status Flush() override { return out_->Flush(); }
  Status Commit();
  void Abort();
  const std::string& temp_path() const { return temp_path_; }

 private:
  AtomicFile(std::string path, std::string temp_path, std::unique_ptr<FileOutputStream> out)
      : path_(std::move(path)), temp_path_(std::move(temp_path)), out_(std::move(out)) {}
  std::string path_;
  std::string temp_path_;
  std::unique_ptr<FileOutputStream> out_;
  bool done_ = false;
};

}  // namespace quiver
