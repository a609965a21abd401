#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause-Patent
"""Check that fovea's public headers follow the API grammar of docs/api.md.

    scripts/check-api.py [HEADER_DIR]    check every *.h of HEADER_DIR (default include/fovea)
    scripts/check-api.py --self-test     check a wrong and a right sample header

Each finding names the header, the line and the rule; the exit status is 1 when
any finding is not on the temporary allowlist below (or an allowlist entry no
longer matches anything), else 0. Rules:

  prefix      every FOVEA_API function is named fovea_... (klt.h's KLT 1.3.4
              surface, KLT*/_KLT*, is the one documented exception)
  open        an opaque object (typedef struct fovea_X fovea_X;) has fovea_X_open
              or fovea_X_open_<source>, each taking (fovea_X **, fovea_context *, ...)
              (the context itself: fovea_open(fovea_context **, ...))
  close       ... and void fovea_X_close(fovea_X **) (the context: fovea_close)
  verb        no create/destroy/load/free/new/delete in a function name; _free is
              allowed for the buffer of a value type (fovea_T_free(..., fovea_T *, ...)
              where fovea_T is a struct with fields, not an opaque object)
  method      fovea_X_<verb> of an opaque object X takes the object first
              (fovea_X *, const fovea_X * or fovea_X **)
  settings    a settings struct fovea_Y_settings has
              void fovea_Y_default_settings(fovea_Y_settings *) and the reverse
              (the context's: fovea_settings, fovea_default_settings)
  async       fovea_..._submit and fovea_..._receive come in pairs (and _flush
              only with them), and their doc comments name FOVEA_AGAIN
  deprecated  no FOVEA_DEPRECATED (the project is 0.x: remove, don't deprecate)
  doc         every FOVEA_API function has a /** doc comment right above it
"""
import os
import re
import sys
import tempfile

BANNED_VERBS = ("create", "destroy", "load", "free", "new", "delete")

# Known violations, each (header, rule, name) with a comment saying why it is
# accepted; none today. An entry that matches nothing is itself an error, so the
# list cannot go stale.
TEMPORARY_ALLOWLIST = set()


class Finding:
    def __init__(self, path, line, rule, name, msg):
        self.path, self.line, self.rule, self.name, self.msg = path, line, rule, name, msg

    def key(self):
        return (os.path.basename(self.path), self.rule, self.name)

    def __str__(self):
        return "%s:%d: [%s] %s" % (self.path, self.line, self.rule, self.msg)


def strip_comments(text):
    """Comments replaced by spaces (newlines kept, so offsets and lines hold)."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"/\*.*?\*/|//[^\n]*", blank, text, flags=re.S)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def split_params(params):
    out, depth, cur = [], 0, ""
    for c in params:
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


def param_type(p):
    """'const fovea_rig *rig' -> 'const fovea_rig *'; 'float w[4]' -> 'float *'."""
    array = p.rstrip().endswith("]")
    p = re.sub(r"\[[^\]]*\]\s*$", "", p).strip()
    m = re.match(r"^(.*?[\s*])([A-Za-z_]\w*)$", p)
    if m and m.group(1).strip() not in ("", "const", "unsigned", "signed", "struct"):
        p = m.group(1)
    p = re.sub(r"\s+", " ", p).strip()
    return p + " *" if array else p


def norm(t):
    return re.sub(r"\s+", "", t)


class Header:
    def __init__(self, path):
        self.path = path
        self.text = open(path, encoding="utf-8").read()
        self.code = strip_comments(self.text)
        self.opaque = {}       # fovea_X -> line
        self.valuetypes = {}   # fovea_T -> line (structs with fields)
        self.settings = {}     # fovea_Y_settings -> line
        self.funcs = []        # dicts: name, ret, params, line, start
        self._parse()

    def _parse(self):
        c = self.code
        for m in re.finditer(r"typedef\s+struct\s+(\w+)\s+(\w+)\s*;", c):
            if m.group(1) == m.group(2) and m.group(1).startswith("fovea_"):
                self.opaque.setdefault(m.group(1), line_of(c, m.start()))
        for m in re.finditer(r"typedef\s+struct\s+\w*\s*\{", c):
            depth, i = 0, m.end() - 1
            while i < len(c):
                depth += {"{": 1, "}": -1}.get(c[i], 0)
                i += 1
                if depth == 0:
                    break
            n = re.match(r"\s*(\w+)\s*;", c[i:])
            if n:
                name = n.group(1)
                self.valuetypes[name] = line_of(c, m.start())
                if name.endswith("_settings") or name == "fovea_settings":
                    self.settings[name] = line_of(c, m.start())
        for m in re.finditer(r"\bFOVEA_API\b([^;{#]*?)\b(\w+)\s*\(([^;{#]*)\)\s*;", c,
                             flags=re.S):
            ret = re.sub(r"\s+", " ", m.group(1)).strip()
            self.funcs.append({
                "name": m.group(2), "ret": ret,
                "params": [param_type(p) for p in split_params(m.group(3))
                           if p.strip() != "void"],
                "line": line_of(c, m.start()), "start": m.start(),
            })

    def doc_before(self, start):
        """The /** comment right above the declaration at start, or None."""
        before = self.text[:start]
        stripped = before.rstrip()
        gap = before[len(stripped):]
        if not stripped.endswith("*/") or gap.count("\n") > 1:
            return None
        open_at = stripped.rfind("/*")
        comment = stripped[open_at:]
        if not comment.startswith("/**") or comment.startswith("/**<"):
            return None
        return comment


