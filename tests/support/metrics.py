"""Reading /metrics as Prometheus would: the exposition parsed with prometheus-client's own parser
into {(sample name, sorted labels): value}, and the difference between two scrapes."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def parse(text: str) -> Samples:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def moved(before: Samples, after: Samples, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    """Each series of `name` that changed between two scrapes, with how much."""
    deltas = {}
    for (sample, labels), now in after.items():
        if sample == name and now != before.get((sample, labels), 0.0):
            deltas[labels] = now - before.get((sample, labels), 0.0)
    return deltas


def labels(**pairs: str) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(pairs.items()))
