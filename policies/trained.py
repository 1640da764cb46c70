"""Trained players: a LoRA adapter served next to its base model, playing a prompted strategy.

A policy named ``trained:PATH`` plays with the adapter in ``PATH`` (a folder holding
``adapter_config.json``, as ``training.sft`` and ``training.grpo`` save it) through the same
prompt builder and reply schema as the prompted players, with the strategy and player options
its card (``sotopia_tom.json``, written by training) says it was trained with;
``trained:PATH+cot`` plays another strategy's prompt (``basic`` when there is no card). The local vLLM server loads every adapter the
run names (``--enable-lora``) and each request names its adapter as the model. Against a server
you run yourself (``--base-url``), ``PATH`` is the adapter's served name.

On a LoRA-enabled server the base model's own requests go through a zero adapter
(:data:`BASE_ADAPTER`): vLLM's CPU LoRA kernels index the adapter weights with the slot of
each token and give base-model tokens slot -1, which picks the last loaded adapter, so a
prompted player batched with a trained one answered with the trained weights. A zero adapter
(every weight 0) adds nothing to the base model and gives each token a real slot.

``bench`` plays its episodes one model at a time instead and serves each adapter merged into
its base model (:func:`merged_model`): its policies never share an episode, and on CPU vLLM's
LoRA path took 13x the wall time of the merged weights for the same requests
(docs/performance.md).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from policies.prompted import STRATEGIES

PREFIX = "trained:"
CARD = "sotopia_tom.json"
"""The file next to trained weights that says how the player was trained (strategy, options)."""
BASE_ADAPTER = "base-model-zero-lora"  # the served name of the zero adapter
LORA_RANKS = (8, 16, 32, 64, 128, 256, 320, 512)  # the ranks vLLM accepts for --max-lora-rank


@dataclass(frozen=True)
class TrainedSpec:
    """A parsed ``trained:PATH[+STRATEGY]`` policy name."""

    path: str
    chosen: str | None = None  # a strategy named after "+", which wins over the card's

    @property
    def strategy(self) -> str:
        """The strategy it plays: the one named, else its card's, else ``basic``."""
        return self.chosen or self.card().get("strategy", "basic")

    @property
    def options(self) -> tuple[str, ...]:
        """The player options it was trained with (its card's), e.g. ``("compact",)``."""
        return tuple(self.card().get("options", ()))

    def card(self) -> dict:
        """The training card saved with the weights, or ``{}`` (older adapters have none)."""
        path = Path(self.path) / CARD
        return json.loads(path.read_text()) if path.is_file() else {}

    @property
    def served_name(self) -> str:
        """The model name requests send: the adapter's folder name and a hash of its path."""
        folder = Path(self.path)
        if not folder.is_dir():
            return self.path  # a name served by someone else's server
        digest = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:8]
        return f"{served_slug(folder)}-{digest}"

    def fingerprint(self) -> str | None:
        """A hash of the adapter's files (config, weights, card); ``None`` for a served name.

        Two folders with the same files have the same fingerprint; retraining into the same
        folder changes it, so a resumed benchmark can tell the weights its episodes came from.
        """
        folder = Path(self.path)
        if not folder.is_dir():
            return None
        h = hashlib.sha256()
        for name in ("adapter_config.json", "adapter_model.safetensors", CARD):
            if (folder / name).is_file():
                h.update(name.encode() + b"\0" + (folder / name).read_bytes())
        return h.hexdigest()[:16]

    def rank(self) -> int:
        """The adapter's LoRA rank, from its ``adapter_config.json``."""
        return int(self._adapter_config()["r"])

    def base(self) -> str:
        """The base model to load under the adapter, resolved on this machine.

        An adapter records its base as the absolute folder it was trained from. When that is
        the embedded default model's cache folder of another machine or user (or of this one
        before the model is first converted), the embedded default is used, converted on first
        use; any other recorded folder or hub id is taken as it is.
        """
        from sotopia_tom_env.llm.models import DEFAULT_MODEL_NAME, resolve_model

        recorded = self._adapter_config()["base_model_name_or_path"]
        if Path(recorded).name == DEFAULT_MODEL_NAME and not Path(recorded).is_dir():
            return resolve_model(None)
        return resolve_model(recorded)

    def _adapter_config(self) -> dict:
        return json.loads((Path(self.path) / "adapter_config.json").read_text())


