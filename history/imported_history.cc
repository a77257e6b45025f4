// See imported_history.h. A small EDN reader (event maps, however they are laid out), Jepsen's log
// lines, and the pairing of invocations with completions shared by the Jepsen and Porcupine importers.
#include "history/imported_history.h"

#include "base/parse_number.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <span>

#include "base/limits.h"
#include "history/history_file.h"

namespace dst::history {

const char* imported_fn_name(ImportedFn fn) {
  switch (fn) {
    case ImportedFn::kRead: return "read";
    case ImportedFn::kWrite: return "write";
    case ImportedFn::kCas: return "cas";
    case ImportedFn::kGet: return "get";
    case ImportedFn::kPut: return "put";
    case ImportedFn::kAppend: return "append";
    case ImportedFn::kAcquire: return "acquire";
    case ImportedFn::kRelease: return "release";
  }
  return "?";
}

const char* imported_outcome_name(ImportedOutcome o) {
  switch (o) {
    case ImportedOutcome::kOk: return "ok";
    case ImportedOutcome::kFailed: return "fail";
    case ImportedOutcome::kUnknown: return "info";
  }
  return "?";
}

std::string ImportedValue::to_string() const {
  switch (kind) {
    case Kind::kNil: return "nil";
    case Kind::kInt: return std::to_string(a);
    case Kind::kIntPair: return "[" + std::to_string(a) + " " + std::to_string(b) + "]";
    case Kind::kString: return "\"" + text + "\"";
  }
  return "?";
}

std::string display_key(const ImportedOp& op) {
  const bool kv = op.fn == ImportedFn::kGet || op.fn == ImportedFn::kPut || op.fn == ImportedFn::kAppend;
  return kv ? "\"" + op.key + "\"" : op.key;
}

std::string describe_imported_op(const ImportedOp& op) {
  std::string s = imported_fn_name(op.fn);
  s += "(";
  if (!op.key.empty()) s += display_key(op);
  if (op.argument.kind != ImportedValue::Kind::kNil) s += (op.key.empty() ? "" : ", ") + op.argument.to_string();
  s += ")";
  if (op.outcome == ImportedOutcome::kUnknown) {
    s += " -> ?";
  } else if (op.outcome == ImportedOutcome::kFailed) {
    s += " -> fail";
  } else if (op.fn == ImportedFn::kRead || op.fn == ImportedFn::kGet) {
    s += " -> " + op.result.to_string();
  }
  if (op.version != kImportedNoVersion && op.outcome == ImportedOutcome::kOk) s += " @v" + std::to_string(op.version);
  return s;
}

namespace {

// --- EDN values (the subset event maps use) ----------------------------------------------------

struct Edn {
  enum class Kind : uint8_t { kNil, kBool, kInt, kFloat, kString, kKeyword, kSymbol, kVector, kMap };
  Kind kind = Kind::kNil;
  int64_t integer = 0;
  std::string text;         // string contents, keyword without ':', symbol
  std::vector<Edn> items;   // vector elements; map: key, value, key, value...
};

class EdnReader {
 public:
  explicit EdnReader(std::string_view s) : s_(s) {}

  // Reads one value; on failure returns false with error() set ("at column 7: expected ...") and
  // error_line() the line it is on (1 for the first line of the text).
  bool read(Edn& out, size_t depth) {
    skip_space();
    if (pos_ >= s_.size()) return fail("expected a value, found the end of the input");
    if (++values_ > limits::kImportFormValuesMax)
      return fail("more than " + std::to_string(limits::kImportFormValuesMax) + " values in one event");
    if (depth > limits::kImportNestingMax) return fail("nesting deeper than " + std::to_string(limits::kImportNestingMax));
    const char c = s_[pos_];
    if (c == '{' || c == '[' || c == '(') return read_collection(out, depth);
    if (c == '#') {  // #{set}, #_ discard, #"regex", or a tagged literal like #inst "...": the tag is dropped
      ++pos_;
      if (pos_ < s_.size() && s_[pos_] == '{') {
        return read_collection(out, depth, true);
      }
      if (pos_ < s_.size() && s_[pos_] == '"') return read_string(out);
      if (pos_ < s_.size() && s_[pos_] == '_') {  // the next form is not there: read the one after it
        ++pos_;
        Edn discarded;
        if (!read(discarded, depth + 1)) return false;
        return read(out, depth + 1);
      }
      if (read_token().empty()) return fail("expected a tag or '{' after '#'");
      return read(out, depth + 1);
    }
    if (c == '"') return read_string(out);
    if (c == ':') {
      ++pos_;
      out.kind = Edn::Kind::kKeyword;
      out.text = read_token();
      if (out.text.empty()) return fail("expected a keyword name after ':'");
      return true;
    }
    const size_t start = pos_;
    std::string tok = read_token();
    if (tok.empty()) {
      pos_ = start;
      return fail(std::string("unexpected '") + c + "'");
    }
    if (tok == "nil") {
      out.kind = Edn::Kind::kNil;
    } else if (tok == "true" || tok == "false") {
      out.kind = Edn::Kind::kBool;
      out.integer = tok == "true";
    } else if (is_number_start(tok)) {
      return parse_number(tok, start, out);
    } else {
      out.kind = Edn::Kind::kSymbol;
      out.text = tok;
    }
    return true;
  }

