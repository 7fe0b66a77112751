"""C26: multi-member gzip files, random access by index, truncation, checks."""

import gzip
import zlib

import pytest

from wackycrawl.trec import reader
from wackycrawl.trec.format import TrecDoc, format_doc, parse_doc

TEXTS = ["The town council met on Tuesday to discuss the old railway station.",
         "Spring market opens on the station square next Saturday.",
         "The old bridge was repaired in 1998 and widened in 2011."]


def _docs() -> list[bytes]:
    return [format_doc(**{**vars(TrecDoc(url=f"http://{c}.example.test/{i}", paragraphs=[t])),
                          "docno": f"WACKY-20261130-000{i}"})
            for i, (c, t) in enumerate(zip("abc", TEXTS), 1)]


@pytest.fixture
def c26(tmp_path):
    """corpus-00000 (3 members + index), corpus-00001 (last 25 bytes cut), corpus-00002 (one
    gzip stream), like the C26 case files."""
    members = [gzip.compress(d, mtime=0) for d in _docs()]
    whole = tmp_path / "corpus-00000.trec.gz"
    whole.write_bytes(b"".join(members))
    offsets = [sum(len(m) for m in members[:i]) for i in range(3)]
    (tmp_path / "corpus-00000.trec.gz.idx.tsv").write_text(reader.INDEX_HEADER + "".join(
        f"WACKY-20261130-000{i + 1}\t{offsets[i]}\t{len(members[i])}\n" for i in range(3)))
    cut = tmp_path / "corpus-00001-truncated.trec.gz"
    cut.write_bytes(whole.read_bytes()[:-25])
    single = tmp_path / "corpus-00002-single-member.trec.gz"
    single.write_bytes(gzip.compress(b"".join(_docs()), mtime=0))
    return tmp_path, offsets


def test_all_members_are_read_not_just_the_first(c26):
    path = str(c26[0] / "corpus-00000.trec.gz")
    data = c26[0].joinpath("corpus-00000.trec.gz").read_bytes()
    assert zlib.decompress(data, 31).count(b"<DOC>") == 1  # the single-stream trap
    docs = [doc for _, doc in reader.iter_docs(path)]
    assert [d.paragraphs[0] for d in docs] == TEXTS
    assert len(docs) == len(reader.read_index(path)) == 3


def test_random_access_returns_exactly_that_document(c26):
    directory, offsets = c26
    path = str(directory / "corpus-00000.trec.gz")
    entry = reader.read_index(path)[1]
    assert entry.offset == offsets[1]
    assert reader.get_doc(path, entry) == _docs()[1]
    with open(path, "rb") as f:  # seeking without the length reads one member only
        assert parse_doc(reader.read_member(f, offsets[2])).docno == "WACKY-20261130-0003"
    assert reader.find_doc(str(directory), "WACKY-20261130-0002") == (path, entry)
    assert reader.find_doc(str(directory), "WACKY-nope") is None


def test_truncation_is_reported_after_the_complete_documents(c26):
    directory, offsets = c26
    path = str(directory / "corpus-00001-truncated.trec.gz")
    seen = []
    with pytest.raises(reader.TruncatedFileError) as info:
        for _, doc in reader.iter_docs(path):
            seen.append(doc.docno)
    assert seen == ["WACKY-20261130-0001", "WACKY-20261130-0002"]
    assert (info.value.offset, info.value.complete) == (offsets[2], 2)
    assert "document 3" in str(info.value)
    with open(path, "rb") as f, pytest.raises(reader.TruncatedFileError):
        reader.read_member(f, offsets[2])


def test_single_member_file_reads_but_does_not_check(c26):
    path = str(c26[0] / "corpus-00002-single-member.trec.gz")
    members = {m.offset for m, _ in reader.iter_docs(path)}
    assert members == {0} and len(list(reader.iter_docs(path))) == 3
    result = reader.check(path)
    assert not result.ok and result.docs == 3 and result.members == 1
    assert "several documents" in result.problems[0]


def test_check(c26):
    directory, _ = c26
    good = reader.check(str(directory / "corpus-00000.trec.gz"))
    assert good.ok and good.docs == good.index_lines == 3
    cut = reader.check(str(directory / "corpus-00001-truncated.trec.gz"))
    assert not cut.ok and cut.docs == 2 and "truncated" in cut.problems[0]
    index = directory / "corpus-00000.trec.gz.idx.tsv"
    index.write_text(index.read_text().rsplit("\n", 2)[0] + "\n")  # lose the last line
    short = reader.check(str(directory / "corpus-00000.trec.gz"))
    assert short.problems == [f"3 documents but 2 index lines (stale index: wackycrawl trec "
                              f"index {directory / 'corpus-00000.trec.gz'} rebuilds it)"]


def test_garbage_and_bombs_are_errors_not_crashes(tmp_path):
    path = tmp_path / "x.trec.gz"
    path.write_bytes(gzip.compress(_docs()[0]) + b"\0\0\0 not gzip")
    with pytest.raises(reader.TrecFileError, match="corrupt gzip member at byte"):
        list(reader.iter_docs(str(path)))
    bomb = b"<DOC>\n" + b" " * reader.MAX_MEMBER_BYTES  # 64 MiB of spaces, ~64 KB gzipped
    path.write_bytes(gzip.compress(bomb, compresslevel=1))
    with pytest.raises(reader.TrecFileError, match="expands beyond"):
        list(reader.iter_docs(str(path)))
    assert not reader.check(str(path)).ok
