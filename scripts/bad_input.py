"""Bad and extreme inputs against `nhc`, as a new user might give them: per case the exit code,
the wall time, the peak memory of the process and the first line of its error.

Usage: python3 scripts/bad_input.py [NHC_BINARY]   (default ./target/release/nhc)
Prints a Markdown table (docs/results/bad-input.md, "Bad input"). Run from the repository root.
"""
import hashlib, json, os, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NHC = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(ROOT, "target/release/nhc")
TMP = tempfile.mkdtemp(prefix="nhc-bad-")
M = lambda t: os.path.join(ROOT, "models", f"{t}.json")
# The paper's eleven tasks, as its Table 1 lists them.
TASKS = json.load(open(os.path.join(ROOT, "results", "paper_table1.json")))["tasks"]


def write(name, text, mode="w"):
    path = os.path.join(TMP, name)
    with open(path, mode) as f:
        f.write(text)
    return path


def run(args, close_stdout=False, full_stderr=False, no_stdout=False):
    """Exit code, seconds, peak RSS in MB (GNU time's %M of the nhc process), the error line of
    stderr, else its first line (none when stderr is a full device)."""
    start = time.time()
    with tempfile.NamedTemporaryFile() as rss, (open("/dev/full", "wb+") if full_stderr else tempfile.TemporaryFile()) as errf:
        out = subprocess.PIPE if close_stdout else subprocess.DEVNULL
        cmd = ["/usr/bin/time", "-q", "-f", "%M", "-o", rss.name, NHC] + args
        if no_stdout:  # closed for nhc itself (time's own output file would take descriptor 1)
            cmd = cmd[:6] + ["sh", "-c", 'exec "$0" "$@" >&-'] + cmd[6:]
        p = subprocess.Popen(cmd, stdout=out, stderr=errf, cwd=TMP)
        if close_stdout:
            p.stdout.close()
        p.wait(timeout=120)
        errf.seek(0)
        err = b"" if full_stderr else errf.read()
        kb = open(rss.name).read().split()
    line = err.decode(errors="replace").strip().splitlines()
    mb = int(kb[-1]) / 1024 if kb else float("nan")
    # The error when there is one (an announcement of long work may come first), else the first line.
    line = [l for l in line if l.startswith("error:")] or line
    return p.returncode, time.time() - start, mb, (line[0] if line else "")


good_model = json.load(open(M("copy")))
huge = dict(good_model, params=[3e38] * len(good_model["params"]))
short = dict(good_model, params=good_model["params"][:-1])
cases = []
add = lambda klass, args, **kw: cases.append((klass, args, kw))

# Sizes the issue named, and their class for every task.
add("repeatCopy copies 10^12", ["run", "--task", "repeatCopy", "--model", M("repeatCopy"), "--input",
                                '{"items":[[1,0,0,0,0,1]],"copies":1000000000000}'])
add("repeatCopy copies 2^62", ["run", "--task", "repeatCopy", "--model", M("repeatCopy"), "--input",
                               '{"items":[[1,0,0,0,0,1]],"copies":4611686018427387904}'])
# Answers copies times their input: the estimate counts them (the cases).
rc = lambda n, c: json.dumps({"items": [[(i >> b) & 1 for b in range(6)] for i in range(n)], "copies": c})
for limit, (n, c), what in [("62160000", (1000, 1000), "run"), ("300M", (100000, 10), "run"),
                            ("300M", (1, 1000000), "run"), ("98.7M", (300, 300), "trace")]:
    add(f"repeatCopy {n} × {c} {what} under --max-memory {limit}",
        ["--max-memory", limit, what, "--task", "repeatCopy", "--model", M("repeatCopy"), "--input",
         "@" + write(f"rc_{n}_{c}.json", rc(n, c))])
add("sort of 4 000 objects: seconds, announced", ["run", "--task", "sort", "--model", M("sort"), "--input",
    json.dumps([(i * 7919) % 256 for i in range(4000)])])
