#!/usr/bin/env python3
"""One model variant's sweep (sweep.jsonl lines) as a Markdown table: runs, finished runs,
median last level learned ~ solved, and perfect runs at each test level ("–": not run)."""
import json,sys,statistics as st
rows=[json.loads(l) for f in sys.argv[1:] for l in open(f)]
import os
paper=json.load(open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),"results","paper_table1.json")))["tasks"]
order=paper+sorted({r["summary"]["task"] for r in rows}-set(paper))
print("| task | runs | finished | last level learned ~ solved (median) | perfect at 10 | 100 | 500 | 1000 |")
print("|---|---:|---:|---|---:|---:|---:|---:|")
for t in order:
    rs=[r for r in rows if r["summary"]["task"]==t]
    if not rs: continue
    fin=sum(r["summary"]["outcome"]=="solved" for r in rs)
    ll=st.median(r["summary"]["last_level_learned"] for r in rs); ls=st.median(r["summary"]["last_level_solved"] for r in rs)
    cells=[]
    for L in ["10","100","500","1000"]:
        ev=[r["eval"][L] for r in rs if L in r["eval"]]
        cells.append("–" if not ev else str(sum(e["solved"]==e["samples"] for e in ev)))
    g=lambda x: ('%g'%x)
    print(f"| {t} | {len(rs)} | {fin} | {g(ll)} ~ {g(ls)} | "+" | ".join(cells)+" |")
secs=sum(r["summary"]["wall_seconds"] for r in rows); its=sum(r["summary"]["iterations"] for r in rows)
print(f"\ntraining wall time {secs/3600:.2f} h core-time, {its} iterations, {1000*secs/its:.2f} ms per iteration", file=sys.stderr)
