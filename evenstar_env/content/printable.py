"""The deck as printable cards (``evenstar cards --html``): one self-contained HTML file,
nine poker-size cards (63 x 88 mm) per A4 page, CSS page breaks, for paper playtests."""

from __future__ import annotations

from html import escape

from .compiled import Content

PER_PAGE = 9
SIDE_LABEL = {"usa": "US", "china": "China", "neutral": "Neutral"}
CSS = """
@page { size: A4; margin: 10mm; }
body { font-family: "Noto Sans", "Noto Sans CJK SC", sans-serif; margin: 0; }
.page { display: grid; grid-template-columns: repeat(3, 63mm); grid-auto-rows: 88mm;
        gap: 3mm; break-after: page; page-break-after: always; }
.page:last-child { break-after: auto; page-break-after: auto; }
.card { border: 0.4mm solid #222; border-radius: 3mm; padding: 2.5mm; overflow: hidden;
        display: flex; flex-direction: column; font-size: 7.2pt; line-height: 1.25;
        break-inside: avoid; }
.card header { display: flex; justify-content: space-between; align-items: baseline;
               border-bottom: 0.3mm solid #222; margin-bottom: 1.5mm; }
.card h2 { font-size: 9pt; margin: 0; }
.card .zh { font-size: 8pt; color: #333; }
.ops { font-size: 14pt; font-weight: bold; border: 0.4mm solid #222; border-radius: 50%;
       width: 7mm; height: 7mm; text-align: center; line-height: 7mm; flex: none; }
.meta { font-size: 6.5pt; color: #444; margin-bottom: 1mm; }
.text { margin: 0 0 1.2mm; }
.note { margin-top: auto; font-size: 6pt; font-style: italic; color: #555; }
.usa { background: #eef3fc; } .china { background: #fcefee; } .neutral { background: #fff; }
.history { background: #f6f3e6; }
ol { margin: 0; padding-left: 4mm; }
"""


def _card(c) -> str:
    marks = [c.era, SIDE_LABEL[c.side]]
    if c.kind == "scoring":
        marks.append("scoring")
    if c.removed:
        marks.append("* removed after its event")
    if c.persistent is not None:
        marks.append("stays in play")
    ops = "S" if c.kind == "scoring" else str(c.ops)
    return (f'<div class="card {c.side}"><header><div><h2>{escape(c.name)}</h2>'
            f'<span class="zh">{escape(c.zh)}</span></div><div class="ops">{ops}</div>'
            f'</header><div class="meta">{escape(" · ".join(marks))}</div>'
            f'<p class="text">{escape(c.text)}</p><p class="text">{escape(c.text_zh)}</p>'
            f'<p class="note">{escape(c.note)}</p></div>')


def _history(h) -> str:
    outcomes = "".join(f"<li>{escape(o.text)} / {escape(o.text_zh)}</li>" for o in h.outcomes)
    return (f'<div class="card history"><header><div><h2>{escape(h.name)}</h2>'
            f'<span class="zh">{escape(h.zh)}</span></div><div class="ops">H</div></header>'
            f'<div class="meta">{escape(f"{h.era} · history · {SIDE_LABEL[h.side]}")}</div>'
            f'<ol>{outcomes}</ol><p class="note">{escape(h.note)}</p></div>')


def deck_html(content: Content) -> str:
    """The whole deck (base, scoring and history cards) as one printable HTML page."""
    cards = [_card(c) for c in content.cards] + [_history(h) for h in content.history]
    pages = ["".join(cards[i:i + PER_PAGE]) for i in range(0, len(cards), PER_PAGE)]
    body = "".join(f'<section class="page">{p}</section>' for p in pages)
    title = escape(f"Dawn of the Evenstar — cards ({content.source})")
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}'
            f"</title><style>{CSS}</style></head><body>{body}</body></html>\n")
