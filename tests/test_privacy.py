"""Privacy properties: each message reaches exactly its audience; briefs and targets never leak.

Scenarios with 3, 4 and 5 agents (tiny, plus a sample of gold and silver) are rewritten with
canary strings in every fact, objective and post-interaction target. Random episodes are played
(public messages, DMs addressed by id or by role name spelled with other case, spacing,
punctuation or full-width letters, silence, leaving, garbage replies) with a unique canary in
each message, and after every step both directions are checked: everyone in a message's
audience (all agents if public, else the sender and the listed recipients) sees it in its
observation text, and on the step it is sent, in ``infos["new_messages"]``; nobody else sees
its canary anywhere in its observation or infos. No agent ever sees another agent's brief
canaries, and nobody sees a post-interaction canary.

``SOTOPIA_PRIVACY_EXAMPLES=5000`` runs a longer search than the default.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scenarios
import sotopia_tom_env

EXAMPLES = int(os.environ.get("SOTOPIA_PRIVACY_EXAMPLES", "200"))
STATS: Counter[str] = Counter()  # episodes, steps and visibility checks done (for reporting)
_BRIEF = re.compile(r"(?:BRIEF(\d)X\d+|OBJ(\d)X)")
_POST = re.compile(r"POST\d[DC]\d")


def canaried(s: scenarios.Scenario) -> scenarios.Scenario:
    """``s`` with canaries in facts (BRIEFiXk), objectives (OBJiX) and targets (POSTiDj/POSTiCj).

    Target canaries are appended to the real references, so they still resolve to the same items
    and the scenario stays valid.
    """
    d = s.model_dump()
    for i, a in enumerate(d["agents"]):
        for k, item in enumerate(a["pre_interaction_knowledge"].values()):
            value = item["value"]
            item["value"] = f"{value if isinstance(value, str) else '; '.join(value)} BRIEF{i}X{k}"
        a["goals"]["primary_objective"] += f" OBJ{i}X"
        post = a["post_interaction_knowledge"]
        for key, tag in (("desired_knowledge", "D"), ("cannot_know_knowledge", "C")):
            post[key] = [f"{ref} POST{i}{tag}{j}" for j, ref in enumerate(post[key])]
    return scenarios.Scenario.model_validate(d)


def _sample() -> list[scenarios.Scenario]:
    """Tiny, and from gold and silver the first two valid canaried scenarios of each size."""
    out = [canaried(s) for s in scenarios.load("tiny")]
    for name in ("gold", "silver"):
        picked: Counter[int] = Counter()
        for s in scenarios.load(name):
            n = len(s.agents)
            if picked[n] >= 2:
                continue
            c = canaried(s)
            same = c.resolution.desired == s.resolution.desired
            if same and c.resolution.cannot_know == s.resolution.cannot_know:
                scenarios.require_valid([c])
                out.append(c)
                picked[n] += 1
    return out


POOL = _sample()

# One action: ("speak", [(recipient index, spelling)]), ("none",), ("leave",) or ("raw", text).
# Leaving is rare (1 in 20) so that episodes run long enough to carry many messages.
recipient = st.tuples(st.integers(0, 4), st.integers(0, 6))


def _spec(draw: tuple[int, list, str]) -> tuple:
    kind, to, text = draw
    if kind == 0:
        return ("leave",)
    if kind <= 2:
        return ("none",)
    return ("raw", text) if kind <= 4 else ("speak", to)


action = st.tuples(st.integers(0, 19), st.lists(recipient, max_size=3), st.text(max_size=30)).map(
    _spec
)


def spelled(name: str, form: int) -> str:
    """``name`` as a careless writer might spell it; all forms normalise to the same name."""
    forms = [
        name,
        name.upper(),
        name.lower(),
        f"  {name.replace(' ', '  ')} ",
        name.replace(" ", "-").replace("_", " "),
        name.swapcase(),
        "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in name),  # full width
    ]
    return forms[form % len(forms)]


@dataclass
class Episode:
    """The test's own model of who should see what."""

    roles: list[str]
    active: set[str]
    audience: dict[str, set[str]] = field(default_factory=dict)  # canary -> who may see it
    sent: int = 0

    def action(self, agent: str, spec: tuple) -> tuple[object, set[str] | None, str]:
        """The action to send, its predicted audience (``None``: rejected), and its canary."""
        kind = spec[0]
        if kind == "raw":
            return spec[1], None, ""
        if kind != "speak":
            return {"action_type": kind, "argument": "", "to": []}, None, ""
        self.sent += 1
        canary = f"MSG{self.sent}Q"
        n, to, ids = len(self.roles), [], set()
        for idx, form in spec[1]:
            aid = f"agent_{idx}"
            use_id = idx >= n or form % 2 == 0
            to.append(spelled(aid if use_id else self.roles[idx], form))
            ids.add(aid)
        ok = all(int(a.split("_")[1]) < n for a in ids) and agent not in ids and ids <= self.active
        everyone = {f"agent_{i}" for i in range(n)}
        audience = (ids | {agent} if ids else everyone) if ok else None
        return {"action_type": "speak", "argument": f"note {canary}", "to": to}, audience, canary


