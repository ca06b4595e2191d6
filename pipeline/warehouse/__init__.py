"""The warehouse: every recorded game in one DuckDB file, to query and export.

* :mod:`pipeline.warehouse.load` -- replay inputs and write them in batches;
* :mod:`pipeline.warehouse.query` -- read-only SQL with output formats;
* :mod:`pipeline.warehouse.export` -- every table as Parquet;
* :mod:`pipeline.warehouse.api` -- :class:`Warehouse` for notebooks.

Tables are defined in ``schemas/warehouse.sql`` (package ``tricklog_schemas``)
and documented in ``docs/warehouse.md``.
"""
