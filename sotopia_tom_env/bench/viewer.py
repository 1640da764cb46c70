"""A static HTML page per episode, the transcript viewer.

It shows the public channel and every DM thread, a "what this agent saw" toggle, and the
judge's evidence (disclosures, inquiries, violations) marked on the utterances it cites.
Self-contained: inline CSS and a few lines of JavaScript, no network.

A record file may come from anywhere, so every value taken from it is escaped (text and
attributes), values used as HTML ids or classes are reduced to a safe charset, links keep only
harmless schemes, message text is shown with :func:`~sotopia_tom_env.render.one_line` (one
unit per message, nothing that looks like another message), and a Content-Security-Policy lets
only the page's own script run.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from collections import defaultdict
from pathlib import Path
from urllib.parse import urlsplit

from sotopia_tom_env.bench.records import EpisodeRecord
from sotopia_tom_env.render import one_line
from sotopia_tom_env.transcript import Message

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:16px;color:#1c1c1c}
h1{font-size:20px;margin:0 0 4px}.meta{color:#555;margin-bottom:10px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
th:first-child,td:first-child{text-align:left}
.toggle button{margin:2px;padding:4px 10px;border:1px solid #888;background:#f4f4f4;border-radius:4px;cursor:pointer}
.toggle button.on{background:#1f5fbf;color:#fff;border-color:#1f5fbf}
.thread{border:1px solid #ddd;border-radius:6px;margin:12px 0;padding:6px 10px}
.thread h2{font-size:15px;margin:4px 0 8px}.thread.public{border-color:#1f5fbf}
.msg{padding:5px 8px;margin:4px 0;border-left:4px solid #ccc;background:#fafafa}
.msg .id{font-family:monospace;color:#555;margin-right:6px}.msg .who{font-weight:600}
.msg.violation{border-left-color:#c62828;background:#fdecea}.msg.disclosure{border-left-color:#2e7d32}
.msg.inquiry{border-left-color:#f9a825}.badge{display:inline-block;font-size:12px;margin:3px 4px 0 0;padding:1px 6px;border-radius:8px}
.b-disclosure{background:#e3f2e5;color:#1b5e20}.b-leak,.b-violation{background:#fbdcd9;color:#8e1c1c}
.b-inquiry{background:#fff3cd;color:#7a5a00}.hidden{display:none}
"""

_JS = """
function show(agent){
  document.querySelectorAll('.toggle button').forEach(b=>b.classList.toggle('on', b.dataset.agent===agent));
  document.querySelectorAll('.msg').forEach(m=>{
    m.classList.toggle('hidden', agent!=='all' && !m.dataset.visible.split(' ').includes(agent));});
  document.querySelectorAll('.thread').forEach(t=>{
    t.classList.toggle('hidden', !t.querySelector('.msg:not(.hidden)'));});
}
document.querySelectorAll('.toggle button').forEach(b=>b.addEventListener('click',()=>show(b.dataset.agent)));
"""
_SCRIPT_HASH = base64.b64encode(hashlib.sha256(_JS.encode()).digest()).decode()
# Only the page's own script may run; nothing is loaded from anywhere.
_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; "
    f"script-src 'sha256-{_SCRIPT_HASH}'; base-uri 'none'; form-action 'none'"
)
_UNSAFE_TOKEN = re.compile(r"[^A-Za-z0-9_.-]+")
_SAFE_SCHEMES = frozenset({"", "http", "https", "file"})


def page_name(record: EpisodeRecord) -> str:
    """The file name of an episode's page."""
    return _UNSAFE_TOKEN.sub("_", record.episode_id) + ".html"


def write_episode_page(record: EpisodeRecord, folder: Path, back: str = "../report.html") -> Path:
    """Write the page of one episode into ``folder`` and return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / page_name(record)
    path.write_text(render_episode(record, back), encoding="utf-8")
    return path


def render_episode(record: EpisodeRecord, back: str = "../report.html") -> str:
    """The full HTML of one episode's page."""
    t = record.transcript
    badges = _evidence(record)
    threads: dict[tuple[str, ...], list[Message]] = defaultdict(list)
    for m in t.messages:
        key = () if not m.recipients else tuple(sorted({m.sender, *m.recipients}))
        threads[key].append(m)
    sections = [
        _thread(t.roles, key, msgs, badges)
        for key, msgs in sorted(threads.items(), key=lambda kv: kv[0] != ())
    ]
    buttons = ['<button data-agent="all" class="on">Everything (judge view)</button>']
    buttons += [
        f'<button data-agent="{_token(a)}">What {_e(r)} saw</button>'
        for a, r in zip(t.ids, t.roles, strict=True)
    ]
    title = f"{record.policy} on {t.scenario_id} (seed {record.seed})"
    model = _e(" · model " + record.model) if record.model else ""
    return f"""<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<title>{_e(title)}</title><style>{_CSS}</style></head>
<body><p><a href="{_href(back)}">&larr; report</a></p>
<h1>{_e(title)}</h1>
<div class="meta">sector {_e(t.sector or "?")} &middot; {int(t.n_agents)} agents &middot; {int(t.rounds)} rounds &middot; {int(t.steps)} steps{model}</div>
<p><b>Goal.</b> {_e(t.scenario_goal)}</p>
{_scores(record)}
<div class="toggle">{"".join(buttons)}</div>
{"".join(sections) or "<p>No messages.</p>"}
<script>{_JS}</script></body></html>"""


