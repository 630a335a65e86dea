#include "common/io.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <list>
#include <mutex>
#include <random>
#include <tuple>

namespace quiver {

namespace {

Status Errno(const std::string& what, const std::string& path) {
  return Status::IOError("{} '{}': {}", what, path, std::strerror(errno));
}

struct Mapping {
  Mapping(void* a, size_t s) : addr(a), size(s) {}
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  void* addr;
  size_t size;
  ~Mapping() {
    if (addr != nullptr && addr != MAP_FAILED) munmap(addr, size);
  }
};

// Recently mapped files, kept mapped so that the next query over the same
// file finds its page tables filled instead of faulting every page in again
// (a quarter of a scan's time on a warm page cache). A file is the same if
// device, inode, size and modification time agree; a rewritten file (new
// inode after an atomic rename, or a new mtime) is mapped afresh.
class MappedFileCache {
 public:
  using Key = std::tuple<dev_t, ino_t, off_t, int64_t, int64_t>;

  static MappedFileCache& Instance() {
    static MappedFileCache* cache = new MappedFileCache();  // never destroyed: used until exit
    return *cache;
  }

  std::shared_ptr<Buffer> Find(const Key& key) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->first == key) {
        entries_.splice(entries_.begin(), entries_, it);  // most recently used first
        return it->second;
      }
    }
    return nullptr;
  }

  void Insert(const Key& key, std::shared_ptr<Buffer> buffer) {
    std::lock_guard<std::mutex> lock(mu_);
    bytes_ += buffer->size();
    entries_.emplace_front(key, std::move(buffer));
    while (entries_.size() > kMaxFiles || (bytes_ > kMaxBytes && entries_.size() > 1)) {
      bytes_ -= entries_.back().second->size();
      entries_.pop_back();
    }
  }

 private:
  static constexpr size_t kMaxFiles = 256;
  static constexpr int64_t kMaxBytes = int64_t{64} << 30;  // address space, not memory
  std::mutex mu_;
  std::list<std::pair<Key, std::shared_ptr<Buffer>>> entries_;  // GUARDED_BY(mu_)
  int64_t bytes_ = 0;                                           // GUARDED_BY(mu_)
};

std::string DirName(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

Result<std::shared_ptr<Buffer>> MapFile(const std::string& path) {
  if (path == "-") return ReadFileFully(path);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open", path);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    Status s = Errno("cannot stat", path);
    ::close(fd);
    return s;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return ReadFileFully(path);  // pipes, devices: no mmap
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    static const uint8_t kEmpty[1] = {0};
    return std::make_shared<Buffer>(kEmpty, 0);
  }
  const MappedFileCache::Key key{st.st_dev, st.st_ino, st.st_size, static_cast<int64_t>(st.st_mtim.tv_sec),
                                 static_cast<int64_t>(st.st_mtim.tv_nsec)};
  if (auto cached = MappedFileCache::Instance().Find(key)) {
    ::close(fd);
    return cached;
  }
  void* addr = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (addr == MAP_FAILED) return Errno("cannot mmap", path);
  auto mapping = std::make_shared<Mapping>(addr, size);
  auto buffer = std::make_shared<Buffer>(static_cast<const uint8_t*>(addr), static_cast<int64_t>(size),
                                         std::move(mapping));
  MappedFileCache::Instance().Insert(key, buffer);
  return buffer;
}

Result<std::shared_ptr<Buffer>> ReadFileFully(const std::string& path) {
  int fd = path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open", path);
  QUIVER_ASSIGN_OR_RAISE(auto buf, MutableBuffer::Allocate(0));
  int64_t size = 0;
  for (;;) {
    if (buf->capacity() - size < 65536) {
      Status st = buf->Reserve(std::max<int64_t>(buf->capacity() * 2, 1 << 20));
      if (!st.ok()) {
        if (fd != STDIN_FILENO) ::close(fd);
        return st;
      }
    }
    ssize_t n = ::read(fd, buf->mutable_data() + size, static_cast<size_t>(buf->capacity() - size));
    if (n < 0) {
      if (errno == EINTR) continue;
      Status st = Errno("cannot read", path);
      if (fd != STDIN_FILENO) ::close(fd);
      return st;
    }
    if (n == 0) break;
    size += n;
  }
  if (fd != STDIN_FILENO) ::close(fd);
  QUIVER_RETURN_NOT_OK(buf->Resize(size));
  buf->ZeroPadding();
  return std::shared_ptr<Buffer>(std::move(buf));
}

