#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause-Patent
"""Every source file is in a build list: no file is forgotten by CMake.

The build names its files one by one (no glob), so a new file that nobody adds
to a CMakeLists.txt would silently not be built or tested. This check fails
when one of these files of the repository is named in no CMakeLists.txt:

    src/**/*.c, src/**/*.cu          the library (src/<system>/CMakeLists.txt)
    tools/**/*.c                     the CLI and the demo scene
    gst/*.c                          the GStreamer plugin
    bench/*.c, bench/*.cu            the benchmarks
    tests/**/test_*.c, test_*.sh     the tests
    tests/fuzz/fuzz_*.c              the fuzz targets

unless NOT_BUILT below lists it with the reason. A file counts as listed when a
CMakeLists.txt in its folder or a folder above names it outside a comment, by
its path from that CMakeLists.txt's folder (`stitch.cu`, `gpu/test_gpu_core.c`)
or from ${PROJECT_SOURCE_DIR}, ${CMAKE_SOURCE_DIR}, ${CMAKE_CURRENT_SOURCE_DIR}
or ${CMAKE_CURRENT_LIST_DIR}.

Files are those git knows (tracked, and untracked ones it does not ignore) in a
git checkout, else every file under the root.

usage: check-build-lists.py [ROOT]      check ROOT (default: this repository)
       check-build-lists.py --self-test a copy of the lists with planted files
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Files deliberately not compiled, with the reason: repository path -> reason.
NOT_BUILT = {
}

PATTERNS = [
    re.compile(r"^src/.+\.(c|cu)$"),
    re.compile(r"^tools/.+\.c$"),
    re.compile(r"^gst/[^/]+\.c$"),
    re.compile(r"^bench/[^/]+\.(c|cu)$"),
    re.compile(r"^tests/(.+/)?test_[^/]+\.(c|sh)$"),
    re.compile(r"^tests/fuzz/fuzz_[^/]+\.c$"),
]

ROOT_VARS = ("${PROJECT_SOURCE_DIR}/", "${CMAKE_SOURCE_DIR}/")
HERE_VARS = ("${CMAKE_CURRENT_SOURCE_DIR}/", "${CMAKE_CURRENT_LIST_DIR}/")
TOKEN = re.compile(r'[^\s()"]+')


def repo_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], capture_output=True, check=True).stdout
        if subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"],
                          capture_output=True, text=True,
                          check=True).stdout.strip() != os.path.realpath(root):
            raise ValueError("not the top of a checkout")
        names = [n for n in out.decode().split("\0") if n]
        return sorted(n for n in set(names) if os.path.isfile(os.path.join(root, n)))
    except (OSError, subprocess.CalledProcessError, ValueError):
        found = []
        for d, dirs, files in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith(".") and not x.startswith("build")]
            found += [os.path.relpath(os.path.join(d, f), root) for f in files]
        return sorted(found)


def strip_comment(line):
    """A CMake line without its # comment (a # inside a "string" is kept)."""
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"' and (i == 0 or line[i - 1] != "\\"):
            quoted = not quoted
        elif ch == "#" and not quoted:
            return line[:i]
    return line


def listed_paths(root, files):
    """Repository paths named by the CMakeLists.txt files among `files`."""
    named = set()
    for lists in (f for f in files if os.path.basename(f) == "CMakeLists.txt"):
        here = os.path.dirname(lists)
        with open(os.path.join(root, lists), encoding="utf-8") as fh:
            text = "\n".join(strip_comment(line) for line in fh)
        for tok in TOKEN.findall(text):
            if tok.startswith(ROOT_VARS):
                path = tok.split("/", 1)[1]
            elif tok.startswith(HERE_VARS):
                path = os.path.join(here, tok.split("/", 1)[1])
            elif "$" in tok:
                continue
            else:
                path = os.path.join(here, tok)
            named.add(os.path.normpath(path))
    return named


def check(root, out=sys.stdout):
    files = repo_files(root)
    named = listed_paths(root, files)
    missing = [f for f in files
               if any(p.match(f) for p in PATTERNS) and f not in named and f not in NOT_BUILT]
    stale = [f for f in NOT_BUILT if f not in files]
    for f in missing:
        print(f"check-build-lists: {f} is in no CMakeLists.txt: add it to the list of "
              f"its folder (or to NOT_BUILT in {os.path.relpath(__file__, root)} "
              f"with the reason it is not built)", file=out)
    for f in stale:
        print(f"check-build-lists: NOT_BUILT names {f}, which does not exist", file=out)
    if missing or stale:
        return 1
    print(f"check-build-lists: {sum(any(p.match(f) for p in PATTERNS) for f in files)} "
          f"source files, each in a build list", file=out)
    return 0


def self_test():
    """The real lists pass on a copy of the tree; a planted file must fail."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = repo_files(root)
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            if os.path.basename(f) == "CMakeLists.txt" or any(p.match(f) for p in PATTERNS):
                os.makedirs(os.path.join(tmp, os.path.dirname(f)), exist_ok=True)
                shutil.copyfile(os.path.join(root, f), os.path.join(tmp, f))
        sink = open(os.devnull, "w")
        if check(tmp, sink) != 0:
            print("self-test: the copy of the tree fails the check", file=sys.stderr)
            ok = False
        planted = ["src/core/planted.c", "src/stitch/planted.cu", "tools/planted.c",
                   "bench/bench_planted.c", "tests/test_planted.c", "tests/cli/test_planted.sh",
                   "tests/gpu/test_gpu_planted.c", "tests/fuzz/fuzz_planted.c"]
        for f in planted:
            path = os.path.join(tmp, f)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").close()
            if check(tmp, sink) == 0:
                print(f"self-test: a planted unlisted {f} passes", file=sys.stderr)
                ok = False
            os.remove(path)
        # named only in a comment is not listed
        lists = os.path.join(tmp, "src", "core", "CMakeLists.txt")
        with open(lists, "a", encoding="utf-8") as fh:
            fh.write("# planted.c\n")
        open(os.path.join(tmp, "src/core/planted.c"), "w").close()
        if check(tmp, sink) == 0:
            print("self-test: a file named only in a comment passes", file=sys.stderr)
            ok = False
        with open(lists, "a", encoding="utf-8") as fh:
            fh.write("target_sources(fovea_objects PRIVATE planted.c)\n")
        if check(tmp, sink) != 0:
            print("self-test: a listed planted file fails", file=sys.stderr)
            ok = False
    print("check-build-lists self-test: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print("usage: check-build-lists.py [ROOT] | --self-test", file=sys.stderr)
        return 2
    root = argv[1] if len(argv) == 2 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return check(os.path.abspath(root))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
