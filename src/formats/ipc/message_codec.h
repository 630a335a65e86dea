// Arrow IPC messages one at a time, for transports that frame messages
// themselves. Arrow Flight carries each message in a FlightData: the
// flatbuffer Message in data_header and the body in data_body, with no
// continuation marker or length prefix (see reader.h for the stream layout
// these messages otherwise live in).
//
//   encoder:  Schema -> EncodedMessage (metadata only)
//             RecordBatch -> [DictionaryBatch...] RecordBatch, each an
//             EncodedMessage whose body is a list of buffers, each followed by
//             zero padding to 8 bytes. The buffers are the batch's own (sliced
//             arrays are normalised as in the IPC writer; nothing else is
//             copied), so a transport can send them without copying.
//   decoder:  (metadata bytes, body Buffer) in stream order -> RecordBatches.
//             Input is untrusted: the flatbuffer is verified and every array
//             validated, as by IpcStreamReader.
//
// Dictionaries follow the stream format's rules: a dictionary batch precedes
// the first record batch using it, and a changed dictionary is sent again
// (as a delta when IpcWriteOptions::emit_dictionary_deltas and the old one is
// a prefix of the new one, otherwise replacing it).
//
// Thread-safety: an encoder or decoder is used by one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/array.h"
#include "common/buffer.h"
#include "common/status.h"
#include "formats/ipc/writer.h"

namespace quiver::ipc {

struct EncodedMessage {
  enum Kind : int8_t { kSchema, kDictionaryBatch, kRecordBatch };
  Kind kind = kSchema;
  // The flatbuffer Message (what Flight calls data_header).
  std::shared_ptr<Buffer> metadata;
  // The body: each buffer (null = empty) is followed by padding_after(i)
  // zero bytes; their total is body_length, the Message's bodyLength.
  std::vector<std::shared_ptr<Buffer>> body;
  int64_t body_length = 0;
  int64_t num_rows = 0;  // record batches

  int64_t padding_after(size_t i) const {
    const int64_t size = body[i] ? body[i]->size() : 0;
    return ((size + 7) & ~int64_t{7}) - size;
  }
};

class MessageEncoder {
 public:
  // Options: codec (none, lz4, zstd; compressed on the calling thread),
  // emit_dictionary_deltas and pool are honoured.
  explicit MessageEncoder(SchemaRef schema, const IpcWriteOptions& options = {});
  ~MessageEncoder();

  const SchemaRef& schema() const { return schema_; }
  // The Schema message.
  EncodedMessage EncodeSchema() const;
  // Appends to *out the dictionary batches `batch` needs first, then its
  // record batch. REQUIRES: the batch's columns have the schema's types
  // (checked: Invalid otherwise).
  Status EncodeBatch(const RecordBatch& batch, std::vector<EncodedMessage>* out);

 private:
  Result<EncodedMessage> EncodeDictionary(int64_t id, const ArrayRef& values, bool is_delta);

  SchemaRef schema_;
  IpcWriteOptions options_;
  std::map<int64_t, ArrayRef> dictionaries_;  // last sent per id
};

// `schema` as an encapsulated IPC message: 0xFFFFFFFF, int32 length, the
// flatbuffer Message, zero padding to 8. Flight puts this in
// FlightInfo.schema and SchemaResult.schema, Flight SQL in prepared
// statements' dataset and parameter schemas.
std::string SerializeSchema(const Schema& schema);
// The inverse; also accepts the bare flatbuffer Message.
Result<SchemaRef> DeserializeSchema(std::string_view bytes);

class MessageDecoder {
 public:
  MessageDecoder();
  ~MessageDecoder();

  // Consumes the next message of a stream: `metadata` is the flatbuffer
  // Message (copied if misaligned), `body` its body (arrays are zero-copy
  // slices of it where aligned). The first message must be a Schema. Sets
  // *out to the record batch the message carried, else to null.
  Status Consume(const std::shared_ptr<Buffer>& metadata, const std::shared_ptr<Buffer>& body,
                 RecordBatchRef* out);
  // Null until the Schema message was consumed.
  const SchemaRef& schema() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace quiver::ipc
