// Lines of a file (or of text in memory), one at a time, read through one reused window:
// memory is the window (grown only to hold the longest line), not the file. Line-based
// formats (JSON Lines span files) are parsed as they are read instead of after the whole
// file is in memory, which would cost the file's size in fresh pages.
//
// Invariants: lines are split at '\n' only (a '\r' before it stays in the line); the last
// line may have no '\n' (last_line_unterminated()); offsets are byte offsets in the file;
// a file cut short while being read is an error naming the byte where it ended.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/file_bytes.h"
#include "base/status.h"

namespace causeway {

class LineReader {
 public:
  static constexpr size_t kDefaultWindow = size_t{4} << 20;

  // Reads `path` `window` bytes at a time (at least 1).
  static StatusOr<std::unique_ptr<LineReader>> Open(const std::string& path,
                                                    size_t window = kDefaultWindow);
  // Lines of `text`, which must outlive the reader.
  static std::unique_ptr<LineReader> OfText(std::string_view text);
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line, without its '\n'; valid until the next call. False at the end, or on a
  // read error (status() then says which).
  bool Next(std::string_view* line);
  const Status& status() const { return status_; }
  // Of the line last returned: its offset, its number (from 1) and whether the input ended
  // before a '\n' did.
  uint64_t line_offset() const { return line_offset_; }
  uint64_t line_number() const { return line_number_; }
  bool last_line_unterminated() const { return unterminated_; }
  // Bytes of input that follow the line last returned in the same buffer, valid as long as
  // the line is: a parser that reads past the end of its text (simdjson's padding) can be
  // given the line in place when there are enough of them.
  size_t bytes_after_line() const { return filled_ - line_end_; }
  // The input's size (a file's when it was opened).
  uint64_t size() const { return size_; }

 private:
  LineReader() = default;
  // Keeps the partial line at the window's start and reads more after it.
  bool Refill();

  std::optional<ReadOnlyFile> file_;  // none for text
  std::string path_;
  std::unique_ptr<char[]> window_;
  size_t capacity_ = 0;
  const char* data_ = nullptr;  // window_, or the text
  size_t begin_ = 0;            // first byte not yet returned
  size_t filled_ = 0;           // bytes of data_ that hold input
  size_t line_end_ = 0;         // where in data_ the line last returned ends
  uint64_t base_ = 0;           // input offset of data_[0]
  uint64_t read_to_ = 0;        // input bytes read so far
  uint64_t size_ = 0;
  uint64_t line_offset_ = 0;
  uint64_t line_number_ = 0;
  bool unterminated_ = false;
  Status status_;
};

}  // namespace causeway
