"""Experiment 01: tabulate the collective timings, find where curves cross, draw the figure."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import podsim_exp as px  # noqa: E402
from podsim_exp import plt  # noqa: E402

out = sys.argv[1]


def times(name):
    rows = px.table(os.path.join(out, name + ".h5"), "collectives")
    return [r["bytes"] for r in rows], [r["time_s"] for r in rows], rows


def crossover(sizes, a, b):
    """First size interval where a - b changes sign; the crossing by log-log interpolation."""
    for i in range(1, len(sizes)):
        d0, d1 = math.log(a[i - 1] / b[i - 1]), math.log(a[i] / b[i])
        if d0 * d1 < 0 or (d1 == 0 and d0 != 0):
            t = d0 / (d0 - d1)
            return sizes[i - 1], sizes[i], math.exp(math.log(sizes[i - 1]) + t * math.log(sizes[i] / sizes[i - 1]))
    return None


def human(b):
    for unit, f in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if b >= f:
            return "%.3g %s" % (b / f, unit)
    return "%d B" % b


csv_rows = []
ar = {}
for alg in ("ring", "bidirectional-ring", "torus"):
    s, t, rows = times("1-" + alg)
    ar[alg] = (s, t)
    csv_rows += [("all-reduce", alg, "analytical", r["bytes"], r["time_s"], r["busbw_Bps"], r["max_link_utilization"])
                 for r in rows]
a2a = {}
for net in ("analytical", "contention"):
    for alg in ("ring", "torus"):
        s, t, rows = times("2-%s-%s" % (alg, net))
        a2a[alg, net] = (s, t)
        csv_rows += [("all-to-all", alg, net, r["bytes"], r["time_s"], r["busbw_Bps"], r["max_link_utilization"])
                     for r in rows]
px.write_csv(os.path.join(out, "collectives.csv"),
             ["op", "algorithm", "network", "bytes", "time_s", "busbw_Bps", "max_link_utilization"], csv_rows)

print("All-reduce over 64 chips: time in microseconds")
s = ar["torus"][0]
px.print_table(["bytes", "ring", "bidir-ring", "torus", "ring/torus"],
               [(human(s[i]), ar["ring"][1][i] * 1e6, ar["bidirectional-ring"][1][i] * 1e6, ar["torus"][1][i] * 1e6,
                 ar["ring"][1][i] / ar["torus"][1][i]) for i in range(len(s))])
for other in ("ring", "bidirectional-ring"):
    c = crossover(s, ar[other][1], ar["torus"][1])
    print("  %s vs torus: %s" % (other, "cross between %s and %s" % (human(c[0]), human(c[1])) if c
                                 else "no crossover: the torus is faster at every size"))
print()
print("All-to-all over 64 chips: time in microseconds")
s = a2a["ring", "analytical"][0]
px.print_table(["bytes", "ring/analyt", "torus/analyt", "ring/content", "torus/content"],
               [(human(s[i]),) + tuple(a2a[k][1][i] * 1e6 for k in
                                       (("ring", "analytical"), ("torus", "analytical"),
                                        ("ring", "contention"), ("torus", "contention"))) for i in range(len(s))])
cross = {}
for net in ("analytical", "contention"):
    c = crossover(s, a2a["ring", net][1], a2a["torus", net][1])
    cross[net] = c
    print("  %s network: %s" % (net, "ring and torus cross between %s and %s (about %s)" % (
        human(c[0]), human(c[1]), human(c[2])) if c else "no crossover in this range"))

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
for alg, style in (("ring", "o-"), ("bidirectional-ring", "s--"), ("torus", "^-")):
    ax1.loglog(ar[alg][0], [t * 1e6 for t in ar[alg][1]], style, ms=3, label=alg)
ax1.set_xlabel("bytes per chip")
ax1.set_ylabel("time (µs)")
ax1.set_title("all-reduce, TPU v4 4x4x4 (64 chips)")
ax1.legend()
colors = {"ring": "tab:blue", "torus": "tab:red"}
for (alg, net), (sz, t) in sorted(a2a.items()):
    ax2.loglog(sz, [x * 1e6 for x in t], "-" if net == "analytical" else ":", marker="o", ms=2.5,
               color=colors[alg], label="%s, %s" % (alg, net))
for net, c in cross.items():
    if c:
        ax2.axvline(c[2], color="gray", lw=0.8, ls="-" if net == "analytical" else ":")
ax2.set_xlabel("bytes per chip")
ax2.set_ylabel("time (µs)")
ax2.set_title("all-to-all: pairwise (ring) vs per-axis (torus)")
ax2.legend(fontsize=7)
px.save(fig, os.path.join(out, "figure.png"))
