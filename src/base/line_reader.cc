#include "base/line_reader.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "base/file_bytes.h"

namespace causeway {

StatusOr<std::unique_ptr<LineReader>> LineReader::Open(const std::string& path, size_t window) {
  std::unique_ptr<LineReader> r(new LineReader());
  r->path_ = path;
  ASSIGN_OR_RETURN(ReadOnlyFile file, ReadOnlyFile::Open(path));
  r->size_ = file.size();
  r->file_.emplace(std::move(file));
  // No larger than the file: a small file costs its size, not a whole window.
  r->capacity_ =
      static_cast<size_t>(std::clamp<uint64_t>(r->size_, 1, std::max<size_t>(window, 1)));
  r->window_.reset(new char[r->capacity_]);  // not zeroed: read over before it is looked at
  r->data_ = r->window_.get();
  return r;
}

std::unique_ptr<LineReader> LineReader::OfText(std::string_view text) {
  std::unique_ptr<LineReader> r(new LineReader());
  r->data_ = text.data();
  r->filled_ = text.size();
  r->read_to_ = r->size_ = text.size();
  return r;
}

bool LineReader::Next(std::string_view* line) {
  for (;;) {
    const char* from = data_ + begin_;
    const void* nl = filled_ > begin_ ? std::memchr(from, '\n', filled_ - begin_) : nullptr;
    if (nl) {
      const size_t length = static_cast<size_t>(static_cast<const char*>(nl) - from);
      *line = std::string_view(from, length);
      line_offset_ = base_ + begin_;
      ++line_number_;
      unterminated_ = false;
      line_end_ = begin_ + length;
      begin_ += length + 1;
      return true;
    }
    if (read_to_ == size_) {
      if (begin_ == filled_) return false;
      *line = std::string_view(from, filled_ - begin_);
      line_offset_ = base_ + begin_;
      ++line_number_;
      unterminated_ = true;
      begin_ = line_end_ = filled_;
      return true;
    }
    if (!Refill()) return false;
  }
}

bool LineReader::Refill() {
  const size_t keep = filled_ - begin_;
  if (keep == capacity_) {
    // A line longer than the window: the window doubles (at most to the file's size).
    const size_t grown =
        static_cast<size_t>(std::min<uint64_t>(uint64_t{capacity_} * 2, size_ - base_));
    std::unique_ptr<char[]> bigger(new char[grown]);
    std::memcpy(bigger.get(), window_.get(), keep);
    window_ = std::move(bigger);
    capacity_ = grown;
  } else if (begin_ > 0 && keep > 0) {
    std::memmove(window_.get(), window_.get() + begin_, keep);
  }
  data_ = window_.get();
  base_ += begin_;
  begin_ = 0;
  filled_ = keep;
  const size_t n = static_cast<size_t>(std::min<uint64_t>(capacity_ - keep, size_ - read_to_));
  if (Status s = file_->Read(window_.get() + keep, n, read_to_); !s.ok()) {
    status_ = std::move(s).WithContext(fmt::format("Cannot read {}", path_));
    return false;
  }
  read_to_ += n;
  filled_ += n;
  return true;
}

}  // namespace causeway
