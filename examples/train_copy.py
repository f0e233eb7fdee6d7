"""Train copy from scratch and watch it learn: the fitness and curriculum level of every
iteration, plotted live to copy_training.png, then the model checked at level 1000.

    python examples/train_copy.py [--seed 2] [--out runs/py-copy-2]
"""

import argparse
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import nhc

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--seed", type=int, default=2)
parser.add_argument("--out", default=None, help="run directory (resumable with nhc.resume)")
parser.add_argument("--png", default="copy_training.png")
args = parser.parse_args()

iterations, fitness, levels = [], [], []
fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(8, 5))
last_draw = time.monotonic()


def draw():
    for ax in (top, bottom):
        ax.clear()
    top.plot(iterations, fitness, lw=0.5)
    top.set_ylabel("fitness of θ")
    bottom.step(iterations, levels, where="post")
    bottom.set_ylabel("curriculum level")
    bottom.set_xlabel("iteration")
    top.set_title(f"copy, seed {args.seed}")
    fig.tight_layout()
    fig.savefig(args.png, dpi=100)


def on_iteration(record):
    global last_draw
    iterations.append(record["iteration"])
    fitness.append(record["fitness_raw"])
    levels.append(record["level"])
    if time.monotonic() - last_draw > 1.0:  # redraw the PNG every second
        draw()
        last_draw = time.monotonic()
        print(f"iteration {record['iteration']:>6}  level {record['level']:>2}  "
              f"fitness {record['fitness_raw']:.4f}  perfect streak {record['perfect_streak']:>4}  "
              f"restarts {record['restarts']}", flush=True)


model = nhc.train("copy", seed=args.seed, out=args.out, callback=on_iteration)
draw()
print(f"trained in {len(iterations)} iterations; plot: {args.png}")
for level in (100, 1000):
    report = model.evaluate(level, samples=50, seed=1000)
    print(f"level {level}: {report['solved']}/{report['samples']} solved, {report['steps']} steps")
