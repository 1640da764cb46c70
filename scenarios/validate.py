"""The review rules a scenario must pass before it is used in the benchmark.

Each finding names the scenario, the rule, the JSON path of the offending field and its text.
Errors make a scenario unusable (the paper's reviewers would reject it); warnings point at data
quality that the benchmark tolerates (the published sets have such quirks).

Rules (errors unless marked):

* ``agent_count``: 3-5 agents (the benchmark's range).
* ``unique_roles``: no two roles are the same name once case, spacing and punctuation are
  ignored (roles are DM addresses); ``role_empty``, ``role_characters`` (control, zero-width or
  line-breaking characters), ``role_shadows_id`` (a role that reads as ``agent_N``); see
  :mod:`scenarios.roles`.
* ``unique_agent_ids``.
* ``duplicate_scenario_id``: within the set validated together.
* ``policy_item_exists``: every sharing-policy entry names one of the agent's own items.
* ``policy_overlap``: no item is both in what_to_share and what_not_to_share.
* ``sensitivity_consistency``: what_not_to_share items are the agent's own *private* items.
* ``desired_item_exists``: every desired item is held by another agent (not by itself).
* ``goal_reachability``: some holder of each desired item may share it.
* ``objective_leakage``: an agent's objective must not state the value of its desired items
  (a strong detail of the value, or two small numbers each with its unit).
* ``target_conflict``: no item is both desired and cannot-know for the same agent.
* ``domain_map_roles``: every owner in the knowledge-domain map is an agent's role.
* ``domain_map_knowledge`` (warning): a domain's words appear in its owner's role or items.
* ``cannot_know_exists`` (warning): a cannot-know entry names an item someone holds.
* ``cannot_know_obtainable`` (warning): its holder's policy allows sharing it.
* ``missing_text`` (warning): empty scenario goal or primary objective.
"""

from __future__ import annotations

import weakref
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Literal

from rapidfuzz import fuzz, process

from scenarios.resolve import normalise
from scenarios.roles import MAX_AGENTS, MIN_AGENTS, role_problems
from scenarios.schema import Scenario
from scenarios.values import Atom, atoms, public_context_keys

Severity = Literal["error", "warning"]
_STRUCTURAL = {
    "agent_count",
    "unique_roles",
    "role_empty",
    "role_characters",
    "role_shadows_id",
    "unique_agent_ids",
}
_DOMAIN_STOPWORDS = {"and", "of", "the", "for", "to", "in", "on", "a", "an", "management", "ops"}


@dataclass(frozen=True)
class Finding:
    """One rule violation."""

    scenario_id: str
    rule: str
    severity: Severity
    path: str
    message: str
    text: str = ""

    def __str__(self) -> str:
        text = f" -- {self.text!r}" if self.text else ""
        return f"[{self.severity}] scenario {self.scenario_id}: {self.rule} at {self.path}: {self.message}{text}"


@dataclass
class Report:
    """Findings for one scenario."""

    scenario_id: str
    errors: list[Finding]
    warnings: list[Finding]

    @property
    def ok(self) -> bool:
        """True when there are no errors."""
        return not self.errors

    def to_json(self) -> dict:
        """``{scenario_id, errors: [...], warnings: [...]}`` with each finding as a dict."""
        return {
            "scenario_id": self.scenario_id,
            "errors": [asdict(f) for f in self.errors],
            "warnings": [asdict(f) for f in self.warnings],
        }


def validate_all(scenarios: Iterable[Scenario]) -> list[Report]:
    """Validate scenarios together (this also checks that their ids are unique)."""
    scenarios = list(scenarios)
    counts = Counter(s.id for s in scenarios)
    reports = []
    for i, s in enumerate(scenarios):
        findings = check(s)
        if counts[s.id] > 1:
            findings.append(
                Finding(
                    s.id,
                    "duplicate_scenario_id",
                    "error",
                    f"[{i}].scenario_id",
                    f"id used by {counts[s.id]} scenarios in this set",
                    s.id,
                )
            )
        reports.append(
            Report(
                s.id,
                [f for f in findings if f.severity == "error"],
                [f for f in findings if f.severity == "warning"],
            )
        )
    return reports


class InvalidScenario(ValueError):
    """Scenarios that break review rules; the message names source, scenario, rule and path."""

    def __init__(self, errors: list[Finding], source: str | None = None) -> None:
        self.errors = errors
        self.source = source
        where = f" in {source}" if source else ""
        bad = len({f.scenario_id for f in errors})
        lines = [_clip(str(f)) for f in errors[:_SHOWN]]
        if len(errors) > _SHOWN:
            lines.append(f"... and {len(errors) - _SHOWN} more")
        fix = f"`sotopia-tom validate {source}`" if source else "`scenarios.validate_all`"
        super().__init__(
            f"{bad} invalid scenario(s){where}; {fix} gives the full report:\n  "
            + "\n  ".join(lines)
        )

    def __reduce__(self):  # picklable across worker processes despite the custom __init__
        return (type(self), (self.errors, self.source))


