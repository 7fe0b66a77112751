"""Cues that name boilerplate a page shares with every other site: consent and cookie
banners, newsletter boxes, legal and imprint footers, "related articles" sections.

Such blocks are grammatical sentences full of function words, and they often sit inside the
content span, so neither BTE's tag/word balance nor link density removes them. Two kinds of
evidence, both plain regular expressions (no model):

* :func:`names_boilerplate`: the ``class`` or ``id`` of a container
  element contains one of
  :data:`ATTRIBUTE_WORDS` as a word part (``cookie-banner``, ``gdprConsent``,
  ``site-footer``, ``related_posts``); the HTML 5 ``<footer>`` and ``<nav>`` elements count
  as named. Everything inside the element is then a cue block.
* :func:`text_cues`: short blocks (at most :data:`MAX_CUE_WORDS` words) whose text carries a
  phrase of :data:`BLOCK_PHRASES` (consent, newsletter, legal: en, de, fr, it, es, nl), and
  headings carrying a phrase of :data:`SECTION_PHRASES` ("Related articles", "Das könnte Sie
  auch interessieren", "Lire aussi"...) together with the blocks after them up to the next
  heading.
* :func:`is_label`: a block that is nothing but an advertisement's label
  (:data:`LABEL_PHRASES`: "Advertisement", "Anzeige", "Publicité"...);
  :func:`is_dateline`: a short block opening with "Published", "Updated", "Posted on"...
  and a date (:data:`DATELINE_PHRASES`); :func:`is_credit`: a short block opening with
  "Photo:", "Foto:", "Bild:", "Credit:"... (:data:`CREDIT_PHRASES`).

The phrase lists are ours (collected from the banners and footers of sites in those six
languages); :mod:`wackycrawl.text.blocks` applies them.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache

#: Elements whose class/id is read (a cue on an inline element or ``<p>``, often left
#: unclosed, would run on too far).
CONTAINERS = frozenset(["aside", "div", "dl", "footer", "form", "nav", "ol", "section",
                        "table", "ul"])
#: Word parts of class/id values that name boilerplate (regular expressions; "shared" is
#: no share box: Sphinx and other generators derive ids from headings, "a-shared-history").
ATTRIBUTE_WORDS = ("cookie", "consent", "gdpr", "newsletter", "related", "footer", "imprint",
                   "impressum", "disclaimer", "banner", "subscribe", "share(?!d)", "social",
                   "breadcrumb", "sidebar", "comments-form", "promo", "advert",
                   # an advertisement's box: "ad", "ads", "ad-slot", "top_ad" (not "address",
                   # "admin", "head": "ad" only as a whole word part), "anzeige", "werbung"
                   "ad(?![a-z])", "ads(?![a-z])", "anzeige", "werbung", "sponsor",
                   # a byline or dateline ("By Anna Berg, 3 May 2021") is a label: no running
                   # text in either mode (article-extraction-benchmark AEB-F1 0.933 -> 0.937;
                   # no CleanEval page changes)
                   "byline", "timestamp", "dateline",
                   # image credits ("Photo: Getty Images") and author bios (a writer's
                   # profile under the article): labels and blurbs, no running text
                   "credit", "author[-_]?(?:bio|info|box|profile|card|description|details)",
                   "about[-_]?(?:the[-_]?)?author", "bio(?![a-z])", "biography")
#: A block longer than this (words) is never a cue block: banners and footers are short (a
#: consent dialog's paragraphs reach ~100 words; no published value).
MAX_CUE_WORDS = 120

_ATTR_RE = re.compile(
    r"""\b(?:class|id)\s*=\s*(?:"[^"]*?|'[^']*?|[^\s>]*?)(?<![a-z])(?:{})""".format(
        "|".join(ATTRIBUTE_WORDS)), re.IGNORECASE)
_ALWAYS_NAMED = frozenset(["footer", "nav"])
_STEMS = [re.match(r"[\w-]+", w).group() for w in ATTRIBUTE_WORDS]
# Case-sensitive pre-tests of the word parts, lower case or capitalised (as class names are
# written): literal stems; the short ones (``ad``) apart, as they are inside many tags (``head``,
# ``load``, ``padding``) and only their own expression says whether a word part is one.
_ATTRIBUTE_FORMS_RE = re.compile("|".join(map(re.escape, [
    f for stem in _STEMS if len(stem) > 3 for f in (stem, stem.capitalize())])))
_SHORT_STEMS = sorted({f for stem in _STEMS if len(stem) <= 3 for f in (stem, stem.capitalize())})
_SHORT_FORMS_RE = re.compile("(?<![a-zA-Z])(?:{})(?![a-z])".format("|".join(map(
    re.escape, _SHORT_STEMS))))

#: Phrases of consent banners, newsletter boxes and legal footers (en, de, fr, it, es, nl).
BLOCK_PHRASES = (
    # consent / cookies
    r"(?:we|this (?:web)?site|our (?:web)?site|it) uses? cookies", r"we use cookies",
    r"cookie (?:policy|settings|preferences|consent)", r"accept (?:all )?cookies",
    r"by (?:continuing to (?:use|browse)|using) (?:this|our) (?:web)?site",
    r"(?:verwendet|verwenden|nutzt|nutzen|setzt|setzen) (?:\w+ )?cookies",
    r"cookie-?(?:einstellungen|richtlinie|hinweis)", r"alle akzeptieren",
    r"(?:utilise|utilisons|utilisent) des cookies", r"(?:accepter|acceptez) (?:les )?cookies",
    r"gestion des cookies", r"(?:utilizza|utilizziamo|usa|usiamo) (?:i )?cookie",
    r"informativa (?:sui|sull'uso dei) cookie", r"accetta (?:tutti )?(?:i )?cookie",
    r"(?:utiliza|utilizamos|usa|usamos) cookies", r"pol[ií]tica de cookies",
    r"aceptar (?:todas )?(?:las )?cookies",
    # a consent dialog's categories ("Necessary cookies are absolutely essential...")
    r"(?:non-)?necessary cookies", r"these cookies (?:do not|don't|will|may|are|help)",
    r"(?:gebruikt|gebruiken|maakt gebruik van) cookies", r"cookiebeleid",
    r"cookie-?instellingen", r"alle cookies accepteren",
    # newsletter
    r"(?:subscribe|sign up) (?:to|for) (?:our|the) newsletter", r"newsletter abonnieren",
    r"(?:zum|für den|unseren) newsletter (?:an|ab)", r"abonnez-vous (?:à|a) (?:notre|la) newsletter",
    r"inscri(?:vez|s)-(?:vous|toi) (?:à|a) (?:notre|la) newsletter",
    r"iscriviti alla (?:nostra )?newsletter", r"suscr[ií]bete a (?:nuestro|nuestra|el|la) (?:newsletter|bolet[ií]n)",
    r"(?:schrijf|meld) (?:je|u) (?:in|aan) (?:voor|op) (?:onze|de) nieuwsbrief",
    # forms' data notices
    r"by submitting this form", r"your e-?mail address (?:will not|won't|will never) be",
    r"your e-?mail address is used only",
    # legal
    r"quotes (?:are )?delayed", r"all rights reserved", r"alle rechte vorbehalten", r"tous droits r[ée]serv[ée]s",
    r"tutti i diritti riservati", r"todos los derechos reservados", r"alle rechten voorbehouden",
    r"(?:©|\(c\)) ?(?:\d{4}|copyright)", r"copyright (?:©|\(c\)) ?\d{4}",
)
#: Phrases of notices that a long paragraph of running text may also write ("In 1890 the
#: paper was delivered to your door...", a court report quoting "no part may be reproduced"):
#: they mark a block of at most NOTICE_WORDS words only (no published value: subscription
#: offers, affiliate disclosures, moderation notices, login prompts and copyright notices
#: are a sentence or two).
NOTICE_PHRASES = (
    # newsletter and subscription offers without the word "our newsletter"
    r"delivered (?:straight |directly )?(?:to|through) your (?:inbox|letterbox)",
    r"every (?:day|week|morning) we send (?:you )?an? e-?mail",
    # affiliate disclosures, comment moderation notices
    r"if you (?:buy|purchase) (?:something|anything|a product) (?:through|from|via)",
    r"(?:may|might|could|will) (?:get|earn|receive) (?:a small |an affiliate )?"
    r"(?:share of the sale|commission)",
    r"your comment (?:will be|is awaiting|must be) (?:\w+ )?(?:reviewed|moderat|approved)",
    # comment forms' login prompts
    r"(?:must|need to) be (?:logged in|signed in|registered) to (?:post|leave|write|add|submit)",
    r"müssen (?:sich )?(?:einloggen|anmelden|angemeldet sein|eingeloggt sein)",
    r"(?:devez|dois) (?:être )?(?:connecté|identifié)", r"devi (?:essere )?(?:connesso|registrato)",
    r"(?:debes|debe) (?:iniciar sesión|estar registrado)",
    r"(?:document|article|material) is subject to copyright",
    r"no part (?:\w+ ){0,4}may be reproduced",
)
NOTICE_WORDS = 60
#: Phrases of headings that open a "related articles" section.
SECTION_PHRASES = (
    r"related (?:articles|posts|stories|content|news|links)", r"you (?:may|might) also like",
    r"more (?:stories|articles) from", r"recommended (?:for you|articles|stories)",
    r"(?:ähnliche|verwandte|weitere) (?:artikel|beiträge|themen|nachrichten)",
    r"das (?:\w+ )?könnte (?:sie|dich) auch interessieren", r"mehr zum thema", r"auch interessant",
    r"articles? (?:similaires|connexes|liés)", r"(?:à|a) lire aussi", r"lire aussi",
    r"sur le même sujet", r"articoli (?:correlati|simili)", r"leggi anche",
    r"potrebbe (?:interessarti|anche interessarti)", r"art[ií]culos relacionados",
    r"noticias relacionadas", r"te puede interesar", r"tambi[ée]n te puede interesar",
    r"gerelateerde (?:artikelen|berichten)", r"lees ook", r"meer (?:nieuws|artikelen) over",
)
#: Phrases of headings that also title a section of an article's own text ("More ghost
#: stories", "Don't miss"): they open a "related articles" section only when its blocks hold
#: links for at least LINKED_SECTION_SHARE of their words (a list of other pages' titles, teaser
#: cards), not when prose follows (no published value: a teaser's linked title in its excerpt).
LINKED_SECTION_PHRASES = (r"more (?:\w+ ){1,2}(?:stories|articles)\W*$", r"don'?t miss\W*$")
LINKED_SECTION_SHARE = 0.2
#: Article mode only (readers' comments, author boxes and captions are running text a corpus
#: keeps, CleanEval's definition; an article's gold text lacks them): class/id word parts of
#: comment sections ("comments", "comment-list", "disqus_thread", "respond"; not
#: "commentary"), author boxes, figure captions, image galleries (the class names
#: trafilatura's and readability's rules read; not "slideshow": a slideshow page's text is its
#: article). Bylines, timestamps, datelines and image credits are labels, and author bios
#: blurbs, not running text: they are in :data:`ATTRIBUTE_WORDS` (both modes).
ARTICLE_WORDS = ("comment(?!ary|ator)", "disqus", "respond", "replies", "reply",
                 "author", "caption", "gallery")
#: Article mode only: headings that open a comment section ("34 responses to ...",
#: "Kommentare", "3 commentaires"; comment forms: :data:`FORM_PHRASES`, both modes).
COMMENT_PHRASES = (
    r"(?:\d+|no|one|two|three) (?:comments?|responses?|replies|thoughts?)\b",
    r"comments?\b", r"reader comments", r"join the (?:discussion|conversation)",
    r"discussion\b", r"(?:\d+ )?kommentare?\b", r"(?:\d+ )?commentaires?\b",
    r"(?:\d+ )?commenti\b", r"(?:\d+ )?comentarios?\b", r"(?:\d+ )?reacties?\b",
)
#: Headings of a comment form ("Leave a reply", "Schreibe einen Kommentar"): its prompts and
#: fields are no running text in either mode (the section ends with the form's container).
FORM_PHRASES = (
    r"(?:leave|post|add|write) a (?:comment|reply|response)",
    r"(?:schreibe|hinterlasse) einen kommentar", r"laisser un commentaire",
    r"lascia un commento", r"deja un comentario", r"laat een reactie achter",
)
#: Labels of advertisements: a block of at most LABEL_WORDS words that is nothing but one
#: ("Advertisement", "- Anzeige -", "Publicité"; en, de, fr, it, es, nl, pl) is boilerplate.
LABEL_PHRASES = (
    r"advertisement", r"advertising", r"sponsored(?: content)?", r"anzeige", r"werbung",
    r"publicit[ée]", r"pubblicit[àa]", r"publicidad", r"advertentie", r"reklama",
)
#: The controls of image galleries and article pagers, which read as text inside the content
#: span ("Image 1 of 8", "Caption", "Close", "Next post", "Story continues below gallery"):
#: a block that is nothing but one is boilerplate in both modes, as a label is.
CONTROL_PHRASES = (
    r"(?:image|photo|picture|slide|bild|foto)?\s*\d+\s*(?:of|/|von|de|di|van)\s*/?\s*\d+",
    r"caption", r"close", r"(?:previous|next|prev) (?:post|article|story|page|image|photo|slide)",
    r"back to (?:the )?gallery", r"(?:view|open|enlarge|expand) (?:the )?(?:image|gallery|photo)",
    r"story continues below(?: (?:the )?(?:gallery|advertisement|ad|video|photo))?",
    r"most (?:popular|read|viewed)", r"zurück zur galerie", r"bild vergrößern",
)
LABEL_WORDS = 5
#: Openings of datelines ("Published: 10:48, Tue, Nov 19, 2019 | Updated: 11:05", "Posted on
#: October 27, 2015 by Admin", "Veröffentlicht am 3. Mai 2021"): a block of at most
#: DATELINE_WORDS words that opens with one and holds a digit is a label (:func:`is_dateline`),
#: as a block inside a ``dateline`` or ``timestamp`` element is (en, de, fr, it, es, nl; not
#: in parentheses: "(Published Monday, Nov. 18)" is a remark in the text).
DATELINE_PHRASES = (
    r"(?:first |last )?(?:published|updated|posted|modified)(?: on| at)?",
    r"(?:zuletzt )?(?:veröffentlicht|aktualisiert)(?: am)?", r"publi[ée](?: le)?",
    r"mis à jour(?: le)?", r"(?:pubblicato|aggiornato)(?: il)?",
    r"(?:publicado|actualizado)(?: el)?", r"(?:gepubliceerd|bijgewerkt)(?: op)?",
)
DATELINE_WORDS = 16
_DATELINE_RE = re.compile(r"^[^\w(]*(?:{})\b\W*(?:\w+\W+){{0,2}}\d".format("|".join(DATELINE_PHRASES)),
                          re.IGNORECASE)
#: Labels of image credits: a block of at most CREDIT_WORDS words opening with one and a
#: colon ("Foto: Sascha Klahn", "Photo: AP", "Bild: Hersteller", "Crédits photos : X") is a
#: label, no running text, in both modes (:func:`is_credit`; not "Source:"/"Quelle:", which
#: cite a text's source, running text CleanEval keeps).
CREDIT_PHRASES = (
    r"photos?", r"fotos?", r"bild(?:er)?", r"images?", r"pictures?", r"credits?",
    r"cr[ée]dits?(?: photos?)?", r"kuva", r"imagen(?:es)?", r"fotograf[íi]as?",
)
CREDIT_WORDS = 8  # no published value: a credit names an agency and a photographer or two
_CREDIT_RE = re.compile(r"^\W*(?:{})\s*:".format("|".join(CREDIT_PHRASES)), re.IGNORECASE)
#: A block that ends as a sentence ends (., !, ? after a word) and holds at least
#: SENTENCE_LOWER_WORDS lower-case words of three letters or more is a sentence, neither a
#: dateline nor a credit: "Published in 1851, Moby-Dick sold poorly and was out of print.",
#: "Photo: the only surviving image of him."; labels name dates, months, agencies and people
#: ("Posted on October 27, 2015 by admin.", "Mis à jour le 3 mai 2021") (no published value).
SENTENCE_LOWER_WORDS = 4
_SENTENCE_END_RE = re.compile(r"\w[.!?][\"'”’»)]*\s*$")
# words of datelines that are written in lower case: months (fr it es nl), times of day and
# the dateline phrases' own words (not counted as a sentence's words)
_DATE_WORDS = frozenset("""
    janvier février mars avril juin juillet août septembre octobre novembre décembre
    gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre dicembre
    enero febrero abril mayo junio julio septiembre octubre noviembre diciembre
    januari februari maart juni juli augustus oktober
    published updated posted modified publié publiée mis jour pubblicato aggiornato
    publicado actualizado gepubliceerd bijgewerkt veröffentlicht aktualisiert zuletzt
    alle las ore uhr heures les first last and""".split())
_LOWER_WORD_RE = re.compile(r"(?<!\w)[^\W\d_A-Z]{3,}(?!\w)")
_LABEL_RE = re.compile(r"^\W*(?:{})\W*$".format("|".join(LABEL_PHRASES + CONTROL_PHRASES)),
                       re.IGNORECASE)
_BLOCK_RE = re.compile("|".join(BLOCK_PHRASES), re.IGNORECASE)
_NOTICE_RE = re.compile("|".join(NOTICE_PHRASES), re.IGNORECASE)
_SECTION_RE = re.compile(r"^\W*(?:{})\b".format(
    "|".join(SECTION_PHRASES + LINKED_SECTION_PHRASES + FORM_PHRASES)),
                         re.IGNORECASE)
#: A block of at most this many words that is nothing but a phrase of SECTION_PHRASES
#: (``<p><strong>Auch interessant</strong></p>``) opens a section as such a heading does.
TITLE_WORDS = 6
_SECTION_TITLE_RE = re.compile(r"^\W*(?:{})\W*$".format(
    "|".join(SECTION_PHRASES + LINKED_SECTION_PHRASES)), re.IGNORECASE)
_LINKED_SECTION_RE = re.compile(r"^\W*(?:{})".format("|".join(LINKED_SECTION_PHRASES)),
                                re.IGNORECASE)
_COMMENT_SECTION_RE = re.compile(
    r"^\W*(?:{})".format("|".join(COMMENT_PHRASES + SECTION_PHRASES + LINKED_SECTION_PHRASES
                                   + FORM_PHRASES)),
    re.IGNORECASE)
#: Word parts of ARTICLE_WORDS that name captions and image galleries.
CAPTION_WORDS = ARTICLE_WORDS[6:]  # caption, gallery
_CAPTIONS_RE = re.compile(
    r"""\b(?:class|id)\s*=\s*(?:"[^"]*?|'[^']*?|[^\s>]*?)(?<![a-z])(?:{})""".format(
        "|".join(CAPTION_WORDS)), re.IGNORECASE)
#: Word parts of ARTICLE_WORDS that name comment sections.
COMMENT_WORDS = ARTICLE_WORDS[:5]  # comment, disqus, respond, replies, reply
_COMMENTS_ONLY_RE = re.compile(
    r"""\b(?:class|id)\s*=\s*(?:"[^"]*?|'[^']*?|[^\s>]*?)(?<![a-z])(?:{})""".format(
        "|".join(COMMENT_WORDS)), re.IGNORECASE)
_COMMENT_ATTR_RE = re.compile(
    r"""\b(?:class|id)\s*=\s*(?:"[^"]*?|'[^']*?|[^\s>]*?)(?<![a-z])(?:{})""".format(
        "|".join(ARTICLE_WORDS)), re.IGNORECASE)
# Every phrase of BLOCK_PHRASES and NOTICE_PHRASES contains one of these (lower case):
# str.find over the page finds the few blocks worth the full expression (which costs ~1 us
# per character).
_BLOCK_KEYS = ("cookie", "newsletter", "nieuwsbrief", "bolet", "reserv", "rechte", "©", "(c)",
               "submitting", "mail address", "delayed", "delivered", "we send", "if you buy",
               "if you purchase", "share of the sale", "commission", "your comment",
               "copyright", "reproduced", "logged in", "signed in", "be registered",
               "einloggen", "anmelden", "angemeldet", "eingeloggt", "connecté", "identifié",
               "connesso", "registrato", "iniciar sesión", "estar registrado")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _lower(text: str) -> str:
    """``text`` with the letters of :data:`_BLOCK_KEYS` in lower case as ``str.lower()`` puts
    them, the same offsets: ASCII letters lowered (as UTF-8 bytes: fast for any text) and
    KELVIN SIGN (U+212A, the one other character ``str.lower()`` turns into one of them) made
    "k" when all of ``text`` lowers to the same length (U+0130 lengthens)."""
    if "\u212a" in text:
        low = text.lower()
        return low if len(low) == len(text) else text.translate(_ASCII_LOWER)
    return text.encode("utf-8", "surrogatepass").lower().decode("utf-8", "surrogatepass")


def _positions(text: str, words) -> list[int]:
    """Start offsets of every occurrence of each of ``words`` in ``text`` (unordered)."""
    out = []
    for w in words:
        i = text.find(w)
        while i >= 0:
            out.append(i)
            i = text.find(w, i + 1)
    return out


@lru_cache(maxsize=4096)
def section_kind(tag: str) -> int:
    """1 if the opening ``tag`` of a :data:`CONTAINERS` element names a comment section
    (class/id word parts :data:`COMMENT_WORDS`), 2 if it names a caption or an image gallery
    (:data:`CAPTION_WORDS`), else 0; remembered per tag."""
    low = tag.lower()  # a quick test for the word parts first: the expressions cost more
    if not ("comment" in low or "disqus" in low or "respond" in low or "repl" in low
            or "caption" in low or "gallery" in low):
        return 0
    words = tag[1:-1].split(None, 1)
    if not words or words[0].lower() not in CONTAINERS:
        return 0
    if _COMMENTS_ONLY_RE.search(tag) is not None:
        return 1
    return 2 if _CAPTIONS_RE.search(tag) is not None else 0


def names_boilerplate(tag: str, name: str, article: bool = False) -> bool:
    """True if the opening ``tag`` (its markup, a tag piece of
    :func:`wackycrawl.text.bte.pieces`; element ``name``) names boilerplate: ``<footer>``,
    ``<nav>``, or a :data:`CONTAINERS` element whose class or id contains one of
    :data:`ATTRIBUTE_WORDS` (lower case or capitalised, as class names are written), with
    ``article`` also one of :data:`ARTICLE_WORDS`."""
    return name in _ALWAYS_NAMED or _named(tag) or (article and _names_article_only(tag))


@lru_cache(maxsize=4096)
def _names_article_only(tag: str) -> bool:
    words = tag[1:-1].split(None, 1)
    return (bool(words) and words[0].lower() in CONTAINERS
            and _COMMENT_ATTR_RE.search(tag) is not None)


@lru_cache(maxsize=4096)
def _named(tag: str) -> bool:
    """Class/id test of :func:`names_boilerplate`, remembered per tag (pages of a site repeat
    their container tags). A case-sensitive test for the words first: the expression costs more."""
    if _ATTRIBUTE_FORMS_RE.search(tag) is None and not (
            any(stem in tag for stem in _SHORT_STEMS) and _SHORT_FORMS_RE.search(tag)):
        return False
    words = tag[1:-1].split(None, 1)
    return bool(words) and words[0].lower() in CONTAINERS and _ATTR_RE.search(tag) is not None


def text_cues(texts: list[str], headings: list[bool], words: list[int],
              starts: list[int], box_ends: list[int], article: bool = False,
              linked: list[bool] | None = None,
              link_words: list[int] | None = None) -> list[bool]:
    """For each block (lists aligned by block: its text, whether it is a heading, its word
    count, where it starts and where the container element its text starts in ends, both
    positions in one order, e.g. :class:`wackycrawl.text.blocks.Block`'s piece indexes
    ``start`` and ``box_end``): True when its text marks it as boilerplate, or it follows a "related
    articles" or comment-form heading (:data:`FORM_PHRASES`; with ``article`` also a
    comment-section heading,
    :data:`COMMENT_PHRASES`) or a short block that is only such a phrase
    (:data:`TITLE_WORDS`), up to the next heading or the end of the heading's container.
    A heading in a container nested in the section's that is all link (``linked`` True for
    it: a teaser's title) does not end the section. A section opened by a phrase of
    :data:`LINKED_SECTION_PHRASES` is one only when its blocks hold links (``link_words``,
    counts of words in links; when given) for :data:`LINKED_SECTION_SHARE` of their words."""
    if linked is None:
        linked = [False] * len(texts)
    section_re = _COMMENT_SECTION_RE if article else _SECTION_RE
    hits = sorted(_positions(_lower("\n".join(texts)), _BLOCK_KEYS))
    candidates = set()
    if hits:
        ends, total = [], -1
        for t in texts:
            total += len(t) + 1
            ends.append(total)
        candidates = {bisect_left(ends, h) for h in hits}
    out = []
    section, section_end, opener = False, 0, -1
    hits_of: list[bool] = []  # blocks whose own text is a cue
    owner = [-1] * len(texts)  # the block that opened the section a block lies in
    for i, (text, heading, n, start, box_end) in enumerate(
            zip(texts, headings, words, starts, box_ends)):
        if section and start >= section_end:
            section = False
        if heading and not (section and box_end < section_end and linked[i]):
            section = n <= MAX_CUE_WORDS and section_re.search(text) is not None
            section_end, opener = box_end, i
        elif n <= TITLE_WORDS and _SECTION_TITLE_RE.match(text) is not None:
            section, section_end, opener = True, box_end, i
        if section:
            owner[i] = opener
        hit = (n <= MAX_CUE_WORDS and i in candidates
               and (_BLOCK_RE.search(text) is not None
                    or (n <= NOTICE_WORDS and _NOTICE_RE.search(text) is not None)))
        hits_of.append(hit)
        out.append(section or hit)
    if link_words is not None:
        _unlinked_sections(texts, words, link_words, owner, hits_of, out)
    return out


def _unlinked_sections(texts: list[str], words: list[int], link_words: list[int],
                       owner: list[int], hit: list[bool], out: list[bool]) -> None:
    """Set ``out`` False for the blocks of the sections :func:`text_cues` opened at a phrase of
    :data:`LINKED_SECTION_PHRASES` whose blocks after the opener hold links for less than
    :data:`LINKED_SECTION_SHARE` of their words (prose under a heading "More ghost stories"),
    unless a block's own text marks it (``hit``)."""
    sections: dict[int, list[int]] = {}
    for i, o in enumerate(owner):
        if o >= 0 and _LINKED_SECTION_RE.match(texts[o]) is not None:
            sections.setdefault(o, []).append(i)
    for o, members in sections.items():
        body = [i for i in members if i != o]
        total = sum(words[i] for i in body)
        if not total or sum(link_words[i] for i in body) < LINKED_SECTION_SHARE * total:
            for i in members:
                out[i] = hit[i]


