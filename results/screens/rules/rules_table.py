"""The paper's unstated training rules, screened against its own numbers: per reading (a sweep)
and cell (model variant × task), our learning iterations counted three ways (the run's first
lineage, its surviving lineage, all its lineages; and every lineage of the cell pooled), where the
first lineage stopped, restarts per
run, finished and perfect runs, beside the paper's Table 1 cell (median and quartiles).

Usage: python3 results/screens/rules/rules_table.py LABEL=SOURCE [LABEL=SOURCE ...] [--tasks=t1,t2] [--first-only]
       python3 results/screens/rules/rules_table.py --report      # writes results/screens/rules/README.md from the committed files
SOURCE is a sweep directory (runs/NAME, read run by run) or a results file (results/NAME.jsonl).
--first-only prints only the first-lineage columns (for screens whose budget was cut short).
A cell "in" the paper's range has its median inside the paper's quartiles."""
import json, os, statistics, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TABLE = json.load(open(os.path.join(ROOT, "results", "paper_table1.json")))
VARIANT_MODEL = {"nhc": "NHC", "nhc-anc": "NHC-anc", "nhc-prev": "NHC-prev", "dnc-is-ha": "DNC+is+ha"}
TEST_LEVELS = ("100", "500", "1000")


def paper_cell(variant, task):
    """(median, q1, q3, last level text) of the paper's cell, or None where it has none."""
    model = TABLE["models"].get(VARIANT_MODEL.get(variant, ""), {})
    if task not in TABLE["tasks"] or "iterations" not in model:
        return None
    k = TABLE["tasks"].index(task)
    text = model["iterations"][k]
    if text.strip() in ("–", "-", ""):
        return None
    median, rest = text.split("(", 1)
    lo, hi = rest.rstrip(")").split(",")
    num = lambda s: float(s.replace("−", "-").replace("+", "").strip())
    m = num(median)
    return m, m + num(lo), m + num(hi), model["last level"][k].replace(" (−0, +0)", "")


def runs_of(source):
    """(summary, eval or {}) of every run of a sweep directory or results file."""
    if source.endswith(".jsonl"):
        for line in open(source):
            if line.strip():
                r = json.loads(line)
                yield r["summary"], r.get("eval") or {}
        return
    for name in sorted(os.listdir(source)):
        d = os.path.join(source, name)
        try:
            summary = json.load(open(os.path.join(d, "summary.json")))
        except (OSError, ValueError):
            continue
        try:
            evals = json.load(open(os.path.join(d, "eval.json")))
        except (OSError, ValueError):
            evals = {}
        yield summary, evals


def quartiles(xs):
    """Median and quartiles (the inclusive method), as the paper's `m (−a, +b)`."""
    if len(xs) == 1:
        return xs[0], xs[0], xs[0]
    q1, m, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    return m, q1, q3


def number(x, sign=False):
    """`x` rounded, thousands apart by a space, minus as the paper prints it."""
    return (f"{x:+,.0f}" if sign else f"{x:,.0f}").replace(",", " ").replace("-", "−")


def median_range(m, q1, q3):
    return f"{number(m)} ({number(q1 - m, True)}, {number(q3 - m, True)})"


def show(xs):
    return median_range(*quartiles(xs)) if xs else "–"


def main(argv):
    if "--report" in argv:
        return report()
    only = next((a.split("=", 1)[1].split(",") for a in argv if a.startswith("--tasks=")), None)
    table(only, "--first-only" in argv, [a.split("=", 1) for a in argv if not a.startswith("--")])


# The failing cells of the paper's Table 1 that the restart screens ran, as (variant, task).
FAILING = {"nhc-prev": ["search", "sort", "duplicated"], "nhc-anc": ["search", "sort", "repeatCopy", "duplicated"],
           "dnc-is-ha": ["search", "sort", "arithmetic", "duplicated"]}


