"""Test-wide settings, for the tests and the docstrings alike.

- No per-example deadline for hypothesis: CI machines are shared and noisy, and
  speed is measured by bench/, never by tests.
- The temporary folder (``TMPDIR``, for this process and the commands it starts) is
  one in pytest's own base folder, which pytest prunes: the docstrings' folders,
  the spool of a load killed on purpose and Dask's scratch space stay out of /tmp.
- The fast path's kernels are compiled before any test, as on a machine that ran
  tricklog before: else runs would go without the fast path while they compile
  (``pipeline.kernels``), and the tests comparing it with the reference replay
  would compare the replay with itself.
- ``pipeline/without_pandas.py`` is not collected for docstrings: importing it
  sets pandera up without pandas in the process that imports it
  (``tests/test_parallel.py`` imports it in processes of its own); nor is
  ``pipeline/games/workers.py``, whose import imports the games' kernels.
"""

import tempfile
from collections.abc import Iterator

import pytest
from hypothesis import settings

settings.register_profile("tricklog", deadline=None)
settings.load_profile("tricklog")

collect_ignore = ["pipeline/without_pandas.py", "pipeline/games/workers.py"]


@pytest.fixture(autouse=True, scope="session")
def _temporary_folder_in_basetemp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    folder = str(tmp_path_factory.mktemp("tmp"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TMPDIR", folder)
        patch.setattr(tempfile, "tempdir", folder)
        yield


@pytest.fixture(autouse=True, scope="session")
def _kernels_compiled() -> None:
    from pipeline.kernels import compile_all

    compile_all()
