"""Outputs that appear under their final name only once they are complete.

A file is written as ``NAME.partial`` beside NAME and renamed to NAME by
:meth:`PartialFile.commit`; a folder of files (the new corpus of ``wackycrawl filter``,
``export --one-per-file``) is written into ``DIR.partial`` beside DIR and moved into DIR by
:meth:`PartialDir.commit` (renamed when DIR does not exist; else its files are moved in,
indexes before their TREC files, and what DIR held stays). Without a commit (an error, a
damaged input, Ctrl-C, SIGTERM) the partial output is removed when the ``with`` block
ends, so nothing that looks complete is left; one left by ``kill -9`` is replaced by the
next run writing the same output.
"""

from __future__ import annotations

import errno
import os
import shutil

PARTIAL = ".partial"
#: the file that marks a ``DIR.partial`` folder as one of ours (safe to remove)
MARK = ".wackycrawl-partial"


class PartialFile:
    """``with PartialFile(path) as out:`` write ``out.partial``, then ``out.commit()``.

    Entering creates the file's folder when it is missing (as :class:`PartialDir` creates
    its parents); raises OSError when it cannot be created."""

    def __init__(self, path: str):
        self.path, self.partial = path, path + PARTIAL
        self.committed = False

    def __enter__(self) -> PartialFile:
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        return self

    def commit(self) -> None:
        os.replace(self.partial, self.path)
        self.committed = True

    def __exit__(self, *exc) -> None:
        if not self.committed:
            try:
                os.remove(self.partial)
            except FileNotFoundError:
                pass


class PartialDir:
    """``with PartialDir(path) as out:`` write into ``out.partial``, then ``out.commit()``.

    Entering removes a ``DIR.partial`` left by an earlier run (one holding :data:`MARK`)
    and raises FileExistsError for one that is not ours."""

    def __init__(self, path: str):
        self.path = path
        self.partial = os.path.abspath(path) + PARTIAL
        self.committed = False

    def __enter__(self) -> PartialDir:
        if os.path.lexists(self.partial):
            if not os.path.isfile(os.path.join(self.partial, MARK)):
                raise FileExistsError(errno.EEXIST, "is in the way of the partial output and "
                                      "was not written by wackycrawl; move it away",
                                      self.partial)
            shutil.rmtree(self.partial)
        os.makedirs(self.partial)
        open(os.path.join(self.partial, MARK), "w").close()
        return self

    def commit(self) -> None:
        """Put the output in place (see the module doc)."""
        os.remove(os.path.join(self.partial, MARK))
        if not os.path.lexists(self.path):
            os.rename(self.partial, self.path)
        else:
            _move_into(self.partial, self.path)
            shutil.rmtree(self.partial)
        self.committed = True

    def __exit__(self, *exc) -> None:
        if not self.committed:
            shutil.rmtree(self.partial, ignore_errors=True)


def _move_into(source: str, target: str) -> None:
    """Move every file under ``source`` to the same place under ``target`` (made as
    needed); an index (``.idx.tsv``) before the other files of its folder."""
    for root, _, names in os.walk(source):
        dest = os.path.join(target, os.path.relpath(root, source))
        os.makedirs(dest, exist_ok=True)
        for name in sorted(names, key=lambda n: (not n.endswith(".idx.tsv"), n)):
            os.replace(os.path.join(root, name), os.path.join(dest, name))


def _inside(path: str, folder: str) -> bool:
    """``path`` is ``folder`` or lies under it (both resolved)."""
    return os.path.commonpath([path, folder]) == folder


def not_a_folder(output: str) -> str | None:
    """Why the output folder ``output`` cannot be written: it exists and is no folder (a
    file); else None. Checked before the work, which would otherwise fail at the end."""
    if os.path.lexists(output) and not os.path.isdir(output):
        return (f"{output} exists and is not a folder: give a new folder for -o "
                "(nothing written)")
    return None


def input_clash(output: str, inputs, files=()) -> str | None:
    """Why ``output`` (a file or folder a command is about to write) must not be written:
    it is one of the input ``files`` (the same file under any name), or is or lies inside a
    folder among the input paths ``inputs``; None when it is none of them. The message
    names ``output`` and that input."""
    real = os.path.realpath(output)
    try:
        st = os.stat(output)
        same = {(st.st_dev, st.st_ino)}
    except OSError:
        same = set()
    for name in (*inputs, *files):
        if os.path.isdir(name):
            if _inside(real, os.path.realpath(name)):
                where = "is" if real == os.path.realpath(name) else "lies inside"
                return f"{output} {where} the input folder {name}"
            continue
        try:
            st = os.stat(name)
            if (st.st_dev, st.st_ino) in same:
                return f"{output} is the input file {name}"
        except OSError:
            pass
        if os.path.realpath(name) == real:
            return f"{output} is the input file {name}"
    return None