def report():
    """results/screens/rules/README.md from the committed sweep files alone."""
    import contextlib, io
    out = io.StringIO()
    r = lambda name: os.path.join("results", name)
    with contextlib.redirect_stdout(out):
        print("# The paper's unstated rules, screened against its own numbers\n")
        print("Made by `python3 results/screens/rules/rules_table.py --report` from the committed sweep files named in "
              "each section (docs/results/rules.md, \"The paper's unstated rules\", has the commands that ran "
              "them and the reading of these tables). Learning iterations: median (to quartiles). A "
              "reading's first lineage is \"in\" the paper's range when its median lies inside the "
              "paper's quartiles.\n")
        print("## Restart readings: the first lineage of the paper's failing cells\n")
        print("`level`: our earlier sweeps under that rule, with the copy family's Bus feedback then on "
              "(results/screens/rules/level_*.jsonl, results/comparison_*.jsonl as they were without the learning "
              "curves; where their summaries predate the lineage record the cell is empty). The others: "
              "15 seeds, no Bus feedback, a budget of 8 000 learning iterations; `stagnation` (the "
              "default) counts learning iterations since the last new best "
              "(configs/stagnation_learning_screen.toml), `stagnation, all` and `stagnation_or_equal, "
              "all` every iteration (configs/stagnation_screen.toml, configs/stagnation_equal_screen.toml).\n")
        cells = [f"{v}:{t}" for v, ts in FAILING.items() for t in ts]
        table(None, True, [("level", r(f"screens/rules/level_{v.replace('-', '_')}.jsonl")) for v in FAILING]
              + [("stagnation", r("screens/rules/stagnation_learning_screen.jsonl")),
                 ("stagnation, all", r("screens/rules/stagnation_screen.jsonl")),
                 ("stagnation_or_equal, all", r("screens/rules/stagnation_equal_screen.jsonl"))], cells)
        print("\n## Counting every iteration kills lineages that are solving their level\n")
        print("The full NHC under `stagnation, all` (results/screens/rules/stagnation_all_nhc_partial.jsonl: the "
              "77 runs of the six tasks it finished before it was stopped; the default config then). A "
              "lineage whose batch fitness reached 1 on a level can never beat it, so perfect iterations "
              "count towards its restart and it must solve the level within 2 000 iterations. plan+ "
              "finished 1 run of 15, where the paper's finishes all.\n")
        table(None, False, [("stagnation, all", r("screens/rules/stagnation_all_nhc_partial.jsonl"))])
        print("\n## Memory readings on duplicated and the tasks with free gates\n")
        print("10 seeds, no Bus feedback, restarts on stagnation, a budget of 8 000 learning iterations "
              "(configs/free_*_screen.toml); perfect: every sample of levels 100, 500 and 1000 solved.\n")
        table(None, False, [(name, r(f"screens/rules/free_{name}_screen.jsonl"))
                            for name in ("tail_release", "formula_release", "formula_unmarked")])
        print("\n## Gates that start closed, free gates off, θ from zero\n")
        print("The full NHC, 10 seeds, a budget of 8 000 learning iterations (the earlier default's row: 15 seeds, 20 000): every gate's initial bias −1 "
              "(configs/gate_bias_screen.toml), only the free gates' (configs/free_gate_bias_screen.toml; −0.5 and −2: free_gate_bias_05_screen.toml, free_gate_bias_2_screen.toml), "
              "no free gates at all (configs/free_gates_off_screen.toml), θ = 0 at every (re)start "
              "(configs/init_zero_screen.toml); results/screens/rules/<name>_screen.jsonl.\n")
        table(None, False, [("free gates open (earlier default, 20 000)", r("screens/rules/free_gates_open_nhc.jsonl")),
                            ("gate_bias −1", r("screens/rules/gate_bias_screen.jsonl")),
                            ("free_gate_bias −0.5", r("screens/rules/free_gate_bias_05_screen.jsonl")),
                            ("free_gate_bias −1", r("screens/rules/free_gate_bias_screen.jsonl")),
                            ("free_gate_bias −2", r("screens/rules/free_gate_bias_2_screen.jsonl")),
                            ("free gates off", r("screens/rules/free_gates_off_screen.jsonl")),
                            ("θ = 0", r("screens/rules/init_zero_screen.jsonl"))])
        print("\n## A read mode with no target reads nothing\n")
        print("The full NHC, 10 seeds, `missing_link = \"empty\"`: F at the tail, B at the head, P at a root "
              "and C without children read the zero word instead of the location again, a budget of 8 000 "
              "learning iterations (configs/missing_empty_screen.toml; results/screens/rules/missing_empty_screen.jsonl).\n")
        table(None, False, [("missing_link empty", r("screens/rules/missing_empty_screen.jsonl"))])
        print("\n## The other silent choices, one at a time\n")
        print("The full NHC, 15 seeds, six tasks (`margin_raw` also search+ and plan+), the defaults but for one choice each, a budget of 8 000 "
              "learning iterations (configs/<name>_screen.toml; results/screens/rules/<name>_screen.jsonl): "
              "`mirrored_off` 20 independent offspring instead of 10 mirrored pairs, `centred_ranks` "
              "centred ranks as utilities at our step size α/σ, `margin_raw` the fitness's margin on "
              "the Bus's raw logits, `init_std1` θ drawn from N(0, 1).\n")
        table(None, False, [(name, r(f"screens/rules/{name}_screen.jsonl"))
                            for name in ("mirrored_off", "centred_ranks", "margin_raw", "init_std1")
                            if os.path.exists(os.path.join(ROOT, "results", "screens", "rules", f"{name}_screen.jsonl"))])
        print("\n## Under the defaults: the full NHC, NHC-prev and NHC-anc rows\n")
        print("15 seeds per task, the paper's protocol with the defaults this screen chose "
              "(results/full.jsonl, results/comparison_nhc_prev.jsonl, results/comparison_nhc_anc.jsonl, "
              "results/comparison_dnc_is_ha.jsonl: DNC+is+ha's eight cells, levels 500 and 1000 only for the "
              "runs perfect at level 100; "
              "`nhc report` draws their Table 1).\n")
        table(None, False, [("default", r("full.jsonl")), ("default", r("comparison_nhc_prev.jsonl")),
                            ("default", r("comparison_nhc_anc.jsonl")), ("default", r("comparison_dnc_is_ha.jsonl"))])
    text = out.getvalue()
    open(os.path.join(ROOT, "results", "screens", "rules", "README.md"), "w").write(text)
    print("wrote results/screens/rules/README.md")


