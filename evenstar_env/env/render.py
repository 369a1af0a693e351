"""Text and picture renderings of a game (no window needed)."""

from __future__ import annotations

import numpy as np

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


def render_rgb(g: Game, dpi: int = 100) -> np.ndarray:
    """A map picture: countries by region, coloured by controller, with influence."""
    # An Agg canvas of our own: no window, and the global backend is left alone.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    c = g.content
    fig = Figure(figsize=(14, 8), dpi=dpi)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0.12, 1, 0.88))
    ax.set_xlim(0, len(c.region_names) * 4)
    ax.set_ylim(0, 27)
    ax.axis("off")
    us, cn = g.state.inf_us, g.state.inf_cn
    for r, region in enumerate(c.region_names):
        ax.text(r * 4 + 2, 26.3, region, ha="center", va="center", fontsize=11,
                fontweight="bold")
        idx = np.flatnonzero(c.place_mask[region])
        for k, i in enumerate(idx):
            x, y = r * 4 + 0.1, 25 - k
            name = c.countries[i].name
            ctrl = g.controller(name)
            ax.add_patch(Rectangle((x, y - 0.45), 3.8, 0.9,
                         facecolor=COLOURS[ctrl], edgecolor="#333" if c.bg[i] else "#aaa",
                         linewidth=1.6 if c.bg[i] else 0.6))
            stab = "-" if c.countries[i].stability is None else c.countries[i].stability
            ax.text(x + 0.08, y, f"{name} ({stab})", va="center", fontsize=6.5)
            inf = (f"{us[i]}U" if us[i] > 0 else f"{-us[i]}A" if us[i] < 0 else "") + \
                  (f" {cn[i]}C" if cn[i] else "")
            ax.text(x + 3.72, y, inf, va="center", ha="right", fontsize=7, fontweight="bold")
    panel = fig.add_axes((0, 0, 1, 0.12))
    panel.axis("off")
    for k, line in enumerate(_status_lines(g)):
        panel.text(0.01, 0.8 - 0.3 * k, line, fontsize=9, family="monospace",
                   transform=panel.transAxes)
    canvas.draw()
    image = np.asarray(canvas.buffer_rgba())[..., :3].copy()
    return image
