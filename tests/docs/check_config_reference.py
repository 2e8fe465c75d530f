#!/usr/bin/env python3
"""docs/configuration.md documents exactly the keys podsim's readers accept.

Usage: check_config_reference.py REPO_ROOT

The code side. Every reader calls `V.allow_only({...})` on a config::Reader V with the keys it
accepts. This script finds each call in src/config/*.cpp and works out which document and key
path V reads, by following the readers the way the code does:
  - a Reader built on a document root (`Reader top(root, "", sources)`) in a loading function
    (ROOTS below) is that document's top level;
  - `Reader V = P.child("key")` (or `.child(param)` with the key passed in by the caller) is
    P's path + key;
  - a call `read_x(V, ...)` of another reader function binds its Reader parameter to V's path
    (and its string parameters to the literals passed).
A file included by another (the scenario's `model:`, `hardware:`, `topology:`; the `network:`
section shared by scenarios and `podsim collective`) is re-rooted to its own kind (INCLUDES).
In a function that branches on `V.choice("kind", KINDS)`, an allow_only of V inside
`if (kind == "a" || kind == "b")` belongs to the sections V[a] and V[b]; one outside every such
branch to the kinds no branch names; one under `if (!V.has("kind"))` is the list for a file
without a kind, which must be the union of the others (so it needs no table of its own).

The doc side. A reference table in docs/configuration.md follows a marker line
    <!-- keys: SECTION [SECTION ...] -->
and every backticked word in the first cell of each of its rows is a key of those sections.
Sections are named DOC[.path][[kind]]: scenario, scenario.training.precision, network, model,
hardware.efficiency, topology[torus], topology.link, sweep, request.collective, ...

It fails, naming each, on an accepted key no table documents, a documented key no reader
accepts, and an allow_only call it cannot place (extend ROOTS or INCLUDES then).
"""

import pathlib
import re
import sys

# Loading functions that build a Reader on a whole document, and the document's kind.
ROOTS = {
    "read_composed": "scenario",
    "load_hardware": "hardware",
    "load_topology": "topology",
    "load_collective_request": "request",
    "load_sweep": "sweep",
}

# (document, key) whose value is another kind of document, read by that kind's reader.
INCLUDES = {
    ("scenario", "model"): "model",
    ("scenario", "hardware"): "hardware",
    ("scenario", "topology"): "topology",
    ("scenario", "network"): "network",
    ("request", "topology"): "topology",
    ("request", "hardware"): "hardware",
    ("request", "network"): "network",
}

DOC = "docs/configuration.md"


