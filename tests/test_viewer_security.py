"""The episode viewer is safe HTML: a crafted ``episodes.jsonl`` cannot run script in the page.

Every string of a real, judged record (and every key of its score maps) is replaced by markup,
script and event-handler payloads wherever the record schema accepts it; the page must keep
exactly the structure of the honest record's page and run only its own script.
"""

from __future__ import annotations

import asyncio
import functools
import shutil
from html.parser import HTMLParser
from typing import Any

import pytest
from pydantic import ValidationError

import scenarios
from rewards import RuleJudge
from sotopia_tom_app.bench.records import EpisodeRecord
from sotopia_tom_app.bench.runner import BenchConfig, Job, play_job
from sotopia_tom_app.bench.viewer import _JS, page_name, render_episode, write_episode_page

PAYLOAD = (
    "\"'><script>alert(1)</script><img src=x onerror=alert(2)>"
    '<a href="javascript:alert(3)">x</a><svg onload=alert(4)>'
    "' onmouseover='alert(5)' x='\" onfocus=\"alert(6)\" autofocus x=\""
    '</textarea></style></title><iframe srcdoc="<script>alert(7)</script>">'
)
SHORT = '"><b onx=1>'  # fits the 12-character evidence spans
URL_PAYLOADS = (
    "javascript:alert(8)",
    " JaVa\tScRiPt:alert(9)",
    "data:text/html,<script>1</script>",
)
SAFE_TAGS = {"html", "head", "meta", "title", "style", "body", "p", "a", "h1", "h2", "div"}
SAFE_TAGS |= {"span", "b", "i", "table", "tr", "th", "td", "section", "button", "script"}
URL_ATTRS = {"href", "src", "action", "formaction", "xlink:href", "data", "srcdoc", "poster"}


class Page(HTMLParser):
    """The tags, attributes, scripts and text of an HTML page, as Python's parser reads them."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self.texts: list[tuple[tuple[str, ...], str]] = []  # (open tags' classes, text)
        self._open: list[tuple[str, str]] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in {"meta", "br", "img", "input", "link"}:
            self._open.append((tag, dict(attrs).get("class") or ""))

    def handle_endtag(self, tag: str) -> None:
        while self._open and self._open.pop()[0] != tag:
            pass

    def handle_data(self, data: str) -> None:
        if self._open and self._open[-1][0] == "script":
            self.scripts.append(data)
        self.texts.append((tuple(c for _, c in self._open), data))

    def structure(self) -> list[tuple[str, tuple[str, ...]]]:
        """Tag names with their attribute names, in document order (values left out)."""
        return [(t, tuple(sorted(a))) for t, a in self.tags]

    def units(self, cls: str) -> list[dict[str, str | None]]:
        """Attributes of the elements whose class list holds ``cls``."""
        return [a for _, a in self.tags if cls in (a.get("class") or "").split()]


def assert_inert(page: Page) -> None:
    """Only the page's own script, no handlers, no script URLs, no unexpected elements."""
    assert page.scripts == [_JS]
    assert {t for t, _ in page.tags} <= SAFE_TAGS
    for tag, attrs in page.tags:
        assert not [k for k in attrs if k.startswith("on")], (tag, attrs)
        for k in URL_ATTRS & set(attrs):
            value = "".join((attrs[k] or "").split()).lower()
            assert not value.startswith(("javascript:", "data:", "vbscript:")), (tag, attrs)
        for k in ("id", "data-visible", "data-agent", "class"):
            if attrs.get(k):
                assert all(c.isalnum() or c in "_.- " for c in attrs[k]), (tag, k, attrs[k])


@functools.cache
def honest_record() -> EpisodeRecord:
    """A real leaky-player episode, judged, so verdicts put badges on messages."""
    scenario = next(s for s in scenarios.load("tiny") if s.id == "tiny-3-agents")
    config = BenchConfig(scenarios="tiny", policies=["leaky"])
    record = asyncio.run(play_job(Job("leaky", scenario, 0), config, None, RuleJudge()))
    assert record.judgment and record.judgment.cpv and record.judgment.cpv.violations
    return record


def _leaves(node: Any, path: tuple = ()) -> list[tuple]:
    if isinstance(node, dict):
        return [p for k, v in node.items() for p in _leaves(v, (*path, k))]
    if isinstance(node, list):
        return [p for i, v in enumerate(node) for p in _leaves(v, (*path, i))]
    return [path] if isinstance(node, str) else []


