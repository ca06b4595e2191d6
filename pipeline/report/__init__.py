"""``tricklog report``: run the report SQL files, draw the charts, write the page.

The library behind the command is :func:`pipeline.report.render.write_report`.
"""
