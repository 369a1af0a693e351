"""What a balance study concludes, in words and pictures: one sentence per variant with
its difference from the baseline in percentage points and a 95% interval (and, when the
interval holds 0, about how many more paired games would narrow it to ±5 points), the
report, a sortable table of every card and the plots (names, not ids; a colour per
source; legends outside the bars)."""

from __future__ import annotations

import csv
import math
from html import escape
from pathlib import Path
from typing import Any

TARGET_HALF = 0.05  # the ± of "about N more paired games would give ±5 points"
TOP_CARDS = 20  # cards drawn in the card-impact plot (every card is in the table) ...
MIN_PLOT_GAMES = 10  # ... of those played as events in at least this many games


def pct(x: float) -> str:
    return f"{100 * x:.1f}"


def signed(x: float) -> str:
    """Percentage points with a true minus sign: "+4.0", "−13.5"."""
    return f"{100 * x:+.1f}".replace("-", "−")


def more_games(d: dict[str, Any], half: float = TARGET_HALF) -> int | None:
    """About how many more paired games would shrink the difference's 95% interval to
    ±`half` (None when fewer than 2 paired games give no spread to go by)."""
    n = d["n"]
    if n < 2:
        return None
    now = (d["ci95"][1] - d["ci95"][0]) / 2
    if now <= half:
        return 0
    return math.ceil(n * (now / half) ** 2) - n


def conclusion(name: str, v: dict[str, Any], baseline: str) -> str:
    """One sentence: the US win rate, and for a variant its paired difference from the
    baseline and whether it is a real difference."""
    us = v["usa"]
    head = (f"{name}: US wins {pct(us['rate'])}% [{pct(us['ci95'][0])}, "
            f"{pct(us['ci95'][1])}] in {v['games']} games")
    if name == baseline:
        return head + " (the baseline)."
    d = v["diff_vs_baseline"]
    if d["n"] == 0:
        return head + f"; no game paired with {baseline} yet."
    diff = (f", {signed(d['mean'])} points [{signed(d['ci95'][0])}, {signed(d['ci95'][1])}] "
            f"vs {baseline} ({d['n']} paired games)")
    if d["ci95"][0] > 0 or d["ci95"][1] < 0:
        return head + diff + " — a real difference."
    more = more_games(d)
    hint = ("too few paired games to say how many more are needed" if more is None else
            f"about {more} more paired games would give ±{100 * TARGET_HALF:.0f} points")
    return head + diff + f" — not distinguishable from 0; {hint}."


def card_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """Every card played as an event in the baseline: owner's win rate when it was, minus
    the side average, with a 95% interval; strongest first."""
    base = summary["variants"][summary["config"]["baseline"]]
    avg = 0.5 * (base["usa"]["rate"] + base["china"]["rate"])
    rows = []
    for cid, by in summary["cards"].items():
        st = by.get("event")
        if not st:
            continue
        lo, hi = st.get("ci95", [st["owner_win_rate"]] * 2)
        rows.append({"card": by.get("name", cid), "id": cid, "side": by.get("side", ""),
                     "games": st["games"], "owner_win_rate": st["owner_win_rate"],
                     "impact": st["owner_win_rate"] - avg, "low": lo - avg, "high": hi - avg})
    rows.sort(key=lambda r: -abs(r["impact"]))
    return rows


SORT_JS = """<script>
document.querySelectorAll("th").forEach((th, i) => th.addEventListener("click", () => {
  const body = th.closest("table").tBodies[0], rows = [...body.rows];
  const up = th.dataset.up = th.dataset.up === "1" ? "0" : "1";
  const key = r => { const t = r.cells[i].dataset.v ?? r.cells[i].textContent;
                     return isNaN(t) ? t : +t; };
  rows.sort((a, b) => (key(a) > key(b) ? 1 : key(a) < key(b) ? -1 : 0) * (up === "1" ? 1 : -1));
  rows.forEach(r => body.appendChild(r));
}));
</script>"""


