"""Project-wide test settings."""

# The fixture repositories under tests/fixtures carry their own pytest suites
# (some deliberately hostile: they sleep forever or eat memory). They are run
# by the tests through corrupt's sandboxed runner, never collected here.
collect_ignore_glob = ["fixtures/*"]