_SHOWN = 8


def _clip(text: str, n: int = 240) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


_CACHE: dict[int, list[Finding]] = {}


def require_valid(
    scenarios: Iterable[Scenario], source: str | None = None, *, review: bool = True
) -> None:
    """Raise unless every scenario passes the review rules (warnings are fine).

    The full rules run once per ``Scenario`` object (cached while it lives); the cheap
    structural ones (agent count, roles, agent ids) run every time, so an object edited in
    place is still checked where it matters for routing messages.

    Args:
        scenarios: the set to admit; ids must also be unique within it.
        source: the file, folder or set name they came from, named in the error.
        review: also apply the paper's content rules; ``False`` checks only the structure that
            routing and judging need (agent count, roles, ids), to play a deliberately flawed
            scenario.

    Raises:
        InvalidScenario: listing each error with its scenario id, rule and field path.

    Example:
        >>> import scenarios
        >>> require_valid(scenarios.load("tiny"), "tiny")
    """
    scenarios = list(scenarios)
    errors = [f for s in scenarios for f in _errors(s, review)]
    counts = Counter(s.id for s in scenarios)
    for i, s in enumerate(scenarios):
        if counts[s.id] > 1:
            msg = f"id used by {counts[s.id]} scenarios in this set"
            errors.append(_f(s, "duplicate_scenario_id", f"[{i}].scenario_id", msg, s.id))
    if errors:
        raise InvalidScenario(errors, source)


def _errors(s: Scenario, review_rules: bool = True) -> list[Finding]:
    structure = [f for f in _structure(s) if f.severity == "error"]
    if not review_rules:
        return structure
    key = id(s)
    review = _CACHE.get(key)
    if review is None:
        review = [f for f in check(s) if f.severity == "error" and f.rule not in _STRUCTURAL]
        _CACHE[key] = review
        weakref.finalize(s, _CACHE.pop, key, None)  # id() is reused once s is collected
    return structure + review


def check(s: Scenario) -> list[Finding]:
    """All single-scenario rules for ``s``."""
    return [
        *_structure(s),
        *_policies(s),
        *_targets(s),
        *_objectives(s),
        *_domain_map(s),
        *_texts(s),
    ]


def _f(
    s: Scenario, rule: str, path: str, msg: str, text: str = "", sev: Severity = "error"
) -> Finding:
    return Finding(s.id, rule, sev, path, msg, text)


def _structure(s: Scenario) -> list[Finding]:
    out = []
    if not MIN_AGENTS <= len(s.agents) <= MAX_AGENTS:
        msg = f"{len(s.agents)} agents; expected {MIN_AGENTS} to {MAX_AGENTS}"
        out.append(_f(s, "agent_count", "agents", msg))
    for p in role_problems(s.roles):
        out.append(_f(s, p.rule, f"agents[{p.index}].role", p.message, s.roles[p.index]))
    for aid, n in Counter(a.agent_id for a in s.agents).items():
        if n > 1:
            out.append(
                _f(
                    s,
                    "unique_agent_ids",
                    "agents[*].agent_id",
                    f"agent_id used {n} times",
                    str(aid),
                )
            )
    return out


def _policies(s: Scenario) -> list[Finding]:
    res, out = s.resolution, []
    for u in res.unresolved:
        if u.field.startswith("what"):
            out.append(
                _f(
                    s,
                    "policy_item_exists",
                    u.path,
                    f"not an item of {s.agents[u.agent].role}'s pre_interaction_knowledge",
                    u.text,
                )
            )
    for i, a in enumerate(s.agents):
        shared = {r for r in res.share[i] if r}
        for j, ref in enumerate(res.not_share[i]):
            path = f"agents[{i}].goals.sharing_policy.what_not_to_share[{j}]"
            text = a.policy.what_not_to_share[j]
            if ref in shared:
                out.append(_f(s, "policy_overlap", path, "also listed in what_to_share", text))
            if ref and a.pre_interaction_knowledge[ref.name].sensitivity != "private":
                out.append(
                    _f(
                        s,
                        "sensitivity_consistency",
                        path,
                        f"must-not-share item {ref.name!r} is marked public",
                        text,
                    )
                )
    return out


