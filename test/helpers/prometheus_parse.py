"""Reads a scrape in the Prometheus text format on stdin and prints it as JSON, parsed by the
official Prometheus client's parser (prometheus_client.parser). A line it cannot read fails the
run, with the parser's error on stderr."""
import json
import math
import sys

from prometheus_client.parser import text_string_to_metric_families


def number(value):
    return value if math.isfinite(value) else str(value)


families = []
for family in text_string_to_metric_families(sys.stdin.read()):
    families.append({
        "name": family.name,
        "type": family.type,
        "samples": [{"name": s.name, "labels": s.labels, "value": number(s.value)} for s in family.samples],
    })
json.dump(families, sys.stdout)