def strip_comments(text):
    """C++ text with comments blanked (same length, so offsets and lines stay), strings kept."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        else:
            i += 1
    return "".join(out)


CHAR_LITERAL_RE = re.compile(r"'(?:\\.|[^'\\\n])'")


def matching(text, open_at, opening, closing):
    """Offset just past the bracket closing the one at open_at (strings skipped)."""
    depth, i, n = 0, open_at, len(text)
    while i < n:
        c = text[i]
        char_literal = CHAR_LITERAL_RE.match(text, i) if c == "'" else None
        if char_literal:  # '"', '{', '\\'' (not a digit separator: 1'000)
            i = char_literal.end() - 1
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == opening:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unbalanced %s at offset %d" % (opening, open_at))


def split_top(text, sep=","):
    """Split at `sep` outside (), <>, {}, [] and strings."""
    parts, depth, cur, i = [], 0, "", 0
    while i < len(text):
        c = text[i]
        if c == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            cur += text[i:j + 1]
            i = j + 1
            continue
        if c in "(<{[":
            depth += 1
        elif c in ")>}]":
            depth -= 1
        if c == sep and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += c
        i += 1
    if cur.strip():
        parts.append(cur.strip())
    return parts


class Function:
    def __init__(self, name, params, body, body_at, path, text):
        self.name = name
        self.params = params  # [(type, name)]
        self.body = body
        self.body_at = body_at  # offset of the body in the file
        self.path = path
        self.text = text
        self.lists = {}  # the file's string-list constants (string_lists)

    def line(self, offset_in_body):
        return self.text.count("\n", 0, self.body_at + offset_in_body) + 1


NOT_FUNCTIONS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "defined"}
FUNC_RE = re.compile(r"\b(\w+)\s*\(")


def functions_of(path):
    """The function definitions of one .cpp file."""
    text = strip_comments(path.read_text())
    out = []
    i = 0
    while True:
        m = FUNC_RE.search(text, i)
        if not m:
            return out
        name = m.group(1)
        open_paren = m.end() - 1
        try:
            close = matching(text, open_paren, "(", ")")
        except ValueError:
            i = m.end()
            continue
        after = re.match(r"\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?\{", text[close:])
        before = text[max(0, m.start() - 2):m.start()].strip()
        if not after or name in NOT_FUNCTIONS or before.endswith(("]", ".", ">")) and not before.endswith("->"):
            i = m.end()
            continue
        brace = close + after.end() - 1
        end = matching(text, brace, "{", "}")
        params = []
        for p in split_top(text[open_paren + 1:close - 1]):
            p = p.split("=")[0].strip()
            words = re.findall(r"[\w:]+", p)
            if len(words) >= 2:
                params.append((p[: p.rfind(words[-1])].strip(), words[-1]))
        out.append(Function(name, params, text[brace + 1:end - 1], brace + 1, path, text))
        i = end


def string_lists(path):
    """`NAME{"a", "b"}` vector literals of a file, by name (the kind lists)."""
    text = strip_comments(path.read_text())
    lists = {}
    for m in re.finditer(r"\b(\w+)\s*\{((?:\s*\"[^\"]*\"\s*,?)+)\}", text):
        lists[m.group(1)] = re.findall(r'"([^"]*)"', m.group(2))
    return lists


def enclosing_headers(body, at):
    """The text before each '{' that encloses offset `at` of a function body, outermost first."""
    stack, start, i = [], 0, 0
    while i < at:
        c = body[i]
        if c == '"':
            i += 1
            while i < len(body) and body[i] != '"':
                i += 2 if body[i] == "\\" else 1
        elif c == "{":
            stack.append(body[start:i])
            start = i + 1
        elif c == "}":
            if stack:
                stack.pop()
            start = i + 1
        elif c == ";":
            start = i + 1
        i += 1
    return stack


def section_name(doc, path, kind=None):
    name = doc + ("." + path if path else "")
    return name + ("[%s]" % kind if kind else "")


def reroot(doc, path):
    """(doc, path) after following included documents."""
    changed = True
    while changed and path:
        changed = False
        head, _, rest = path.partition(".")
        if (doc, head) in INCLUDES:
            doc, path, changed = INCLUDES[(doc, head)], rest, True
    return doc, path


class CodeKeys:
    def __init__(self, root):
        self.root = root
        self.functions = {}
        for cpp in sorted((root / "src" / "config").glob("*.cpp")):
            lists = string_lists(cpp)
            for f in functions_of(cpp):
                self.functions.setdefault(f.name, []).append(f)
                f.lists = lists
        # section -> {key: "file:line"}; sections of a file without a kind: (doc, path) -> {key: where}
        self.sections = {}
        self.kindless = {}
        self.placed = set()  # (file, line) of every allow_only call placed
        self.problems = []

    def run(self):
        seen = set()
        work = []
        for name, doc in ROOTS.items():
            if name not in self.functions:
                self.problems.append("src/config: no function %s (ROOTS in %s names it as the reader of %s files)"
                                     % (name, pathlib.Path(__file__).name, doc))
            for f in self.functions.get(name, []):
                work.append((f, (), doc))
        while work:
            f, context, doc = work.pop()
            key = (f.name, f.path, context, doc)
            if key in seen:
                continue
            seen.add(key)
            work.extend(self.visit(f, dict(context), doc))
        self.check_all_placed()
        return self

    def visit(self, f, bindings, doc):
        """Records f's allow_only calls; returns the reader functions it calls, with bindings."""
        body = f.body
        readers = {n: v for n, v in bindings.items() if isinstance(v, tuple)}
        strings = {n: v for n, v in bindings.items() if isinstance(v, str)}
        if f.name in ROOTS:
            for m in re.finditer(r"\bReader\s+(\w+)\s*\(\s*[\w\[\]]+\s*,\s*\"([^\"]*)\"\s*,", body):
                readers[m.group(1)] = (ROOTS[f.name], m.group(2))
        for m in re.finditer(r"\bReader\s+(\w+)\s*=\s*(\w+)\.child\(\s*(\"([^\"]*)\"|(\w+))\s*\)", body):
            var, parent, literal, param = m.group(1), m.group(2), m.group(4), m.group(5)
            key = literal if literal is not None else strings.get(param)
            if parent in readers and key is not None:
                d, p = readers[parent]
                readers[var] = (d, p + "." + key if p else key)

        kind_vars = {}
        for m in re.finditer(r"\b(\w+)\.choice\(\s*\"kind\"\s*,\s*(\w+)\s*\)", body):
            kind_vars[m.group(1)] = f.lists.get(m.group(2), [])
        calls = list(re.finditer(r"\b(\w+)\.allow_only\(\s*\{([^}]*)\}\s*\)", body))
        named_kinds = set()
        placed = []
        for m in calls:
            var = m.group(1)
            headers = [h for h in enclosing_headers(body, m.start()) if re.search(r"\bif\b", h)]
            kinds = [k for h in headers for k in re.findall(r"\bkind\s*==\s*\"([^\"]*)\"", h)]
            kindless = any(re.search(r"!\s*%s\.has\(\s*\"kind\"\s*\)" % re.escape(var), h) for h in headers)
            named_kinds.update(kinds)
            placed.append((m, var, kinds, kindless))
        for m, var, kinds, kindless in placed:
            keys = re.findall(r'"([^"]*)"', m.group(2))
            line = f.line(m.start())
            where = "%s:%d" % (f.path.relative_to(self.root), line)
            if var not in readers:
                continue  # placed in another context, or reported by check_all_placed
            self.placed.add((str(f.path), line))
            d, p = reroot(*readers[var])
            if var in kind_vars and kindless:
                target = self.kindless.setdefault((d, p), {})
                for k in keys:
                    target.setdefault(k, where)
                continue
            if var in kind_vars:
                names = kinds or [k for k in kind_vars[var] if k not in named_kinds]
                if not names:
                    self.problems.append("%s: allow_only outside every `kind ==` branch, but the branches name "
                                         "every kind; cannot tell its section" % where)
            else:
                names = [None]
            for kind in names:
                target = self.sections.setdefault(section_name(d, p, kind), {})
                for k in keys:
                    target.setdefault(k, where)

        out = []
        for name, variants in self.functions.items():
            for m in re.finditer(r"(?<![\w.>:])%s\s*\(" % re.escape(name), body):
                end = matching(body, m.end() - 1, "(", ")")
                args = split_top(body[m.end():end - 1])
                for g in variants:
                    ctx = {}
                    for (ptype, pname), arg in zip(g.params, args):
                        if "Reader" in ptype and arg in readers:
                            ctx[pname] = readers[arg]
                        elif "string" in ptype and re.fullmatch(r'"[^"]*"', arg):
                            ctx[pname] = arg[1:-1]
                    if any(isinstance(v, tuple) for v in ctx.values()):
                        out.append((g, tuple(sorted(ctx.items())), doc))
        return out

    def check_all_placed(self):
        for cpp in sorted((self.root / "src").rglob("*.cpp")):
            text = strip_comments(cpp.read_text())
            for m in re.finditer(r"\.allow_only\(", text):
                line = text.count("\n", 0, m.start()) + 1
                if (str(cpp), line) not in self.placed:
                    self.problems.append(
                        "%s:%d: cannot tell which document and section this allow_only reads (a Reader not reached "
                        "from a loading function in ROOTS of %s)" % (cpp.relative_to(self.root), line,
                                                                    pathlib.Path(__file__).name))
        for (d, p), keys in self.kindless.items():
            union = set()
            for name, accepted in self.sections.items():
                if name.startswith(section_name(d, p) + "["):
                    union.update(accepted)
            if set(keys) != union:
                where = next(iter(keys.values()))
                self.problems.append(
                    "%s: the keys accepted in a %s file without a kind should be every kind's keys; missing: %s; "
                    "extra: %s" % (where, section_name(d, p), ", ".join(sorted(union - set(keys))) or "none",
                                   ", ".join(sorted(set(keys) - union)) or "none"))