for t in TASKS:
    add(f"{t}: level 0", ["eval", "--task", t, "--model", M(t), "--level", "0"])
    add(f"{t}: level 2^64-1", ["eval", "--task", t, "--model", M(t), "--level", "18446744073709551615"])
    add(f"{t}: level 10^7", ["eval", "--task", t, "--model", M(t), "--level", "10000000"])
    add(f"{t}: samples 0", ["eval", "--task", t, "--model", M(t), "--level", "10", "--samples", "0"])
    add(f"{t}: samples 2^64-1", ["eval", "--task", t, "--model", M(t), "--level", "10", "--samples",
                                 "18446744073709551615"])
    add(f"{t}: input not JSON", ["run", "--task", t, "--model", M(t), "--input", "{oops"])
    add(f"{t}: input of the wrong shape", ["run", "--task", t, "--model", M(t), "--input", '{"x": [1]}'])
    add(f"{t}: trace level 10^7", ["trace", "--task", t, "--model", M(t), "--level", "10000000"])
add("sort level 10^4, 1 GB limit", ["--max-memory", "1G", "eval", "--task", "sort", "--model", M("sort"),
                                    "--level", "10000"])
add("sort list of 10^6 numbers, 1 GB limit", ["--max-memory", "1G", "run", "--task", "sort", "--model", M("sort"),
                                              "--input", "@" + write("big.json", json.dumps([7] * 1000000))])
add("input file of 100 MB", ["run", "--task", "copy", "--model", M("copy"), "--input",
                             "@" + write("huge.json", "[" + " " * (100 << 20) + "]")])
add("model /dev/zero", ["eval", "--task", "copy", "--model", "/dev/zero", "--level", "10"])
add("model: params 3e38", ["eval", "--task", "copy", "--model", write("huge_model.json", json.dumps(huge)),
                           "--level", "10"])
add("model: one number short", ["eval", "--task", "copy", "--model", write("short.json", json.dumps(short)),
                                "--level", "10"])
add("model of another task", ["eval", "--task", "reverse", "--model", M("copy"), "--level", "10"])
add("unknown task", ["eval", "--task", "nope", "--model", "scripted", "--level", "10"])
add("unknown domain", ["eval", "--task", "sort", "--domain", "nope", "--model", "scripted", "--level", "10"])
add("unknown variant", ["train", "--task", "copy", "--variant", "dnc", "--out", "v"])
add("scripted under an ablation", ["eval", "--task", "copy", "--model", "scripted", "--variant", "nhc-anc",
                                   "--level", "10"])
for name, text in [("batch 10^12", "batch = 1000000000000"), ("bad_memories 10^14", "bad_memories = 100000000000000"),
                   ("init_std 1e300", "init_std = 1e300"), ("check_level 10^9", "check_level = 1000000000"),
                   ("sigma NaN", "sigma = nan"), ("unknown field", "batchsize = 8"),
                   ("unknown restart reading", 'restart = "stuck"'), ("negative patience", "restart_after = -5"),
                   ("unknown free-gate reading", 'free_write = "x"'),
                   ("unknown missing-link reading", 'missing_link = "wrap"'),
                   ("free_gate_bias infinite", "free_gate_bias = inf"),
                   ("population × batch: 10^9 episodes an iteration", "population = 10000\nbatch = 100000"),
                   ("levels 10^6", "levels = 1000000"),
                   ("a TOML error on line 3", "batch = 8\nsigma = 0.1\npopulation = = 4"),
                   ("a table naming no task", "[tasks.nope]\nbatch = 8"),
                   ("on_failed_check unknown", 'on_failed_check = "retry"'),
                   ("word_noise negative", "word_noise = -0.1"),
                   ("train_any_shape above 1", "[tasks.duplicated]\ntrain_any_shape = 1.5"),
                   ("update_feedback for a task without update targets", "update_feedback = true"),
                   ("require_updates without update_feedback", "require_updates = true"),
                   ("update_feedback_from beyond the mixed level", "update_feedback = true\nupdate_feedback_from = 12"),
                   ("update_feedback_from without update_feedback", "update_feedback_from = 2"),
                   ("population_max without population_growth", "population_max = 80"),
                   ("population_max below the population", "population_growth = 2\npopulation_max = 10"),
                   ("early_check at the last level", "early_check = 10"),
                   ("check_level inside the curriculum", "check_level = 5"),
                   ("on_failed_check without check_level", 'on_failed_check = "relearn"'),
                   ("check_any_shape without check_level", "[tasks.sort]\ncheck_any_shape = true"),
                   ("on_failed_check a number", "on_failed_check = 1"),
                   ("sigma 1e-300", "sigma = 1e-300"),
                   ("population 10^4 × batch 4·10^4: hours a run", "population = 10000\nbatch = 40000")]:
    add(f"config {name}", ["train", "--task", "copy", "--out", "c", "--config", write(f"{name}.toml", text)])
