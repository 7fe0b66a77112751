"""A small news article (a flood in an old town) for boilerplate tests: the article's HTML,
words that show it was kept, and the page around a body."""

ARTICLE = (
    "<p>The river rose slowly through the night, and by morning the lower streets of the old "
    "town stood under water up to the doorsteps of the houses along the quay.</p>"
    "<p>Volunteers carried sandbags from the square to the bakery, the school and the church, "
    "while the fire brigade pumped the cellars one after the other until noon.</p>"
    "<p>By the evening the water had fallen again, and the shopkeepers began to sweep the mud "
    "out of their doors and to count what the night had cost them.</p>"
)
WORDS = ["river rose slowly", "Volunteers carried sandbags", "shopkeepers began"]


def page(body: str) -> str:
    return f"<html><head><title>Flood</title></head><body>{body}</body></html>"


def has_article(paragraphs: list[str]) -> bool:
    """True when every one of :data:`WORDS` is in the extracted paragraphs."""
    text = "\n".join(paragraphs)
    return all(w in text for w in WORDS)