  bool at_end() {
    skip_space();
    return pos_ >= s_.size();
  }
  const std::string& error() const { return error_; }
  uint32_t error_line() const { return error_line_; }
  // The next character after blanks, newlines and ';' comments; nullopt at the end of the input
  // (a NUL byte is a character: it must not end a history early).
  std::optional<char> peek() {
    skip_space();
    if (pos_ >= s_.size()) return std::nullopt;
    return s_[pos_];
  }
  uint32_t line() const { return line_; }
  void advance() { ++pos_; }  // past the character peek() returned
  void start_form() { values_ = 0; }  // each event map has its own kImportFormValuesMax

 private:
  static bool is_delim(char c) {
    return c == ' ' || c == '\t' || c == ',' || c == '\r' || c == '\n' || c == '{' || c == '}' ||
           c == '[' || c == ']' || c == '(' || c == ')' || c == '"' || c == ';';
  }
  static bool is_number_start(const std::string& t) {
    const char c = t[0];
    return (c >= '0' && c <= '9') || ((c == '-' || c == '+') && t.size() > 1 && t[1] >= '0' && t[1] <= '9');
  }
  // Blanks, commas, newlines and ';' comments (to the end of their line) separate forms.
  void skip_space() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '\n') {
        newline_at(pos_);
      } else if (c == ';') {
        while (pos_ + 1 < s_.size() && s_[pos_ + 1] != '\n') ++pos_;
      } else if (c != ' ' && c != '\t' && c != ',' && c != '\r') {
        return;
      }
      ++pos_;
    }
  }
  void newline_at(size_t p) {
    ++line_;
    line_start_ = p + 1;
  }
  struct Mark {
    size_t pos, line_start;
    uint32_t line;
  };
  Mark mark() const { return {pos_, line_start_, line_}; }
  void back_to(const Mark& m) {
    pos_ = m.pos;
    line_start_ = m.line_start;
    line_ = m.line;
  }
  std::string read_token() {
    const size_t start = pos_;
    while (pos_ < s_.size() && !is_delim(s_[pos_])) ++pos_;
    return std::string(s_.substr(start, pos_ - start));
  }
  bool fail(const std::string& what) {
    error_ = "at column " + std::to_string(pos_ - line_start_ + 1) + ": " + what;
    error_line_ = line_;
    return false;
  }
  bool parse_number(std::string tok, size_t start, Edn& out) {
    if (!tok.empty() && tok.back() == 'N') tok.pop_back();  // Clojure bigint suffix
    // EDN allows a sign of either kind on a number; the shared parser takes only '-'.
    const std::string_view digits = std::string_view(tok).substr(tok.size() > 1 && tok[0] == '+' ? 1 : 0);
    if (const std::optional<int64_t> v = parse_i64(digits)) {
      out.kind = Edn::Kind::kInt;
      out.integer = *v;
      return true;
    }
    const size_t end = tok.find_first_not_of("+-0123456789");
    if (end != std::string::npos && end > 0 && (tok[end] == '.' || tok[end] == 'e' || tok[end] == 'E' || tok[end] == 'M')) {
      out.kind = Edn::Kind::kFloat;  // kept only to be skipped (e.g. a :latency field)
      out.text = tok;
      return true;
    }
    pos_ = start;
    return fail("expected a 64-bit integer, found '" + tok + "'");
  }
  bool read_string(Edn& out) {
    const Mark opened = mark();
    ++pos_;  // opening quote
    out.kind = Edn::Kind::kString;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c == '\n') newline_at(pos_ - 1);
      if (c == '\\') {
        if (pos_ >= s_.size()) break;
        const char e = s_[pos_++];
        if (e == '\n') newline_at(pos_ - 1);
        c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
      }
      out.text.push_back(c);
    }
    if (pos_ >= s_.size()) {  // named where it opens: the end of the input says nothing
      back_to(opened);
      return fail("a string that is never closed (expected '\"')");
    }
    ++pos_;
    return true;
  }
  // `is_set`: #{...}, kept as a vector.
  bool read_collection(Edn& out, size_t depth, bool is_set = false) {
    const Mark opened = mark();
    const char open = s_[pos_++];
    const char close = open == '{' ? '}' : open == '[' ? ']' : ')';
    out.kind = open == '{' && !is_set ? Edn::Kind::kMap : Edn::Kind::kVector;
    for (;;) {
      skip_space();
      if (pos_ >= s_.size()) {  // named where it opens: the end of the input says nothing
        back_to(opened);
        return fail(std::string("a '") + open + "' that is never closed (expected '" + close + "')");
      }
      if (s_[pos_] == close) {
        ++pos_;
        break;
      }
      Edn item;
      if (!read(item, depth + 1)) return false;
      out.items.push_back(std::move(item));
    }
    if (out.kind == Edn::Kind::kMap && out.items.size() % 2 != 0) return fail("a map needs an even number of forms");
    return true;
  }

  std::string_view s_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  size_t line_start_ = 0;  // where line_ starts in s_
  size_t values_ = 0;      // values read since start_form()
  std::string error_;
  uint32_t error_line_ = 0;
};