add("sweep --samples 0", ["sweep", "--tasks", "copy", "--runs", "1", "--samples", "0", "--out", "s"])
add("sweep level 0", ["sweep", "--tasks", "copy", "--runs", "1", "--levels", "10,0", "--out", "s"])
add("sweep --tasks copy,copy", ["sweep", "--tasks", "copy,copy", "--runs", "1", "--out", "s"])
add("input: a key twice", ["run", "--task", "repeatCopy", "--model", M("repeatCopy"), "--input",
                           '{"items":[[1,0,0,0,0,1]],"copies":2,"copies":3}'])
add("model: a JSON array", ["eval", "--task", "copy", "--model", write("array.json", "[1, 2]"), "--level", "3"])
add("model with a UTF-8 BOM", ["eval", "--task", "copy", "--model",
                               write("bom.json", b"\xef\xbb\xbf" + open(M("copy"), "rb").read(), "wb"), "--level", "3"])
add("--input @ a file with a UTF-8 BOM", ["run", "--task", "copy", "--model", M("copy"), "--input",
                                          "@" + write("bom_input.json", b"\xef\xbb\xbf[[1,0,0,0,0,1]]", "wb")])
add("arithmetic --input 5", ["run", "--task", "arithmetic", "--model", M("arithmetic"), "--input", "5"])
add("arithmetic --input '-5 3 +'", ["run", "--task", "arithmetic", "--model", M("arithmetic"), "--input", "-5 3 +"])
add("copy with --start and --goal", ["run", "--task", "copy", "--model", M("copy"), "--start", M("copy"), "--goal", M("copy")])
add("--max-memory 2^64-1", ["--max-memory", "18446744073709551615", "tasks"])
add("--max-memory 99999999999G", ["--max-memory", "99999999999G", "tasks"])
add("bench --repeat 0", ["bench", "--repeat", "0"])
add("bench --train --iterations 0", ["bench", "--train", "--iterations", "0"])
add("sweep --runs and --seeds", ["sweep", "--tasks", "copy", "--runs", "2", "--seeds", "1-2", "--out", "s"])
for seeds in ["", "5-3", "a-b", "1-", "-3", "1-18446744073709551616", "1-10001"]:
    add(f"sweep --seeds {seeds!r}", ["sweep", "--tasks", "copy", "--seeds", seeds, "--out", "s"])
add("--max-memory lots", ["--max-memory", "lots", "tasks"])
add("programs --symbols 2^64-1", ["programs", "--task", "duplicated", "--symbols", "18446744073709551615"])
add("programs --levels 10^7", ["programs", "--task", "duplicated", "--levels", "10000000"])
add("programs --checks 1000:100000", ["programs", "--task", "duplicated", "--checks", "1000:100000"])
add("programs --checks 30", ["programs", "--task", "duplicated", "--checks", "30"])
V = lambda t, *a: ["verify", "--task", t, "--model", M(t), *a]
add("verify --up-to 0", V("copy", "--up-to", "0"))
add("verify --up-to -1", V("copy", "--up-to", "-1"))
add("verify copy --up-to 300000 (hours)", V("copy", "--up-to", "300000"))
add("verify copy --up-to 10^9", V("copy", "--up-to", "1000000000"))
add("verify copy --up-to 2^64-1", V("copy", "--up-to", "18446744073709551615"))
add("verify repeatCopy --up-to 10^6", V("repeatCopy", "--up-to", "1000000"))
add("verify duplicated --up-to 60,5", V("duplicated", "--up-to", "60,5"))
add("verify sort --up-to 30", V("sort", "--up-to", "30"))
add("verify addition --up-to 100", V("addition", "--up-to", "100"))
add("verify arithmetic --up-to 40", V("arithmetic", "--up-to", "40"))
add("verify copy --up-to 3,4", V("copy", "--up-to", "3,4"))
add("verify search --up-to 10^7", V("search", "--up-to", "10000000"))
add("verify, a model of another task", ["verify", "--task", "copy", "--model", M("sort")])
add("verify, a model of another variant", V("copy", "--variant", "nhc-anc"))
add("verify --map in a missing directory", V("sort", "--up-to", "3", "--map", os.path.join(TMP, "no", "map.png")))
add("verify --map map.jpg", V("sort", "--up-to", "3", "--map", "map.jpg"))
add("verify --map of one-parameter inputs", V("copy", "--up-to", "3", "--map", "map.png"))
add("verify, 1 KB memory limit", ["--max-memory", "1K", *V("copy", "--up-to", "100")])
add("resume a directory that is no run", ["train", "--resume", TMP])
add("run: 10^6 copy objects under --max-memory 500M", ["--max-memory", "500M", "run", "--task", "copy", "--model", M("copy"),
    "--input", "@" + write("million.json", json.dumps([[1, 0, 1, 0, 1, 0]] * 1000000))])