def obj_of(name, objects, values):
    """The opaque object a function name belongs to (longest type prefix wins;
    a longer value-type prefix means the function is the value type's)."""
    best = None
    for t in list(objects) + list(values):
        if name.startswith(t + "_") and (best is None or len(t) > len(best)):
            best = t
    return best if best in objects else None


def check(paths):
    headers = [Header(p) for p in sorted(paths)]
    findings = []

    def add(h, line, rule, name, msg):
        findings.append(Finding(h.path, line, rule, name, msg))

    objects, values = {}, {}
    for h in headers:
        for o, line in h.opaque.items():
            objects.setdefault(o, (h, line))
        for v, line in h.valuetypes.items():
            values.setdefault(v, (h, line))
    funcs = {}
    for h in headers:
        for f in h.funcs:
            funcs.setdefault(f["name"], (h, f))

    for h in headers:
        base = os.path.basename(h.path)
        for m in re.finditer(r"\bFOVEA_DEPRECATED\b", h.code):
            # the function it marks, or the macro itself on its #define line
            line_start = h.code.rfind("\n", 0, m.start()) + 1
            fn = re.search(r"(\w+)\s*\(", h.code[m.end():m.end() + 400])
            if h.code[line_start:m.start()].strip().startswith("#") or not fn:
                name = "FOVEA_DEPRECATED"
            else:
                name = fn.group(1)
            add(h, line_of(h.code, m.start()), "deprecated", name,
                "FOVEA_DEPRECATED (%s): remove the function instead (0.x has no deprecation)"
                % name)
        for f in h.funcs:
            name, params, line = f["name"], f["params"], f["line"]
            if not h.doc_before(f["start"]):
                add(h, line, "doc", name, "%s has no /** doc comment right above it" % name)
            if not name.startswith("fovea_"):
                if base == "klt.h" and re.match(r"_?KLT[A-Z]", name):
                    continue  # Birchfield's KLT 1.3.4 surface, kept on purpose (STYLE.md)
                add(h, line, "prefix", name, "%s lacks the fovea_ prefix" % name)
                continue
            words = name[len("fovea_"):].split("_")
            for verb in BANNED_VERBS:
                if verb not in words:
                    continue
                vt = name[: -len("_free")] if name.endswith("_free") else None
                if verb == "free" and vt in values and vt not in objects and \
                        any(norm(p) == norm(vt + " *") for p in params):
                    continue  # a value type's buffer (docs/api.md, Value types)
                add(h, line, "verb", name,
                    "%s uses the verb '%s' (objects open and close; _free only for a value "
                    "type's buffer)" % (name, verb))
            obj = obj_of(name, objects, values)
            if obj is None and name.startswith("fovea_context_"):
                obj = "fovea_context"
            if obj:
                rest = name[len(obj) + 1:]
                if rest == "open" or rest.startswith("open_") or rest in ("close",
                                                                          "default_settings"):
                    pass  # checked below
                elif rest.endswith("_default_settings") and params and \
                        norm(params[0]) == norm(name[: -len("_default_settings")] + "_settings *"):
                    pass  # the settings of one of X's calls (fovea_vmaf_readers_settings)
                elif not params or norm(params[0]) not in (norm(obj + " *"),
                                                           norm("const " + obj + " *"),
                                                           norm(obj + " **")):
                    add(h, line, "method", name,
                        "%s is a method of %s but its first parameter is '%s', not the object"
                        % (name, obj, params[0] if params else "(none)"))

    for o, (h, line) in sorted(objects.items(), key=lambda kv: kv[0]):
        root = o == "fovea_context"
        open_names = ["fovea_open"] if root else \
            [n for n in funcs if n == o + "_open" or n.startswith(o + "_open_")]
        open_names = [n for n in open_names if n in funcs]
        if not open_names:
            add(h, line, "open", o, "%s has no %s_open or %s_open_<source>" % (o, o, o))
        for n in open_names:
            fh, f = funcs[n]
            p = f["params"]
            ok = len(p) >= 1 and norm(p[0]) == norm(o + " **")
            if not root:
                ok = ok and len(p) >= 2 and norm(p[1]) == norm("fovea_context *")
            if not ok:
                add(fh, f["line"], "open", n,
                    "%s must take (%s **out, fovea_context *ctx, ...), not (%s)"
                    % (n, o, ", ".join(p)))
        close = "fovea_close" if root else o + "_close"
        if close not in funcs:
            add(h, line, "close", o, "%s has no void %s(%s **)" % (o, close, o))
        else:
            fh, f = funcs[close]
            if f["ret"].replace("FOVEA_API", "").strip() != "void" or \
                    [norm(p) for p in f["params"]] != [norm(o + " **")]:
                add(fh, f["line"], "close", close,
                    "%s must be void %s(%s **)" % (close, close, o))

    for h in headers:
        for s, line in h.settings.items():
            want = "fovea_default_settings" if s == "fovea_settings" else \
                s[: -len("_settings")] + "_default_settings"
            if want not in funcs:
                add(h, line, "settings", s, "%s has no void %s(%s *)" % (s, want, s))
        for f in h.funcs:
            n = f["name"]
            if n == "fovea_default_settings" or n.endswith("_default_settings"):
                want = "fovea_settings" if n == "fovea_default_settings" else \
                    n[: -len("_default_settings")] + "_settings"
                if [norm(p) for p in f["params"]] != [norm(want + " *")] or \
                        f["ret"].replace("FOVEA_API", "").strip() != "void":
                    add(h, f["line"], "settings", n, "%s must be void %s(%s *)" % (n, n, want))
            for suffix, partner in (("_submit", "_receive"), ("_receive", "_submit"),
                                    ("_flush", "_submit")):
                if not n.startswith("fovea_") or not n.endswith(suffix):
                    continue
                stem = n[: -len(suffix)]
                if stem + partner not in funcs:
                    add(h, f["line"], "async", n, "%s has no %s%s" % (n, stem, partner))
                if suffix != "_flush" and "FOVEA_AGAIN" not in (h.doc_before(f["start"]) or ""):
                    add(h, f["line"], "async", n,
                        "%s's doc comment does not say when it returns FOVEA_AGAIN" % n)
    return findings


