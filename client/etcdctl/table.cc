#include "client/etcdctl/table.h"

#include <algorithm>
#include <cctype>

#include "base/assert.h"

namespace dst::etcdctl {

namespace {

constexpr size_t kWrapWidth = 30;

// Greedy wrap at single spaces (empty words kept, so a trailing space stays on the last line).
std::vector<std::string> wrap(const std::string& text, size_t width) {
  std::vector<std::string> words;
  size_t start = 0;
  for (size_t sp = text.find(' '); sp != std::string::npos; sp = text.find(' ', start)) {
    words.push_back(text.substr(start, sp - start));
    start = sp + 1;
  }
  words.push_back(text.substr(start));
  std::vector<std::string> lines;
  std::string line;
  bool first = true;
  for (const std::string& w : words) {
    if (first) {
      line = w;
      first = false;
    } else if (line.size() + 1 + w.size() <= width) {
      line += " " + w;
    } else {
      lines.push_back(line);
      line = w;
    }
  }
  lines.push_back(line);
  return lines;
}

// A cell's lines and the width its column needs for it.
std::pair<std::vector<std::string>, size_t> layout(const std::string& cell) {
  if (cell.size() <= kWrapWidth) return {{cell}, cell.size()};
  std::vector<std::string> lines = wrap(cell, kWrapWidth);
  size_t width = kWrapWidth;
  for (const std::string& l : lines) width = std::max(width, l.size());
  return {lines, width};
}

std::string border(const std::vector<size_t>& widths) {
  std::string out = "+";
  for (size_t w : widths) out += std::string(w + 2, '-') + "+";
  return out + "\n";
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::string render_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  const size_t columns = header.size();
  std::vector<size_t> widths(columns);
  for (size_t c = 0; c < columns; ++c) widths[c] = layout(upper(header[c])).second;
  std::vector<std::vector<std::vector<std::string>>> cells;  // row, column, line
  for (const auto& row : rows) {
    DST_ASSERT_EQ(row.size(), columns);
    auto& laid = cells.emplace_back();
    for (size_t c = 0; c < columns; ++c) {
      auto [lines, width] = layout(row[c]);
      widths[c] = std::max(widths[c], width);
      laid.push_back(std::move(lines));
    }
  }
  std::string out = border(widths) + "|";
  for (size_t c = 0; c < columns; ++c) {
    const std::string h = upper(header[c]);
    const size_t gap = widths[c] - h.size();
    out += " " + std::string(gap / 2, ' ') + h + std::string(gap - gap / 2, ' ') + " |";
  }
  out += "\n" + border(widths);
  for (const auto& row : cells) {
    size_t height = 1;
    for (const auto& lines : row) height = std::max(height, lines.size());
    for (size_t l = 0; l < height; ++l) {
      out += "|";
      for (size_t c = 0; c < columns; ++c) {
        const std::string text = l < row[c].size() ? row[c][l] : "";
        out += " " + std::string(widths[c] - text.size(), ' ') + text + " |";
      }
      out += "\n";
    }
  }
  return out + border(widths);
}

}  // namespace dst::etcdctl