add("trace: 10^5 copy objects under --max-memory 150M", ["--max-memory", "150M", "trace", "--task", "copy", "--model",
    M("copy"), "--input", "@" + write("hundredk.json", json.dumps([[1, 0, 1, 0, 1, 0]] * 100000))])
os.symlink(os.path.join(TMP, "gone"), os.path.join(TMP, "broken"))
add("train --out a broken symlink", ["train", "--task", "copy", "--out", "broken"])
add("model: params 1e39 (beyond f32)", ["eval", "--task", "copy", "--model",
    write("f32_model.json", json.dumps(dict(good_model, params=["X"] + good_model["params"][1:])).replace('"X"', "1e39")),
    "--level", "10"])
add("model: config of another size", ["eval", "--task", "copy", "--model",
    write("other_config.json", json.dumps(dict(good_model, config=dict(good_model["config"], controller=7)))), "--level", "10"])
# A model that fails about a quarter of long additions (results/screens/failures/README.md), on one it fails.
A200 = ("11000101000101100101000101111101010010010011101011001010011111010000011010100000100100110000"
        "100011010110110100001111111010010110001010110001110010100001110011001011111101101001010001101"
        "000101110100101")
B200 = ("10101100001000010100000110001101110010010100100110100111111001011011011101001111100111000110"
        "011010101010100010010111000001011010010010100010101101011001001101000111010100001011010001010"
        "000101100110111")
add("wrong answer (a failing addition model, two 200-digit numbers)",
    ["run", "--task", "addition", "--model", os.path.join(ROOT, "results/screens/failures/addition_parity.json"),
     "--input", json.dumps({"a": A200, "b": B200})])