def _set(node: Any, path: tuple, value: Any) -> None:
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


def _get(node: Any, path: tuple) -> Any:
    for key in path:
        node = node[key]
    return node


@functools.cache
def crafted_record(payload: str = PAYLOAD, short: str = SHORT) -> EpisodeRecord:
    """The honest record with ``payload`` in every string the schema accepts (scenario aside).

    The first message's id is ``short`` and every evidence span cites it, so the judge's badges
    (labels and CSS classes) land on a crafted message too.
    """
    data = honest_record().model_dump(mode="json")
    scenario = data.pop("scenario")
    scores = data["scores"]
    for section in ("per_agent", "failures"):
        scores[section] = {payload + k: v for k, v in scores[section].items()}
    scores["failures"][payload] = payload
    original = {path: _get(data, path) for path in _leaves(data)}
    for path in original:
        _set(data, path, short if "evidence_spans" in path else payload)
    for i, m in enumerate(data["transcript"]["messages"]):
        m["id"] = short if i == 0 else f"{payload}{i}"  # distinct, as thread order needs
    for _ in range(5):  # put back what the schema refuses (literals such as action_type)
        try:
            record = EpisodeRecord.model_validate({**data, "scenario": scenario})
        except ValidationError as e:
            for err in e.errors():
                path = tuple(err["loc"])
                if path not in original:
                    raise
                _set(data, path, original[path])
        else:
            return record
    raise AssertionError("the crafted record never validated")


def test_honest_page_is_inert_and_has_one_unit_per_message():
    record = honest_record()
    page = Page(render_episode(record))
    assert_inert(page)
    assert [a["id"] for a in page.units("msg")] == [m.id for m in record.transcript.messages]
    assert page.units("violation")


def test_crafted_record_cannot_inject_markup_or_script():
    record, benign = crafted_record(), crafted_record("benign text", "benign")
    assert record.transcript.messages[1].sender == PAYLOAD  # agent ids are crafted too
    assert record.judgment.cpv.violations[0].item_description == PAYLOAD
    text = render_episode(record, back=URL_PAYLOADS[1])
    page = Page(text)
    assert_inert(page)
    assert page.structure() == Page(render_episode(benign)).structure()
    assert page.units("violation") and page.units("badge")
    assert len(page.units("msg")) == len(record.transcript.messages)
    assert "<script>alert" not in text and "onerror=" not in text.replace("onerror=alert", "")
    assert PAYLOAD in "".join(t for _, t in page.texts)  # shown as text, not dropped
    assert 'href="#"' in text  # the javascript: back link was refused


@pytest.mark.parametrize("url", URL_PAYLOADS)
def test_back_link_keeps_only_harmless_schemes(url):
    assert_inert(Page(render_episode(honest_record(), back=url)))
    assert 'href="../report.html"' in render_episode(honest_record())


def test_page_name_is_a_plain_file_name(tmp_path):
    record = crafted_record().model_copy(update={"episode_id": "../../" + PAYLOAD})
    path = write_episode_page(record, tmp_path / "episodes")
    assert path.parent == tmp_path / "episodes" and path.exists()
    assert all(c.isalnum() or c in "_.-" for c in page_name(record))


def test_crafted_page_in_a_real_browser_runs_no_script(tmp_path):
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    pytest.importorskip("playwright", reason="playwright (the [dev] extra) drives the browser")
    from playwright.sync_api import sync_playwright

    record = crafted_record()
    path = write_episode_page(record, tmp_path, back=URL_PAYLOADS[0])
    dialogs: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=exe, args=["--no-sandbox", "--disable-gpu", "--no-first-run"]
        )
        page = browser.new_page()
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(path.as_uri())
        page.wait_for_timeout(300)
        assert page.locator(".msg").count() == len(record.transcript.messages)
        assert page.locator("script").count() == 1 and page.locator("iframe, img, svg").count() == 0
        page.click('button[data-agent="agent_2"]')  # every role name is the payload
        hidden = page.locator(".msg.hidden").count()
        assert hidden == len(record.transcript.messages) - len(record.transcript.view("agent_2"))
        page.mouse.move(200, 200)
        page.keyboard.press("Tab")
        page.wait_for_timeout(200)
        browser.close()
    assert dialogs == []