const Edn* map_get(const Edn& map, std::string_view keyword) {
  for (size_t i = 0; i + 1 < map.items.size(); i += 2) {
    if (map.items[i].kind == Edn::Kind::kKeyword && map.items[i].text == keyword) return &map.items[i + 1];
  }
  return nullptr;
}

std::string render(const Edn& v) {
  switch (v.kind) {
    case Edn::Kind::kNil: return "nil";
    case Edn::Kind::kBool: return v.integer ? "true" : "false";
    case Edn::Kind::kInt: return std::to_string(v.integer);
    case Edn::Kind::kFloat: return v.text;
    case Edn::Kind::kString: return "\"" + v.text + "\"";
    case Edn::Kind::kKeyword: return ":" + v.text;
    case Edn::Kind::kSymbol: return v.text;
    case Edn::Kind::kVector: {
      // Short vectors whole (what an error about [k [version value]] needs to show), long ones cut.
      std::string out = "[";
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (out.size() > 40) return out + " ...]";
        out += (i == 0 ? "" : " ") + render(v.items[i]);
      }
      return out + "]";
    }
    case Edn::Kind::kMap: return "{...}";
  }
  return "?";
}

// --- events -----------------------------------------------------------------------------------

enum class EventType : uint8_t { kInvoke, kOk, kFail, kInfo };

const char* register_form_name(RegisterForm f) {
  switch (f) {
    case RegisterForm::kSingle: return "one register's (nil, 3, [1 2])";
    case RegisterForm::kKeyed: return "keyed ([k v], jepsen.independent)";
    case RegisterForm::kVersioned: return "keyed and versioned ([k [version value]], jepsen-io/etcd)";
  }
  return "?";
}

struct Event {
  EventType type = EventType::kInvoke;
  uint32_t process = 0;
  ImportedFn fn = ImportedFn::kRead;
  std::string key;
  ImportedValue value;
  int64_t time_ns = -1;
  // Jepsen: whether the event's value was read (an :info or :fail completion's is not: old logs
  // put :timed-out there), and then its form and, versioned, the version it names (-1: nil).
  bool has_form = true;
  RegisterForm form = RegisterForm::kSingle;
  int64_t version = kImportedNoVersion;
  bool nemesis = false;  // a Jepsen event of a named process (:nemesis): counted, not an operation
};