def table(only, first_only, columns, keep=None):
    """Prints the table of `columns` (label, source); `keep` keeps only those `variant:task`."""
    header = ["reading", "model", "task", "runs", "first lineage: learning iterations", "paper",
              "in paper's quartiles", "first lineage ended on level (runs)", "paper: last level learned ~ solved"]
    if not first_only:
        header += ["finished", "perfect at L100–1000", "surviving lineage", "all lineages", "restarts per run",
                   "every lineage not cut by the cap"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * 3 + "---:|" * 3 + "---|" * 3 + ("---:|" * 6 if not first_only else ""))
    for label, source in columns:
        cells = {}
        for s, e in runs_of(os.path.join(ROOT, source)):
            if only and s["task"] not in only or keep and f"{s['variant']}:{s['task']}" not in keep:
                continue
            cells.setdefault((s["variant"], s["task"]), []).append((s, e))
        for (variant, task), runs in sorted(cells.items(), key=lambda kv: (kv[0][0], TABLE["tasks"].index(kv[0][1]))):
            with_lineages = [(s, e) for s, e in runs if s.get("lineages")]
            first = [s["lineages"][0] for s, _ in with_lineages]
            first_li = [l["learning_iterations"] for l in first]
            ended = {}
            for l in first:
                key = "finished" if l["ending"] == "finished" else f"{l['level']}" + (" cap" if l["ending"] == "cap" else "")
                ended[key] = ended.get(key, 0) + 1
            paper = paper_cell(variant, task)
            inside = "–"
            if paper and first_li:
                m = quartiles(first_li)[0]
                inside = "yes" if paper[1] <= m <= paper[2] else ("below" if m < paper[1] else "above")
            row = [label, VARIANT_MODEL.get(variant, variant), task, str(len(runs)), show(first_li),
                   median_range(*paper[:3]) if paper else "–",
                   inside, ", ".join(f"{k}: {v}" for k, v in sorted(ended.items())), paper[3] if paper else "–"]
            if not first_only:
                finished = sum(s["outcome"] == "solved" for s, _ in runs)
                tested = [e for _, e in runs if all(l in e for l in TEST_LEVELS)]
                perfect = (str(sum(all(e[l]["solved"] == e[l]["samples"] for l in TEST_LEVELS) for e in tested))
                           if len(tested) == len(runs) else "–")
                surviving = [s["lineages"][-1]["learning_iterations"] for s, _ in with_lineages]
                total = [s["learning_iterations"] for s, _ in runs]
                restarts = statistics.mean(s["restarts"] for s, _ in runs)
                every = [l["learning_iterations"] for s, _ in with_lineages for l in s["lineages"] if l["ending"] != "cap"]
                row += [str(finished), perfect, show(surviving), show(total), f"{restarts:.1f}", show(every)]
            print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
