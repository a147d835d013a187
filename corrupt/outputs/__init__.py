"""What users take away from a build: exports in each harness's format, filtered
slices, and a task materialised as a repository (or a container image)."""