// Strips the key and the version off a Jepsen register value, setting e.key, e.form and
// e.version; returns the plain value (nil, 3 or [1 2]) for convert_value. The forms are told
// apart by shape alone: a plain read or write is never a vector, a plain cas [1 2] holds no vector.
Result<const Edn*> unwrap_register_value(const Edn* v, Event& e, const std::string& where) {
  if (e.fn == ImportedFn::kAcquire || e.fn == ImportedFn::kRelease) return v;  // a lock: no register value
  auto pair = [](const Edn* x) { return x != nullptr && x->kind == Edn::Kind::kVector && x->items.size() == 2; };
  auto holds_pair = [&](const Edn* x) { return pair(x) && x->items[1].kind == Edn::Kind::kVector; };
  const bool keyed = e.fn == ImportedFn::kCas ? holds_pair(v) : pair(v);
  if (!keyed) return v;
  const Edn& key = v->items[0];
  if (key.kind != Edn::Kind::kInt && key.kind != Edn::Kind::kString && key.kind != Edn::Kind::kKeyword) {
    return Status(StatusCode::kInvalidArgument, where + ": expected a key (an integer, string or keyword) first in the keyed value " +
                                                    render(*v) + ", found " + render(key));
  }
  e.key = render(key);
  e.form = RegisterForm::kKeyed;
  const Edn* inner = &v->items[1];
  const bool versioned = e.fn == ImportedFn::kCas ? holds_pair(inner) : pair(inner);
  if (!versioned) return inner;
  e.form = RegisterForm::kVersioned;
  const Edn& version = inner->items[0];
  if (version.kind == Edn::Kind::kInt && version.integer >= 0) e.version = version.integer;
  else if (version.kind != Edn::Kind::kNil)
    return Status(StatusCode::kInvalidArgument, where + ": expected the version (nil or a non-negative integer) in " +
                                                    render(*v) + ", found " + render(version));
  return &inner->items[1];
}

// The event's :value as an ImportedValue, checked against what `fn` allows at this point.
Result<ImportedValue> convert_value(const Edn* v, ImportedFn fn, EventType type, const std::string& where) {
  const bool completion_read = type == EventType::kOk && (fn == ImportedFn::kRead || fn == ImportedFn::kGet);
  auto bad = [&](const std::string& expected) {
    return Status(StatusCode::kInvalidArgument, where + ": expected :value " + expected + " for :" +
                                                    imported_fn_name(fn) + ", found " + (v ? render(*v) : "no :value"));
  };
  const bool is_nil = v == nullptr || v->kind == Edn::Kind::kNil;
  switch (fn) {
    case ImportedFn::kRead:
      if (!completion_read) return ImportedValue::nil();  // an invoke's or failed read's value is ignored
      if (is_nil) return ImportedValue::nil();
      if (v->kind == Edn::Kind::kInt) return ImportedValue::integer(v->integer);
      return bad("nil or an integer");
    case ImportedFn::kWrite:
      if (v && v->kind == Edn::Kind::kInt) return ImportedValue::integer(v->integer);
      return bad("an integer");
    case ImportedFn::kCas:
      if (v && v->kind == Edn::Kind::kVector && v->items.size() == 2 && v->items[0].kind == Edn::Kind::kInt &&
          v->items[1].kind == Edn::Kind::kInt) {
        return ImportedValue::pair(v->items[0].integer, v->items[1].integer);
      }
      return bad("[old new] (two integers)");
    case ImportedFn::kGet:
      if (!completion_read) return ImportedValue::nil();
      if (v && v->kind == Edn::Kind::kString) return ImportedValue::string(v->text);
      if (is_nil) return ImportedValue::string("");  // a missing key reads as ""
      return bad("a string");
    case ImportedFn::kPut:
    case ImportedFn::kAppend:
      if (v && v->kind == Edn::Kind::kString) return ImportedValue::string(v->text);
      return bad("a string");
    case ImportedFn::kAcquire:
    case ImportedFn::kRelease:
      return ImportedValue::nil();  // a lock operation's value says nothing (usually nil)
  }
  return bad("?");
}

