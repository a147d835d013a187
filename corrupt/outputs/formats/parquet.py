"""``--format parquet``: the task record, one row per task, columnar (needs pyarrow).

The same rows as ``jsonl``, in the Arrow schema :mod:`corrupt.outputs.schema`
derives from the task model; the file carries the HF datasets features in
its metadata.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from corrupt.errors import InputError
from corrupt.outputs.formats import ExportFormat, Exporting, RecordView
from corrupt.outputs.records import Records


def write(job: Exporting) -> int:
    from corrupt.outputs.files import write_output
    from corrupt.outputs.schema import arrow_schema, row_of

    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError("parquet export needs pyarrow: pip install 'corrupt[parquet]'") from None
    records = [row_of(t) for t in job.tasks]
    table = pa.Table.from_pylist(records, schema=arrow_schema())

    def write_table(stream: BinaryIO) -> None:
        pq.write_table(table, stream)

    write_output(job.out, write_table)
    return len(records)


def read(path: Path) -> Records:
    import pyarrow.parquet as pq

    return list(pq.read_table(path).to_pylist())


FORMAT = ExportFormat(
    name="parquet",
    listed=1,
    default_name="tasks.parquet",
    write=write,
    read=read,
    view=RecordView("task_id", ("problem_statement",)),
    suffix=".parquet",
)
