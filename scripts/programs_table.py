"""Which memory reading admits a solution at all: `nhc programs` (table programs, docs/DESIGN.md,
"Table programs") for the copy family under each reading of the memory and each NHC variant.

Usage: python3 scripts/programs_table.py run [--jobs 2] [--max-nodes N] [--tasks t1,t2] [--symbols 2]
           runs the grid with target/release/nhc (or $NHC) and writes results/programs.jsonl
       python3 scripts/programs_table.py report
           writes results/programs.md from results/programs.jsonl
A cell is "found" (a table solves every sample: levels 1-5, 10 samples each, and 5 at level 30,
2 at level 100), "none" (every table was tried) or "budget" (none found within N entries)."""
import json, os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NHC = os.environ.get("NHC", os.path.join(ROOT, "target", "release", "nhc"))
OUT = os.path.join(ROOT, "results", "programs.jsonl")
TASKS = ["duplicated", "copy", "reverse", "repeatCopy"]
VARIANTS = ["nhc", "nhc-anc", "nhc-prev"]
# (label, config): the readings of docs/DESIGN.md, "Temporal links" and "Free gates"; Bus
# feedback off (the copy family's default).
READINGS = [
    ("tail + release (default)", None),
    ("formula + release", "configs/free_formula_release_screen.toml"),
    ("removed + release", "configs/links_removed.toml"),
    ("formula + unmarked", "configs/free_formula_unmarked_screen.toml"),
]
PAPER = {  # Table 1: whether the model learns all 11 training levels (NHC, NHC-anc, NHC-prev)
    "duplicated": ("learns", "fails", "fails"), "copy": ("learns", "learns", "learns"),
    "reverse": ("learns", "learns", "learns"), "repeatCopy": ("learns", "fails", "learns"),
}


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def one(job):
    task, variant, (label, config), max_nodes, symbols = job
    cmd = [NHC, "programs", "--task", task, "--variant", variant, "--max-nodes", str(max_nodes),
           "--symbols", str(symbols), "--json"]
    if config:
        cmd += ["--config", os.path.join(ROOT, config)]
    line = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    line["reading"] = label
    return line


def run():
    tasks = arg("--tasks", ",".join(TASKS)).split(",")
    max_nodes = int(arg("--max-nodes", "50000000"))
    symbols = int(arg("--symbols", "2"))
    jobs = [(t, v, r, max_nodes, symbols) for t in tasks for r in READINGS for v in VARIANTS]
    with ThreadPoolExecutor(int(arg("--jobs", "2"))) as pool:
        lines = list(pool.map(one, jobs))
    key = lambda l: (l["task"], l["variant"], l["reading"], l["symbols"])
    kept = []
    if os.path.exists(OUT):
        keys = {key(l) for l in lines}
        kept = [l for l in map(json.loads, open(OUT)) if key(l) not in keys]
    with open(OUT, "w") as f:
        for l in kept + lines:
            f.write(json.dumps(l, ensure_ascii=False) + "\n")
    report()


def cell_text(l):
    if l is None:
        return ""
    if l["verdict"] == "found":
        return f"**found** ({l['nodes']:,})".replace(",", " ")
    if l["verdict"] == "none":
        return "none"
    return f"– ({l['nodes']:,})".replace(",", " ")


def report():
    lines = [json.loads(l) for l in open(OUT) if l.strip()]
    cell = {(l["task"], l["variant"], l["reading"], l["symbols"]): l for l in lines}
    out = ["# Table programs: which reading of the memory admits a solution", "",
           "`python3 scripts/programs_table.py run [--symbols S] [--tasks …] [--max-nodes N]`, then",
           "`report` (`nhc programs`, docs/DESIGN.md, \"Table programs\"). No Bus feedback; a table",
           "must solve 10 samples of each level 1–5, 5 of level 30 and 2 of level 100. Words: the zero",
           "word and S − 1 unit vectors. Cells: **found** (entries tried), none (every table tried), or",
           "– (entries tried without one: the budget). Paper: whether its model learns the 11 training",
           "levels (Table 1).", ""]
    for symbols in sorted({l["symbols"] for l in lines}):
        out += [f"## {symbols} words", ""]
        out.append("| task | reading | " + " | ".join(VARIANTS) + " | paper (NHC / NHC-anc / NHC-prev) |")
        out.append("|---|---|" + "---|" * len(VARIANTS) + "---|")
        for task in TASKS:
            for label, _ in READINGS:
                row = [cell_text(cell.get((task, v, label, symbols))) for v in VARIANTS]
                if any(row):
                    out.append(f"| {task} | {label} | " + " | ".join(row) + f" | {' / '.join(PAPER[task])} |")
        out.append("")
    out += ["## The programs found for duplicated and repeatCopy", ""]
    for l in lines:
        if l["task"] in ("duplicated", "repeatCopy") and l["verdict"] == "found":
            out += [f"### {l['task']}, {l['variant']}, {l['reading']}, {l['symbols']} words", "", "```"]
            out += l["controller"] + ["bus:"] + l["bus"] + ["```", ""]
    path = os.path.join(ROOT, "results", "programs.md")
    open(path, "w").write("\n".join(out))
    print(open(path).read())


if __name__ == "__main__":
    {"run": run, "report": report}[sys.argv[1] if len(sys.argv) > 1 else "report"]()