def write_card_table(rows: list[dict[str, Any]], out: Path) -> None:
    """``cards.csv`` and ``cards.html`` (click a heading to sort) with every card."""
    fields = ["card", "id", "side", "games", "owner_win_rate", "impact", "low", "high"]
    with (out / "cards.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    head = "".join(f"<th>{h}</th>" for h in ("card", "side", "games", "owner win rate",
                                             "impact (points)", "95% interval"))
    body = "".join(
        f"<tr><td>{escape(r['card'])}</td><td>{r['side']}</td><td>{r['games']}</td>"
        f"<td data-v='{r['owner_win_rate']:.4f}'>{pct(r['owner_win_rate'])}%</td>"
        f"<td data-v='{r['impact']:.4f}'>{signed(r['impact'])}</td>"
        f"<td data-v='{r['low']:.4f}'>[{signed(r['low'])}, {signed(r['high'])}]</td></tr>"
        for r in rows)
    (out / "cards.html").write_text(
        "<!doctype html><meta charset='utf-8'><title>Per-card impact</title><style>"
        "body{font-family:sans-serif}table{border-collapse:collapse}td,th{padding:2px 8px;"
        "border-bottom:1px solid #ddd;text-align:right}td:first-child{text-align:left}"
        "th{cursor:pointer;background:#eee}</style><p>Owner's win rate in the baseline's "
        "games where the card's event happened, minus the side average (observational). "
        f"Click a heading to sort.</p><table><thead><tr>{head}</tr></thead><tbody>{body}"
        f"</tbody></table>{SORT_JS}\n", encoding="utf-8")


def palette(n: int) -> list[Any]:
    """`n` distinct qualitative colours (tab20, then tab20b and tab20c: up to 60)."""
    import matplotlib

    cols = [c for name in ("tab20", "tab20b", "tab20c")
            for c in matplotlib.colormaps[name].colors]
    return [cols[i % len(cols)] for i in range(n)]


def source_label(src: str) -> str:
    """A VP source as a reader names it: "final_social" -> "final social"."""
    return src.replace("_", " ")


def write_report(summary: dict[str, Any], plots: list[str], out: Path) -> None:
    cfg = summary["config"]
    variants = summary["variants"]
    seconds = cfg.get("seconds")
    took = f" in {seconds / 60:.1f} minutes of wall time" if seconds else ""
    total = sum(v["games"] for v in variants.values())
    lines = [f"# Balance study: {cfg['usa']} (US) vs {cfg['china']} (China)", "",
             f"{total} games{took}: {cfg['games']} seeds per variant (common random numbers: "
             f"every variant plays the same seeds); baseline '{cfg['baseline']}'. Intervals "
             "are 95%: Wilson for rates, normal approximation for the paired differences "
             "from the baseline, in percentage points.", "", "## Conclusions", ""]
    lines += [f"- {conclusion(n, v, cfg['baseline'])}" for n, v in variants.items()]
    lines += ["", "## Variants", "",
              "| variant | description | games | US wins [95%] | China wins | draws | "
              "US − baseline, points [95%] | SPRT |",
              "| --- | --- | ---: | --- | ---: | ---: | --- | --- |"]
    for name, v in variants.items():
        d = v["diff_vs_baseline"]
        diff = "–" if name == cfg["baseline"] else (
            f"{signed(d['mean'])} [{signed(d['ci95'][0])}, {signed(d['ci95'][1])}]")
        lines.append(
            f"| {name} | {v.get('description', '')} | {v['games']} | {pct(v['usa']['rate'])}% "
            f"[{pct(v['usa']['ci95'][0])}, {pct(v['usa']['ci95'][1])}] | "
            f"{pct(v['china']['rate'])}% | {pct(v['draw']['rate'])}% | {diff} | "
            f"{v.get('sprt', {}).get('meaning', '')} |")
    lines.append("")
    if all("us_score" in v for v in variants.values()):
        lines += score_lines(summary)
    for p in plots:
        lines += [f"![{p}]({p})", ""]
    lines += ["Per-card statistics are observational: a card's win rate when played reflects",
              "when agents choose to play it, not its causal effect; use `forbid` runs for that.",
              f"Every card is in `cards.html` (sortable) and `cards.csv`; the plot shows the "
              f"{TOP_CARDS} largest.", ""]
    (out / "report.md").write_text("\n".join(lines), encoding="utf-8")
    (out / "conclusions.txt").write_text(
        "\n".join(conclusion(n, v, cfg["baseline"]) for n, v in variants.items()) + "\n",
        encoding="utf-8")


def score_lines(summary: dict[str, Any]) -> list[str]:
    """The US score's 95% intervals: games as independent units (trinomial) and, for
    side-swapped seed pairs, pairs as units (pentanomial)."""
    lines = ["US score (a draw ½), 95% intervals: trinomial (games independent) / "
             "pentanomial (side-swapped seed pairs as units):", ""]
    for name, v in summary["variants"].items():
        sc = v["us_score"]
        tri = "[{:.1%}, {:.1%}]".format(*sc["trinomial"]["ci95"])
        pent = ("[{:.1%}, {:.1%}] over {} pairs {}".format(
            *sc["pentanomial"]["ci95"], sc["pairs"], "-".join(map(str, sc["counts"])))
            if "pentanomial" in sc else "(one agent on both sides: no pairs)")
        lines.append(f"- {name}: {sc['trinomial']['score']:.1%}, trinomial {tri}, "
                     f"pentanomial {pent}")
    return [*lines, ""]
