"""Python source as every stage sees it: functions found by (file, def line), their
spans, libcst rewrites confined to one function, and line-exact edit scripts.

A target's identity is its file and the line of its ``def``; the dotted qualname
is a label for people (and the tail check that guards against a stale line).
"""
