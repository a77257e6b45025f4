#!/usr/bin/env python3
"""No function outside tests is longer than 70 lines (DESIGN.md), counted from the line that opens
its body to its closing brace. Run by ctest (test `function_length`); exits 1 naming each function
that is longer, 0 otherwise.

    ci/check-function-length.py ROOT        check the tree at ROOT
    ci/check-function-length.py --self-test check that the counter finds what it must

The counter reads C++ as text: it drops comments and string and character literals (raw strings
included), then follows braces. A body is a function's when the brace opens at namespace or class
depth and the text before it ends in a parameter list (`) {`, `) const {`, `) override {`, ...)
and does not start with a control keyword. Tests (`*_test.cc`, `*_test_util.h`), generated code
(`*.pb.*`) and build directories are not checked.
"""
import os
import re
import sys
import tempfile

LIMIT = 70
DIRS = ["base", "sim", "node", "client", "history", "faults", "scenarios", "kube", "tools", "world", "rpc",
        "reports", "checker", "fuzz", "bench", "demo", "runs"]
SIGNATURE = re.compile(r"\)\s*(const)?\s*(noexcept)?\s*(override)?\s*(->\s*[\w:<>,\s*&]+)?\s*$")
CONTROL = re.compile(r"^\s*(if|for|while|switch|else|do|namespace|struct|class|enum|union|try|catch)\b")


def strip_code(text):
    """The text with comments and literals blanked (newlines kept, so line numbers hold)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            k = text.find("(", i + 2)
            delim = text[i + 2:k] if k >= 0 else ""
            j = text.find(")" + delim + '"', k)
            j = n if j < 0 or k < 0 else j + len(delim) + 2
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def long_functions(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        code = strip_code(f.read())
    found, depth, start, start_depth, line = [], 0, None, 0, 1
    head = ""  # the code since the last ';', '{' or '}': what a body's brace follows
    for c in code:
        if c == "\n":
            line += 1
        if c == "{":
            if start is None and depth <= 2 and SIGNATURE.search(head) and not CONTROL.match(head.strip().split("\n")[-1]):
                start, start_depth, name = line, depth, " ".join(head.split())[-90:]
            depth += 1
            head = ""
        elif c == "}":
            depth -= 1
            if start is not None and depth == start_depth:
                if line - start + 1 > LIMIT:
                    found.append((path, start, line - start + 1, name))
                start = None
            head = ""
        elif c == ";":
            head = ""
        else:
            head += c
    return found


def check(root):
    found = []
    for d in DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, d)):
            dirnames[:] = sorted(x for x in dirnames if not x.startswith("build"))
            for name in sorted(filenames):
                if not name.endswith((".cc", ".h")) or name.endswith(("_test.cc", "_test_util.h")) or ".pb." in name:
                    continue
                found += long_functions(os.path.join(dirpath, name))
    for path, start, length, name in found:
        print(f"{os.path.relpath(path, root)}:{start}: a function of {length} lines (at most {LIMIT}): {name}")
    return 1 if found else 0


def self_test():
    body = lambda n: "\n".join(f"  x += {i};" for i in range(n))
    cases = {
        "tools/long.cc": f"int f(int x) {{\n{body(69)}\n}}\n",       # 71 lines: reported
        "tools/ok.cc": f"int g(int x) const {{\n{body(68)}\n}}\n",   # 70 lines: fine
        "tools/str.cc": 'const char* s = "{ not a body";\nvoid h() {\n  if (a) { b(); }\n}\n',
        "tools/raw.cc": 'auto k = R"sql(\n' + "{\n" * 80 + ')sql";\nvoid r() {}\n',
        "tools/t_test.cc": f"void t() {{\n{body(90)}\n}}\n",         # a test: not checked
    }
    with tempfile.TemporaryDirectory() as root:
        for rel, text in cases.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        found = []
        for rel in cases:
            if not rel.endswith("_test.cc"):
                found += [(os.path.relpath(p, root), s, n) for p, s, n, _ in long_functions(os.path.join(root, rel))]
    expected = [("tools/long.cc", 1, 71)]
    if found != expected:
        print(f"self-test: expected {expected}, found {found}")
        return 1
    print("self-test: ok")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        sys.exit(self_test())
    if len(sys.argv) != 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    sys.exit(check(sys.argv[1]))
