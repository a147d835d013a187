"""The evaluation loop: grading a solver's patches against a build's tasks.

``patch`` reads and applies a patch, ``pdb`` aligns its edits with the ground
truth (PDB's precision), ``score`` runs the suites and writes one
:class:`~corrupt.scoring.models.Score` per prediction, ``summary`` aggregates.
"""
