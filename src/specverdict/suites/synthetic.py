"""A stage of fixed token lengths: prompts cut to length by the engine's own tokenizer, answers
asked for a fixed number of tokens with ``ignore_eos`` (design note 039).

``samples()`` is offline and deterministic: each sample's lengths (drawn from the section's
``range_ratio``) and, for the ``corpus`` source, the passage its prompt is cut from. The cut
itself needs the target's tokenizer, which only the engine has, so it happens when the run
starts (``make_prompts``, called by the runner once the server answers): the passage is tokenized,
its first ``input_tokens`` ids detokenized; for the ``random`` source, ids are drawn uniformly
from those the tokenizer gives the whole corpus. A baseline and its candidates serve the same
target and so get the same prompts; each sample records its prompt's digest
(``SampleExtra.prompt_sha256``) so that the verdict can check it, not assume it.

The corpus is the reference solutions of ``synth-function@1`` (written for specverdict), code
the shipped reference models know, so that the corpus source's acceptance is that of code.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import random
from typing import TYPE_CHECKING, Any, ClassVar

from specverdict.campaign.spec import SyntheticRef
from specverdict.suites.base import Sample, Suite
from specverdict.suites.synth.data import load_eval

if TYPE_CHECKING:
    import httpx

    from specverdict.engines.tokens import TokenCounter

#: tokenize and detokenize calls in flight at once while prompts are cut: one, on one kept-alive
#: connection. llama.cpp's HTTP server holds a thread per kept-alive connection
#: (``--threads-http``), so more connections than threads wait for one to go idle; a call
#: costs milliseconds, so a thousand prompts are cut in seconds either way
CONCURRENT_CALLS = 1
#: passages are taken this many characters per wanted token (code runs 3-4 characters a token
#: in common tokenizers, fewer in small ones); a passage still short is repeated
CHARS_PER_TOKEN = 6


class SyntheticSample(Sample):
    """A sample of fixed lengths: its answer is asked for ``output_tokens`` tokens (with
    ``ignore_eos`` when the stage sends it); ``input_tokens`` is what ``make_prompts`` cuts the
    prompt to."""

    input_tokens: int
    output_tokens: int
    ignore_eos: bool = True

    def request_fields(self) -> dict[str, Any]:
        fields = super().request_fields()
        fields["max_tokens"] = self.output_tokens
        if self.ignore_eos:
            fields["ignore_eos"] = True
        return fields

    def prompt_sha256(self) -> str | None:
        return hashlib.sha256((self.prompt or "").encode()).hexdigest()


class PrepareError(RuntimeError):
    """The engine's tokenizer could not cut a prompt: the run fails before it measures."""


def corpus() -> list[str]:
    """The corpus's documents, in a fixed order: ``synth-function@1``'s reference solutions."""
    return [row["solution"] for row in load_eval("function")]


def draw_length(rng: random.Random, length: int, ratio: float) -> int:
    """``length`` itself, or uniformly in ``[L(1-r), L(1+r)]`` (at least 1), as vLLM's
    ``--random-range-ratio`` draws."""
    if ratio == 0:
        return length
    # rounded first: 100 * 1.1 is 110.00000000000001 in floating point, not above 110
    low = max(1, math.floor(round(length * (1 - ratio), 9)))
    return rng.randint(low, max(low, math.ceil(round(length * (1 + ratio), 9))))


class SyntheticSuite(Suite):
    """The suite of a stage's ``synthetic`` section; it has no scorer (its verdicts are speed
    and acceptance, as a dataset without one)."""

    version = 1
    licence = "Apache-2.0, as specverdict"
    needs_tokenizer: ClassVar[bool] = True

    def __init__(self, ref: SyntheticRef, stage: str) -> None:
        self.ref = ref
        self.stage = stage
        self.name = ref.suite_name
        self.source = (
            f"{ref.prompts} prompts of {ref.input_tokens} tokens cut from {ref.corpus}'s "
            "reference solutions"
            if ref.source == "corpus"
            else f"{ref.prompts} prompts of {ref.input_tokens} random tokens"
        )
        self._vocabulary: list[int] | None = None

    def samples(self) -> list[Sample]:
        ref = self.ref
        rng = random.Random(ref.seed)
        docs = corpus()
        out: list[Sample] = []
        for i in range(ref.prompts):
            n_in = draw_length(rng, ref.input_tokens, ref.range_ratio)
            n_out = draw_length(rng, ref.output_tokens, ref.range_ratio)
            start = rng.randrange(len(docs))
            prompt = passage(docs, start, n_in * CHARS_PER_TOKEN) if ref.source == "corpus" else ""
            out.append(
                SyntheticSample(
                    id=f"synthetic-{i:05d}",
                    endpoint="completions",
                    prompt=prompt,
                    input_tokens=n_in,
                    output_tokens=n_out,
                    ignore_eos=ref.ignore_eos,
                    labels={"category": ref.source},
                )
            )
        return out

    async def make_prompts(
        self, samples: list[Sample], client: httpx.AsyncClient, counter: TokenCounter
    ) -> list[Sample]:
        """``samples`` with their prompts cut to length by the engine's tokenizer; raises
        ``PrepareError`` naming the endpoint when it cannot."""
        if self.ref.source == "random" and self._vocabulary is None:
            ids = await counter.ids(client, "\n\n".join(corpus()))
            if not ids:
                raise PrepareError(f"{counter.source} gave no token ids for the corpus")
            self._vocabulary = sorted(set(ids))
        gate = asyncio.Semaphore(CONCURRENT_CALLS)

        async def one(sample: Sample) -> Sample:
            assert isinstance(sample, SyntheticSample)
            async with gate:
                text = await self._cut(sample, client, counter)
            return sample.model_copy(update={"prompt": text})

        return list(await asyncio.gather(*(one(s) for s in samples)))

    async def _cut(
        self, sample: SyntheticSample, client: httpx.AsyncClient, counter: TokenCounter
    ) -> str:
        n = sample.input_tokens
        if self.ref.source == "random":
            assert self._vocabulary is not None
            rng = random.Random(f"{self.ref.seed}:{sample.id}")
            ids = [rng.choice(self._vocabulary) for _ in range(n)]
        else:
            text = sample.prompt or ""
            got = await counter.ids(client, text)
            if got is None:
                raise PrepareError(f"{counter.source} gave no token ids for {sample.id}")
            if 0 < len(got) < n:  # a short passage, repeated until it is long enough
                got = got * math.ceil(n / len(got))
            ids = got[:n]
        cut = await counter.text(client, ids)
        if cut is None:
            raise PrepareError(
                f"{counter.detokenize_url} did not turn token ids into text: a synthetic stage "
                "cuts its prompts with the engine's detokenize endpoint"
            )
        return cut


def passage(docs: list[str], start: int, chars: int) -> str:
    """Documents from ``start`` on (wrapping around), joined by blank lines, until at least
    ``chars`` characters."""
    parts: list[str] = []
    size, i = 0, start
    while size < chars:
        doc = docs[i % len(docs)]
        size += len(doc) + (2 if parts else 0)
        parts.append(doc)
        i += 1
    return "\n\n".join(parts)