// --- FileOutputStream ------------------------------------------------------

namespace {
constexpr size_t kWriteBufferSize = 1 << 20;
}

Result<std::unique_ptr<FileOutputStream>> FileOutputStream::Open(const std::string& path) {
  if (path == "-") {
    return std::unique_ptr<FileOutputStream>(new FileOutputStream(STDOUT_FILENO, "<stdout>", false));
  }
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("cannot create", path);
  return std::unique_ptr<FileOutputStream>(new FileOutputStream(fd, path, true));
}

FileOutputStream::~FileOutputStream() { (void)Close(); }

Status FileOutputStream::WriteAll(const char* p, int64_t left) {
  while (left > 0) {
    ssize_t n = ::write(fd_, p, static_cast<size_t>(left));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno("cannot write", path_);
    }
    p += n;
    left -= n;
    written_ += n;
  }
  constexpr int64_t kWritebackChunk = 8 << 20;
  if (early_writeback_ && written_ - writeback_to_ >= kWritebackChunk) {
    // Best effort: start writeback; errors surface at the final fsync.
    (void)::sync_file_range(fd_, writeback_to_, written_ - writeback_to_, SYNC_FILE_RANGE_WRITE);
    writeback_to_ = written_;
  }
  return Status::OK();
}

Status FileOutputStream::Write(const void* data, int64_t size) {
  if (fd_ < 0) return Status::IOError("write to closed file '{}'", path_);
  position_ += size;
  if (pending_.size() + static_cast<size_t>(size) <= kWriteBufferSize) {
    pending_.append(static_cast<const char*>(data), static_cast<size_t>(size));
    return Status::OK();
  }
  QUIVER_RETURN_NOT_OK(Flush());
  if (static_cast<size_t>(size) < kWriteBufferSize) {
    pending_.append(static_cast<const char*>(data), static_cast<size_t>(size));
    return Status::OK();
  }
  // Large writes bypass the buffer.
  return WriteAll(static_cast<const char*>(data), size);
}

Status FileOutputStream::Flush() {
  if (pending_.empty()) return Status::OK();
  QUIVER_RETURN_NOT_OK(WriteAll(pending_.data(), static_cast<int64_t>(pending_.size())));
  pending_.clear();
  return Status::OK();
}

Status FileOutputStream::Sync() {
  QUIVER_RETURN_NOT_OK(Flush());
  if (::fsync(fd_) != 0) return Errno("cannot fsync", path_);
  return Status::OK();
}

Status FileOutputStream::Close() {
  if (fd_ < 0) return Status::OK();
  Status st = Flush();
  if (owns_fd_ && ::close(fd_) != 0 && st.ok()) st = Errno("cannot close", path_);
  fd_ = -1;
  return st;
}

// --- AtomicFile ----------------------------------------------------------------

Result<std::unique_ptr<AtomicFile>> AtomicFile::Create(const std::string& path) {
  std::random_device rd;
  std::string temp = fmt::format("{}.tmp-{:08x}", path, rd());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("cannot create", path);  // name the file the user asked for
  std::unique_ptr<FileOutputStream> out(new FileOutputStream(fd, temp, true));
  out->early_writeback_ = true;
  return std::unique_ptr<AtomicFile>(new AtomicFile(path, temp, std::move(out)));
}

AtomicFile::~AtomicFile() {
  if (!done_) Abort();
}

void AtomicFile::Abort() {
  if (done_) return;
  (void)out_->Close();
  ::unlink(temp_path_.c_str());
  done_ = true;
}

Status AtomicFile::Commit() {
  if (done_) return Status::Invalid("file '{}' already committed or aborted", path_);
  Status st = out_->Sync();
  if (st.ok()) st = out_->Close();
  if (st.ok() && ::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    st = Errno("cannot rename temporary file to", path_);
  }
  if (!st.ok()) {
    Abort();
    return st;
  }
  done_ = true;
  // Make the rename itself durable.
  int dfd = ::open(DirName(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
  return Status::OK();
}

}  // namespace quiver
