"""The report definitions: one SQL file per report, shipped as ``tricklog_reports``.

Read them with ``importlib.resources.files("tricklog_reports")``; the runner is
``pipeline/report/run.py``.  See docs/reports.md.
"""
