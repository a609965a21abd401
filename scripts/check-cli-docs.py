#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause-Patent
"""docs/cli.md quotes each command's --help in a fenced block that starts with
"Usage: fovea CMD": check that every such block is what `fovea CMD --help`
prints now (or, with --fix, rewrite the blocks from it).

usage: scripts/check-cli-docs.py FOVEA [--doc docs/cli.md] [--fix]

Exit 0 when every block matches (or was rewritten), 1 when one differs (each
named, with a diff), 2 on a usage error, 77 when this fovea lacks an optional
part whose options the help shows (FFmpeg, the delta streamer, the live view),
since its help then differs from the documented full build."""
import difflib
import os
import re
import subprocess
import sys

BLOCK = re.compile(r"^```\n(Usage: fovea (\S+(?: (?:check|import|show|info))?)[^\n]*\n.*?)^```$",
                   re.M | re.S)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    fix = "--fix" in argv
    doc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "cli.md")
    if "--doc" in argv:
        i = argv.index("--doc")
        if i + 1 >= len(argv):
            print(__doc__, file=sys.stderr)
            return 2
        doc = argv[i + 1]
        args = [a for a in args if a != doc]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    fovea = args[0]
    info = subprocess.run([fovea, "info"], capture_output=True, text=True).stdout
    for part in ("media (FFmpeg)", "delta streaming", "live web view"):
        line = next((l for l in info.splitlines() if part in l), "")
        if "not " in line:
            print(f"check-cli-docs: this fovea lacks {part}: its help differs (skipped)")
            return 77
    text = open(doc, encoding="utf-8").read()
    bad = 0

    def replace(m):
        nonlocal bad
        cmd = m.group(2).split()
        r = subprocess.run([fovea, *cmd, "--help"], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"check-cli-docs: fovea {' '.join(cmd)} --help: exit {r.returncode}")
            bad += 1
            return m.group(0)
        want = r.stdout.rstrip("\n") + "\n"
        if m.group(1) != want:
            if not fix:
                bad += 1
                print(f"check-cli-docs: {doc}: the help of fovea {' '.join(cmd)} differs:")
                sys.stdout.writelines(difflib.unified_diff(
                    m.group(1).splitlines(True), want.splitlines(True), "docs", "--help", n=1))
            return "```\n" + want + "```"
        return m.group(0)

    new = BLOCK.sub(replace, text)
    n = len(BLOCK.findall(text))
    if n == 0:
        print(f"check-cli-docs: {doc} quotes no help (no block starting 'Usage: fovea')")
        return 1
    if fix and new != text:
        with open(doc, "w", encoding="utf-8") as f:
            f.write(new)
        print(f"check-cli-docs: rewrote the help blocks of {doc}")
        return 0
    if bad:
        print(f"check-cli-docs: {bad} of {n} help blocks differ "
              "(scripts/check-cli-docs.py FOVEA --fix rewrites them)")
        return 1
    print(f"check-cli-docs: {n} help blocks match")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
