"""Text and picture renderings of a game (no window needed)."""

from __future__ import annotations

import warnings
from functools import lru_cache
from typing import Any

import numpy as np

from ..content import Content
from ..engine.board import control_masks
from ..game import Game

CONTROL_MARK = {"usa": "U", "china": "C", "anti_us": "A", None: " "}
COLOURS = {"usa": "#4a78d0", "china": "#d04a4a", "anti_us": "#e09a3a", None: "#f2f2f2"}


def _status_lines(g: Game) -> list[str]:
    t = g.track
    lines = [
        f"Turn {g.turn}  phase {g.phase}  VP US {g.vp['usa']} - China {g.vp['china']}  "
        f"reserves US {g.reserves['usa']} China {g.reserves['china']}",
        f"social US {t('social_usa')} China {t('social_china')} | economy US {t('economy_usa')} "
        f"China {t('economy_china')} | diplomacy {t('diplomacy')} security "
        f"{t('regional_security')} | Russia {t('russia')} | tech US {t('tech_usa')} China "
        f"{t('tech_china')}",
    ]
    if g.is_over:
        lines.append(f"Game over: {g.result.reason}")
    elif g.decision is not None:
        lines.append(f"To move: {g.decision}")
    return lines


NON_INTERACTIVE_BACKENDS = ("agg", "cairo", "pdf", "pgf", "ps", "svg", "template")
_warned_no_display = False


def has_display() -> bool:
    """Whether matplotlib can open a window; warns once (per process) when it cannot."""
    global _warned_no_display
    import matplotlib.pyplot as plt

    if plt.get_backend().lower() not in NON_INTERACTIVE_BACKENDS:
        return True
    if not _warned_no_display:
        _warned_no_display = True
        warnings.warn(f"render_mode='human' shows nothing: no display (matplotlib backend "
                      f"{plt.get_backend()!r}); use render_mode='rgb_array' or 'ansi'",
                      RuntimeWarning, stacklevel=3)
    return False


def render_ansi(g: Game) -> str:
    """A compact text board: every country with influence, by region."""
    c = g.content
    out = _status_lines(g)
    us, cn = g.state.inf_us, g.state.inf_cn
    for region in c.region_names:
        cells = []
        for i in np.flatnonzero(c.place_mask[region]):
            if us[i] == 0 and cn[i] == 0:
                continue
            name = c.countries[i].name
            ctrl = g.controller(name)
            inf = (f"{us[i]}U" if us[i] > 0 else f"{-us[i]}A" if us[i] < 0 else "") + \
                  (f"{cn[i]}C" if cn[i] else "")
            bg = "*" if c.bg[i] else ""
            cells.append(f"{name}{bg}[{CONTROL_MARK[ctrl]}]{inf}")
        out.append(f"{region}: " + ", ".join(cells))
    return "\n".join(out)


