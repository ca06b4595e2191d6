"""Test-wide settings: no per-example deadline for hypothesis (CI machines are shared
and noisy; speed is measured by bench/, never by tests)."""

from hypothesis import settings

settings.register_profile("tricklog", deadline=None)
settings.load_profile("tricklog")
