"""The Ray executor of ``corrupt build-many``: each repository's build as one Ray task.

A task gets the :class:`~corrupt.pipeline.many.Job` (plain data) and returns a
:class:`~corrupt.pipeline.many.RepoRecord`, so a worker needs nothing of the
driver but the code: every node runs the same corrupt, reaches the
repositories the specs name and writes to the root (a shared file system on
a real cluster). Builds are deterministic, so the task ids are those of the
local executor. Events travel through a small actor the driver drains while
it waits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from corrupt.errors import InputError
from corrupt.pipeline.many import Event, Job, RepoRecord, Send, failed_record, run_job
from corrupt.tasks.ray_cluster import import_ray, ray_cluster

POLL_SECONDS = 0.5  # how often the driver drains events while builds run


class _Inbox:
    """The events of every running build, in the order each build sent them."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def put(self, event: Event) -> None:
        self.events.append(event)

    def take(self) -> list[Event]:
        taken, self.events = self.events, []
        return taken


def _build(job: Job, inbox: Any) -> RepoRecord:
    """The body of a Ray task: the build, its events sent to the driver's inbox."""
    import ray

    last: list[Any] = []  # the latest put: one caller's calls to an actor run in order

    def send(event: Event) -> None:
        last[:] = [inbox.put.remote(event)]

    record = run_job(job, send)
    ray.get(last)  # every event is in the inbox before the record is back
    return record


class RayExecutor:
    """Builds as Ray tasks of ``jobs`` CPUs each, on the cluster at ``address`` (else a local one)."""

    def __init__(self, address: str | None, jobs: int) -> None:
        self.ray, self.address, self.cpus = import_ray(), address, jobs

    def run(self, jobs: list[Job], send: Send, done: Callable[[RepoRecord], None]) -> None:
        if not jobs:
            return
        with ray_cluster(self.address, self.cpus):
            self._run(jobs, send, done)

    def _run(self, jobs: list[Job], send: Send, done: Callable[[RepoRecord], None]) -> None:
        ray = self.ray
        cpus = ray.cluster_resources().get("CPU", 0)
        if cpus < self.cpus:
            raise InputError(
                f"--jobs {self.cpus} asks each Ray task for {self.cpus} CPUs; the cluster has {cpus:g}"
            )
        inbox = ray.remote(num_cpus=0)(_Inbox).remote()
        build = ray.remote(num_cpus=self.cpus, max_retries=0)(_build)
        running = {build.remote(job, inbox): job for job in jobs}
        try:
            while running:
                ready, _ = ray.wait(list(running), num_returns=1, timeout=POLL_SECONDS)
                for event in ray.get(inbox.take.remote()):
                    send(event)
                for ref in ready:
                    job = running.pop(ref)
                    try:
                        record = ray.get(ref)
                    except ray.exceptions.RayError as exc:  # the worker died: no record came back
                        record = failed_record(job, "ray", f"{type(exc).__name__}: {exc}")
                    done(record)
        except BaseException:  # Ctrl-C above all: stop the builds, the next run resumes them
            for ref in running:
                ray.cancel(ref, force=True)
            raise
