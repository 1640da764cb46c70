"""The observable teacher: it reads only its own seat's view, and plays well from it."""

from __future__ import annotations

import asyncio
import random
import statistics
from typing import Any

import pytest

import scenarios
import sotopia_tom_env
from policies import ObservablePlayer, make_policy, play_episode
from policies.observable import objective_questions
from policies.registry import Setup
from scenarios import Scenario
from sotopia_tom_env import AgentAction
from sotopia_tom_env.seat import read_seat

GOLD = scenarios.load("gold")


def _scramble(s: Scenario, seat: int, rng: random.Random) -> Scenario:
    """``s`` with every field seat ``seat`` cannot see changed, its own brief kept.

    Other agents' fact names, values and sensitivities, their objectives and sharing policies,
    and every agent's evaluation targets (the seat's own included) are replaced.
    """
    data = s.model_dump()
    for i, agent in enumerate(data["agents"]):
        post = agent["post_interaction_knowledge"]
        if i != seat:
            renamed = {
                f"Undisclosed ledger {i}-{k} {rng.randrange(10**6)}": {
                    "value": f"Code ZX-{rng.randrange(10**4)} worth ${rng.randrange(1, 999)}M",
                    "sensitivity": rng.choice(["public", "private"]),
                }
                for k, _ in enumerate(agent["pre_interaction_knowledge"])
            }
            agent["pre_interaction_knowledge"] = renamed
            names = list(renamed)
            agent["goals"]["primary_objective"] = f"Hidden aim {rng.random()} about {names[0]}."
            agent["goals"]["sharing_policy"] = {
                "what_to_share": names[:1],
                "what_not_to_share": names[1:],
            }
        post["desired_knowledge"] = [f"Scrambled need {rng.random()}"]
        post["cannot_know_knowledge"] = [f"Scrambled secret {rng.random()}"]
    return Scenario.model_validate(data)


_ACCENT = str.maketrans("aeiouAEIOU", "áéíóúÁÉÍÓÚ")


def _respell(text: str) -> str:
    """Other letters, the same words: case swapped and vowels accented ("cHÍÉF")."""
    return text.swapcase().translate(_ACCENT)


def _disguise(s: Scenario, rng: random.Random) -> tuple[Scenario, dict[str, str]]:
    """``s`` with everything that identifies it changed and its meaning kept: a new id and
    sector, a goal in other words, and role names and domain keys respelled (a reader, and an
    uncased embedding model, read "cHÍÉF fÍNÁNCÍÁL óFFÍCÉR" as "Chief Financial Officer").

    Returns the scenario and the map from old role names to new ones.
    """
    data = s.model_dump()
    roles = {a["role"]: _respell(a["role"]) for a in data["agents"]}
    data["scenario_id"] = f"disguised-{rng.randrange(10**6)}"
    data["sector"] = "undisclosed"
    data["scenario_goal"] = f"Reach one recommendation together (matter {rng.randrange(10**6)})."
    data["knowledge_domain_map"] = {
        _respell(domain): [roles[o] for o in owners] for domain, owners in s.domain_owners().items()
    }
    for agent in data["agents"]:
        agent["role"] = roles[agent["role"]]
    return Scenario.model_validate(data), roles


class _Replay:
    """Replays a recorded sequence of actions, one per turn, recipients renamed by ``roles``."""

    name = "replay"

    def __init__(self, agent: str, actions: list[AgentAction], roles: dict[str, str]) -> None:
        self.agent = agent
        self.actions = [a.model_copy(update={"to": [roles[r] for r in a.to]}) for a in actions]

    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        """Nothing to prepare."""

    async def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Any:
        """The next recorded action."""
        return self.actions.pop(0) if self.actions else AgentAction.none()


class _Recorder(ObservablePlayer):
    def reset(self, observation: dict[str, Any], info: dict[str, Any]) -> None:
        super().reset(observation, info)
        self.log: list[AgentAction] = []

    async def act(self, observation: dict[str, Any], info: dict[str, Any]) -> AgentAction:
        action = await super().act(observation, info)
        self.log.append(action)
        return action


def _gold_needs() -> dict[str, list[str]]:
    """What a cheat could have memorised: each Gold seat's needs, keyed by visible strings."""
    table = {}
    for s in GOLD:
        for a in s.agents:
            needs = a.post_interaction_knowledge.desired_knowledge
            table[s.scenario_goal + "/" + a.role] = needs
            table[a.role + "/" + ",".join(s.knowledge_domain_map)] = needs
    return table


