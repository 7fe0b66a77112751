"""numba's cache for code run from an egg (a zip archive named ``*.egg``), as Scrapyd runs a
project.

Recent numba (``ZipCacheLocator``) caches the functions of a module inside a ``*.zip`` archive,
but not those of an egg, so every Scrapyd job compiled the dedup loops
(:mod:`wackycrawl.dedup.tables`) again: 5-30 s of CPU, by the machine. :func:`register` adds
a locator that takes an egg's paths as numba's takes a zip's: the machine code goes to
``NUMBA_CACHE_DIR``, else numba's user cache directory (``$XDG_CACHE_HOME/numba``, else
``~/.cache/numba``), in a folder named after the module's path inside the egg, and numba
checks each entry against the hash of the module's source in the archive, so an egg whose
loops changed compiles them again. Where that directory cannot be made or written (no
writable home) the locator declines, and numba compiles without a cache as before.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

_registered = False


def egg_member(py_file: str) -> tuple[str, str] | None:
    """``(egg path, member path)`` when ``py_file`` (a module's ``__file__``) lies inside an
    existing ``*.egg`` file: ``/eggs/p/1.egg/pkg/m.py`` -> ``("/eggs/p/1.egg", "pkg/m.py")``;
    else None (an unpacked egg folder is a plain directory, cached as any module is)."""
    path = Path(py_file)
    for i, part in enumerate(path.parts[:-1]):
        archive = Path(*path.parts[: i + 1])
        if part.endswith(".egg") and archive.is_file():
            return str(archive), PurePosixPath(*path.parts[i + 1:]).as_posix()
    return None


def register() -> bool:
    """Add the egg locator to numba's cache locators, once; False where this numba has no
    ``ZipCacheLocator`` to build on (nothing changes then)."""
    global _registered
    if _registered:
        return True
    try:
        from numba.core import config
        from numba.core.caching import CacheImpl, ZipCacheLocator
    except ImportError:
        return False

    class EggCacheLocator(ZipCacheLocator):
        def __init__(self, py_func, py_file):
            super().__init__(py_func, py_file)
            if config.CACHE_DIR:  # NUMBA_CACHE_DIR
                self._cache_path = str(Path(config.CACHE_DIR,
                                            self.get_suitable_cache_subpath(py_file)))

        @staticmethod
        def _split_zip_path(py_file):
            if (found := egg_member(py_file)) is None:
                raise ValueError(f"no egg file in {py_file}")
            return found

        @classmethod
        def from_function(cls, py_func, py_file):
            if egg_member(py_file) is None:
                return None
            locator = cls(py_func, py_file)
            try:
                locator.ensure_cache_path()
            except OSError:  # no writable cache directory: compiled without a cache
                return None
            return locator

    CacheImpl._locator_classes.append(EggCacheLocator)
    _registered = True
    return True