struct FnName {
  const char* name;
  ImportedFn fn;
};
constexpr FnName kJepsenFns[] = {{"read", ImportedFn::kRead},       {"write", ImportedFn::kWrite},
                                 {"cas", ImportedFn::kCas},         {"acquire", ImportedFn::kAcquire},
                                 {"release", ImportedFn::kRelease}};
constexpr FnName kPorcupineFns[] = {{"get", ImportedFn::kGet}, {"put", ImportedFn::kPut}, {"append", ImportedFn::kAppend}};

// :invoke, :ok, :fail or :info.
std::optional<EventType> event_type(const Edn& v) {
  if (v.kind != Edn::Kind::kKeyword) return std::nullopt;
  if (v.text == "invoke") return EventType::kInvoke;
  if (v.text == "ok") return EventType::kOk;
  if (v.text == "fail") return EventType::kFail;
  if (v.text == "info") return EventType::kInfo;
  return std::nullopt;
}

// An event map's Event; a Jepsen event of a named process (:nemesis) comes back marked `nemesis`.
Result<Event> event_of_map(const Edn& m, const std::string& where, ImportFormat format) {
  if (m.kind != Edn::Kind::kMap) {
    return Status(StatusCode::kInvalidArgument, where + ": expected an event map {...}, found " + render(m));
  }
  auto missing = [&](const char* what) { return Status(StatusCode::kInvalidArgument, where + ": expected " + what); };
  Event e;
  const Edn* process = map_get(m, "process");
  if (process == nullptr) return missing(":process");
  if (process->kind == Edn::Kind::kKeyword && format == ImportFormat::kJepsen) {
    Event nemesis;  // :nemesis and friends: not client operations
    nemesis.nemesis = true;
    return nemesis;
  }
  if (process->kind != Edn::Kind::kInt || process->integer < 0 || process->integer > UINT32_MAX) {
    return missing(":process as a non-negative integer");
  }
  e.process = static_cast<uint32_t>(process->integer);
  const Edn* type = map_get(m, "type");
  const std::optional<EventType> t = type ? event_type(*type) : std::nullopt;
  if (!t) return missing(":type :invoke, :ok, :fail or :info");
  e.type = *t;
  const Edn* f = map_get(m, "f");
  bool known = false;
  if (f != nullptr && f->kind == Edn::Kind::kKeyword) {
    for (const FnName& n : format == ImportFormat::kJepsen ? std::span<const FnName>(kJepsenFns) : std::span<const FnName>(kPorcupineFns)) {
      if (f->text == n.name) {
        e.fn = n.fn;
        known = true;
      }
    }
  }
  if (!known) return missing(format == ImportFormat::kJepsen ? ":f :read, :write, :cas, :acquire or :release" : ":f :get, :put or :append");
  if (format == ImportFormat::kPorcupineKv) {
    const Edn* key = map_get(m, "key");
    if (key == nullptr || (key->kind != Edn::Kind::kString && key->kind != Edn::Kind::kInt)) return missing(":key as a string");
    e.key = key->kind == Edn::Kind::kString ? key->text : std::to_string(key->integer);
  }
  if (const Edn* t = map_get(m, "time"); t != nullptr && t->kind == Edn::Kind::kInt) e.time_ns = t->integer;
  const Edn* value = map_get(m, "value");
  if (format == ImportFormat::kJepsen) {
    if (e.type == EventType::kFail || e.type == EventType::kInfo) {
      e.has_form = false;  // its value says nothing the outcome does not (see parse_log_op)
      return e;
    }
    Result<const Edn*> inner = unwrap_register_value(value, e, where);
    if (!inner.is_ok()) return inner.status();
    value = *inner;
  }
  Result<ImportedValue> v = convert_value(value, e.fn, e.type, where);
  if (!v.is_ok()) return v.status();
  e.value = std::move(*v);
  return e;
}

// One line's event map (bare op lines and EDN maps mixed, line by line).
Result<Event> parse_event_line(std::string_view line, const std::string& where, ImportFormat format) {
  EdnReader reader(line);
  Edn m;
  if (!reader.read(m, 0)) return Status(StatusCode::kInvalidArgument, where + ": " + reader.error());
  if (!reader.at_end()) return Status(StatusCode::kInvalidArgument, where + ": expected the end of the line after the event map");
  return event_of_map(m, where, format);
}

