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
from collections.abc import Iterable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

from rewards.verdicts import Judgment
from scenarios import AgentSpec
from sotopia_tom_app.bench.records import EpisodeRecord
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
.briefs{display:grid;grid-template-columns:repeat(auto-fill,minmax(320px,1fr));gap:8px}
.brief{border:1px solid #ddd;border-radius:6px;padding:6px 10px;background:#fcfcfc}
.brief h2{font-size:15px;margin:2px 0 6px}.brief table{width:100%;font-size:13px}
.brief td{text-align:left}.label{color:#555;font-weight:600}.private{color:#8e1c1c}
.verdicts td{text-align:left;vertical-align:top;font-size:13px}tr.bad td{background:#fdecea}
.legend{font-size:13px;color:#333;margin:6px 0}.note{font-size:13px;color:#444}
details.turn{margin:4px 0;border:1px solid #ddd;border-radius:4px;padding:4px 8px}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f6f6;padding:6px;font-size:12px;max-height:420px;overflow:auto}
"""

_JS = """
function show(agent){
  document.querySelectorAll('.toggle button').forEach(b=>b.classList.toggle('on', b.dataset.agent===agent));
  document.querySelectorAll('.msg').forEach(m=>{
    m.classList.toggle('hidden', agent!=='all' && !m.dataset.visible.split(' ').includes(agent));});
  document.querySelectorAll('.per-agent').forEach(e=>{
    e.classList.toggle('hidden', agent!=='all' && e.dataset.agent!==agent);});
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
{_briefs(record)}
{_LEGEND}
{"".join(sections) or "<p>No messages.</p>"}
{_verdicts(record)}
{_calls(record)}
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
        cls = _border(k for k, _ in marks)
        to = f" &rarr; {_e(', '.join(m.recipient_roles))}" if m.recipients else ""
        text = _e(m.text) if m.action_type == "speak" else "<i>left the conversation</i>"
        chips = "".join(
            f'<span class="badge b-{_token(k)}">{_e(label)}</span>' for k, label in marks
        )
        items.append(f'<div class="msg {cls}" id="{_token(m.id)}" data-visible="{visible}"><span class="id">[{_e(m.id)}]</span>'
                     f'<span class="who">{_e(m.sender_role)}</span>{to}: {text}<div>{chips}</div></div>')  # fmt: skip
    kind = "public" if not key else "dm"
    return f'<section class="thread {kind}"><h2>{_e(title)}</h2>{"".join(items)}</section>'


_SEVERITY = ("violation", "disclosure", "inquiry")  # a leak is shown as a violation


def _border(kinds: Iterable[str]) -> str:
    """The one class that colours a message's edge: the most serious of its badges.

    A leak also counts as a disclosure in the verdicts; it must still read as red.
    """
    found = {"violation" if k == "leak" else k for k in kinds}
    return next((k for k in _SEVERITY if k in found), "")


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
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>{_CM_NOTE}{failures}"


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


# -- why it scored so: briefs, per-item verdicts, LLM calls --------------------------------------

_LEGEND = (
    '<div class="legend"><b>Badges:</b> '
    '<span class="badge b-disclosure">shares X</span> the judge counts this message as the '
    "sender disclosing an item it should share; "
    '<span class="badge b-inquiry">asks for X</span> a request for an item the sender needs; '
    '<span class="badge b-leak">reveals must-not-share X</span> a disclosure the sharing rules '
    "forbid; "
    '<span class="badge b-violation">violation</span> a critical privacy violation (CPV). '
    "A message's edge takes the colour of its most serious badge (red for leaks and "
    "violations).</div>"
)
_CM_NOTE = (
    '<p class="note">The <b>episode</b> row scores the episode: DA, IA and EFF are means over '
    "agents, CPV counts every violation over all private items, and CM combines those four. "
    "Each <b>agent</b> row combines that agent's own components, so the episode CM is not the "
    "mean of the agents' CMs (either can be 0 while the other is not).</p>"
)


def _briefs(record: EpisodeRecord) -> str:
    """One card per agent with what it was told: facts, sharing rules, needs."""
    ids = dict(zip(record.transcript.roles, record.transcript.ids, strict=False))
    cards = [_brief(agent, ids.get(agent.role, "")) for agent in record.scenario.agents]
    return f'<div class="briefs">{"".join(cards)}</div>'


def _brief(agent: AgentSpec, agent_id: str) -> str:
    facts = "".join(
        f'<tr><td>{_e(name)}</td><td class="{"private" if item.sensitivity == "private" else ""}">'
        f"{_e(item.sensitivity)}</td><td>{_e(item.text)}</td></tr>"
        for name, item in agent.pre_interaction_knowledge.items()
    )
    post = agent.post_interaction_knowledge
    lists = (
        ("may share", agent.policy.what_to_share),
        ("must not share", agent.policy.what_not_to_share),
        ("needs", post.desired_knowledge),
        ("must not learn", post.cannot_know_knowledge),
    )
    rules = "".join(
        f'<div><span class="label">{label}:</span> {_e(", ".join(items) or "nothing")}</div>'
        for label, items in lists
    )
    return (
        f'<div class="brief per-agent" data-agent="{_token(agent_id)}">'
        f"<h2>Brief of {_e(agent.role)}</h2><div>{_e(agent.goals.primary_objective)}</div>"
        f"<table><tr><th>fact</th><th>sensitivity</th><th>value</th></tr>{facts}</table>"
        f"{rules}</div>"
    )


def _verdicts(record: EpisodeRecord) -> str:
    """The judge's verdict on every item, with its evidence and reasoning."""
    j = record.judgment
    if j is None:
        return ""
    ids = {role.casefold(): a for a, role in zip(record.transcript.ids, record.transcript.roles, strict=False)}  # fmt: skip
    rows = [_row(ids, *r) for r in _verdict_rows(j)]
    failed = "".join(f"<p>{_e(m)} verdict missing: {_e(w)}</p>" for m, w in j.failures.items())
    head = "".join(f"<th>{h}</th>" for h in ("agent", "check", "item", "verdict", "evidence", "judge's reason"))  # fmt: skip
    return (
        f'<section class="thread verdicts"><h2>Judge&#39;s verdicts per item ({_e(j.judge)})</h2>'
        f"<table><tr>{head}</tr>{''.join(rows)}</table>{failed}</section>"
    )


def _verdict_rows(j: Judgment) -> Iterator[tuple[str, str, str, str, bool, list[str], str]]:
    """(agent, check, item, verdict, bad, evidence, reason) for every assessed item."""
    for a in j.da.agents if j.da else []:
        for i in a.items_should_share:
            ok = i.was_disclosed and i.channel_appropriate
            said = "shared" + ("" if i.channel_appropriate else " on the wrong channel")
            yield a.agent_name, "DA: should share", i.item_name, said if i.was_disclosed else "not shared", not ok, i.evidence_spans, i.reasoning  # fmt: skip
        for i in a.items_should_not_share:
            yield a.agent_name, "DA: must not share", i.item_name, "LEAKED" if i.was_disclosed else "kept", i.was_disclosed, i.evidence_spans, i.reasoning  # fmt: skip
    for a in j.ia.agents if j.ia else []:
        for i in a.desired_items:
            ok = i.was_inquired and i.correct_person and i.channel_appropriate
            said = f"asked {i.asked_agent or '?'}" + ("" if i.correct_person else " (not a holder)") + ("" if i.channel_appropriate else " (wrong channel)")  # fmt: skip
            yield a.agent_name, "IA: needs", i.item_description, said if i.was_inquired else "never asked", not ok, i.evidence_spans, i.reasoning  # fmt: skip
        for i in a.cannot_know_items:
            yield a.agent_name, "IA: must not learn", i.item_description, "asked (not scored)" if i.was_inquired else "not asked", False, i.evidence_spans, i.reasoning  # fmt: skip
    for a in j.eff.agents if j.eff else []:
        for i in a.acquisitions:
            got = i.was_acquired and i.round_acquired is not None
            said = f"received in round {i.round_acquired + 1}" if got else "never received"  # type: ignore[operator]
            yield a.agent_name, "EFF: receives", i.item_description, said, not got, i.evidence_spans, i.reasoning  # fmt: skip
    for v in j.cpv.violations if j.cpv else []:
        whom = f" to {v.affected_agent}" if v.affected_agent else " publicly"
        yield v.violating_agent, "CPV: violation", v.item_description, v.violation_type.replace("_", " ") + whom, True, v.evidence_spans, v.reasoning  # fmt: skip


def _row(ids: dict[str, str], agent: str, check: str, item: str, verdict: str, bad: bool,
         evidence: list[str], reason: str) -> str:  # fmt: skip
    links = " ".join(f'<a href="#{_token(_span(s))}">[{_e(_span(s))}]</a>' for s in evidence)
    who = _token(ids.get(str(agent).casefold(), "unmatched"))
    return (
        f'<tr class="per-agent{" bad" if bad else ""}" data-agent="{who}"><td>{_e(agent)}</td>'
        f"<td>{check}</td><td>{_e(item)}</td><td>{_e(verdict)}</td><td>{links}</td>"
        f"<td>{_e(reason)}</td></tr>"
    )


def _calls(record: EpisodeRecord) -> str:
    """Each turn's LLM calls (prompt and reply), collapsed until opened."""
    roles = record.transcript.roles
    turns = [t for t in record.turn_log if isinstance(t.get("calls"), list) and t["calls"]]
    if not turns:
        return ""
    items = []
    for t in turns:
        agent = str(t.get("agent", ""))
        calls = "".join(_call(c) for c in t["calls"] if isinstance(c, dict))
        items.append(
            f'<details class="turn per-agent" data-agent="{_token(agent)}"><summary>step '
            f"{_e(t.get('step', '?'))} &middot; {_e(_role(roles, agent))} &middot; "
            f"{len(t['calls'])} LLM call(s)</summary>{calls}</details>"
        )
    return f'<section class="thread calls"><h2>LLM calls (prompt and reply per turn)</h2>{"".join(items)}</section>'


def _call(call: dict) -> str:
    opts = f"temperature {call.get('temperature', '?')}, max tokens {call.get('max_tokens', '?')}"
    reply = call.get("reply")
    error = f'<div class="private">failed: {_e(call["error"])}</div>' if call.get("error") else ""
    return (
        f"<div><b>{_e(call.get('purpose', 'call'))}</b> ({_e(opts)})</div>"
        f'<div class="label">prompt</div><pre>{_pre(call.get("prompt", ""))}</pre>'
        f'<div class="label">reply</div><pre>{_pre("" if reply is None else reply)}</pre>{error}'
    )


def _pre(text: object) -> str:
    """Escaped for a ``<pre>`` block, line breaks kept (a prompt is many lines)."""
    return html.escape(str(text), quote=True)