MARKER_RE = re.compile(r"^<!--\s*keys:\s*(.*?)\s*-->\s*$")
SECTION_RE = re.compile(r"^[a-z_]+(?:\.[a-z_]+)*(?:\[[a-z_]+\])?$")


def documented(doc_path, problems):
    """section -> {key: line} of the marked reference tables."""
    lines = doc_path.read_text().splitlines()
    sections = {}
    i = 0
    while i < len(lines):
        m = MARKER_RE.match(lines[i])
        if not m:
            i += 1
            continue
        names = m.group(1).split()
        marker_line = i + 1
        for name in names:
            if not SECTION_RE.match(name):
                problems.append("%s:%d: \"%s\" is not a section name like training.precision or topology[torus]"
                                % (DOC, marker_line, name))
        i += 1
        while i < len(lines) and not lines[i].strip():
            i += 1
        rows = 0
        header = True
        while i < len(lines) and lines[i].lstrip().startswith("|"):
            cells = lines[i].strip().strip("|").split("|")
            if header or re.fullmatch(r"[\s:\-|]*", lines[i]):
                header = False
                i += 1
                continue
            keys = re.findall(r"`([^`]+)`", cells[0])
            if not keys:
                problems.append("%s:%d: a row of the reference table for %s names no `key` in its first cell"
                                % (DOC, i + 1, " ".join(names)))
            for key in keys:
                for name in names:
                    sections.setdefault(name, {}).setdefault(key, i + 1)
            rows += 1
            i += 1
        if rows == 0:
            problems.append("%s:%d: the marker for %s is not followed by a table" % (DOC, marker_line, " ".join(names)))
    return sections


