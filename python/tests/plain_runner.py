# SPDX-License-Identifier: BSD-2-Clause-Patent
"""Run pytest-style test modules where pytest is not installed (the lent GPU
machine): a stand-in `pytest` module with what python/tests use (fixture,
mark.parametrize, mark.skipif, skip, raises) goes into sys.modules, then each
test function runs with its fixtures (conftest's, tmp_path) and parameters.

    python3 plain_runner.py test_gpu.py [test_vmaf.py ...]

Prints one line per test (PASS, SKIP with the reason, FAIL with the
traceback) and a summary; exits 1 when a test failed."""
import inspect
import itertools
import os
import re
import shutil
import sys
import tempfile
import traceback
import types
from pathlib import Path


class Skipped(Exception):
    pass


class _Mark:
    def __init__(self, name, args, kwargs):
        self.name, self.args, self.kwargs = name, args, kwargs

    def __call__(self, fn):
        fn.__dict__.setdefault("_plain_marks", []).append(self)
        return fn


class _MarkFactory:
    def __getattr__(self, name):
        return lambda *args, **kwargs: _Mark(name, args, kwargs)


class _Raises:
    def __init__(self, exc, match=None):
        self.exc, self.match = exc, match

    def __enter__(self):
        return self

    def __exit__(self, typ, value, tb):
        if typ is None:
            raise AssertionError(f"DID NOT RAISE {self.exc}")
        if not issubclass(typ, self.exc):
            return False
        if self.match and not re.search(self.match, str(value)):
            raise AssertionError(f"{value!r} does not match {self.match!r}")
        self.value = value
        return True


FIXTURES = {}


def _fixture(fn=None, **_):
    if fn is None:
        return _fixture
    FIXTURES[fn.__name__] = fn
    return fn


def _skip(reason=""):
    raise Skipped(reason)


stub = types.ModuleType("pytest")
stub.fixture = _fixture
stub.mark = _MarkFactory()
stub.skip = _skip
stub.raises = _Raises
stub.Skipped = Skipped
sys.modules["pytest"] = stub


def _call(fn, params, scratch):
    """fn called with its parameters and fixtures (each made once per test)."""
    made = {}

    def value(name):
        if name in params:
            return params[name]
        if name not in made:
            if name == "tmp_path":
                made[name] = Path(tempfile.mkdtemp(dir=scratch))
            elif name in FIXTURES:
                made[name] = _call(FIXTURES[name], {}, scratch)
            else:
                raise TypeError(f"no fixture '{name}'")
        return made[name]

    return fn(**{n: value(n) for n in inspect.signature(fn).parameters})


def _cases(fn):
    """(id, params) for each parametrization of fn, or a skip reason."""
    marks = fn.__dict__.get("_plain_marks", [])
    for m in marks:
        if m.name == "skipif" and m.args and m.args[0]:
            return m.kwargs.get("reason", "skipif")
    grids = []
    for m in marks:
        if m.name == "parametrize":
            names = [n.strip() for n in m.args[0].split(",")]
            rows = [r if len(names) > 1 else (r,) for r in m.args[1]]
            grids.append([dict(zip(names, r)) for r in rows])
    out = []
    for combo in itertools.product(*grids):
        params = {}
        for p in combo:
            params.update(p)
        label = "-".join(str(v) for v in params.values())
        out.append((f"[{label}]" if params else "", params))
    return out


def main(paths):
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import conftest  # noqa: F401  (its fixtures register themselves)
    counts = {"PASS": 0, "SKIP": 0, "FAIL": 0}
    scratch = tempfile.mkdtemp(prefix="fovea-plain-")
    try:
        for path in paths:
            name = os.path.splitext(os.path.basename(path))[0]
            mod = __import__(name)
            for fname, fn in vars(mod).items():
                if not fname.startswith("test_") or not callable(fn):
                    continue
                cases = _cases(fn)
                if isinstance(cases, str):
                    print(f"SKIP {name}::{fname}: {cases}")
                    counts["SKIP"] += 1
                    continue
                for label, params in cases:
                    tid = f"{name}::{fname}{label}"
                    try:
                        _call(fn, params, scratch)
                        print(f"PASS {tid}")
                        counts["PASS"] += 1
                    except Skipped as e:
                        print(f"SKIP {tid}: {e}")
                        counts["SKIP"] += 1
                    except Exception:  # noqa: BLE001  (a test's failure, reported)
                        print(f"FAIL {tid}")
                        traceback.print_exc(file=sys.stdout)
                        counts["FAIL"] += 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"plain runner: {counts['PASS']} passed, {counts['SKIP']} skipped, "
          f"{counts['FAIL']} failed")
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