def report(findings, allow):
    failed = 0
    used = set()
    for f in findings:
        if f.key() in allow:
            used.add(f.key())
            print("allowed (temporary): %s" % f)
        else:
            failed += 1
            print(f)
    for k in sorted(allow - used):
        failed += 1
        print("stale allowlist entry %s: it matches nothing now; remove it from "
              "TEMPORARY_ALLOWLIST in %s" % (k, __file__))
    return failed


BAD_SAMPLE = """/* a header that breaks every rule */
#include "fovea/api.h"
typedef struct fovea_widget fovea_widget;
typedef struct fovea_gadget fovea_gadget;
typedef struct fovea_gadget_settings { int x; } fovea_gadget_settings;
/** prefix */
FOVEA_API int widget_count(void);
/** wrong order */
FOVEA_API int fovea_widget_open(fovea_context *ctx, fovea_widget **w);
/** returns a status */
FOVEA_API int fovea_widget_close(fovea_widget **w);
/** banned verb */
FOVEA_API int fovea_gadget_create(fovea_gadget **g, fovea_context *ctx);
/** banned verb on an object */
FOVEA_API void fovea_gadget_free(fovea_gadget *g);
/** method with the context first */
FOVEA_API int fovea_widget_spin(fovea_context *ctx, fovea_widget *w);
FOVEA_API int fovea_widget_undocumented(fovea_widget *w);
/** deprecated */
FOVEA_API FOVEA_DEPRECATED int fovea_widget_old(fovea_widget *w);
/** no receive, no FOVEA_AGAIN */
FOVEA_API int fovea_widget_submit(fovea_widget *w, int x);
"""