class _LookupCheat(_Recorder):
    """The teacher, plus one cheat: it recognises the scenario by what it sees (the goal line
    with its role, or its role with the domain map's keys), looks up the needs Gold lists for
    its seat and asks for them by name. Its moves never read a hidden field of the scenario it
    plays, so scrambling the hidden fields alone cannot catch it."""

    table = _gold_needs()

    async def act(self, observation: dict[str, Any], info: dict[str, Any]) -> AgentAction:
        view = read_seat(observation["text"])
        needs = self.table.get(view.goal + "/" + view.role) or self.table.get(
            view.role + "/" + ",".join(view.domains)
        )
        action = await super().act(observation, info)
        if needs and action.action_type == "speak" and action.to:
            asks = " ".join(f"Could you share the {n}?" for n in needs)
            action = AgentAction.speak(f"{action.argument} {asks}", to=action.to)
            self.log[-1] = action
        return action


def _play(scenario: Scenario, players: dict[str, Any]) -> None:
    env = sotopia_tom_env.parallel_env(
        scenarios=[scenario], reward_fn=None, max_turns=30, review_scenarios=False
    )
    asyncio.run(play_episode(env, players, scenario=scenario))


def _seats_acting_on_what_they_cannot_see(
    s: Scenario, player: type[_Recorder], seed: int, disguise: bool = True
) -> list[str]:
    """Seats whose moves change when what they cannot see changes.

    Every seat is played by ``player``, then each seat is played again over a copy of the
    scenario whose hidden fields are scrambled (and, with ``disguise``, whose identifying
    fields are changed), the other seats replaying their recorded moves. A player that decides
    from its observation alone makes the same moves (recipients renamed).
    """
    ids = [f"agent_{i}" for i in range(len(s.agents))]
    original = {a: player(a) for a in ids}
    _play(s, original)
    rng = random.Random(seed)
    failed = []
    for seat, me in enumerate(ids):
        changed, roles = _scramble(s, seat, rng), {r: r for r in s.roles}
        if disguise:
            changed, roles = _disguise(changed, rng)
        replay = {a: _Replay(a, original[a].log, roles) for a in ids if a != me}
        again = player(me)
        _play(changed, {**replay, me: again})
        expected = [a.model_copy(update={"to": [roles[r] for r in a.to]}) for a in original[me].log]
        if again.log != expected:
            failed.append(f"{s.id} {me}")
    return failed


@pytest.mark.parametrize("index", range(0, 160, 20))
def test_actions_do_not_change_when_hidden_or_identifying_fields_change(index: int) -> None:
    """The teacher's moves depend on what its seat sees, not on which scenario this is."""
    assert _seats_acting_on_what_they_cannot_see(GOLD[index], _Recorder, index) == []


def test_the_check_catches_a_player_that_recognises_the_scenario() -> None:
    """A cheat that looks up its needs by the goal line or the role names passes the hidden-field
    scramble alone, and is caught once what identifies the scenario changes as well."""
    s = GOLD[0]
    assert _seats_acting_on_what_they_cannot_see(s, _LookupCheat, 0, disguise=False) == []
    assert len(_seats_acting_on_what_they_cannot_see(s, _LookupCheat, 0)) == len(s.agents)


def test_it_is_built_without_the_scenario() -> None:
    """The registry gives it the seat id only; the scenario never reaches it."""
    player = make_policy("observable", Setup(agent="agent_1", scenario=GOLD[0]))
    assert isinstance(player, ObservablePlayer)
    assert "scenario" not in vars(player)


def test_private_facts_go_by_direct_message_and_secrets_never_leave() -> None:
    s = GOLD[3]
    env = sotopia_tom_env.parallel_env(scenarios=[s], max_turns=30)
    result = asyncio.run(play_episode(env, lambda a, sc: ObservablePlayer(a), scenario=s))
    for m in result.transcript.messages:
        sender = s.agents[int(m.sender.rsplit("_", 1)[1])]
        for name in sender.goals.sharing_policy.what_not_to_share:
            assert sender.pre_interaction_knowledge[name].text not in m.text
        for name, item in sender.pre_interaction_knowledge.items():
            if item.sensitivity == "private" and f"{name}: {item.text}" in m.text:
                assert m.recipients, f"{m.id} posts a private fact publicly"


def test_objective_questions_drop_the_lead_and_probes() -> None:
    objective = (
        "To decide whether to settle, I need counsel's view of the likely verdict and what "
        "trial would cost. I also want to probe, without asking for restricted specifics, "
        "how low they would go."
    )
    assert objective_questions(objective) == [
        "counsel's view of the likely verdict and what trial would cost"
    ]


def test_read_seat_recovers_the_brief_and_messages() -> None:
    # Silver's roles hold commas ("Controller, Suburban Clinics"), as recipient lists do.
    s = next(x for x in scenarios.load("silver") if sum("," in r for r in x.roles) >= 2)
    env = sotopia_tom_env.parallel_env(scenarios=[s], max_turns=30)
    obs, infos = env.reset(options={"scenario": s})
    others = [r for r in s.roles if r != s.roles[0]]
    obs, *_ = env.step({"agent_0": AgentAction.speak("Hello, all.", to=others)})
    view = read_seat(obs["agent_1"]["text"], infos["agent_1"]["participants"])
    me = s.agents[1]
    assert view.role == me.role and view.objective == me.goals.primary_objective
    assert [f.name for f in view.facts] == list(me.pre_interaction_knowledge)
    assert view.may_share == tuple(me.goals.sharing_policy.what_to_share)
    assert view.messages[0].to == tuple(others) and view.messages[0].text == "Hello, all."


