"""The crawl's item pipelines outside a crawl: what ``wackycrawl process`` and ``judge`` run.

:class:`Chain` builds the components of the crawl's settings in their ``ITEM_PIPELINES``
order (then the extensions of ``WACKY_OFFLINE_EXTENSIONS``: the rejects stream), with
:class:`~wackycrawl.pipelines.stages.StagesPipeline` replaced by the stages of
``WACKY_STAGES`` themselves (built by :func:`~wackycrawl.pipelines.stages.build_stages`), so
the same classes with the same settings make the same decisions as in a crawl. Every
component gets an :class:`OfflineContext` as its crawler: ``settings``, ``stats`` (Scrapy's
own stats collector), ``signals`` (a Scrapy signal manager on which ``item_scraped`` and
``item_dropped`` are sent, as in a crawl) and a ``spidercls`` named ``process``. The stateless
stages (:meth:`Chain.stages_only`) can run in another process than the stateful rest
(:meth:`Chain.rest`: dedup index, TREC writer), as in a crawl.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from dataclasses import dataclass

from scrapy import signals
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.settings import Settings
from scrapy.signalmanager import SignalManager
from scrapy.utils.conf import build_component_list
from scrapy.utils.misc import load_object
from scrapy.utils.project import get_project_settings

from wackycrawl.crawl import sizewindow as sw
from wackycrawl.crawl.settingnames import check_names
from wackycrawl.pipelines.stages import StageContext, StagesPipeline, build_stages
from wackycrawl.statscollectors import StatsCollector

logger = logging.getLogger(__name__)


class NamedSettings(Settings):
    """Scrapy settings whose typed getters (``getint``, ``getfloat``, ``getbool``,
    ``getlist``, ``getdict``, ``getdictorlist``) name the setting when its value is not of
    the type: ValueError ``NAME=VALUE: <why>`` (Scrapy's says only why)."""

    def _typed(self, getter, name, default):
        try:
            return getter(name, default)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{name}={self.get(name)}: {exc}") from None

    def getint(self, name, default=0):
        return self._typed(super().getint, name, default)

    def getfloat(self, name, default=0.0):
        return self._typed(super().getfloat, name, default)

    def getbool(self, name, default=False):
        return self._typed(super().getbool, name, default)

    def getlist(self, name, default=None):
        return self._typed(super().getlist, name, default)

    def getdict(self, name, default=None):
        return self._typed(super().getdict, name, default)

    def getdictorlist(self, name, default=None):
        return self._typed(super().getdictorlist, name, default)


def load_settings(overrides: list[str] | None = None, **forced) -> NamedSettings:
    """The project's settings (``scrapy.cfg`` / ``SCRAPY_SETTINGS_MODULE``, else
    :mod:`wackycrawl.settings`), then ``NAME=VALUE`` overrides at command-line priority, then
    ``forced`` values. Raises ValueError for an override without ``=`` and for one whose name
    starts with ``WACKY_`` but is no setting of the project (a misspelt name would have no
    effect: :mod:`wackycrawl.crawl.settingnames`)."""
    settings = NamedSettings(get_project_settings())
    if settings.get("WACKY_STAGES") is None:
        settings.setmodule("wackycrawl.settings", priority="project")
    names = []
    for pair in overrides or ():
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"not NAME=VALUE: {pair!r}")
        names.append(name.strip())
        settings.set(name.strip(), value, priority="cmdline")
    check_names(names, settings.get("SETTINGS_MODULE"))
    for name, value in forced.items():
        settings.set(name, value, priority="cmdline")
    return settings


class _Spider:
    name = "process"


class OfflineContext(StageContext):
    """What a component's ``from_crawler`` gets outside a crawl (see the module doc)."""

    spidercls = _Spider

    def __init__(self, settings: Settings, stats=None):
        super().__init__(settings, None)
        self.stats = stats if stats is not None else StatsCollector(self)
        self.signals = SignalManager(self)


@dataclass
class Drop:
    """A dropped item: ``reason`` (the ``wacky/drop/<reason>`` key) and ``detail``."""

    url: str
    reason: str
    detail: str


def split_drop(message: str, url: str) -> Drop:
    """``reason: url (detail)`` (the message of :func:`wackycrawl.pipelines.drop`) -> Drop."""
    reason = message.split(":", 1)[0].strip() or "dropped"
    detail = message.split(f"{url} (", 1)[1].removesuffix(")") if f"{url} (" in message else ""
    return Drop(url, reason, detail)


def window_reason(item: dict, settings: Settings, truncated: str = "") -> str | None:
    """The reason of :func:`window_verdict`, or None."""
    verdict = window_verdict(item, settings, truncated)
    return verdict[0] if verdict else None


