"""Forensics over Claude Code transcripts: stalls, loops and thresholds measured from data.

`scan_paths(paths, config) -> Report` is the whole pipeline (discovery, streaming, analysis);
`arcguard forensics` prints it, and benchmarks call it directly.
"""

from __future__ import annotations

from arcguard.forensics.report import Report
from arcguard.forensics.scan import scan_paths


__all__ = ["Report", "scan_paths"]
