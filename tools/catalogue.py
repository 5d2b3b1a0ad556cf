"""The message catalogues (`controller/language/locale/`): bring them up to date, compile them, check them.

    python tools/catalogue.py update    # add the sources' new messages to every .po, drop the ones gone
    python tools/catalogue.py check     # list what is missing or untranslated (exit 1 when anything is)
    python tools/catalogue.py compile   # write the .mo files beside the .po files (make setup does it)

A new sentence for people is written `_("...")` in Python (`from controller.language import _`) or in
the page's JavaScript, and `data-i18n` on an element of the page's HTML; `update` adds it to the
English catalogue (filled in) and the French one (empty); translate it in
`controller/language/locale/fr/LC_MESSAGES/*.po` (French typography's no-break spaces are put in by
`update`), then `check` lists nothing and the suite's catalogue test passes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.language import catalogue  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("update", "check", "compile"))
    parser.add_argument("--only", help="compile: this .po file only (make's rule)")
    args = parser.parse_args(argv)
    try:
        if args.action == "update":
            for path, (added, dropped) in catalogue.update().items():
                print(f"{path}: {added} added, {dropped} dropped")
            args.action = "check"
        if args.action == "compile":
            for compiled in catalogue.compile_all(Path(args.only).resolve() if args.only else None):
                print(f"compiled {compiled.relative_to(catalogue.ROOT)}")
            return 0
        found = catalogue.problems()
        for line in found:
            print(line)
        print(f"{len(found)} problems" if found else "the catalogues are complete")
        return 1 if found else 0
    except BrokenPipeError:
        return 141


if __name__ == "__main__":
    sys.exit(main())