def window_verdict(item: dict, settings: Settings, truncated: str = "",
                   over: bool | None = None) -> tuple[str, str] | None:
    """Why the crawl's size window would refuse the page ``item`` (a ``wacky/size/<reason>``
    key: ``not_html``, ``too_small``, ``too_large_wire``, ``too_large_decoded``,
    ``truncated``) and a detail, or None. Its body is decoded (at most
    ``WACKY_MAX_DOC_BYTES + 1`` bytes, as :mod:`wackycrawl.archive.reader` reads it);
    ``truncated`` is the archive's ``WARC-Truncated`` value
    (:func:`wackycrawl.crawl.sizewindow.archived_reason`); ``over`` whether the decoded body
    was longer than ``WACKY_MAX_DOC_BYTES`` (None: judged from ``body``; the reader meters a
    download cut short without keeping its body)."""
    types = tuple(t.strip().lower() for t in settings.getlist("WACKY_HTML_TYPES", sw.HTML_TYPES))
    content_type = item.get("content_type")
    mtype = None if content_type == "-" else content_type
    html = sw.is_html(mtype, types) if types else True
    body = item.get("body", b"")
    if html is False:
        return "not_html", f"Content-Type {sw.media_type(mtype)}"
    if html is None and types and (kind := sw.sniff_binary(body)):
        return "not_html", f"no Content-Type, body is {kind}"
    headers = {k.lower(): v for k, v in item.get("headers", ())}
    codings = sw.content_codings([headers.get("content-encoding", "")])
    length = headers.get("content-length", "").strip()
    max_bytes = settings.getint("WACKY_MAX_DOC_BYTES", sw.MAX_DOC_BYTES)
    return sw.archived_reason(
        len(body), (len(body) > max_bytes if over is None else over) and max_bytes > 0,
        encoded=bool(codings) and codings != ["identity"],
        content_length=int(length) if length.isdigit() else None, truncated=truncated,
        min_bytes=settings.getint("WACKY_MIN_DOC_BYTES", sw.MIN_DOC_BYTES), max_bytes=max_bytes)


class Chain:
    """The crawl's item pipelines over items, in one process (see the module doc)."""

    def __init__(self, context: OfflineContext, stages: bool = True, rest: bool = True):
        self.context, self.stats = context, context.stats
        self.stages = build_stages(context.settings.getlist("WACKY_STAGES"), context) \
            if stages else []
        self.components = []
        self._loop = asyncio.new_event_loop()
        paths = build_component_list(context.settings.getwithbase("ITEM_PIPELINES"))
        paths += context.settings.getlist("WACKY_OFFLINE_EXTENSIONS")
        for path in paths if rest else ():
            cls = load_object(path)
            if cls is StagesPipeline:
                continue
            try:  # an extension has no process_item: signals only
                self.components.append(cls.from_crawler(context))
            except NotConfigured as exc:
                logger.info("pipeline %s disabled: %s", path, exc)

    def _call(self, obj, method: str, *args):
        fn = getattr(obj, method, None)
        if fn is None:
            return None
        if "spider" in inspect.signature(fn).parameters:
            args = (*args, _Spider())
        result = fn(*args)
        return self._loop.run_until_complete(result) if inspect.isawaitable(result) else result

    def open(self) -> None:
        for component in self.components:
            self._call(component, "open_spider")
        self.context.signals.send_catch_log(signals.spider_opened, spider=_Spider())

    def checkpoint(self) -> None:
        """Close every component (TREC files renamed, dedup state saved; ``close_spider`` and
        the ``spider_closed`` signal); their writers open new files on the next item."""
        for component in self.components:
            self._call(component, "close_spider")
        self.context.signals.send_catch_log(signals.spider_closed, spider=_Spider(),
                                            reason="finished")

    def close(self) -> None:
        self.checkpoint()
        self._loop.close()

    def run_stages(self, item: dict) -> dict:
        """The stateless stages; raises the DropItem of the stage dropping ``item``."""
        for stage in self.stages:
            item = stage.process_item(item)
        return item

    def run_rest(self, item: dict) -> dict:
        """The stateful components (dedup, writers); raises DropItem."""
        for component in self.components:
            if hasattr(component, "process_item"):
                item = self._call(component, "process_item", item)
        return item

    def finish(self, item: dict, run_stages: bool = True) -> Drop | None:
        """Run ``item`` through the chain (the stages too unless ``run_stages`` is False),
        log and signal its fate like a crawl does; returns its Drop or None (kept)."""
        try:
            item = self.run_rest(self.run_stages(item) if run_stages else item)
        except DropItem as exc:
            return self.dropped(item, exc)
        self.context.signals.send_catch_log(signals.item_scraped, item=item, response=None,
                                            spider=None)
        return None

    def dropped(self, item: dict, exc: DropItem) -> Drop:
        """Log, signal (``item_dropped``: the rejects stream listens) and return a drop."""
        logger.info("Dropped: %s", exc)
        self.context.signals.send_catch_log(signals.item_dropped, item=item, response=None,
                                            exception=exc, spider=None)
        return split_drop(str(exc), str(item.get("url", "?")))
