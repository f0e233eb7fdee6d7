"""The paper's Table 1 (every model's rows) as JSON, read from the paper's LaTeX source.

Usage: python3 scripts/paper_table.py PAPER.tex > results/paper_table1.json
Output: {"tasks": [...11 names...], "models": {MODEL: {ROW: [11 cells]}}} with MODEL one of NHC,
NHC-anc, NHC-prev, DNC+is+ha, DNC; ROW one of iterations, last level, level 10, level 100,
level 500, level 1000; a cell as printed, e.g. "3132 (−565, +1722)", "2 (−0, +1) ~ 11 (−0, +0)",
"73.3% ~ 86.1%", or "–".
"""
import json, re, sys

tex = open(sys.argv[1]).read()
body = tex[tex.index(r"\begin{tabular}{rrr|c|c"):]
body = body[:body.index(r"\end{tabular}")]
rows = body.split(r"\\")
tasks = [t.strip() for t in rows[0].split("&")[3:]]


def cell(text):
    text = re.sub(r"\\cellcolor\{[^}]*\}", "", text)
    text = re.sub(r"\$\{\\scriptstyle_\{([^}]*)\}\^\{([^}]*)\}\}\$", r"(\1, \2)", text)
    text = text.replace(r"\%", "%").replace("~~", "~").replace("-", "−").replace("−−", "–")
    text = re.sub(r"\s+", " ", text).strip()
    return "–" if text in ("−−", "–", "") else text


models, model = {}, None
for row in rows[1:]:
    m = re.search(r"\{\\[lL]arge ([^}\\]+)\}", row)
    if m:
        model = m.group(1).strip()
        models[model] = {}
    parts = row.split("&")
    if len(parts) < 14 or model is None:
        continue
    label = re.sub(r"\\cellcolor\{[^}]*\}|\\parbox.*", "", parts[2]).strip()
    models[model][label] = [cell(p) for p in parts[3:14]]
json.dump({"source": "Table 1 of the paper (nhc-paper.tex)", "tasks": tasks, "models": models},
          sys.stdout, ensure_ascii=False, indent=1)
print()