// --- Jepsen's log lines ------------------------------------------------------------------------
// Jepsen logs every operation it invokes and completes as `PROCESS<tab>TYPE<tab>F<tab>VALUE`, then
// `<tab>ERROR` when the op has one (op->str in jepsen.util, later jepsen.print), after a logger
// prefix that changed with its versions: "INFO  jepsen.util - " (2014-15, the published etcd
// logs), "2021-02-26 23:39:01,526{GMT}<tab>INFO<tab>[jepsen worker 0] jepsen.util: " (since 2016),
// "jepsen.print: " (0.3.12 on). docs/research/history-formats.md has the sources.

constexpr std::string_view kJepsenLoggers[] = {"jepsen.util - ", "jepsen.util: ", "jepsen.print - ", "jepsen.print: "};

// The operation text after a Jepsen logger prefix; nullopt when the line has none.
std::optional<std::string_view> after_jepsen_logger(std::string_view line) {
  for (std::string_view logger : kJepsenLoggers)
    if (size_t at = line.find(logger); at != std::string_view::npos) return line.substr(at + logger.size());
  return std::nullopt;
}

// A Jepsen log (rather than EDN): some line names a Jepsen logger.
bool is_jepsen_log(std::string_view text) {
  for (std::string_view logger : kJepsenLoggers)
    if (text.find(logger) != std::string_view::npos) return true;
  return false;
}


// One log line's operation text, `PROCESS TYPE F VALUE [ERROR]` (tabs, or the spaces some copies
// have instead). kNotFound for text that is not an operation (another message); a :nemesis op
// comes back marked `nemesis`. The value of an :info or :fail completion is not read: old logs put :timed-out
// there, newer ones repeat the invocation's value and add the error; neither says what happened.
Result<Event> parse_log_op(std::string_view text, const std::string& where) {
  EdnReader r(text);
  Edn process, type;
  const Status skip(StatusCode::kNotFound, "skip");
  if (!r.read(process, 0) || !r.read(type, 0)) return skip;
  const std::optional<EventType> t = event_type(type);
  if (t && process.kind == Edn::Kind::kKeyword) {
    Event nemesis;  // :nemesis: counted, not a client operation
    nemesis.nemesis = true;
    return nemesis;
  }
  if (!t || process.kind != Edn::Kind::kInt) return skip;  // not an operation at all
  auto bad = [&](const std::string& what) { return Status(StatusCode::kInvalidArgument, where + ": " + what); };
  if (process.integer < 0 || process.integer > UINT32_MAX) return bad("expected the process as a non-negative integer");
  Event e;
  e.process = static_cast<uint32_t>(process.integer);
  e.type = *t;
  Edn f, value;
  bool known = false;
  if (r.read(f, 0) && f.kind == Edn::Kind::kKeyword) {
    for (const FnName& n : kJepsenFns) {
      if (f.text == n.name) {
        e.fn = n.fn;
        known = true;
      }
    }
  }
  if (!known) return bad("expected :read, :write, :cas, :acquire or :release after the process and the type");
  if (r.at_end() || !r.read(value, 0)) return bad("expected the operation's value after :" + std::string(imported_fn_name(e.fn)));
  e.has_form = e.type == EventType::kInvoke || e.type == EventType::kOk;
  if (e.has_form) {
    Result<const Edn*> inner = unwrap_register_value(&value, e, where);
    if (!inner.is_ok()) return inner.status();
    Result<ImportedValue> v = convert_value(*inner, e.fn, e.type, where);
    if (!v.is_ok()) return v.status();
    e.value = std::move(*v);
  }
  return e;  // what follows the value is the error, if any: an :info or :fail outcome says enough
}

// Pairs events into operations.
class Pairing {
 public:
  Pairing(const std::string& source) { history_.source = source; }