def _thread(
    roles: list[str],
    key: tuple[str, ...],
    msgs: list[Message],
    badges: dict[str, list[tuple[str, str]]],
) -> str:
    title = (
        "Public channel"
        if not key
        else "Direct messages: " + ", ".join(_role(roles, a) for a in key)
    )
    items = []
    for m in msgs:
        audience = (
            sorted({m.sender, *m.recipients})
            if m.recipients
            else [f"agent_{i}" for i in range(len(roles))]
        )
        visible = " ".join(map(_token, audience))
        marks = badges.get(m.id, [])
        cls = " ".join(sorted({_token(k if k != "leak" else "violation") for k, _ in marks}))
        to = f" &rarr; {_e(', '.join(m.recipient_roles))}" if m.recipients else ""
        text = _e(m.text) if m.action_type == "speak" else "<i>left the conversation</i>"
        chips = "".join(
            f'<span class="badge b-{_token(k)}">{_e(label)}</span>' for k, label in marks
        )
        items.append(f'<div class="msg {cls}" id="{_token(m.id)}" data-visible="{visible}"><span class="id">[{_e(m.id)}]</span>'
                     f'<span class="who">{_e(m.sender_role)}</span>{to}: {text}<div>{chips}</div></div>')  # fmt: skip
    kind = "public" if not key else "dm"
    return f'<section class="thread {kind}"><h2>{_e(title)}</h2>{"".join(items)}</section>'


def _evidence(record: EpisodeRecord) -> dict[str, list[tuple[str, str]]]:
    """Badges per utterance id, from the judge's verdicts."""
    out: dict[str, list[tuple[str, str]]] = defaultdict(list)
    j = record.judgment
    if j is None:
        return out
    for agent in j.da.agents if j.da else []:
        for item in agent.items_should_share:
            for span in item.evidence_spans if item.was_disclosed else []:
                out[_span(span)].append(("disclosure", f"shares {item.item_name}"))
        for item in agent.items_should_not_share:
            for span in item.evidence_spans if item.was_disclosed else []:
                out[_span(span)].append(("leak", f"reveals must-not-share {item.item_name}"))
    for agent in j.ia.agents if j.ia else []:
        for item in agent.desired_items:
            for span in item.evidence_spans if item.was_inquired else []:
                out[_span(span)].append(("inquiry", f"asks for {item.item_description}"))
    for v in j.cpv.violations if j.cpv else []:
        who = f" to {v.affected_agent}" if v.affected_agent else " publicly"
        for span in v.evidence_spans:
            out[_span(span)].append(("violation", f"violation: {v.item_description}{who}"))
    return out


def _span(span: str) -> str:
    return span.strip("[] ")


def _scores(record: EpisodeRecord) -> str:
    s = record.scores
    if s is None:
        return "<p>Not judged.</p>"
    head = "".join(f"<th>{k}</th>" for k in ("", "DA", "IA", "EFF", "CPV", "CM"))
    summary = s.summary()
    rows = [
        "<tr><td><b>episode</b></td>"
        + "".join(f"<td>{_n(summary[k])}</td>" for k in ("DA", "IA", "EFF", "CPV", "CM"))
        + "</tr>"
    ]
    for role, p in s.per_agent.items():
        rows.append(
            f"<tr><td>{_e(role)}</td>"
            + "".join(f"<td>{_n(getattr(p, k))}</td>" for k in ("da", "ia", "eff", "cpv", "cm"))
            + "</tr>"
        )
    failures = "".join(f"<p>Judge failure for {_e(m)}: {_e(w)}</p>" for m, w in s.failures.items())
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>{failures}"


def _n(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def _e(text: object) -> str:
    """Escaped for HTML text and quoted attributes, shown on one line."""
    return html.escape(one_line(str(text)), quote=True)


def _token(value: str) -> str:
    """A value reduced to a charset that is safe as an HTML id, class or data token."""
    return _UNSAFE_TOKEN.sub("_", str(value)) or "_"


def _href(url: str) -> str:
    """``url`` for an ``href``, or ``#`` when its scheme could run code (``javascript:``…)."""
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError:
        return "#"
    return html.escape(url, quote=True) if scheme in _SAFE_SCHEMES else "#"


def _role(roles: list[str], agent: str) -> str:
    """The role of ``agent_i``, or the raw id when a record names an agent that is not there."""
    index = agent.rsplit("_", 1)[-1]
    ok = index.isascii() and index.isdigit() and int(index) < len(roles)
    return roles[int(index)] if ok else agent
