#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause-Patent
"""Print old vs new medians of every benchmark row found under OUTDIR/{old,new}{1,2}/
(written by scripts/bench-compare.sh): the median of each side's two runs, new/old,
and the spread between the old side's two runs (the noise to read the ratio against)."""
import glob, json, os, sys

def load(d):
    rows = {}
    for p in sorted(glob.glob(os.path.join(d, '*.json'))):
        bench = os.path.basename(p)[:-5]
        try:
            j = json.load(open(p))
        except (OSError, ValueError):
            continue
        for r in j.get('rows', []):
            case = r['case']
            if bench == 'bench_vif':
                # bench_vmaf carries the former bench_vif's rows, each prefixed "vif "
                bench_key, case = 'bench_vmaf', 'vif ' + case
            else:
                bench_key = bench
            rows[(bench_key, case, r['backend'])] = r['median_us']
    return rows

out = sys.argv[1]
runs = {k: load(os.path.join(out, k)) for k in ('old1', 'new1', 'old2', 'new2')}
keys = sorted(set(runs['old1']) | set(runs['new1']))
print(f"{'bench':<14} {'case':<44} {'backend':<10} {'old us':>10} {'new us':>10} {'new/old':>8} {'old spread':>10}")
for k in keys:
    o = [runs[r][k] for r in ('old1', 'old2') if k in runs[r]]
    n = [runs[r][k] for r in ('new1', 'new2') if k in runs[r]]
    om = sum(o) / len(o) if o else None
    nm = sum(n) / len(n) if n else None
    ratio = f"{nm / om:8.3f}" if om and nm else '       -'
    spread = f"{abs(o[0] - o[1]) / om * 100:9.1f}%" if len(o) == 2 and om else '         -'
    fo = f"{om:10.1f}" if om is not None else '         -'
    fn = f"{nm:10.1f}" if nm is not None else '         -'
    print(f"{k[0]:<14} {k[1][:44]:<44} {k[2][:10]:<10} {fo} {fn} {ratio} {spread}")
