#!/usr/bin/env python3
"""Goal: no C++ function longer than a limit (STYLE.md 19; TigerBeetle holds 70).

    tools/function_lengths.py [--limit N] [--top K] [--assertions [--min-density D]] PATH...

PATH is a file or a directory (walked for .cpp .hpp .h .cc, in name order).
Exit 0 when no function is longer than --limit (default 70) lines; exit 1
listing each one as "FILE:LINE: NAME: N lines (limit L)", then a count; exit 2
when no source is found. --top K also prints the K longest functions.
--assertions also prints the assertion density of the .cpp and .hpp files
read: WEFT_ASSERT and static_assert occurrences per 100 lines, comments
included in both counts, as issue 11 measures it over kernel/:
`grep -rhoE 'WEFT_ASSERT|static_assert' kernel | wc -l` over
`find kernel -name '*.?pp' | xargs cat | wc -l`. With --min-density D, a
density below D fails the check too (issue 11 asks at least 3 for kernel/).

What counts as a function: a `{ ... }` body at namespace or class scope
whose header (the text since the previous `;`, `{` or `}` at that scope) is
a declarator: free functions, member functions in a class or defined out of
line, constructors (their member initializers are part of the header),
operators, and a lambda assigned at namespace scope. Everything inside a
body, lambdas and local classes included, counts towards the enclosing
function. Not functions: namespace, class, struct, union and enum bodies,
extern "C" blocks, and brace initializers.

A function's length runs from the first line of its header (template line
and signature included) to the line of its closing brace, both counted.

How the text is read: comments, string literals (raw strings too) and
character literals are blanked before any brace is matched, keeping the
line breaks; digit separators (1'000) are not character literals;
preprocessor lines (with their continuations) are skipped, so a macro's
braces count for nothing. Code under `#if 0` is read as code (kernel/ has
none). No compiler is consulted, so a header it cannot
classify is reported as best it can: this is a checker for our own code,
which it is tested against (tests/function_length_fixtures/).
"""

import argparse
import os
import re
import sys

SOURCE_SUFFIXES = (".cpp", ".hpp", ".h", ".cc")


def blank(text):
    """Returns text with comments, literals and preprocessor lines replaced
    by spaces; newlines are kept so offsets map to the same lines."""
    out = []
    i = 0
    n = len(text)
    at_line_start = True  # only whitespace so far on this line
    while i < n:
        c = text[i]
        if c == "\n":
            out.append(c)
            i += 1
            at_line_start = True
            continue
        if at_line_start and c == "#":
            # A directive, up to an unescaped end of line. Comments inside it
            # are not special enough to matter here.
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        if c in " \t\r\f\v":
            out.append(c)
            i += 1
            continue
        at_line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        raw = re.match(r'(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(', text[i:i + 24])
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            close = ")" + raw.group(1) + '"'
            end = text.find(close, i + raw.end())
            end = n if end < 0 else end + len(close)
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        if c == '"' or (c == "'" and not digit_separator(text, i)):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            end = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        out.append(c)
        i += 1
    return "".join(out)


def digit_separator(text, i):
    """True if the ' at i sits inside a number (1'000, 0xFF'FF)."""
    j = i
    while j > 0 and (text[j - 1].isalnum() or text[j - 1] in "_'."):
        j -= 1
    return j < i and text[j].isdigit()


def strip_prefixes(header):
    """The header without access labels, attributes and template<...>."""
    previous = None
    while previous != header:
        previous = header
        header = re.sub(r"^\s*(?:public|private|protected)\s*:(?!:)", "", header)
        header = re.sub(r"^\s*\[\[.*?\]\]", "", header, flags=re.S)
        match = re.match(r"\s*template\s*<", header)
        if match:
            depth = 1
            k = match.end()
            while k < len(header) and depth > 0:
                depth += {"<": 1, ">": -1}.get(header[k], 0)
                k += 1
            header = header[k:]
    return header.strip()


CTOR_INIT_TAIL = re.compile(r"(?:(?<!:):(?!:)|,)\s*[A-Za-z_]\w*(?:::\w+)*\s*$")
NAMESPACE_LAMBDA = re.compile(r"=\s*\[[^\]]*\]\s*(?:\(.*\))?\s*(?:mutable|constexpr|noexcept|\s)*(?:->[^{}]*)?$", re.S)


def classify(header):
    """What a `{` at namespace or class scope opens: 'scope' (namespace,
    class, extern block), 'function' or 'init' (a brace initializer, an
    enum body, or anything else that is not a body)."""
    if header.count("(") > header.count(")"):
        return "init"  # inside parentheses: an argument
    head = strip_prefixes(header)
    if re.match(r"(?:inline\s+)?namespace\b|extern\s*$", head):
        return "scope"
    if re.match(r"enum\b", head):
        return "init"
    if re.match(r"(?:class|struct|union)\b", head):
        return "scope"
    if NAMESPACE_LAMBDA.search(head):
        return "function"
    if ")" not in head:
        return "init"
    tail = head[head.rindex(")") + 1:]
    if CTOR_INIT_TAIL.search(tail):
        return "init"  # a member initializer: `) : a_{x}` or `, b_{y}`
    return "function"


