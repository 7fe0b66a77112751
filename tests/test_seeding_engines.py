"""Engine query templates (wackycrawl.seeding.engines)."""

import pytest

from wackycrawl.seeding import engines


def test_shipped_engine_urls_quote_words():
    words = ["über", "a&b", "c+d"]
    assert engines.BRAVE.url(words, 50) == ("https://api.search.brave.com/res/v1/web/search"
                                            "?q=%C3%BCber+a%26b+c%2Bd&count=20")  # Brave's max
    assert engines.BING.url(["x", "y"], 10) == \
        "https://api.bing.microsoft.com/v7.0/search?q=x+y&count=10"
    assert engines.searxng("http://localhost:8888/").url(["x"]) == \
        "http://localhost:8888/search?q=x&format=json"
    assert engines.template("https://se.example/html/?kl=de-de&q={query}").url(["a", "b"]) == \
        "https://se.example/html/?kl=de-de&q=a+b"


def test_query_urls_are_recognised_and_give_back_the_words():
    found = engines.configured("http://searx.test", "https://se.example/html/?q={query}")
    words = ["über", "a&b", "c+d"]
    for engine in found:
        assert engines.find(found, engine.url(words)) == (engine, "über a&b c+d")
    # parameter order and host case do not matter; path and host do
    assert engines.find(found, "http://SEARX.test/search?format=json&q=a+b")[1] == "a b"
    assert engines.find(found, "http://searx.test/other?q=a") is None
    assert engines.find(found, "http://www.searx.test/search?q=a") is None
    assert engines.find(found, "http://searx.test/search?format=json") is None
    assert engines.find(found, "http://searx.test/search?q=+") is None


@pytest.mark.parametrize("template", ["https://se.example/{query}", "https://se.example/",
                                      "ftp://se.example/?q={query}", "?q={query}",
                                      "https://se.example/?q=x{query}",
                                      "https://se.example/?q={query}&r={query}"])
def test_bad_templates_are_refused(template):
    with pytest.raises(ValueError, match="template must be"):
        engines.template(template)


def test_keys_come_from_the_environment_into_headers_only():
    env = {"WACKY_BRAVE_KEY": " secret "}
    assert engines.BRAVE.headers(env) == {"Accept": "application/json",
                                          "X-Subscription-Token": "secret"}
    assert "secret" not in engines.BRAVE.url(["a"])
    with pytest.raises(engines.MissingKeyError) as exc:
        engines.BING.headers(env)
    assert exc.value.args[0] == "WACKY_BING_KEY"
    assert engines.searxng("http://s.test").headers({}) == {"Accept": "application/json"}


def test_get_engine():
    assert engines.get_engine("bing") is engines.BING
    assert engines.get_engine("searxng", base="http://s.test").name == "searxng"
    for name, kw in [("searxng", {}), ("template", {}), ("google", {})]:
        with pytest.raises(ValueError):
            engines.get_engine(name, **kw)
