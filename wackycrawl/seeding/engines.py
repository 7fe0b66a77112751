"""Search engines as URL templates: word tuple -> query URL, query URL -> engine and query.

An :class:`Engine` is a URL template whose query string holds ``{query}`` (the words,
joined by spaces and encoded with :func:`urllib.parse.quote_plus`, as HTML forms and these
APIs expect) and may hold ``{count}`` (results asked for). Shipped engines:

* ``searxng`` - a SearXNG instance's JSON API, ``{base}/search?q=...&format=json``
  (self-hostable; the instance must allow ``json`` in ``search.formats``);
* ``bing`` - Bing Web Search API v7, key in header ``Ocp-Apim-Subscription-Key``;
* ``brave`` - Brave Search API, key in header ``X-Subscription-Token``;
* ``template`` - any ``{query}`` URL answering with an HTML result page.

API keys are read from environment variables (:attr:`Engine.key_env`) when a request is
built and go into its headers only: never into URLs, settings, logs or files.

A query file remembers its engine: ``wackycrawl queries`` writes :func:`directive` as its
first line (``# wackycrawl-engine: searxng http://localhost:8888/search?q={query}&format=json``,
a comment to any other reader), and the spider adds the engines :func:`declared` in its seed
and query files to the configured ones, so the base URL is given once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import parse_qs, parse_qsl, quote_plus, urlsplit

ENGINE_NAMES = ("searxng", "bing", "brave", "template")
DIRECTIVE = "# wackycrawl-engine:"
_MARK = "wackyquery"


class MissingKeyError(KeyError):
    """The engine's API-key environment variable is unset or empty (args[0] = its name)."""


@dataclass(frozen=True)
class Engine:
    """One search engine. ``template``: absolute http(s) URL with ``{query}`` as the whole
    value of one query parameter (and optionally ``{count}``); ``parser``: a key of
    :data:`wackycrawl.seeding.serp.PARSERS`; ``max_count``: the most results the API returns
    per request. Raises ValueError for a template without such a ``{query}``."""

    name: str
    template: str
    parser: str
    key_header: str = ""
    key_env: str = ""
    accept: str = "application/json"
    max_count: int = 50

    def __post_init__(self) -> None:
        parts = urlsplit(self.template.replace("{count}", "1").replace("{query}", _MARK))
        params = [k for k, v in parse_qsl(parts.query, keep_blank_values=True) if v == _MARK]
        if parts.scheme not in ("http", "https") or not parts.hostname or len(params) != 1 \
                or self.template.count("{query}") != 1:
            raise ValueError(f"{self.name}: template must be an http(s) URL with {{query}} as "
                             f"one query parameter's value, e.g. https://host/?q={{query}}; "
                             f"got {self.template!r}")
        object.__setattr__(self, "_where", (parts.scheme, parts.netloc.lower(),
                                            parts.path or "/", params[0]))

    def url(self, words: Iterable[str], count: int = 10) -> str:
        """The query URL for ``words`` (at most ``max_count`` results asked for)."""
        query = quote_plus(" ".join(words))
        return self.template.replace("{count}", str(min(count, self.max_count))) \
            .replace("{query}", query)

    def query_of(self, url: str) -> str | None:
        """The query (words joined by spaces) if ``url`` is a query URL of this engine."""
        scheme, netloc, path, param = self._where
        parts = urlsplit(url)
        if (parts.scheme, parts.netloc.lower(), parts.path or "/") != (scheme, netloc, path):
            return None
        values = parse_qs(parts.query).get(param)
        return " ".join(values[0].split()) if values and values[0].strip() else None

    def headers(self, environ: Mapping[str, str]) -> dict[str, str]:
        """Request headers: ``Accept`` and the API key from ``environ[key_env]``.

        Raises MissingKeyError when the engine needs a key and the variable is empty."""
        headers = {"Accept": self.accept}
        if self.key_header:
            key = environ.get(self.key_env, "").strip()
            if not key:
                raise MissingKeyError(self.key_env)
            headers[self.key_header] = key
        return headers


BING = Engine("bing", "https://api.bing.microsoft.com/v7.0/search?q={query}&count={count}",
              "bing", key_header="Ocp-Apim-Subscription-Key", key_env="WACKY_BING_KEY")
BRAVE = Engine("brave", "https://api.search.brave.com/res/v1/web/search?q={query}&count={count}",
               "brave", key_header="X-Subscription-Token", key_env="WACKY_BRAVE_KEY",
               max_count=20)


def searxng(base: str) -> Engine:
    """The JSON API of the SearXNG instance at ``base`` (e.g. ``http://localhost:8888``)."""
    return Engine("searxng", base.rstrip("/") + "/search?q={query}&format=json", "searxng")


def template(url_template: str) -> Engine:
    """A generic engine: ``url_template`` with ``{query}``, HTML result pages."""
    return Engine("template", url_template, "html", accept="text/html", max_count=100)


def get_engine(name: str, base: str = "", url_template: str = "") -> Engine:
    """The engine called ``name`` (:data:`ENGINE_NAMES`); ``searxng`` needs ``base``,
    ``template`` needs ``url_template``. Raises ValueError otherwise."""
    if name == "bing":
        return BING
    if name == "brave":
        return BRAVE
    if name == "searxng" and base:
        return searxng(base)
    if name == "template" and url_template:
        return template(url_template)
    if name in ("searxng", "template"):
        raise ValueError(f"engine {name} needs " + ("a base URL" if name == "searxng"
                                                    else "a URL template with {query}"))
    raise ValueError(f"unknown engine {name!r}; choose from {', '.join(ENGINE_NAMES)}")


def configured(searxng_base: str = "", url_template: str = "") -> list[Engine]:
    """Engines a seed URL is matched against: Bing and Brave always, SearXNG and the
    template when given."""
    found = [BING, BRAVE]
    if searxng_base:
        found.append(searxng(searxng_base))
    if url_template:
        found.append(template(url_template))
    return found


def find(engines: Iterable[Engine], url: str) -> tuple[Engine, str] | None:
    """(engine, query) for the first engine whose query URL ``url`` is, else None."""
    for engine in engines:
        query = engine.query_of(url)
        if query is not None:
            return engine, query
    return None


def directive(engine: Engine) -> str:
    """The comment line that names ``engine`` in a query file: ``# wackycrawl-engine: NAME
    TEMPLATE`` (no API key: keys stay in the environment)."""
    return f"{DIRECTIVE} {engine.name} {engine.template}"


def from_template(name: str, url_template: str) -> Engine:
    """The engine ``name`` with the URL template of a :func:`directive`; raises ValueError
    for an unknown name or a bad template."""
    if name in ("bing", "brave"):
        return get_engine(name)
    if name == "searxng":
        return Engine("searxng", url_template, "searxng")
    return get_engine(name, url_template=url_template)


def declared(lines: Iterable[str]) -> tuple[list[Engine], list[str]]:
    """Engines named by :func:`directive` lines among ``lines``: (engines, errors), an error
    being a message for a directive that names no usable engine."""
    found, errors = [], []
    for line in lines:
        line = line.strip()
        if not line.startswith(DIRECTIVE):
            continue
        name, _, url_template = line[len(DIRECTIVE):].strip().partition(" ")
        try:
            engine = from_template(name, url_template.strip())
        except ValueError as exc:
            errors.append(f"{line[:200]!r}: {exc}")
            continue
        if engine not in found:
            found.append(engine)
    return found, errors