# A run directory in use: a training of sort runs in the background while these start.
busy = os.path.join(TMP, "busy")
background = subprocess.Popen([NHC, "train", "--task", "sort", "--seed", "1", "--out", busy, "--quiet",
                               "--max-iterations", "20000"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
while not os.path.exists(os.path.join(busy, "checkpoint.json")):
    time.sleep(0.05)
add("second train into a run directory in use", ["train", "--task", "copy", "--out", busy])
add("resume of a run still going", ["train", "--resume", busy])
add("sweep into a run directory in use", ["sweep", "--tasks", "copy", "--runs", "1", "--out", busy])
cp = json.load(open(M("copy")))
state_dir = os.path.join(TMP, "cp")
os.makedirs(state_dir)
add("checkpoint with θ[0] = 1e39", ["train", "--resume", state_dir])
add("train --resume with --seed", ["train", "--resume", state_dir, "--seed", "9"])
add("train --resume with --variant", ["train", "--resume", state_dir, "--variant", "nhc-anc"])
EDITS = ["one digit of θ changed", "no digest", "curriculum.level 10^6, digest recomputed",
         "curriculum.levels 0, digest recomputed", "restarts without their lineages, digest recomputed",
         "seconds -5, digest recomputed", "seconds 1e308, digest recomputed", "seed 1 made 3, digest recomputed",
         "update_feedback for copy, digest recomputed", "population 10^4 × batch 10^5, digest recomputed"]
for e in EDITS:
    add(f"checkpoint: {e}", ["train", "--resume", os.path.join(TMP, "cp-" + e.split(",")[0].replace(" ", "-"))])
for sub in [["eval", "--task", "copy", "--model", M("copy"), "--level", "1000"],
            ["trace", "--task", "copy", "--model", M("copy"), "--level", "1000"],
            ["report", shutil.copy(os.path.join(ROOT, "results/full.jsonl"), TMP)], ["tasks"]]:
    add(f"closed stdout: {sub[0]}", sub, close_stdout=True)
for sub in [["eval", "--task", "copy", "--model", M("copy"), "--level", "10"],
            ["run", "--task", "copy", "--model", M("copy"), "--input", "[[1,0,0,0,0,1]]"],
            ["verify", "--task", "copy", "--model", M("copy"), "--up-to", "3"], ["tasks"]]:
    add(f"no stdout (>&-): {sub[0]}", sub, no_stdout=True)
os.mkfifo(os.path.join(TMP, "fifo"))  # no writer: opening it to read would block
add("model: a named pipe", ["eval", "--task", "copy", "--model", os.path.join(TMP, "fifo"), "--level", "3"])
add("--input @ a named pipe", ["run", "--task", "copy", "--model", M("copy"), "--input", "@" + os.path.join(TMP, "fifo")])
add("config: a named pipe", ["train", "--task", "copy", "--out", "f", "--config", os.path.join(TMP, "fifo")])
add("model: a directory", ["eval", "--task", "copy", "--model", TMP, "--level", "3"])
add("map file: a named pipe", ["run", "--task", "search", "--model", M("search"), "--start", os.path.join(TMP, "fifo"),
                               "--goal", os.path.join(TMP, "fifo")])
add("stderr on a full device: eval", ["eval", "--task", "copy", "--model", M("copy"), "--level", "100"], full_stderr=True)
add("stderr on a full device: train", ["train", "--task", "copy", "--seed", "2", "--out", "full-stderr",
                                               "--max-iterations", "50"], full_stderr=True)
add("stderr on a full device: an error", ["eval", "--task", "nope", "--model", M("copy"), "--level", "10"], full_stderr=True)

# A checkpoint whose θ[0] is 1e39 (read as an f32: infinity), from a real run.
# One iteration does not learn copy: exit code 4, the run directory written.
if subprocess.run([NHC, "train", "--task", "copy", "--seed", "1", "--out", state_dir, "--quiet", "--max-iterations", "1"],
                  capture_output=True).returncode != 4:
    sys.exit("nhc train --max-iterations 1 did not end as a run that did not learn")
cpath = os.path.join(state_dir, "checkpoint.json")
text = open(cpath).read()
state = json.loads(text)
first = json.dumps(state["state"]["nes"]["theta"][0])
open(cpath, "w").write(text.replace('"theta":[' + first, '"theta":[1e39', 1))



def checkpoint(state, seconds):
    """A checkpoint's text with its digest (SHA-256 of the state's and the seconds' text)."""
    st, sec = json.dumps(state, separators=(",", ":")), json.dumps(seconds)
    digest = hashlib.sha256((st + "\n" + sec).encode()).hexdigest()
    return '{"state":' + st + ',"seconds":' + sec + ',"digest":"' + digest + '"}'


for e in EDITS:
    d = os.path.join(TMP, "cp-" + e.split(",")[0].replace(" ", "-"))
    shutil.copytree(state_dir, d)
    doc = json.loads(text)
    st = doc["state"]
    if e == "one digit of θ changed":
        edited = text.replace('"theta":[' + first, '"theta":[' + json.dumps(st["nes"]["theta"][0] + 1.0), 1)
    elif e == "no digest":
        edited = text[:text.index(',"digest":')] + "}"
    else:
        seconds = doc["seconds"]
        if e.startswith("curriculum.level "):
            st["curriculum"]["level"] = 1000000
        elif e.startswith("curriculum.levels"):
            st["curriculum"]["levels"] = 0
        elif e.startswith("seconds -5"):
            seconds = -5.0
        elif e.startswith("seconds 1e308"):
            seconds = 1e308
        elif e.startswith("seed"):
            st["seed"] = 3
        elif e.startswith("update_feedback"):
            st["config"]["update_feedback"] = True
        elif e.startswith("population"):
            st["config"]["population"], st["config"]["batch"] = 10000, 100000
        else:
            st["restarts"] = 3
        edited = checkpoint(st, seconds)
    open(os.path.join(d, "checkpoint.json"), "w").write(edited)

print(f"`python3 scripts/bad_input.py` ({len(cases)} cases)\n")
print("| case | exit | seconds | peak MB | message |")
print("|---|---:|---:|---:|---|")
for klass, args, kw in cases:
    code, secs, mb, msg = run(args, **kw)
    msg = msg.replace(TMP, "TMP").replace(ROOT + "/", "").replace("|", "\\|")
    if len(msg) > 150:
        msg = msg[:150] + "…"
    print(f"| {klass} | {code} | {secs:.2f} | {mb:.0f} | {msg} |", flush=True)
background.kill()
