"""Content as a folder (issue 34): overlays, strict types, variants that carry content,
records that carry their content, `content check/diff` and printable cards."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from evenstar_env import Game
from evenstar_env.content import ContentError, content_id, load_content, load_variant
from evenstar_env.content.loader import RawContent, load_variants
from evenstar_env.content.report import diff, summary
from evenstar_env.content.source import merge_keyed
from experiments import records
from experiments.cli import app

NEW_CARD = '''
[[cards]]
id = "silicon_valley"
name = "Silicon Valley Boom"
zh = "硅谷繁荣"
era = "early"
side = "usa"
ops = 3
text = "The US gains 2 reserves."
text_zh = "美国获得 2 外汇储备。"
note = "A designer's test card."
effects = [{ op = "reserves", side = "usa", amount = 2 }]
'''
CHANGED_EVENT = '''
[[cards]]
id = "nafta"
ops = 2
text = """Add 2 US influence in Mexico and 2 in Canada. While this card is in play, \
the US gains 1 reserve in each economy phase."""
text_zh = "在墨西哥和加拿大各增加 2 点美国影响力。此牌在场期间，每个经济阶段美国获得 1 外汇储备。"
effects = [
  { op = "each_country", kind = "usa", points = 2, where = { countries = ["Mexico", "Canada"] } },
]
'''


def make_overlay(folder: Path, base: str = "shipped",
                 remove: tuple[str, ...] = ("dayton_agreement",)) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "overlay.toml").write_text(
        f'base = "{base}"\ndescription = "my deck"\nremove = {json.dumps(list(remove))}\n',
        encoding="utf-8")
    (folder / "cards_early.toml").write_text(CHANGED_EVENT + NEW_CARD, encoding="utf-8")
    return folder


@pytest.fixture
def overlay(tmp_path: Path) -> Path:
    return make_overlay(tmp_path / "my_deck")


def test_an_overlay_changes_adds_and_removes_cards(overlay: Path) -> None:
    shipped, mine = load_content(), load_content(overlay)
    nafta = mine.cards[mine.card_by_id["nafta"]]
    assert nafta.ops == 2 and nafta.effects[0].points == 2
    assert nafta.name == "NAFTA" and nafta.persistent is not None  # untouched fields kept
    assert "silicon_valley" in mine.card_by_id and "silicon_valley" not in shipped.card_by_id
    assert "dayton_agreement" not in mine.card_by_id
    assert mine.nc == shipped.nc  # one added, one removed
    assert content_id(mine) != content_id(shipped)
    assert diff(shipped, mine) == [
        "card Dayton Agreement (dayton_agreement) removed",
        *[line for line in diff(shipped, mine) if line.startswith("card NAFTA")],
        "card Silicon Valley Boom (silicon_valley) added: era early, side usa, ops 3"]
    assert any("ops 3 → 2" in line for line in diff(shipped, mine))
    assert diff(shipped, shipped) == []


def test_game_and_env_take_a_folder(overlay: Path) -> None:
    from evenstar_env.env.aec import raw_env
    from evenstar_env.wrappers import SingleAgentEnv

    for env in (raw_env(content=overlay), SingleAgentEnv(content=str(overlay))):
        assert "silicon_valley" in env.content.card_by_id
    with pytest.raises(TypeError, match="content must be"):
        Game(1, content=3)
    for backend in ("python", "native"):
        g = Game(1, content=str(overlay), backend=backend)
        assert g.content.source == str(overlay.resolve())
        assert g.content.nc == load_content(overlay).nc


def test_an_overlay_over_an_overlay_and_a_cycle(tmp_path: Path, overlay: Path) -> None:
    second = tmp_path / "v2"
    second.mkdir()
    (second / "overlay.toml").write_text(f'base = "{overlay}"\n', encoding="utf-8")
    (second / "cards_early.toml").write_text('[[cards]]\nid = "silicon_valley"\nops = 4\n',
                                             encoding="utf-8")
    c = load_content(second)
    assert c.cards[c.card_by_id["silicon_valley"]].ops == 4
    (overlay / "overlay.toml").write_text(f'base = "{second}"\n', encoding="utf-8")
    with pytest.raises(ContentError, match="cycle"):
        RawContent(second)


@pytest.mark.parametrize("text,message", [
    ('[[cards]]\nid = "nafta"\nops = "2"\n', r"cards_early.toml: cards\[\d+\] \('nafta'\): "
                                              r"field 'ops': Input should be a valid integer"),
    ('[[cards]]\nid = "nafta"\nremoved = 1\n', r"field 'removed': Input should be a valid "
                                                r"boolean"),
    ('[[cards]]\nid = "nafta"\nopps = 2\n', r"field 'opps'.*did you mean 'ops'"),
    ('[[cards]]\nops = 2\n', r"cards\[0\]: field 'id': missing"),
    ('[[cards]]\nid = "nafta"\neffects = [{ op = "each_country", kind = "usa", points = 1, '
     'where = { countries = ["Mexiko"] } }]\n', r"unknown country 'Mexiko' \(did you mean "
                                                r"'Mexico'\?\)"),
])
def test_bad_overlay_entries_name_file_entry_and_field(tmp_path: Path, text: str,
                                                       message: str) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "overlay.toml").write_text('base = "shipped"\n', encoding="utf-8")
    (folder / "cards_early.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ContentError, match=message):
        RawContent(folder)


def test_unknown_removal_and_file_get_a_suggestion(tmp_path: Path) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "overlay.toml").write_text('remove = ["nafat"]\n', encoding="utf-8")
    with pytest.raises(ContentError, match=r"remove\[0\]'.*'nafat'.*did you mean 'nafta'"):
        RawContent(folder)
    (folder / "overlay.toml").write_text("", encoding="utf-8")
    (folder / "rule.toml").write_text("turns = 10\n", encoding="utf-8")
    with pytest.raises(ContentError, match=r"rule.toml: not a content file.*'rules.toml'"):
        RawContent(folder)


def test_a_duplicate_id_names_both_files(data_copy: Path) -> None:
    text = (data_copy / "cards_late.toml").read_text(encoding="utf-8")
    (data_copy / "cards_late.toml").write_text(text + CHANGED_EVENT.replace(
        "id = \"nafta\"", "id = \"nafta\"\nname = \"NAFTA 2\"\nzh = \"x\"\nera = \"late\"\n"
        "side = \"usa\"\nnote = \"x\""), encoding="utf-8")
    with pytest.raises(ContentError, match=r"cards_late.toml: cards\[\d+\] \('nafta'\): "
                                           r"field 'id': duplicate value 'nafta' \(first in "
                                           r"cards_early.toml: cards\[0\]\)"):
        RawContent(data_copy)


def test_strings_are_not_numbers_in_a_full_folder(data_copy: Path) -> None:
    path = data_copy / "rules.toml"
    path.write_text(path.read_text(encoding="utf-8").replace("turns = 11", 'turns = "11"'),
                    encoding="utf-8")
    with pytest.raises(ContentError, match=r"rules.toml: turns: field '<entry>': Input "
                                           r"should be a valid integer|field 'turns'"):
        RawContent(data_copy)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from("abcd"), st.integers() | st.text(max_size=3),
                       max_size=4),
       st.dictionaries(st.sampled_from("abcd"), st.integers() | st.text(max_size=3),
                       max_size=4))
def test_merging_keeps_the_base_keys_and_takes_the_overlay_values(base: dict,
                                                                  over: dict) -> None:
    merged = dict(base)
    merge_keyed(merged, over)
    assert merged == {**base, **over}


def test_variant_with_an_overlay_is_a_paired_study(tmp_path: Path, overlay: Path) -> None:
    from experiments.balance import Study, read_games, run_study

    vfile = tmp_path / "variants.toml"
    vfile.write_text('[[variant]]\nname = "baseline"\n\n[[variant]]\nname = "my deck"\n'
                     'description = "NAFTA cheaper, a new card"\ncontent = "my_deck"\n',
                     encoding="utf-8")
    variants = load_variants(vfile)
    assert variants[1].content == str(overlay.resolve())
    assert "silicon_valley" in load_variant(variants[1]).card_by_id
    out = tmp_path / "study"
    summary_ = run_study(Study(variants, usa="random", china="random", games=2, workers=1),
                         out, progress=False)
    assert summary_["variants"]["my deck"]["games"] == 2
    assert summary_["variants"]["my deck"]["diff_vs_baseline"]["n"] == 2  # paired by seed
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "- my deck: US wins" in report and "NAFTA cheaper, a new card" in report
    assert "points [" in report and (out / "cards.html").is_file()
    games = read_games(out / "games.jsonl")
    ids = {g["variant"]: g["content_id"] for g in games}
    assert ids["my deck"] == content_id(load_variant(variants[1]))
    assert ids["baseline"] == content_id(load_content())
    for g in games:  # each line replays on its own snapshot
        assert (out / "content" / f"{g['content_id']}.json").is_file()
    line = out / "one.jsonl"
    line.write_text(json.dumps(next(g for g in games if g["variant"] == "my deck")) + "\n")
    shutil.copytree(out / "content", tmp_path / "content", dirs_exist_ok=True)
    rec, c = records.load_played(line)
    assert "silicon_valley" in c.card_by_id and rec.seed == 0


def test_arena_on_an_overlay_and_its_record_survives_an_edit(tmp_path: Path,
                                                            overlay: Path) -> None:
    out = tmp_path / "arena"
    result = CliRunner().invoke(app, ["arena", "random", "cautious", "--games", "1",
                                      "--workers", "1", "--out", str(out),
                                      "--content", str(overlay)])
    assert result.exit_code == 0, result.output
    first = json.loads((out / "games.jsonl").read_text().splitlines()[0])
    assert first["content_id"] == content_id(load_content(overlay))
    # The designer edits the overlay again: the old record still replays on its snapshot.
    (overlay / "cards_early.toml").write_text(NEW_CARD.replace("ops = 3", "ops = 1"),
                                              encoding="utf-8")
    rec, c = records.load_played(out / "games.jsonl")
    assert c.cards[c.card_by_id["nafta"]].ops == 2  # as played, not as edited
    render = CliRunner().invoke(app, ["render", str(out / "games.jsonl"), "--out",
                                      str(tmp_path / "map.png")])
    assert render.exit_code == 0, render.output
    assert (tmp_path / "map.png").stat().st_size > 0


def test_a_saved_game_replays_after_the_shipped_data_changes(tmp_path: Path,
                                                            overlay: Path) -> None:
    from agents.specs import make_agent
    from experiments.selfplay import play_game

    rec = play_game(2, {"usa": make_agent("random", 1), "china": make_agent("random", 2)},
                    content=overlay)
    path = tmp_path / "saved" / "game.json"
    records.save(rec, path, overlay)
    shutil.rmtree(overlay)  # the content it was played with is gone
    again, c = records.load_played(path)
    assert again.actions == rec.actions and "silicon_valley" in c.card_by_id
    result = CliRunner().invoke(app, ["replay", str(path), "--no-pause"])
    assert result.exit_code == 0 and "Result:" in result.output


def test_old_records_and_a_missing_snapshot(tmp_path: Path) -> None:
    from agents.specs import make_agent
    from experiments.selfplay import play_game

    rec = play_game(3, {"usa": make_agent("random", 1), "china": make_agent("random", 2)})
    data = records.to_json(rec)
    del data["content_id"]  # a record from before snapshots: the shipped content
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    assert records.load(old).actions == rec.actions
    data["variant"] = "china reserves +2"
    old.write_text(json.dumps(data))
    with pytest.raises(records.RecordError, match="variant 'china reserves \\+2'.*--content"):
        records.load(old)
    missing = tmp_path / "missing.json"
    missing.write_text(json.dumps(records.to_json(rec) | {"content_id": "0123abcd"}))
    with pytest.raises(records.RecordError, match="snapshot .* is missing"):
        records.load(missing)


def test_content_check_and_diff_commands(overlay: Path) -> None:
    runner = CliRunner()
    check = runner.invoke(app, ["content", "check", str(overlay)])
    assert check.exit_code == 0
    assert "129 base cards, 7 scoring cards" in check.output
    assert summary(load_content(overlay))[1] in check.output
    d = runner.invoke(app, ["content", "diff", "shipped", str(overlay)])
    assert d.exit_code == 0 and "card NAFTA (nafta): ops 3 → 2" in d.output
    assert "6 difference(s)" in d.output  # removed, added, ops, effects, both texts
    bad = runner.invoke(app, ["content", "check", str(overlay / "nowhere")])
    assert bad.exit_code == 1 and "content folder" in bad.output


def test_printable_cards(tmp_path: Path, overlay: Path) -> None:
    out = tmp_path / "cards.html"
    result = CliRunner().invoke(app, ["cards", "--html", str(out), "--content", str(overlay)])
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    c = load_content(overlay)
    assert html.count('class="card ') == c.nc + c.nh
    assert "Silicon Valley Boom" in html and "硅谷繁荣" in html
    assert html.count('<section class="page">') == -(-(c.nc + c.nh) // 9)
    assert "page-break-after: always" in html


# ---------------------------------------------------------------- card text vs effects


def test_every_shipped_card_text_names_its_data() -> None:
    from evenstar_env.content.text_check import content_mismatches

    assert content_mismatches(load_content().raw) == []


@pytest.mark.parametrize("text,message", [
    ("Add 3 US influence in Mexico and 1 in Canada. While this card is in play, the US gains "
     "1 reserve in each economy phase.", r"the text says the number\(s\) \[3\], the data does not"),
    ("Add 1 US influence in Cuba and 1 in Canada. While this card is in play, the US gains "
     "1 reserve in each economy phase.", r"the data names 'Mexico', the text does not"),
    ("Add US influence in Mexico and Canada.", r"the data uses the number\(s\) \[1\]"),
])
def test_a_wrong_card_text_is_refused_naming_the_card(tmp_path: Path, text: str,
                                                       message: str) -> None:
    folder = tmp_path / "wrong"
    folder.mkdir()
    (folder / "overlay.toml").write_text("", encoding="utf-8")
    (folder / "cards_early.toml").write_text(f'[[cards]]\nid = "nafta"\ntext = "{text}"\n',
                                             encoding="utf-8")
    with pytest.raises(ContentError, match=r"cards_early.toml: cards\[0\] \('nafta'\): "
                                           r"field 'text': " + message):
        RawContent(folder)


def test_a_wrong_track_in_a_text_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "wrong"
    folder.mkdir()
    (folder / "overlay.toml").write_text("", encoding="utf-8")
    (folder / "cards_early.toml").write_text(
        '[[cards]]\nid = "socialist_market_economy"\n'
        'text = "China social +1. China gains 1 reserve."\n', encoding="utf-8")
    with pytest.raises(ContentError, match="socialist_market_economy.*economy track"):
        RawContent(folder)


def test_an_empty_overlay_is_the_shipped_content(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    (folder / "overlay.toml").write_text('base = "shipped"\n', encoding="utf-8")
    assert content_id(load_content(folder)) == content_id(load_content())
    assert diff(load_content(), load_content(folder)) == []


def test_a_wrong_number_in_the_chinese_text_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "wrong"
    folder.mkdir()
    (folder / "overlay.toml").write_text("", encoding="utf-8")
    (folder / "cards_early.toml").write_text(
        '[[cards]]\nid = "nafta"\ntext_zh = "在墨西哥和加拿大各增加 3 点美国影响力。此牌在场期间，'
        '每个经济阶段美国获得 1 外汇储备。"\n', encoding="utf-8")
    with pytest.raises(ContentError, match=r"\('nafta'\): field 'text_zh': the text says the "
                                           r"number\(s\) \[3\]"):
        RawContent(folder)


def test_an_old_record_of_other_content_replays_with_content_named(tmp_path: Path,
                                                                  overlay: Path) -> None:
    from agents.specs import make_agent
    from experiments.selfplay import play_game

    rec = play_game(5, {"usa": make_agent("random", 1), "china": make_agent("random", 2)},
                    content=overlay)
    data = records.to_json(rec, overlay)
    del data["content_id"]  # as written before records kept their content
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    with pytest.raises(records.RecordError, match="other game content.*--content"):
        records.load(path)
    result = CliRunner().invoke(app, ["replay", str(path), "--no-pause", "--content",
                                      str(overlay)])
    assert result.exit_code == 0 and "Result:" in result.output


def test_an_edit_of_the_same_layout_is_played_by_the_learned_agent() -> None:
    """docs/content.md: five cards' ops changed (docs/examples/five_changed) keep the
    layout, so the shipped network plays the deck (docs give its measured win rate)."""
    from agents.specs import make_agent

    folder = Path(__file__).resolve().parent.parent / "docs" / "examples" / "five_changed"
    edited = load_content(folder)
    assert len(diff(load_content(), edited)) == 5
    g = Game(4, content=edited)
    agent = make_agent("learned", 4)
    for _ in range(30):
        a = agent.act(None, g.action_mask(), g)
        assert g.action_mask()[a]
        g.step(a)


FIVE_NEW = ("summit_of_the_americas", "three_gorges_dam", "us_vietnam_trade_agreement",
            "doha_round", "aiib")


def test_the_five_new_example_adds_five_cards_whose_events_are_played() -> None:
    """docs/examples/five_new: the shipped deck plus five new cards, nothing changed or
    removed; their texts agree with their effects, and heuristic games on it run to the
    end with the new cards' events played."""
    from agents.specs import make_agent
    from evenstar_env.content.text_check import Places, card_mismatches, content_mismatches

    folder = Path(__file__).resolve().parent.parent / "docs" / "examples" / "five_new"
    shipped, edited = load_content(), load_content(folder)
    old, new = {c.id for c in shipped.cards}, {c.id for c in edited.cards}
    assert old <= new and new - old == set(FIVE_NEW)
    lines = diff(shipped, edited)
    assert len(lines) == 5 and all(" added: " in line for line in lines)
    assert content_mismatches(edited.raw) == []
    m = edited.raw.map
    places = Places(m.countries, [r.name for r in m.regions] + [s.name for s in m.subregions])
    names = sorted((c.name for c in edited.cards), key=len, reverse=True)
    for cid in FIVE_NEW:  # the check is not vacuous: a wrong number in the text is caught
        card = edited.cards[edited.card_by_id[cid]]
        assert card_mismatches(card, places, names) == []
        wrong = card.model_copy(update={"text": card.text.replace("1", "7", 1)})
        assert card_mismatches(wrong, places, names), cid
    fired: set[str] = set()
    for seed in range(4):
        g = Game(seed, content=edited, events=True)
        agents = {side: make_agent("heuristic", seed) for side in ("usa", "china")}
        while not g.is_over:
            g.step(agents[g.current_player].act(None, g.action_mask(), g))
        assert g.result is not None
        fired |= {edited.cards[e["card"]].id for e in g.events("all")
                  if e["type"] == "event" and e["card"] < len(edited.cards)} & set(FIVE_NEW)
    assert fired, "no new card's event was played"