def function_name(header):
    head = strip_prefixes(header)
    if NAMESPACE_LAMBDA.search(head):
        match = re.search(r"([A-Za-z_]\w*)\s*=\s*\[", head)
        return (match.group(1) if match else "") + " (lambda)"
    match = re.search(r"(operator\s*\(\s*\)|operator\s*[^\s(]+|~?[A-Za-z_]\w*)\s*\(", head)
    if not match:
        return head.split("(")[0].split()[-1] if head.split() else "?"
    if re.fullmatch(r"[A-Z][A-Z0-9_]*", match.group(1)):  # TEST(Suite, Name) and the like
        arguments = re.match(r"\s*\(([^()]*)\)", head[match.end(1):])
        if arguments:
            return match.group(1) + "(" + re.sub(r"\s+", " ", arguments.group(1).strip()) + ")"
    start = match.start(1)
    qualifier = re.search(r"((?:[A-Za-z_]\w*(?:<[^<>]*>)?::)*)$", head[:start])
    return (qualifier.group(1) if qualifier else "") + re.sub(r"\s+", "", match.group(1))


def functions(path):
    """Yields (first_line, last_line, name) for each function in path."""
    with open(path, encoding="utf-8") as handle:
        text = blank(handle.read())
    line = 1
    header = []        # text of the current declaration at container scope
    header_line = None  # line of its first non-blank character
    stack = []          # kinds of the open braces: scope, init, function
    body_depth = 0      # braces open inside the current function
    body = None         # (first_line, name) of the function being read
    for c in text:
        if body is not None:
            if c == "{":
                body_depth += 1
            elif c == "}":
                body_depth -= 1
                if body_depth == 0:
                    yield body[0], line, body[1]
                    body = None
                    stack.pop()
                    header, header_line = [], None
        elif stack and stack[-1] == "init":
            if c == "{":
                stack.append("init")
            elif c == "}":
                stack.pop()
                if not stack or stack[-1] != "init":
                    header.append("{}")
        elif c == "{":
            kind = classify("".join(header))
            stack.append(kind)
            if kind == "function":
                body = (header_line or line, function_name("".join(header)))
                body_depth = 1
            elif kind == "scope":
                header, header_line = [], None
        elif c == "}":
            if stack:
                stack.pop()
            header, header_line = [], None
        elif c == ";":
            header, header_line = [], None
        else:
            if header_line is None and not c.isspace():
                header_line = line
            header.append(c)
        if c == "\n":
            line += 1


def sources(paths):
    found = []
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs.sort()
                for name in sorted(files):
                    if name.endswith(SOURCE_SUFFIXES):
                        found.append(os.path.join(root, name))
        elif os.path.isfile(path):
            found.append(path)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--limit", type=int, default=70)
    parser.add_argument("--top", type=int, default=0)
    parser.add_argument("--assertions", action="store_true")
    parser.add_argument("--min-density", type=float, default=0.0)
    args = parser.parse_args()
    files = sources(args.paths)
    if not files:
        print("function lengths: no sources found", file=sys.stderr)
        return 2
    found = []
    for path in files:
        for first, last, name in functions(path):
            found.append((last - first + 1, path, first, name))
    if args.top:
        print(f"the {args.top} longest functions:")
        for length, path, first, name in sorted(found, key=lambda f: (-f[0], f[1], f[2]))[:args.top]:
            print(f"  {length:4} {path}:{first}: {name}")
    too_few = False
    if args.assertions:
        asserts = lines = 0
        for path in (f for f in files if f.endswith((".cpp", ".hpp"))):
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            asserts += len(re.findall(r"WEFT_ASSERT|static_assert", text))
            lines += text.count("\n")
        ratio = 100.0 * asserts / lines if lines else 0.0
        print(f"assertions: {asserts} in {lines} lines, {ratio:.2f} per 100 lines")
        if ratio < args.min_density:
            print(f"assertions: below the minimum of {args.min_density:.2f} per 100 lines")
            too_few = True
    over = [f for f in found if f[0] > args.limit]
    for length, path, first, name in over:
        print(f"{path}:{first}: {name}: {length} lines (limit {args.limit})")
    print(f"function lengths: {len(over)} functions over {args.limit} lines in {len(files)} files")
    return 1 if over or too_few else 0


if __name__ == "__main__":
    sys.exit(main())
