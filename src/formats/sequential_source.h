// SequentialSource: the FileReader of a format read front to back, one batch
// at a time (CSV, Arrow IPC streams). It has no units; scans drain its
// ReadSequential() reader under a lock (catalog's FileScanPlan::stream).
//
// Learning the schema means starting to read, so the input is opened once
// when the source is made (Init); that first reader serves the first
// ReadSequential() and later calls open the input again from its start.
//
// Thread-safety: one ReadSequential() at a time; bytes_read() and
// total_bytes() may be read from any thread while it runs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "formats/file_reader.h"

namespace quiver::formats {

class SequentialSource : public FileReader {
 public:
  SchemaRef schema() const final { return schema_; }
  Result<std::unique_ptr<RecordBatchReader>> ReadSequential(const std::vector<int>& columns) final;
  int64_t bytes_read() const final;
  int64_t total_bytes() const final;

 protected:
  SequentialSource(std::string path, FileFormat format) : FileReader(std::move(path), format) {}

  // Opens the input from its start.
  virtual Result<std::unique_ptr<RecordBatchReader>> OpenInput() = 0;
  // Progress of `input`, a reader OpenInput() returned, in bytes.
  virtual int64_t InputBytesRead(const RecordBatchReader& input) const = 0;
  virtual int64_t InputTotalBytes(const RecordBatchReader& input) const = 0;

  // Opens the first input and takes its schema. The adapter's factory calls
  // it once, before handing the source out.
  Status Init();

 private:
  SchemaRef schema_;
  std::unique_ptr<RecordBatchReader> first_;  // opened to learn the schema
  // The input being read (first_ until it is handed out); owned by the
  // reader ReadSequential() returned, which must outlive progress queries.
  RecordBatchReader* current_ = nullptr;
};

}  // namespace quiver::formats