  Status add(const Event& e, int64_t at, uint32_t line, const std::string& where) {
    if (e.nemesis) {
      ++history_.nemesis_events;
      return Status::ok();
    }
    if (Status st = check_form(e, line, where); !st.is_ok()) return st;
    auto it = open_.find(e.process);
    if (e.type == EventType::kInvoke) {
      if (it != open_.end()) {
        return Status(StatusCode::kInvalidArgument,
                      where + ": process " + std::to_string(e.process) + " invokes again, but its :invoke on line " +
                          std::to_string(history_.ops[it->second].invoke_line) +
                          " has no completion yet (expected :ok, :fail or :info first)");
      }
      if (history_.ops.size() >= limits::kCheckerOpsMax) {
        return Status(StatusCode::kResourceExhausted, where + ": more than " + std::to_string(limits::kCheckerOpsMax) + " operations");
      }
      ImportedOp op;
      op.id = history_.ops.size();
      op.process = e.process;
      op.fn = e.fn;
      op.key = e.key;
      if (e.fn != ImportedFn::kRead && e.fn != ImportedFn::kGet) op.argument = e.value;
      op.invoke_at = at;
      op.invoke_time_ns = e.time_ns;
      op.invoke_line = line;
      open_[e.process] = op.id;
      history_.ops.push_back(std::move(op));
      return Status::ok();
    }
    if (it == open_.end()) {
      return Status(StatusCode::kInvalidArgument, where + ": a completion for process " + std::to_string(e.process) +
                                                      ", which has no open :invoke (expected an :invoke first)");
    }
    ImportedOp& op = history_.ops[it->second];
    if (op.fn != e.fn || (e.has_form && op.key != e.key)) {
      return Status(StatusCode::kInvalidArgument, where + ": completion :f :" + imported_fn_name(e.fn) + key_text(e.key) +
                                                      " does not match the :invoke on line " + std::to_string(op.invoke_line) +
                                                      " (:f :" + imported_fn_name(op.fn) + key_text(op.key) + ")");
    }
    op.return_line = line;
    op.return_time_ns = e.time_ns;
    if (e.type == EventType::kOk) {
      op.outcome = ImportedOutcome::kOk;
      op.return_at = at;
      op.version = e.version;  // versioned: what the read saw, or the write or cas made
      if (op.fn == ImportedFn::kRead || op.fn == ImportedFn::kGet) op.result = e.value;
    } else if (e.type == EventType::kFail) {
      op.outcome = ImportedOutcome::kFailed;
      op.return_at = at;
    } else {
      op.outcome = ImportedOutcome::kUnknown;  // :info: stays open forever (return_at = never)
    }
    open_.erase(it);
    return Status::ok();
  }

  ImportedHistory finish() { return std::move(history_); }  // open ops stay kUnknown

 private:
  static std::string key_text(const std::string& key) { return key.empty() ? "" : " on key " + key; }

  // One history, one form of register values: the first value read sets it.
  Status check_form(const Event& e, uint32_t line, const std::string& where) {
    if (!e.has_form || (e.fn != ImportedFn::kRead && e.fn != ImportedFn::kWrite && e.fn != ImportedFn::kCas)) {
      return Status::ok();
    }
    if (form_line_ == 0) {
      form_line_ = line;
      history_.form = e.form;
    }
    if (e.form == history_.form) return Status::ok();
    return Status(StatusCode::kInvalidArgument, where + ": a " + register_form_name(e.form) + " value, but line " +
                                                    std::to_string(form_line_) + " has a " +
                                                    register_form_name(history_.form) +
                                                    " one (expected one form in a history)");
  }

  ImportedHistory history_;
  uint32_t form_line_ = 0;  // the line that set history_.form; 0: none yet
  std::map<uint32_t, uint64_t> open_;  // process -> op awaiting its completion
};

// A line of a Jepsen log or a bare operation line: the event, or kNotFound for a line to skip (in
// a log, every line that is not a client operation; outside one, what is not an op line at all).
Result<Event> parse_jepsen_line(std::string_view line, const std::string& where, bool log) {
  if (!log) return parse_log_op(line, where);
  const std::optional<std::string_view> op = after_jepsen_logger(line);
  if (!op) return Status(StatusCode::kNotFound, "skip");  // other loggers, stack traces
  return parse_log_op(*op, where);
}

