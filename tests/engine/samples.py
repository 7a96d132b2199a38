"""Template texts shared by the engine tests."""

NUMERIC = """\
slug: bandwidth-time
title: Time to read the weights
chapter: inference
objectives: [Divide bytes by bandwidth]
difficulty: 2
min_variants: 3
parameters:
  acc: {choice: [A100, H100, H200], catalog: accelerator}
  size: {range: [10, 40], step: 10}
  w: {value: "size * 1.0e9"}
prompt: |
  Read {{ w | B }} on the {{ acc }} at {{ acc.memory_bandwidth | B/s }}.
parts:
  - id: t
    kind: numeric
    answer: "w / acc.memory_bandwidth"
    unit: s
    plausible: [1.0e-4, 1.0]
    common_errors:
      - code: bits-for-bytes
        value: "8 * w / acc.memory_bandwidth"
        feedback: You read bits as bytes.
  - id: rate
    kind: numeric
    uses: [t]
    answer: "w / part_t"
    unit: B/s
    plausible: [1.0e11, 1.0e14]
hints:
  - after: 1
    part: t
    text: Bytes over bytes per second.
  - after: 3
    part: all
    text: The weights are {{ w | B }}.
solution: |
  It takes {{ part_t | s }}.
"""