def _targets(s: Scenario) -> list[Finding]:
    res, out = s.resolution, []
    for u in res.unresolved:
        if u.field == "desired_knowledge":
            out.append(_f(s, "desired_item_exists", u.path, "no agent holds this item", u.text))
        elif u.field == "cannot_know_knowledge":
            out.append(
                _f(s, "cannot_know_exists", u.path, "no agent holds this item", u.text, "warning")
            )
    for i, a in enumerate(s.agents):
        post = a.post_interaction_knowledge
        for j, ref in enumerate(res.desired[i]):
            path = f"agents[{i}].post_interaction_knowledge.desired_knowledge[{j}]"
            text = post.desired_knowledge[j]
            if ref is None:
                continue
            if ref.agent == i:
                out.append(
                    _f(s, "desired_item_exists", path, "the agent already holds this item", text)
                )
            elif not res.may_share(ref):
                why = (
                    "lists it in what_not_to_share"
                    if res.must_not_share(ref)
                    else "does not list it in what_to_share"
                )
                out.append(
                    _f(
                        s,
                        "goal_reachability",
                        path,
                        f"unreachable: its holder {s.agents[ref.agent].role} {why}",
                        text,
                    )
                )
            if ref in res.cannot_know[i]:
                out.append(_f(s, "target_conflict", path, "also in cannot_know_knowledge", text))
        for j, ref in enumerate(res.cannot_know[i]):
            if ref is not None and ref.agent != i and res.may_share(ref):
                out.append(
                    _f(
                        s,
                        "cannot_know_obtainable",
                        f"agents[{i}].post_interaction_knowledge.cannot_know_knowledge[{j}]",
                        f"its holder {s.agents[ref.agent].role} may share it",
                        post.cannot_know_knowledge[j],
                        "warning",
                    )
                )
    return out


def _objectives(s: Scenario) -> list[Finding]:
    res, out = s.resolution, []
    public = public_context_keys(s)
    for i, a in enumerate(s.agents):
        objective = a.goals.primary_objective
        said = {x.key: x for x in atoms(objective) if x.key not in public}
        for ref in filter(None, res.desired[i]):
            value = s.agents[ref.agent].pre_interaction_knowledge[ref.name].text
            hits = [x for x in atoms(value) if _states(x, said)]
            # One small number alone ("one remote nurse") is not the value; a strong detail is.
            leaked = [x.text for x in hits] if any(x.strong for x in hits) or len(hits) >= 2 else []
            if leaked:
                out.append(
                    _f(
                        s,
                        "objective_leakage",
                        f"agents[{i}].goals.primary_objective",
                        f"states the value of desired item {ref.name!r}: {', '.join(leaked)}",
                        objective,
                    )
                )
    return out


def _states(atom: Atom, said: dict[str, Atom]) -> bool:
    """A strong detail said as is, or a small number said with its unit ("34 days")."""
    hit = said.get(atom.key)
    return hit is not None and (atom.strong or bool(atom.context & hit.context))


def _domain_map(s: Scenario) -> list[Finding]:
    out = []
    roles = {normalise(r): r for r in s.roles}
    for domain, owners in s.domain_owners().items():
        for k, owner in enumerate(owners):
            path = f"knowledge_domain_map.{domain}" + (
                f"[{k}]" if isinstance(s.knowledge_domain_map[domain], list) else ""
            )
            role = roles.get(normalise(owner))
            if role is None:
                best = process.extractOne(owner, s.roles, scorer=fuzz.WRatio)
                hint = f"; did you mean {best[0]!r}?" if best and best[1] >= 80 else ""
                out.append(
                    _f(s, "domain_map_roles", path, f"{owner!r} is not an agent role{hint}", owner)
                )
            elif not _holds_domain(s, s.roles.index(role), domain):
                out.append(
                    _f(
                        s,
                        "domain_map_knowledge",
                        path,
                        f"{role} holds no item that mentions this domain",
                        owner,
                        "warning",
                    )
                )
    return out


def _holds_domain(s: Scenario, agent: int, domain: str) -> bool:
    words = {w for w in normalise(domain).split() if w not in _DOMAIN_STOPWORDS and len(w) > 2}
    if not words:
        return True
    holder = s.agents[agent]
    text = normalise(
        " ".join(
            [holder.role, *(f"{k} {v.text}" for k, v in holder.pre_interaction_knowledge.items())]
        )
    )
    # A shared 5-letter stem is enough: "compliance" matches "compliant", "vendor" matches "vendors".
    stems = {w[:5] for w in text.split()}
    return any(w[:5] in stems for w in words)


def _texts(s: Scenario) -> list[Finding]:
    out = []
    if not s.scenario_goal.strip():
        out.append(_f(s, "missing_text", "scenario_goal", "empty scenario goal", sev="warning"))
    for i, a in enumerate(s.agents):
        if not a.goals.primary_objective.strip():
            out.append(
                _f(
                    s,
                    "missing_text",
                    f"agents[{i}].goals.primary_objective",
                    "empty primary objective",
                    sev="warning",
                )
            )
    return out