class MapRenderer:
    """Draws the map picture of a game, reusing one figure for every frame.

    The parts that never change (region titles) are drawn once and kept as a clean
    image.  A country's cell (box in its control colour, name, influence) and the
    status lines are redrawn only when what they show differs from the previous
    frame: the area is reset from the clean image and what a full draw puts there
    is drawn again, clipped to it and in the same order, so a frame is
    pixel-identical to a full redraw at a fraction of the cost.
    """

    def __init__(self, content: Content, dpi: int = 100) -> None:
        # An Agg canvas of our own: no window, and the global backend is left alone.
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.patches import Rectangle
        from matplotlib.transforms import Bbox

        c = self.c = content
        fig = Figure(figsize=(14, 8), dpi=dpi)
        self.canvas = FigureCanvasAgg(fig)
        ax = fig.add_axes((0, 0.12, 1, 0.88))
        ax.set_xlim(0, len(c.region_names) * 4)
        ax.set_ylim(0, 27)
        ax.axis("off")
        # Per region column: its countries as (index, box, name, influence text).
        self.columns: list[list[tuple[int, Any, Any, Any]]] = []
        for r, region in enumerate(c.region_names):
            ax.text(r * 4 + 2, 26.3, region, ha="center", va="center", fontsize=11,
                    fontweight="bold")
            column = []
            for k, i in enumerate(np.flatnonzero(c.place_mask[region])):
                x, y = r * 4 + 0.1, 25 - k
                box = ax.add_patch(Rectangle(
                    (x, y - 0.45), 3.8, 0.9, facecolor=COLOURS[None], animated=True,
                    edgecolor="#333" if c.bg[i] else "#aaa", linewidth=1.6 if c.bg[i] else 0.6))
                stab = "-" if c.countries[i].stability is None else c.countries[i].stability
                name = ax.text(x + 0.08, y, f"{c.countries[i].name} ({stab})", va="center",
                               fontsize=6.5, animated=True)
                inf = ax.text(x + 3.72, y, "", va="center", ha="right", fontsize=7,
                              fontweight="bold", animated=True)
                column.append((int(i), box, name, inf))
            self.columns.append(column)
        panel = fig.add_axes((0, 0, 1, 0.12))
        panel.axis("off")
        self.status = [panel.text(0.01, 0.8 - 0.3 * k, "", fontsize=9, family="monospace",
                                  transform=panel.transAxes, animated=True) for k in range(3)]
        self.canvas.draw()  # everything not animated
        self.clean = np.array(self.canvas.buffer_rgba())
        height = self.clean.shape[0]
        renderer = self.canvas.get_renderer()

        def area(bbox: Any, pad: int) -> tuple[tuple[slice, slice], Any]:
            """The pixels of `bbox` grown by `pad`: numpy slices and a display Bbox."""
            r0, r1 = max(0, int(height - bbox.y1) - pad), int(height - bbox.y0) + pad + 1
            c0, c1 = max(0, int(bbox.x0) - pad), int(bbox.x1) + pad + 1
            return (slice(r0, r1), slice(c0, c1)), Bbox([[c0, height - r1], [c1, height - r0]])

        # Each box with its edge; boxes of a column are ~2.6 px apart, so a cell's
        # area also takes in the edges of the boxes above and below it.
        self.cell_area = [[area(box.get_window_extent(renderer), 3) for _, box, _, _ in col]
                          for col in self.columns]
        # A band of the status panel per line (lines ~29 px apart, ~16 px tall).
        p = panel.get_window_extent(renderer)
        self.line_area = [area(Bbox([[p.x0, y - 6], [p.x1, y + 18]]), 0)[0] for y in
                          (p.y0 + (0.8 - 0.3 * k) * p.height for k in range(len(self.status)))]
        self.shown: list[list[tuple[str | None, str] | None]] = [
            [None] * len(col) for col in self.columns]
        self.shown_status: list[str | None] = [None] * len(self.status)

    def _redraw_cell(self, buf: np.ndarray, c: int, k: int) -> None:
        """Reset cell `k`'s area and draw what a full draw puts there, in its order: the
        boxes (its neighbours' edges reach in), then its name and influence."""
        column = self.columns[c]
        pixels, clip = self.cell_area[c][k]
        buf[pixels] = self.clean[pixels]
        near = column[max(0, k - 1): k + 2]
        for artist in [box for _, box, _, _ in near] + list(column[k][2:]):
            saved = artist.get_clip_box()
            artist.set_clip_box(clip)
            artist.axes.draw_artist(artist)
            artist.set_clip_box(saved)

    def render(self, g: Game) -> np.ndarray:
        s = g.state
        us, cn = s.inf_us, s.inf_cn
        usa, china, anti = control_masks(self.c, s)
        buf = np.asarray(self.canvas.buffer_rgba())
        for c, (column, shown) in enumerate(zip(self.columns, self.shown, strict=True)):
            changed = []
            for k, (i, box, _, inf) in enumerate(column):
                ctrl = "usa" if usa[i] else "china" if china[i] else "anti_us" if anti[i] else None
                text = (f"{us[i]}U" if us[i] > 0 else f"{-us[i]}A" if us[i] < 0 else "") + \
                       (f" {cn[i]}C" if cn[i] else "")
                if shown[k] != (ctrl, text):
                    shown[k] = (ctrl, text)
                    box.set_facecolor(COLOURS[ctrl])
                    inf.set_text(text)
                    changed.append(k)
            for k in changed:
                self._redraw_cell(buf, c, k)
        lines = _status_lines(g)
        lines += [""] * (len(self.status) - len(lines))
        for k, (artist, line) in enumerate(zip(self.status, lines, strict=True)):
            if line != self.shown_status[k]:
                self.shown_status[k] = line
                buf[self.line_area[k]] = self.clean[self.line_area[k]]
                artist.set_text(line)
                artist.axes.draw_artist(artist)
        return buf[..., :3].copy()


@lru_cache(maxsize=4)
def map_renderer(content: Content, dpi: int = 100) -> MapRenderer:
    """The (cached) renderer of a content set at a resolution."""
    return MapRenderer(content, dpi)


def render_rgb(g: Game, dpi: int = 100) -> np.ndarray:
    """A map picture: countries by region, coloured by controller, with influence."""
    return map_renderer(g.content, dpi).render(g)
