"""Text stage: the page's bytes to Unicode HTML (:func:`wackycrawl.text.encoding.decode_html`).

Reads ``item["body"]`` and ``item["content_type"]``; sets ``item["html"]``,
``item["meta"]["Encoding"]`` and ``"Encoding-Evidence"`` (``declared:header``, ``declared:bom``,
``declared:meta``, ``declared:xml`` or ``guess:<codec>:<plausibility>``; plus
``"Encoding-Repairs"`` when bytes were repaired, ``"Encoding-Controls"`` when control
characters were removed) and deletes ``item["body"]``. Drops ``binary`` (binary data served
as text, a body mostly made of control characters included), ``encoding`` (no clean decode)
and ``empty`` (nothing left to parse). Stats: ``wacky/encoding/<codec>``,
``wacky/encoding/repaired`` (pages) and ``wacky/encoding/repairs`` (bytes);
``wacky/encoding/with_controls`` (pages) and ``wacky/encoding/controls_removed`` (characters)
for the page's own control characters removed (logged at DEBUG);
``wacky/encoding/double_utf8`` (pages) and ``wacky/encoding/double_utf8_chars`` (characters)
for double-encoded UTF-8 decoded back (evidence ``...+double-utf8``, logged at INFO);
``wacky/encoding/unknown_label`` (pages) for a declared charset naming no encoding of the
WHATWG Encoding Standard (``undefined``, ``idna``, ``palmos``...), ignored as browsers
ignore it (logged at INFO).
"""

import logging

from wackycrawl.pipelines import drop
from wackycrawl.text.encoding import BinaryContentError, EncodingError, decode_html

logger = logging.getLogger(__name__)


class TextPipeline:
    def __init__(self, stats, max_repairs: int, max_binary_share: float,
                 min_plausibility: float):
        self.stats = stats
        self.max_repairs = max_repairs
        self.max_binary_share = max_binary_share
        self.min_plausibility = min_plausibility

    @classmethod
    def from_crawler(cls, crawler):
        settings = crawler.settings
        return cls(
            crawler.stats,
            settings.getint("WACKY_MAX_ENCODING_REPAIRS"),
            settings.getfloat("WACKY_MAX_BINARY_SHARE"),
            settings.getfloat("WACKY_ENCODING_MIN_PLAUSIBILITY"),
        )

    def process_item(self, item):
        body = item.pop("body", b"")
        content_type = item.get("content_type")
        if content_type == "-":
            content_type = None
        try:
            decoded = decode_html(body, content_type, self.max_repairs, self.max_binary_share,
                                  self.min_plausibility)
        except BinaryContentError as exc:
            logger.info("binary body served as %s: %s (%s)", content_type, item.get("url"), exc)
            raise drop(self.stats, "binary", item, str(exc))
        except EncodingError as exc:
            logger.info("undecodable page: %s (%s)", item.get("url"), exc)
            raise drop(self.stats, "encoding", item, str(exc))
        if not decoded.text.strip():
            raise drop(self.stats, "empty", item, f"{len(body)} bytes")
        self.stats.inc_value(f"wacky/encoding/{decoded.encoding}")
        if decoded.ignored:
            logger.info("charset label unknown to the WHATWG Encoding Standard ignored (%s): "
                        "%s decoded as %s", ", ".join(f"{source} {codec}" for source, codec
                                                      in decoded.ignored),
                        item.get("url"), decoded.encoding)
            self.stats.inc_value("wacky/encoding/unknown_label")
        meta = item.setdefault("meta", {})
        meta["Encoding"] = decoded.encoding
        meta["Encoding-Evidence"] = decoded.evidence
        if decoded.repairs:
            meta["Encoding-Repairs"] = str(decoded.repairs)
            self.stats.inc_value("wacky/encoding/repaired")
            self.stats.inc_value("wacky/encoding/repairs", decoded.repairs)
        if decoded.controls:
            logger.debug("%d control characters removed: %s", decoded.controls, item.get("url"))
            meta["Encoding-Controls"] = str(decoded.controls)
            self.stats.inc_value("wacky/encoding/with_controls")
            self.stats.inc_value("wacky/encoding/controls_removed", decoded.controls)
        if decoded.undoubled:
            logger.info("double-encoded UTF-8 decoded back (%d characters): %s",
                        decoded.undoubled, item.get("url"))
            self.stats.inc_value("wacky/encoding/double_utf8")
            self.stats.inc_value("wacky/encoding/double_utf8_chars", decoded.undoubled)
        item["html"] = decoded.text
        return item