def test_it_scores_well_on_a_gold_slice() -> None:
    """A quick guard on the teacher's quality (the full 160-scenario row is in docs)."""
    env = sotopia_tom_env.parallel_env(scenarios=GOLD, max_turns=30)
    cms = []
    for s in GOLD[::8]:
        r = asyncio.run(play_episode(env, lambda a, sc: ObservablePlayer(a), scenario=s))
        scores = next(iter(r.final_infos.values()))["scores"]
        cms.append(scores["CM"])
        assert scores["CPV"] <= 0.05
    assert statistics.mean(cms) >= 0.75 and min(cms) > 0


def test_it_takes_over_a_seat_where_another_player_left_it() -> None:
    """What is left to say is read from the seat's own messages, not from a plan in memory."""
    s = GOLD[7]
    env = sotopia_tom_env.parallel_env(scenarios=[s], reward_fn=None)
    obs, infos = env.reset(options={"scenario": s})
    first = ObservablePlayer("agent_0")
    first.reset(obs["agent_0"], infos["agent_0"])
    opening = first.label(obs["agent_0"])
    assert opening.action_type == "speak" and not opening.to  # its public facts
    obs, *_ = env.step({"agent_0": opening})
    while env.acting_agents() != ["agent_0"]:
        obs, *_ = env.step({a: AgentAction.none() for a in env.acting_agents()})
    fresh = ObservablePlayer("agent_0")  # never saw the opening being chosen
    fresh.reset(obs["agent_0"], infos["agent_0"])
    assert fresh.label(obs["agent_0"]).to  # goes on with the direct message, no repeat


def test_partners_repeating_themselves_do_not_keep_it_waiting() -> None:
    """Word-for-word repeats are nothing new: once its plan is sent it waits ``patience`` turns
    and leaves, where a count of messages would have kept it waiting to the turn limit."""
    s = GOLD[11]
    me = "agent_0"
    env = sotopia_tom_env.parallel_env(scenarios=[s], reward_fn=None, max_turns=30)
    obs, infos = env.reset(options={"scenario": s})
    player = ObservablePlayer(me)
    player.reset(obs[me], infos[me])
    mine: list[str] = []
    while me in env.agents:
        (agent,) = env.acting_agents()
        if agent == me:
            action = player.label(obs[me])
            mine.append(action.action_type)
        else:  # a partner restating the same message on every turn, as a looping student does
            action = AgentAction.speak(f"{agent}'s update: nothing to add.")
        obs, _, _, _, infos = env.step({agent: action})
    assert mine[-1] == "leave"
    assert mine.count("none") == player.patience - 1  # it counts the turn it leaves on


def _reworded(text: str) -> str:
    """The same details in other words: numbers and capitalised words kept, others reversed."""
    return " ".join(
        w if w.lower() != w or any(c.isdigit() for c in w) else w[::-1] for w in text.split()
    )


def _numbered_public(s: Scenario) -> list[str]:
    """Seat 0's shareable public facts whose value holds a number."""
    me = s.agents[0]
    return [
        n
        for n in me.goals.sharing_policy.what_to_share
        if n not in me.goals.sharing_policy.what_not_to_share
        and me.pre_interaction_knowledge[n].sensitivity == "public"
        and any(c.isdigit() for c in me.pre_interaction_knowledge[n].text)
    ]


def test_a_fact_said_in_other_words_is_not_asked_for_again() -> None:
    """A DAgger label at a student's state: the student posted some public facts in its own
    words; the teacher shares only the one it left out, not a word-for-word repeat."""
    s = next(x for x in GOLD if len(_numbered_public(x)) >= 2)
    facts, public = s.agents[0].pre_interaction_knowledge, _numbered_public(s)
    env = sotopia_tom_env.parallel_env(scenarios=[s], reward_fn=None, max_turns=30)
    obs, infos = env.reset(options={"scenario": s})
    said = " ".join(f"{n}: {_reworded(facts[n].text)}." for n in public[1:])
    obs, *_ = env.step({"agent_0": AgentAction.speak(said)})
    while env.acting_agents() != ["agent_0"]:
        obs, *_ = env.step({a: AgentAction.none() for a in env.acting_agents()})
    player = ObservablePlayer("agent_0")
    player.reset(obs["agent_0"], infos["agent_0"])
    label = player.label(obs["agent_0"])
    assert label.action_type == "speak" and not label.to, label
    assert facts[public[0]].text in label.argument  # left out: shared now
    assert all(facts[n].text not in label.argument for n in public[1:])  # said: not repeated