def parse_trained(name: str) -> TrainedSpec | None:
    """``TrainedSpec`` for a ``trained:`` policy name, ``None`` for any other name.

    Raises:
        ValueError: for an empty path or an unknown strategy.

    Example:
        >>> parse_trained("trained:runs/sft+cot")
        TrainedSpec(path='runs/sft', chosen='cot')
        >>> parse_trained("basic") is None
        True
    """
    if not name.startswith(PREFIX):
        return None
    path, _, strategy = name[len(PREFIX) :].rpartition("+")
    chosen: str | None = strategy
    if not path:  # no "+": the whole rest is the path
        path, chosen = strategy, None
    if not path:
        raise ValueError(f"{name!r}: give the adapter folder after 'trained:'")
    if chosen is not None and chosen not in STRATEGIES:
        raise ValueError(f"{name!r}: unknown strategy {chosen!r}; choose from {STRATEGIES}")
    return TrainedSpec(path, chosen)


def fingerprints(policies: Iterable[str]) -> dict[str, str]:
    """The :meth:`TrainedSpec.fingerprint` of each trained policy with a local adapter folder."""
    specs = {name: parse_trained(name) for name in policies}
    return {name: fp for name, s in specs.items() if s and (fp := s.fingerprint()) is not None}


def check_local(spec: TrainedSpec) -> None:
    """Raise ``ValueError`` unless ``spec.path`` is an adapter folder the local server can load."""
    if not (Path(spec.path) / "adapter_config.json").is_file():
        raise ValueError(
            f"trained:{spec.path}: not a LoRA adapter folder (no adapter_config.json); "
            "pass the output_dir of training.sft or training.grpo"
        )


def lora_server_args(specs: Iterable[TrainedSpec]) -> list[str]:
    """The vLLM arguments that load each adapter under its served name."""
    specs = list({s.served_name: s for s in specs}.values())
    if not specs:
        return []
    rank = max(s.rank() for s in specs)
    max_rank = next(r for r in LORA_RANKS if r >= rank)
    modules = [f"{s.served_name}={Path(s.path).resolve()}" for s in specs]
    modules.append(f"{BASE_ADAPTER}={zero_adapter(max(specs, key=TrainedSpec.rank).path)}")
    return ["--enable-lora", "--max-lora-rank", str(max_rank), "--max-loras", str(len(modules)),
            "--lora-modules", *modules]  # fmt: skip


def merged_model(spec: TrainedSpec, base: str) -> Path:
    """The base model folder ``base`` with ``spec``'s adapter merged in (cached, built once).

    The cache key covers the adapter's files and the base folder, so retraining into the same
    folder builds a new merge. Needs the ``train`` extra (peft).
    """
    from sotopia_tom_env.llm.models import cache_dir

    adapter = Path(spec.path)
    h = hashlib.sha256(f"{Path(base).resolve()}\0{spec.fingerprint()}".encode())
    target = cache_dir() / "merged" / f"{served_slug(adapter)}-{h.hexdigest()[:16]}"
    if not target.is_dir():
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
        _merge(adapter, Path(base), staging)
        with contextlib.suppress(OSError):  # another run may have built it meanwhile
            staging.rename(target)
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _merge(adapter: Path, base: Path, into: Path) -> None:
    """Write ``base`` with ``adapter`` merged into its weights, tokenizer included, to ``into``."""
    try:
        from peft import PeftModel
        from transformers import AutoModelForCausalLM
    except ImportError as e:
        raise ImportError(
            "serving a trained adapter merged needs peft: pip install 'sotopia-tom-env[train]'"
        ) from e
    for f in base.iterdir():  # tokenizer, chat template, generation config
        if f.is_file() and not f.name.startswith("model") and f.suffix != ".safetensors":
            shutil.copy2(f, into / f.name)
    model = AutoModelForCausalLM.from_pretrained(str(base), dtype="auto")
    merged = PeftModel.from_pretrained(model, str(adapter)).merge_and_unload()
    merged.save_pretrained(str(into))


def served_slug(folder: Path) -> str:
    """A folder's name made safe for a served model name."""
    return re.sub(r"[^A-Za-z0-9_.-]", "-", folder.name)


def zero_adapter(like: str | Path) -> Path:
    """A LoRA adapter shaped like the one in ``like`` with every weight 0 (cached, built once)."""
    from safetensors.torch import load_file, save_file

    from sotopia_tom_env.llm.models import cache_dir

    source = Path(like)
    config = (source / "adapter_config.json").read_bytes()
    weights = load_file(str(source / "adapter_model.safetensors"))
    shapes = json.dumps(sorted((k, list(v.shape)) for k, v in weights.items()))
    digest = hashlib.sha256(config + shapes.encode()).hexdigest()[:16]
    target = cache_dir() / "zero-lora" / digest
    if not target.is_dir():
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{digest}-", dir=target.parent))
        (staging / "adapter_config.json").write_bytes(config)
        save_file({k: v.new_zeros(v.shape) for k, v in weights.items()},
                  str(staging / "adapter_model.safetensors"))  # fmt: skip
        with contextlib.suppress(OSError):  # another run may have built it meanwhile
            staging.rename(target)
        shutil.rmtree(staging, ignore_errors=True)
    return target