def is_label(text: str, words: int) -> bool:
    """True for a block (its text and word count) that is nothing but the label of an
    advertisement (:data:`LABEL_PHRASES`) or a gallery's or pager's control
    (:data:`CONTROL_PHRASES`), at most :data:`LABEL_WORDS` words."""
    return words <= LABEL_WORDS and _LABEL_RE.match(text) is not None


def is_credit(text: str, words: int) -> bool:
    """True for a block (its text and word count) of at most :data:`CREDIT_WORDS` words that
    opens with a phrase of :data:`CREDIT_PHRASES` and a colon ("Foto: dpa/Anna Berg")."""
    return (words <= CREDIT_WORDS and _CREDIT_RE.match(text) is not None
            and not is_sentence(text))


def is_dateline(text: str, words: int) -> bool:
    """True for a block (its text and word count) of at most :data:`DATELINE_WORDS` words
    that opens with a phrase of :data:`DATELINE_PHRASES` followed by a digit within three
    words ("Published: Nov 19, 2019", "Posted on October 27, 2015 by Admin")."""
    return (words <= DATELINE_WORDS and _DATELINE_RE.match(text) is not None
            and not is_sentence(text))


def is_sentence(text: str, lower_words: int = SENTENCE_LOWER_WORDS) -> bool:
    """True for a block (its text) that ends as a sentence (".", "!", "?" after a word) and
    holds ``lower_words`` (:data:`SENTENCE_LOWER_WORDS`) lower-case words of three letters or
    more, dates' words left out: a remark, not a label."""
    if _SENTENCE_END_RE.search(text) is None:
        return False
    return sum(1 for m in _LOWER_WORD_RE.finditer(text)
               if m.group().islower() and m.group() not in _DATE_WORDS) >= lower_words