// Event maps as EDN forms, however they are laid out: a map per line, pretty-printed maps over
// several lines (Knossos's test data), all of them in one vector or list, ';' comments anywhere,
// tagged records (#jepsen.history.Op{...}). Each operation's line is where its map starts.
Result<ImportedHistory> import_edn_forms(std::string_view text, const std::string& source, ImportFormat format) {
  Pairing pairing(source);
  EdnReader reader(text);
  int64_t at = 0;
  char close = '\0';  // the enclosing vector's or list's, while inside it
  uint32_t opened_line = 0;
  if (const std::optional<char> c = reader.peek(); c == '[' || c == '(') {
    close = *c == '[' ? ']' : ')';
    opened_line = reader.line();
    reader.advance();
  }
  for (;;) {
    const std::optional<char> c = reader.peek();
    if (!c && close == '\0') break;
    if (!c) {
      return Status(StatusCode::kInvalidArgument, source + ":" + std::to_string(opened_line) + ": the history's '" +
                                                      (close == ']' ? "[" : "(") + "' is never closed (expected '" +
                                                      close + "')");
    }
    if (*c == close) {
      reader.advance();
      if (reader.peek())
        return Status(StatusCode::kInvalidArgument, source + ":" + std::to_string(reader.line()) +
                                                        ": expected the end of the input after the history's '" + close + "'");
      break;
    }
    const uint32_t line = reader.line();
    Edn m;
    reader.start_form();
    if (!reader.read(m, 0)) {
      return Status(StatusCode::kInvalidArgument, source + ":" + std::to_string(reader.error_line()) + ": " + reader.error());
    }
    const std::string where = source + ":" + std::to_string(line);
    Result<Event> e = event_of_map(m, where, format);
    if (!e.is_ok() && e.status().code() == StatusCode::kNotFound) continue;
    if (!e.is_ok()) return e.status();
    if (Status st = pairing.add(*e, at++, line, where); !st.is_ok()) return st;
  }
  return pairing.finish();
}

// The first character of the text that is not blank and not in a ';' comment.
std::optional<char> first_significant(std::string_view text) {
  EdnReader r(text);
  return r.peek();
}

}  // namespace

Result<ImportedHistory> import_event_lines(std::string_view text, const std::string& source, ImportFormat format) {
  // Jepsen's EDN and its log lines are told apart by the logger names in the text; EDN forms by
  // their first character; what is left are bare op lines (`4<tab>:invoke<tab>:read<tab>nil`).
  const bool log = format == ImportFormat::kJepsen && is_jepsen_log(text);
  if (const std::optional<char> c = first_significant(text); !log && (c == '{' || c == '[' || c == '(' || c == '#')) {
    return import_edn_forms(text, source, format);
  }
  Pairing pairing(source);
  int64_t at = 0;
  uint32_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    const std::string where = source + ":" + std::to_string(line_no);
    if (line.size() > limits::kImportLineBytesMax) {
      return Status(StatusCode::kInvalidArgument, where + ": line longer than " + std::to_string(limits::kImportLineBytesMax) + " bytes");
    }
    size_t first = line.find_first_not_of(" \t\r,");
    if (first == std::string_view::npos) continue;
    line = line.substr(first);
    if (line[0] == ';') continue;
    if (format == ImportFormat::kJepsen && line[0] != '{') {
      Result<Event> e = parse_jepsen_line(line, where, log);
      if (e.is_ok()) {
        if (Status st = pairing.add(*e, at++, line_no, where); !st.is_ok()) return st;
        continue;
      }
      if (e.status().code() != StatusCode::kNotFound) return e.status();
      if (log) continue;
      // Not an op line either: read as EDN below, whose error says what was expected.
    }
    Result<Event> e = parse_event_line(line, where, format);
    if (!e.is_ok()) {
      if (e.status().code() == StatusCode::kNotFound) continue;
      return e.status();
    }
    if (Status st = pairing.add(*e, at++, line_no, where); !st.is_ok()) return st;
  }
  if (log && at == 0)
    return Status(StatusCode::kInvalidArgument, source + ": a Jepsen log with no operation (expected lines such as "
                                                         "'INFO  jepsen.util - 3<tab>:invoke<tab>:read<tab>nil')");
  return pairing.finish();
}

Result<ImportedHistory> import_event_file(const std::string& path, ImportFormat format) {
  Result<std::string> text = read_history_file(path, limits::kImportFileBytesMax);
  if (!text.is_ok()) return text.status();
  return import_event_lines(*text, path, format);
}

}  // namespace dst::history