def main():
    if len(sys.argv) != 2:
        print("usage: check_config_reference.py REPO_ROOT", file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[1]).resolve()
    code = CodeKeys(root).run()
    problems = list(code.problems)
    docs = documented(root / DOC, problems)

    if not code.sections:
        problems.append("found no allow_only call in src/config/*.cpp: the script no longer understands the readers")
    for section in sorted(code.sections):
        accepted = code.sections[section]
        listed = docs.get(section, {})
        for key in sorted(accepted):
            if key not in listed:
                problems.append("%s does not document `%s` of %s (accepted at %s): add a row to the table marked "
                                "<!-- keys: %s -->" % (DOC, key, section, accepted[key], section))
    for section in sorted(docs):
        accepted = code.sections.get(section)
        for key, line in sorted(docs[section].items(), key=lambda kv: kv[1]):
            if accepted is None:
                problems.append("%s:%d: documents `%s` of %s, but no reader reads a section %s (sections: %s)"
                                % (DOC, line, key, section, section, ", ".join(sorted(code.sections))))
            elif key not in accepted:
                problems.append("%s:%d: documents `%s` of %s, but no reader accepts it there (it accepts %s)"
                                % (DOC, line, key, section, ", ".join(sorted(accepted))))

    if problems:
        for p in problems:
            print("FAIL: " + p)
        print("%d problem(s); the reference is docs/configuration.md, the readers src/config/*.cpp" % len(problems))
        return 1
    keys = sum(len(v) for v in code.sections.values())
    print("ok: %d sections, %d accepted keys, each documented in %s; no documented key unaccepted"
          % (len(code.sections), keys, DOC))
    for section in sorted(code.sections):
        print("  %-32s %s" % (section, " ".join(sorted(code.sections[section]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