def seen_by(obs: dict, infos: dict, agent: str) -> str:
    return obs[agent]["text"] + json.dumps(infos[agent], default=str, ensure_ascii=False)


def check_secrets(obs: dict, infos: dict) -> None:
    for agent in obs:
        me = agent.split("_")[1]
        seen = seen_by(obs, infos, agent)
        assert not _POST.search(seen), f"{agent} saw a post-interaction target"
        owners = {a or b for a, b in _BRIEF.findall(seen)}
        assert owners <= {me}, f"{agent} saw the brief of agent(s) {owners - {me}}"
        STATS["secret checks"] += 1


def check_messages(ep: Episode, obs: dict, infos: dict, new: dict[str, set[str]]) -> None:
    for agent in obs:
        text, seen = obs[agent]["text"], seen_by(obs, infos, agent)
        fresh = json.dumps(infos[agent]["new_messages"], ensure_ascii=False)
        for canary, audience in ep.audience.items():
            if agent in audience:
                assert canary in text, f"{agent} should see {canary}"
                assert canary not in new or canary in fresh, f"{canary} missing in {agent} infos"
            else:
                assert canary not in seen, f"{agent} saw {canary} meant for {sorted(audience)}"
            STATS["visibility checks"] += 1


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    scenario=st.sampled_from(POOL),
    order=st.sampled_from(["round-robin", "simultaneous"]),
    reward=st.sampled_from([None, "rule"]),
    plan=st.lists(st.lists(action, min_size=5, max_size=5), min_size=8, max_size=30),
)
def test_every_message_reaches_exactly_its_audience(scenario, order, reward, plan):
    env = sotopia_tom_env.parallel_env(
        scenarios=[scenario], turn_order=order, max_turns=30, reward_fn=reward
    )
    obs, infos = env.reset(seed=0)
    ep = Episode(roles=scenario.roles, active=set(env.agents))
    check_secrets(obs, infos)
    STATS["episodes"] += 1
    for specs in plan:
        if not env.agents:
            break
        actions, new, predicted = {}, {}, {}
        for agent, spec in zip(env.acting_agents(), specs, strict=False):
            actions[agent], audience, canary = ep.action(agent, spec)
            predicted[agent] = audience is not None or spec[0] in ("none", "leave")
            if audience is not None:
                new[canary] = audience
        obs, _, _, _, infos = env.step(actions)
        for agent, ok in predicted.items():
            assert ("action_error" not in infos[agent]) == ok, (actions[agent], infos[agent])
        ep.active -= {a for a, spec in zip(actions, specs, strict=False) if spec[0] == "leave"}
        ep.audience.update(new)
        check_secrets(obs, infos)
        check_messages(ep, obs, infos, new)
        STATS["steps"] += 1


def test_the_pool_covers_three_four_and_five_agents():
    assert {len(s.agents) for s in POOL} == {3, 4, 5}
    assert len(POOL) >= 9


def test_own_brief_is_visible_to_its_owner():
    env = sotopia_tom_env.parallel_env(scenarios=[POOL[0]])
    obs, _ = env.reset()
    for agent, o in obs.items():
        i = int(agent.split("_")[1])
        assert f"OBJ{i}X" in o["text"] and f"BRIEF{i}X0" in o["text"]
