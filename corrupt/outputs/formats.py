"""The export formats, apart from their writers so that the CLI names them without importing those."""

from __future__ import annotations

from enum import StrEnum


class ExportFormat(StrEnum):
    JSONL = "jsonl"  # our task records
    PARQUET = "parquet"  # our task records, columnar
    SWEBENCH = "swebench"  # SWE-bench 5 instances, per-task images
    SWESMITH = "swesmith"  # SWE-smith instances, profile and image
    HARBOR = "harbor"  # Harbor task folders
    PDB = "pdb"  # PDB records, one per corrupted file, with its edit script
    GOLD = "gold"  # SWE-bench predictions holding the fix patches (for corrupt score)