BAD_EXPECTED = {
    ("prefix", "widget_count"), ("open", "fovea_widget_open"), ("close", "fovea_widget_close"),
    ("verb", "fovea_gadget_create"), ("verb", "fovea_gadget_free"), ("open", "fovea_gadget"),
    ("close", "fovea_gadget"), ("method", "fovea_widget_spin"),
    ("doc", "fovea_widget_undocumented"), ("deprecated", "fovea_widget_old"),
    ("async", "fovea_widget_submit"), ("settings", "fovea_gadget_settings"),
}

GOOD_SAMPLE = """/* a header that follows every rule */
#include "fovea/api.h"
typedef struct fovea_widget fovea_widget;
typedef struct fovea_widget_settings { int x; } fovea_widget_settings;
typedef struct fovea_blob { void *buf; } fovea_blob;
/** Fill s with defaults. */
FOVEA_API void fovea_widget_default_settings(fovea_widget_settings *s);
/** Open. @return FOVEA_OK */
FOVEA_API int fovea_widget_open(fovea_widget **w, fovea_context *ctx,
                                const fovea_widget_settings *s);
/** Open from a file. @return FOVEA_OK */
FOVEA_API int fovea_widget_open_file(fovea_widget **w, fovea_context *ctx, const char *path);
/** Close. */
FOVEA_API void fovea_widget_close(fovea_widget **w);
/** Queue. @return FOVEA_OK or FOVEA_AGAIN (receive first) */
FOVEA_API int fovea_widget_submit(fovea_widget *w, int x);
/** Result. @return FOVEA_OK or FOVEA_AGAIN (nothing ready: submit or flush) */
FOVEA_API int fovea_widget_receive(fovea_widget *w, int *x);
/** Drain. */
FOVEA_API int fovea_widget_flush(fovea_widget *w);
/** A query. */
FOVEA_API int fovea_widget_count(const fovea_widget *w);
/** A value type's buffer. */
FOVEA_API int fovea_blob_alloc(fovea_context *ctx, fovea_blob *b, size_t n);
/** ... and its release. */
FOVEA_API void fovea_blob_free(fovea_context *ctx, fovea_blob *b);
"""


def self_test():
    ok = True
    with tempfile.TemporaryDirectory() as d:
        bad = os.path.join(d, "bad.h")
        with open(bad, "w") as f:
            f.write(BAD_SAMPLE)
        got = {(f.rule, f.name) for f in check([bad])}
        for e in sorted(BAD_EXPECTED - got):
            print("self-test: the wrong sample was not caught: [%s] %s" % e)
            ok = False
        for g in sorted(got - BAD_EXPECTED):
            print("self-test: unexpected finding on the wrong sample: [%s] %s" % g)
            ok = False
        if report(check([bad]), set()) == 0:
            print("self-test: the wrong sample passed")
            ok = False
        good = os.path.join(d, "good.h")
        with open(good, "w") as f:
            f.write(GOOD_SAMPLE)
        for f in check([good]):
            print("self-test: finding on the right sample: %s" % f)
            ok = False
    print("self-test: %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


def main(argv):
    if len(argv) > 1 and argv[1] == "--self-test":
        return self_test()
    root = argv[1] if len(argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "include", "fovea")
    paths = [os.path.join(root, n) for n in sorted(os.listdir(root)) if n.endswith(".h")]
    if not paths:
        print("no headers under %s" % root)
        return 1
    failed = report(check(paths), TEMPORARY_ALLOWLIST)
    print("%d header(s), %s" % (len(paths), "%d problem(s)" % failed if failed else "ok"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
