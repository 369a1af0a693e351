"""Map rendering reuses one figure (issue 16: 0.9 s a frame before) and stays exact;
human mode without a display warns once instead of drawing for nothing."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from evenstar_env import Game, env
from evenstar_env.env import aec, render
from evenstar_env.env.render import MapRenderer, render_rgb


def test_reused_figure_frames_equal_a_full_redraw() -> None:
    g = Game(seed=4)
    rng = np.random.default_rng(4)
    reused = MapRenderer(g.content)
    for steps in (0, 30, 90):
        while g.decisions < steps and not g.is_over:
            g.step(int(rng.choice(g.legal_actions())))
            reused.render(g)  # every intermediate frame goes through the reused figure
        np.testing.assert_array_equal(reused.render(g), MapRenderer(g.content).render(g))


def test_a_frame_redraws_only_what_changed(monkeypatch) -> None:
    g = Game(seed=2)
    r = MapRenderer(g.content)
    r.render(g)
    drawn: list[object] = []
    for column in r.columns:
        for _, box, name, inf in column:
            for artist in (box, name, inf):
                monkeypatch.setattr(artist, "draw", lambda renderer, a=artist: drawn.append(a))
    for artist in r.status:
        monkeypatch.setattr(artist, "draw", lambda renderer, a=artist: drawn.append(a))
    r.render(g)
    assert drawn == []  # nothing changed, nothing drawn
    g.set_influence("Iran", china=3)
    r.render(g)
    column = next(col for col in r.columns if any(g.content.countries[i].name == "Iran"
                                                    for i, _, _, _ in col))
    k = next(k for k, cell in enumerate(column) if g.content.countries[cell[0]].name == "Iran")
    # Iran's box, name and influence, and the boxes above and below (their edges).
    want = [box for _, box, _, _ in column[max(0, k - 1): k + 2]] + list(column[k][2:])
    assert list(map(id, drawn)) == list(map(id, want))


def test_render_rgb_shares_one_renderer_per_content() -> None:
    g = Game(seed=1)
    render_rgb(g)
    assert render.map_renderer(g.content) is render.map_renderer(g.content)


def test_human_mode_without_display_warns_once_and_draws_nothing(monkeypatch) -> None:
    import matplotlib.pyplot as plt

    if plt.get_backend().lower() not in render.NON_INTERACTIVE_BACKENDS:
        pytest.fail("this test runs headless (matplotlib backend Agg)")
    monkeypatch.setattr(render, "_warned_no_display", False)
    monkeypatch.setattr(aec, "render_rgb", lambda *a: pytest.fail("drew a frame"))
    e = env(render_mode="human")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        e.reset(seed=0)
        for _ in range(3):
            assert e.render() is None
            e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    ours = [w for w in caught if "no display" in str(w.message)]
    assert len(ours) == 1 and issubclass(ours[0].category, RuntimeWarning)
