"""The package's build compiles the message catalogues (`controller/language/locale/*/LC_MESSAGES/*.po`)
to `.mo` files beside them, so an install (the Pi's `pip install .`, a wheel) ships them compiled.
Everything else is in pyproject.toml; Babel is a build requirement there."""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

LOCALE = Path(__file__).resolve().parent / "controller" / "language" / "locale"


def compile_catalogues() -> None:
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for po in sorted(LOCALE.glob("*/LC_MESSAGES/*.po")):
        with po.open("rb") as f:
            catalog = read_po(f)
        with po.with_suffix(".mo").open("wb") as f:
            write_mo(f, catalog)


class BuildWithCatalogues(build_py):
    def run(self) -> None:
        compile_catalogues()
        super().run()


setup(cmdclass={"build_py": BuildWithCatalogues})
