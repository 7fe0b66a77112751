"""Settings for wackycrawl: Scrapy's, set for a polite corpus crawl, and the WACKY_* ones.

Every WaCky threshold is a named setting here with its default and the source of that
default. Override any of them with ``-s NAME=VALUE`` on the command line, in Scrapyd's
``setting=`` parameter, or in the environment (``SCRAPY_NAME``) as Scrapy allows.
"""

import os

BOT_NAME = "wackycrawl"
SPIDER_MODULES = ["wackycrawl.spiders"]
NEWSPIDER_MODULE = "wackycrawl.spiders"
# `scrapy crawl` refuses a JOBDIR another live crawl uses, in one line (wackycrawl.commands.crawl)
COMMANDS_MODULE = "wackycrawl.commands"

# --- Profile --------------------------------------------------------------------------
# A named set of the settings below for a kind of crawl (wackycrawl.crawl.profiles): "local"
# = a server you own (no delay, AutoThrottle off, 4 per host, scope from the seeds, private
# addresses allowed; robots.txt still obeyed). "" = none. -s settings still win over it.
WACKY_PROFILE = ""

# --- Identity -------------------------------------------------------------------------
# Contact URL or e-mail put into the User-Agent so webmasters can reach the operator.
WACKY_CONTACT = "https://github.com/wackycrawl/wackycrawl"
# The product token robots.txt groups are matched against (RFC 9309 2.2.1).
WACKY_ROBOTS_TOKEN = "wackycrawl"
# USER_AGENT is built from the two above ("wackycrawl/0.1 (+CONTACT)") when left empty.
USER_AGENT = ""

# --- Politeness (defaults of Scrapy's startproject template, RFC 9309) ------------------
ROBOTSTXT_OBEY = True
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 1
DOWNLOAD_DELAY = 1.0
# Each slot delay varies by +-50 % (Scrapy's default; replaces the deprecated
# RANDOMIZE_DOWNLOAD_DELAY). wackycrawl.middlewares.politeness adds no jitter of its own.
DOWNLOAD_DELAY_JITTER = 0.5
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_START_DELAY = 1.0
AUTOTHROTTLE_MAX_DELAY = 60.0
AUTOTHROTTLE_TARGET_CONCURRENCY = 1.0
# Upper bound for a robots.txt Crawl-delay, in seconds (C04: absurd values are capped).
WACKY_CRAWL_DELAY_MAX = 60.0
# Seconds a host whose robots.txt failed (5xx, 429, no answer) stays completely disallowed
# before robots.txt is fetched again; a longer Retry-After wins (RFC 9309 2.3.1.4; C01).
WACKY_ROBOTS_RETRY_SECONDS = 600
# Seconds a robots.txt (parsed, or 4xx "unavailable") is cached at most (RFC 9309 2.4: 24 h).
WACKY_ROBOTS_MAX_AGE = 86400
# Bytes of a robots.txt that are parsed; the rest is ignored (RFC 9309 2.5: at least 500 KiB).
WACKY_ROBOTS_MAX_BYTES = 500 * 1024
# Times a request of a host whose robots.txt is unreachable is parked and scheduled again
# (each after WACKY_ROBOTS_RETRY_SECONDS) before it is dropped (project policy, C01).
WACKY_ROBOTS_MAX_DEFERRALS = 3
# 429/503 (C06; RFC 6585 4, RFC 9110 15.6.4): the host is held for Retry-After (delta-seconds
# or HTTP-date), at most this many seconds (project policy: a host asking for more is tried
# again after an hour), and the request is retried later, not dropped.
WACKY_RETRY_AFTER_MAX = 3600
# Without Retry-After each 429/503 raises the host's interval to max(BASE, interval) * FACTOR,
# at most CAP seconds, and waits that long plus a random share in [0, JITTER) of it; each 2xx
# multiplies the raised interval by DECAY until it is back at the normal one. Truncated
# exponential back-off with jitter (AWS Architecture Blog 2015, Google Cloud: factor 2);
# cap 300 s from C06; decay 0.9 is ours (about 7 successes halve the interval).
WACKY_BACKOFF_BASE = 1.0
WACKY_BACKOFF_FACTOR = 2.0
WACKY_BACKOFF_CAP = 300.0
WACKY_BACKOFF_JITTER = 0.5
WACKY_BACKOFF_DECAY = 0.9
# Retries of one request answered 429/503 before it is dropped (wacky/drop/overloaded); with
# the defaults 5 retries wait at least 2+4+8+16+32 s. Negative: BackoffMiddleware off.
WACKY_BACKOFF_MAX_RETRIES = 5
# Scrapy's RetryMiddleware would resend 429/503 at once: they are BackoffMiddleware's only.
RETRY_HTTP_CODES = [500, 502, 504, 522, 524, 408]
# Seconds between two request starts to one IP address, whatever the hostname (many sites on
# one server). 0 = off, as Scrapy's CONCURRENT_REQUESTS_PER_IP: it costs a DNS lookup per host
# (Scrapy's resolver and DNS cache, also behind a proxy) and the host interval already applies.
WACKY_PER_IP_DELAY = 0.0
# With a frontier (JOBDIR or Redis), a request that would wait longer than this many seconds
# for its host (Retry-After, back-off) is parked in the frontier with its not-before time
# instead of waiting in memory (survives kill -9, frees its slot; project choice).
WACKY_PARK_AFTER_SECONDS = 10.0

# --- Politeness middlewares (robots.txt RFC 9309, Crawl-delay) ---------------------------
# RobotsMiddleware replaces Scrapy's (C01, C02, C29); PolitenessMiddleware spaces requests per
# host by max(DOWNLOAD_DELAY, Crawl-delay) and must stay last before the downloader (C04).
DOWNLOADER_MIDDLEWARES = {
    "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
    "wackycrawl.middlewares.robots.RobotsMiddleware": 100,
    "wackycrawl.middlewares.politeness.PolitenessMiddleware": 950,
    "wackycrawl.middlewares.backoff.BackoffMiddleware": 940,  # 429/503 retried later (C06)
    # Scrapy's, but a Location that is no usable URL is logged and counted, not a traceback
    "scrapy.downloadermiddlewares.redirect.RedirectMiddleware": None,
    "wackycrawl.middlewares.redirect.RedirectMiddleware": 600,
    # both: a redirect target is judged as a page of its own (no per-response meta inherited)
    "scrapy.downloadermiddlewares.redirect.MetaRefreshMiddleware": None,
    "wackycrawl.middlewares.redirect.MetaRefreshMiddleware": 580,
}

# --- Seeding (BootCaT-style random queries, wackycrawl.seeding) --------------------------
# `wackycrawl tuples`: k words per tuple (BootCaT's default 3, Baroni & Bernardini 2004);
# the top ranks skipped (function words dominate them; no published cut-off) and the band of
# ranks kept after them ("middle-frequency words", Baroni's WaCky slides); words shorter than
# WACKY_TUPLES_MIN_CHARS characters are dropped (project choice).
WACKY_TUPLES_K = 3
WACKY_TUPLES_SKIP_TOP = 100
WACKY_TUPLES_BAND = 5000
WACKY_TUPLES_MIN_CHARS = 3
# Engines a seed URL is matched against besides Bing and Brave: a SearXNG instance's base
# URL, and a plain URL template with {query} answering with HTML; "" = none. API keys come
# only from the environment (WACKY_BING_KEY, WACKY_BRAVE_KEY), never from settings.
WACKY_SERP_SEARXNG_URL = ""
WACKY_SERP_TEMPLATE = ""
# Seeds kept per query (ukWaC: at most 10, Ferraresi et al. 2008) and per registered domain
# (eTLD+1) across the whole seed set (WaCky: seed URLs "all from different domains").
WACKY_SERP_MAX_RESULTS = 10
WACKY_SERP_MAX_PER_DOMAIN = 1
# Seconds between two requests to an engine's host, a floor on its politeness interval
# (Brave's free plan: 1 query/s; Bing: 3/s; SearXNG and other engines: project choice).
WACKY_SERP_DELAYS = {"searxng": 2.0, "bing": 1.0, "brave": 1.0, "template": 10.0}
# Bytes of one result page read at most (a 50-result API answer is ~100 KB; project choice).
WACKY_SERP_MAX_BYTES = 2 * 1024 * 1024

# --- Scope and depth ---------------------------------------------------------------------
# Follow the links of fetched pages (False: fetch exactly the seed list, e.g. to re-fetch a URL list).
WACKY_FOLLOW_LINKS = True
DEPTH_LIMIT = 5  # links from a seed along the path found (README, Link depth)
DEPTH_PRIORITY = 1  # breadth-first: FIFO queues
SCHEDULER_DISK_QUEUE = "scrapy.squeues.PickleFifoDiskQueue"
SCHEDULER_MEMORY_QUEUE = "scrapy.squeues.FifoMemoryQueue"

# --- Scope, traps, safety (wackycrawl.crawl.urls, scope, traps, safety) ---------------------
# The dupefilter's key: w3lib's canonicalize_url without session ids, utm_*/click-id tracking
# parameters and default ports, reserved %XX kept in paths (C22; wackycrawl.crawl.urls).
REQUEST_FINGERPRINTER_CLASS = "wackycrawl.crawl.urls.CanonicalRequestFingerprinter"
# Scope as SURT prefixes (Heritrix): allow "http://(de," style prefixes and/or domains or TLDs
# ("de,at", "uni-bonn.de" = the domain and its subdomains); both empty = no restriction. https
# is compared as http (Heritrix SurtPrefixSet). The deny list wins. Seeds are always fetched.
WACKY_SCOPE_SURTS = []
WACKY_SCOPE_ALLOW = []
WACKY_SCOPE_DENY = []
# Add each seed's registered domain ("domain": www.uni-bonn.de -> uni-bonn.de) or public suffix
# ("suffix": -> de, a whole-TLD crawl as ukWaC/deWaC) to the allow list; "" = off.
WACKY_SCOPE_FROM_SEEDS = ""
# Spider traps. URL-shape limits, 0 = off: path segments (Heritrix TooManyPathSegmentsDecideRule
# 20), times one segment may occur (PathologicalPathDecideRule 2), URL length in characters
# (Heritrix UURI.MAX_URL_LENGTH 2083), query parameters (10: no published default).
WACKY_TRAPS_ENABLED = True
WACKY_TRAP_MAX_PATH_DEPTH = 20
WACKY_TRAP_MAX_SEGMENT_REPEATS = 2
WACKY_TRAP_MAX_URL_LENGTH = 2083
WACKY_TRAP_MAX_QUERY_PARAMS = 10
# Requests per host[:port] at most, robots.txt not counted; 0 = no limit. No published value:
# 5000 pages is far above what a WaCky crawl keeps from one site (ukWaC: 2.7 M sites' pages).
WACKY_HOST_BUDGET = 5000
# Link generators across host names (wildcard DNS: each page links to new s1234.example.com
# hosts) escape the per-host rules. Per registered domain (Public Suffix List, private section
# included: each *.blogspot.com, *.github.io site is a domain of its own) at most this many
# hosts that have had no document kept are requested; a host with a kept document stops
# counting, so hosting domains whose sites yield text (wordpress.com, tumblr.com) go on. The
# trade-off: a domain whose first 100 new hosts all give nothing (empty pages, another
# language, errors) takes no new host until one of them gives a document. Seeds always pass.
# Counted per worker; 0 = no limit. No published value: Heritrix's QuotaEnforcer host/group
# quotas are unlimited by default.
WACKY_DOMAIN_HOST_BUDGET = 100
# Endless links (calendars, faceted search): a pattern (host + first path segment) stops when,
# over a window of WACKY_TRAP_WINDOW of its fetched pages, at least WACKY_TRAP_NEW_RATIO new
# URLs per page were found and no document was kept (project values: a calendar gives ~1 per
# page; under 1 for the links of pages still in flight); window 0 = detector off.
WACKY_TRAP_WINDOW = 50
WACKY_TRAP_NEW_RATIO = 0.5
# Fetch private, loopback, link-local, multicast, reserved addresses (literal IPs and resolved
# names; RFC 6890)? Off by default. Through an HTTP proxy names are the proxy's to resolve:
# only literal IPs and localhost are judged (see wackycrawl.middlewares.safety).
WACKY_ALLOW_PRIVATE_ADDRESSES = False
# Progress: a log line every N seconds (Scrapy's LOGSTATS_INTERVAL default; 0 = off); at close
# the N best and worst hosts by kept words per fetched MB go into the stats (wacky/yield/<host>)
# and every host into WACKY_YIELD_FILE (TSV; relative = under WACKY_OUTPUT_DIR; {worker} =
# this process's worker id, so resumed runs and workers never overwrite each other; "" = off).
WACKY_PROGRESS_INTERVAL = 60
WACKY_YIELD_TOP = 10
WACKY_YIELD_FILE = "host-yield-{worker}.tsv"
# Safety first, then scope, then traps: all before RobotsMiddleware (100), so nothing is
# sent, robots.txt included, for a request these refuse.
DOWNLOADER_MIDDLEWARES["wackycrawl.middlewares.safety.SafetyMiddleware"] = 40
DOWNLOADER_MIDDLEWARES["wackycrawl.middlewares.scope.ScopeMiddleware"] = 45
DOWNLOADER_MIDDLEWARES["wackycrawl.middlewares.traps.TrapsMiddleware"] = 60
# The links a page yields are held to WACKY_TRAP_MAX_URL_LENGTH before they are queued (a drop
# trap_url_length), in place of Scrapy's URLLENGTH_LIMIT check, which ignored them unrecorded.
SPIDER_MIDDLEWARES = {"scrapy.spidermiddlewares.urllength.UrlLengthMiddleware": None,
                      "wackycrawl.middlewares.traps.UrlLengthMiddleware": 800}

# --- Downloads -----------------------------------------------------------------------------
DOWNLOAD_TIMEOUT = 30
RETRY_ENABLED = True
RETRY_TIMES = 2
# A page given up after its retries is the drop download_error (one INFO line, see
# WACKY_DROPS_FILE); Scrapy's own "Gave up retrying" line (ERROR by default) goes to DEBUG.
RETRY_GIVE_UP_LOG_LEVEL = "DEBUG"
REDIRECT_ENABLED = True
REDIRECT_MAX_TIMES = 5
DOWNLOAD_FAIL_ON_DATALOSS = True
COOKIES_ENABLED = False

# --- Size window (Baroni et al. 2009: 5 KB to 200 KB) ---------------------------------
# Bounds on the DECODED body in bytes (after Content-Encoding is removed).
WACKY_MIN_DOC_BYTES = 5 * 1024
WACKY_MAX_DOC_BYTES = 200 * 1024
# Media types kept as documents (WaCky crawls HTML only); any other Content-Type is cut off
# at the headers. No Content-Type: the first bytes are sniffed and text is taken for HTML.
WACKY_HTML_TYPES = ["text/html", "application/xhtml+xml"]

# Size-window middleware: 585 puts it after HttpCompressionMiddleware (590) in
# process_response, so it measures the decoded body (C08).
DOWNLOADER_MIDDLEWARES["wackycrawl.middlewares.sizewindow.SizeWindowMiddleware"] = 585
# A charset label the WHATWG Encoding Standard does not have (charset=undefined, idna...) is
# ignored, as browsers do, before MetaRefreshMiddleware (580) and the spider read the text.
DOWNLOADER_MIDDLEWARES["wackycrawl.middlewares.charset.CharsetMiddleware"] = 583

# --- Text: encoding, boilerplate, filters ------------------------------------------------
# encoding
# Bytes a page may need mapped (stray cp1252 byte) or dropped before it is rejected as
# undecodable (C10). No published default: 10 is under 0.2 % of a 5 KB minimum-size page.
WACKY_MAX_ENCODING_REPAIRS = 10
# Share of WHATWG "binary data bytes" (MIME Sniffing 3: 0x00-08, 0B, 0E-1A, 1C-1F) above
# which a body served as text is treated as binary; WHATWG tolerates none, we allow 1 %.
WACKY_MAX_BINARY_SHARE = 0.01
# Least plausibility of a decoded page (share of its non-ASCII characters that the letters of
# one language explain, wackycrawl.text.charsets): below it, and with at least 8 unexplained
# characters, the page is dropped as `encoding`, never stored garbled. Ours (devset).
WACKY_ENCODING_MIN_PLAUSIBILITY = 0.75
# filters
# Minimum words of clean text after boilerplate removal. WaCky's connected-prose test needs
# 30 function-word tokens (Baroni et al. 2009, 2.3), so fewer words can never pass it.
WACKY_MIN_CLEAN_WORDS = 30
# Porn/spam word list, one word per line ("" = shipped lists for all languages, merged).
WACKY_BADWORDS_FILE = ""
# Drop a document with at least this many distinct list words / list-word tokens
# (ukWaC/deWaC: "at least three types or ten tokens"; 0 turns a test off).
WACKY_BADWORDS_MIN_TYPES = 3
WACKY_BADWORDS_MIN_TOKENS = 10
# boilerplate
# "bte" = Body Text Extraction (Finn, Kushmerick & Smyth 2001), the one span with most words
# minus tags; "blocks" = BTE with list/inline tags neutral plus a block-level pass (link
# density, second content areas), best on the CleanEval dev set (wackycrawl.text.blocks): all
# running text incl. readers' comments (CleanEval's definition); "article" = the same pass in
# article mode, the article only (no comments, captions, title heading or second content
# areas), the definition of the article-extraction benchmarks' gold.
WACKY_EXTRACTOR = "blocks"
# "blocks": a block with more than this share of its words inside <a> is boilerplate
# (jusText's max_link_density, Pomikalek 2011).
WACKY_MAX_LINK_DENSITY = 0.2
# "blocks": words a block outside the BTE span needs to be kept (no published value; 30
# scored best on the CleanEval dev set, benchmarks/boilerplate_eval.py); "article": the same,
# for blocks inside the innermost container element that holds the whole span.
WACKY_MIN_OUTSIDE_WORDS = 30
# "blocks": host-level templates (wackycrawl.text.templates; Bar-Yossef & Rajagopalan 2002):
# blocks seen on at least WACKY_TEMPLATE_MIN_PAGES pages of a host are boilerplate on its
# pages, learnt as the crawl goes: in Redis with REDIS_URL; with JOBDIR in
# JOBDIR/wacky-templates.sqlite (shared by the stage workers, kept for a resumed run; each
# page committed, so kill -9 loses none); else in the stage worker. At most
# WACKY_TEMPLATE_MAX_BLOCKS block hashes per host (lowest counts evicted) and, in one
# process or JOBDIR, WACKY_TEMPLATE_MAX_HOSTS hosts (least recently used evicted). No
# published values; 2 pages, not 3, since a host's first pages are judged before the counts
# exist (measured in wackycrawl.text.templates.MIN_PAGES). WACKY_TEMPLATE_BUSY_SECONDS: with JOBDIR, how long a stage worker waits
# for the file while another holds it before the page goes without templates
# (wacky/boilerplate/template_errors).
WACKY_HOST_TEMPLATES = True
WACKY_TEMPLATE_MIN_PAGES = 2
WACKY_TEMPLATE_MAX_BLOCKS = 512
WACKY_TEMPLATE_MAX_HOSTS = 1000
WACKY_TEMPLATE_BUSY_SECONDS = 5.0

# --- Language ---------------------------------------------------------------------------
# Function-word language ID (Baroni, "Linguistic Crawls" slides: "small list of function
# words"), every label checked by langid.py's model; see wackycrawl.text.funcwords.
WACKY_LANGUAGE_ENABLED = True
# Languages to keep, ISO 639-1, comma-separated ("de", "en,de"); empty keeps every language.
# An unknown code stops the crawl at start-up.
WACKY_LANGUAGES = ""
# Main text shorter than this many characters is "und" (case C13: langid is wrong on short text).
WACKY_LID_MIN_CHARS = 200
# Lead (best - second) / best in function-word tokens to decide without langid.py (devset).
WACKY_LID_MIN_MARGIN = 0.3
# The n-gram model (py3langid, langid.py's model retrained on 139 languages) reads at most
# this many characters of every text it checks (shorter input is faster).
WACKY_LANGID_MAX_CHARS = 1000
# When the lists point at one language without close neighbours, the model first reads only
# this many characters; if it is sure (WACKY_LID_MODEL_MIN_PROB) of the same language, that
# is the check (0: always read WACKY_LANGID_MAX_CHARS).
WACKY_LID_CHECK_CHARS = 300
# A label needs the model's probability of at least AGREE when the function-word lists point
# at it too, at least MODEL when the model decides alone (no list fits, or the lists point
# elsewhere); below, "und" (benchmarks/language_eval.py, devset sentences and documents).
WACKY_LID_AGREE_MIN_PROB = 0.5
WACKY_LID_MODEL_MIN_PROB = 0.99
# Close languages (bs/hr/sr, nb/nn/da/sv, cs/sk, es/pt/gl/ca, id/ms, el/grc): the best member needs
# this share of the group's probability and no distinctive word of another member against it,
# or this many tokens of distinctive words (in its function-word or marker list, not in the
# other's; three times the other's) against each member the model has not ruled out; else
# "und" naming the two candidates (Language-Top2). The same count of marker words lets the
# model's nso (it has no Setswana class) stand. Devset documents, both halves (1 instead of 2:
# hr precision 1.0 -> 0.98).
WACKY_LID_CLOSE_MIN_SHARE = 0.9
# Groups with their own share instead (named by their members): the model tells the Nordic and
# the Ibero-Romance standards apart by their spelling systems (same benchmark, sentences, both
# halves: 0.8 labels 15-18 % more da/nb/nn and 5-6 % more es/pt sentences; 17 of the 18 labels
# it gives that differ from the gold are right by the sentence's own forms); Czech and Slovak
# 0.85 (20 more cs/sk sentences, none wrong; 0.8 calls Czech without diacritics Slovak).
WACKY_LID_CLOSE_GROUP_SHARES = {"da,nb,nn,sv": 0.8, "ca,es,gl,pt": 0.8, "cs,sk": 0.85}
# Groups in which one distinctive token of the best member against the second best (none of
# another member's against it) settles it when the best holds this share of the group's
# probability (not bs/hr/sr, id/ms: their standards share most forms). Devset sentences, both
# halves: 0.5 labels about 330 more da/nb/nn/sv/cs/sk/es/pt/ca sentences, no precision lost.
WACKY_LID_CLOSE_ONE_MARKER_SHARES = {"da,nb,nn,sv": 0.5, "ca,es,gl,pt": 0.5, "cs,sk": 0.5}
WACKY_LID_CLOSE_MIN_MARKERS = 2
# Close languages whose standard is purist (Croatian: its language policy admits no Bosnian
# or Serbian form, while theirs "tend to be inclusive", Wikipedia's comparison of the
# standards): one distinctive token of another member, three times the purist's own, tells a
# text apart from it (devset documents: bs recall 0.38 -> 0.62, no new error).
WACKY_LID_CLOSE_PURIST = "hr"
# Close groups whose standards write none of each other's distinctive forms (Indonesian KBBI
# karena, bahwa, saja, uang / Malay DBP kerana, bahawa, sahaja, wang): a text holding
# distinctive words of two members mixes the standards and gets a label only when the label's
# distinctive words have this many times as many types (different words) as the other's; else
# "und" naming both (devset documents: 5 of the 6 ms documents holding forms of both
# standards that were labelled id become und, 1 in each half; no other label changes).
WACKY_LID_CLOSE_MIXED_RATIO = {"id,ms": 3.0}
# Language-Mix / Language-Foreign: a paragraph's lists decide with this many function-word
# tokens; the model reads paragraphs of at least this many characters (one sentence).
WACKY_LID_MIX_MIN_TOKENS = 3
WACKY_LID_MIX_LANGID_MIN_CHARS = 100
# Read the text in pieces of this many characters, then 2x, 4x... (0: always whole); stop
# once the text read passes the prose test with a ratio of at least WACKY_MIN_FUNCWORD_RATIO
# + WACKY_LID_STOP_MARGIN, or has no function word of any list, and holds langid.py's input
# if the lists do not decide. The prose figures are then those of the text read
# (wackycrawl.text.funcwords; 794 devset pages: same languages, 11 prose openings followed
# by lists or notices become prose).
WACKY_LID_CHUNK_CHARS = 1000
WACKY_LID_STOP_MARGIN = 0.05
# Connected prose: at least ten types and thirty tokens of function words (Baroni et al.
# 2009; Ferraresi et al. 2008, ukWaC) and a minimum share of all words ("minimum proportion
# of function words", Baroni's slides; BootCaT whitelist "Ratio").
WACKY_MIN_FUNCWORD_TYPES = 10
WACKY_MIN_FUNCWORD_TOKENS = 30
WACKY_MIN_FUNCWORD_RATIO = 0.25

# --- Near-duplicates ----------------------------------------------------------------------
# Drop exact duplicates (64-bit BLAKE2b of the NFC, white-space-collapsed clean text) and
# near duplicates (64-bit word-frequency simhash, Charikar 2002; function words are left
# out of the features, as in the seed notes' example, section 9) of kept documents.
WACKY_DEDUP_ENABLED = True
# Simhash candidates: Hamming distance <= k between 64-bit simhashes, in 0..15 (Manku, Jain,
# Das Sarma, WWW 2007, use k = 3 alone; re-templated, edited and truncated copies are mostly
# 4-11 bits away, devset/neardup). Four permuted tables of 16-bit blocks, probed within
# r_t bits of block t, sum(r_t + 1) = k + 1 (k = 11: 2 bits in each); every candidate is
# confirmed by shingle resemblance below.
WACKY_SIMHASH_K = 11
# Table entries one lookup compares at most (the candidate cap; the own blocks, distance
# <= 3, are always looked at). Spread fingerprints reach it at k = 11 past ~3.5M documents
# (8,400 entries per lookup at 1M); below, it only bounds a lookup into crowded buckets.
WACKY_SIMHASH_MAX_CANDIDATES = 32768
# Confirmation (Broder, Glassman, Manasse, Zweig, "Syntactic clustering of the Web", 1997):
# words per shingle (the 5-grams of the WaCky corpora), shingles kept per document (a
# bottom-k sketch: 4 + 2 * N bytes), and the resemblance (Jaccard of the shingle sets,
# Broder et al.'s 50 %) from which a candidate is a near duplicate.
WACKY_SHINGLE_SIZE = 5
WACKY_SHINGLE_SKETCH_SIZE = 40
WACKY_NEAR_RESEMBLANCE = 0.5
# Texts with fewer feature words than this are never matched or indexed by simhash (C15).
WACKY_SIMHASH_MIN_FEATURES = 50
# With JOBDIR, the dedup state (<JOBDIR>/wacky-dedup/) is saved every N kept documents
# and on close, so a crash loses at most N documents' entries.
WACKY_DEDUP_SAVE_EVERY = 1000

# --- Output: gzip TREC compound files ----------------------------------------------------
# Directory of the <prefix>-<worker>-<file#>.trec.gz files and their .idx.tsv indexes; "" = off.
# A new crawl (no frontier to resume: no JOBDIR, or one without its frontier yet) refuses a
# directory that already holds TREC files; a resumed JOBDIR crawl and Redis workers share it.
WACKY_OUTPUT_DIR = "corpus"
# Rotate before a file passes this many COMPRESSED bytes (~100 MB, a GOV2-sized bundle file).
WACKY_TREC_ROTATE_BYTES = 100 * 1000 * 1000
# First part of file names and DOCNOs: <prefix>-<worker>-<file#:05d>-<doc#:06d>.
WACKY_DOCNO_PREFIX = "WACKY"
# Second part; None = UTC start time + hash of host, pid, clock (unique per run and machine).
WACKY_WORKER_ID = None
# os.fsync after every document (power-loss safety, slower); a flush alone survives kill -9.
WACKY_TREC_FSYNC = False
# gzip level of each one-document member (zlib's default, 6).
WACKY_TREC_COMPRESSLEVEL = 6
# Rejects stream (wackycrawl.pipelines.rejects: annotate, do not only drop): documents
# dropped for one of these reasons go, with their scores and X-Wacky-Rejected, to TREC files
# <prefix>-<worker>-rejects-<file#>.trec.gz in WACKY_REJECTS_DIR ("" = <WACKY_OUTPUT_DIR>/rejects).
WACKY_KEEP_REJECTS = False
WACKY_REJECT_REASONS = ["too_short", "badwords", "not_prose", "wrong_language",
                        "exact_duplicate", "near_duplicate"]
WACKY_REJECTS_DIR = ""

# --- Components ---------------------------------------------------------------------------
# (stage runner settings) StagesPipeline runs the stateless stages of WACKY_STAGES, in order,
# in worker processes; dedup (index of kept documents) and the TREC writer stay here.
ITEM_PIPELINES = {
    "wackycrawl.pipelines.stages.StagesPipeline": 100,
    "wackycrawl.pipelines.dedup.DedupPipeline": 500,
    "wackycrawl.pipelines.trec.TrecWriterPipeline": 900,
}
# The stateless stages (from_crawler + process_item; see wackycrawl.pipelines.stages).
WACKY_STAGES = [
    "wackycrawl.pipelines.text.TextPipeline",
    "wackycrawl.pipelines.boilerplate.BoilerplatePipeline",
    "wackycrawl.pipelines.filters.FiltersPipeline",
    "wackycrawl.pipelines.language.LanguagePipeline",
    "wackycrawl.pipelines.dedup.FingerprintPipeline",
    # the shared dedup index's check, in a stage worker of a distributed crawl only (else the
    # crawl process's DedupPipeline checks)
    "wackycrawl.pipelines.dedup.SharedDedupStage",
    # last: formats and deflates the TREC document but its DOCNO and dedup metadata, which the
    # TREC writer adds (wackycrawl.trec.parts); the writer alone drops bad text (trec_bad_text)
    "wackycrawl.pipelines.trec.TrecPrepareStage",
]
# Worker processes for WACKY_STAGES (0 = in the crawl process). None = 1 if os.cpu_count()
# >= 2, else 0: Scrapy's own process is CPU-bound on one core (benchmarks/crawl.py).
WACKY_STAGE_WORKERS = None
# Niceness of the worker processes above the crawl process's (0 = the same): when the cores are
# busy the crawl process keeps its core (benchmarks/crawl.py).
WACKY_STAGE_WORKER_NICE = 5
# Linux scheduling policy of the workers (sched(7)): "other" (time-sharing, with the niceness
# above), "batch" (SCHED_BATCH) or "idle" (SCHED_IDLE: the workers get only CPU time no other
# program wants, and their core counts as free when the web server or Redis wakes up, so those
# do not take the crawl process's core). Elsewhere than Linux the default policy stays (logged).
WACKY_STAGE_WORKER_POLICY = "other"

EXTENSIONS = {
    # spider.state written atomically; a full disk or an unreadable file is one log line
    "scrapy.extensions.spiderstate.SpiderState": None,
    "wackycrawl.extensions.spiderstate.SpiderState": 0,
    "wackycrawl.extensions.drops.DropsLog": 700,
    "wackycrawl.extensions.progress.Progress": 800,  # before Summary: yield stats
    "wackycrawl.extensions.summary.Summary": 900,
    "wackycrawl.pipelines.rejects.RejectsWriter": 950,  # only with WACKY_KEEP_REJECTS
    "wackycrawl.extensions.gcfreeze.GcFreeze": 1000,  # after the others' spider_opened
}
# gc.freeze() when the spider opens: the start-up's objects leave the collector's full passes
# (wackycrawl.extensions.gcfreeze; the stage workers do the same after their warm-up).
WACKY_GC_FREEZE = True
# With it, the youngest generation's threshold (gc.set_threshold; CPython's default 700): the
# collector's passes over the requests and items in flight, 1.1 -> 0.3 s of CPU in a
# 2,300-page benchmarks/crawl.py crawl. 0 = Python's own. Ours (measured there).
WACKY_GC_THRESHOLD = 50_000
# Every drop (any stage or middleware) is one INFO line "Dropped: <reason>: <url> (<detail>)",
# a count wacky/drop/<reason> and a row "time, URL, reason, detail" of this TSV file
# (relative = under WACKY_OUTPUT_DIR; {worker} = this process's worker id; "" = no file).
WACKY_DROPS_FILE = "drops-{worker}.tsv"
# Write all crawl stats as JSON to this file at close ("" = off).
WACKY_STATS_FILE = ""
# Scrapy's MemoryStatsCollector without its per-call deprecation shim (wackycrawl.statscollectors).
STATS_CLASS = "wackycrawl.statscollectors.StatsCollector"

# Scrapy 2.19 creates a task per item slot; ~10 is measurably faster (notes/stack.md §3).
CONCURRENT_ITEMS = 10

# Scrapy 2.19's remote-control extension leaves job files behind after kill -9; off.
REMOTE_CONTROL_ENABLED = False

# One short line per dropped or kept item instead of the whole item (its HTML).
LOG_FORMATTER = "wackycrawl.logformatter.WackyLogFormatter"

TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
FEED_EXPORT_ENCODING = "utf-8"
LOG_LEVEL = "INFO"

# --- Distributed (Redis) and crash-safe frontier (wackycrawl.distributed) ------------------
# REDIS_URL (setting or environment, e.g. redis://host:6379/0) or REDIS_HOST/REDIS_PORT is the
# switch: queue, seen set and seeds of the crawl live in Redis under wacky:<WACKY_CRAWL_NAME>:*.
# Without it, JOBDIR selects the SQLite frontier in JOBDIR (survives kill -9); with neither,
# Scrapy's in-memory scheduler runs. WACKY_FRONTIER forces "redis", "local" or "scrapy".
# The scheduler is scrapy-redis's, subclassed (leases); its settings keep their documented
# meaning (scrapy-redis README): REDIS_URL, REDIS_HOST, REDIS_PORT, REDIS_DB, REDIS_PARAMS
# (redis-py client arguments), REDIS_ENCODING; SCHEDULER_QUEUE_CLASS / _KEY,
# SCHEDULER_DUPEFILTER_CLASS / _KEY (DUPEFILTER_CLASS too), SCHEDULER_SERIALIZER,
# REDIS_START_URLS_KEY, REDIS_START_URLS_AS_SET; %(spider)s / %(name)s = the crawl name.
SCHEDULER = "wackycrawl.distributed.scheduler.FrontierScheduler"
SCHEDULER_QUEUE_CLASS = "wackycrawl.distributed.queue.FrontierQueue"
SCHEDULER_QUEUE_KEY = "wacky:%(spider)s:queue"
SCHEDULER_DUPEFILTER_CLASS = "wackycrawl.distributed.dupefilter.FrontierDupeFilter"
SCHEDULER_DUPEFILTER_KEY = "wacky:%(spider)s:seen"
REDIS_START_URLS_KEY = "wacky:%(name)s:start_urls"
REDIS_START_URLS_AS_SET = False
# Keep the crawl's queue and seen set when a worker closes (scrapy-redis's default is False:
# flush them, which with several workers empties the crawl under the others' feet).
SCHEDULER_PERSIST = True
# Flush the crawl's queue and seen set when a worker opens (scrapy-redis, default False).
SCHEDULER_FLUSH_ON_START = False
# scrapy-redis: seconds a worker whose queue is empty waits for a request before it may close
# (default 0). Here a lower bound of the idle wait below, never a blocking pop (BRPOP stalls
# the reactor, notes/stack.md 4.4).
SCHEDULER_IDLE_BEFORE_CLOSE = 0
# scrapy-redis's MAX_IDLE_TIME_BEFORE_CLOSE (or the spider attribute max_idle_time, -a
# max_idle_time=N) is left unset: set, it replaces WACKY_IDLE_CLOSE_SECONDS with its documented
# meaning (N > 0 seconds; 0 = never close, a standing worker waiting for seeds; < 0 at once).
WACKY_FRONTIER = "auto"
REDIS_URL = None
# Crawl name shared by the workers of one crawl (the Redis key prefix); "" = spider name.
# $WACKY_CRAWL_NAME is the default, the variable `wackycrawl seeds push` and `status` read.
WACKY_CRAWL_NAME = os.environ.get("WACKY_CRAWL_NAME", "")
# A popped request is leased for this many seconds, renewed every WACKY_LEASE_RENEW_SECONDS
# while its worker lives (also while it waits for its host's turn); the lease of a dead worker
# expires and its requests go back into the queue (reliable-queue pattern, Redis docs; C20).
# No published value: 60 s bounds the delay after a crash, the renewal stays well below it.
WACKY_LEASE_SECONDS = 60.0
WACKY_LEASE_RENEW_SECONDS = 10.0
# A worker closes after the whole crawl had no work (nothing queued, no seed waiting, no lease
# held by any worker) this long: reason "finished"; if only parked requests are left (robots.txt
# unreachable, Retry-After) reason "idle", they stay in the frontier for a resume (without a
# frontier they are dropped and counted). MAX_IDLE_TIME_BEFORE_CLOSE (above) wins if set.
WACKY_IDLE_CLOSE_SECONDS = 30.0
# A Redis outage up to this long is a pause (one WARNING when it starts, one when it ends);
# past it the worker closes with reason "redis_outage" (project choice: 5 minutes covers a
# restart from a large AOF; wackycrawl.distributed.connection). A hung server (frozen,
# overloaded, a partition) counts from when the command that hung was sent.
WACKY_REDIS_OUTAGE_SECONDS = 300.0
# Seconds a Redis command or connection attempt may wait for an answer before it counts as
# the start of an outage (redis-py's socket_timeout and socket_connect_timeout; scrapy-redis's
# 30 s let a hung server expire every lease unnoticed). None = derived from the leases:
# (WACKY_LEASE_SECONDS - 2 * WACKY_LEASE_RENEW_SECONDS) / 2 within 0.5..5 s (5 s with the
# defaults), so a stall shorter than that cannot expire a live worker's lease. A
# socket_timeout / socket_connect_timeout in REDIS_PARAMS wins.
WACKY_REDIS_TIMEOUT = None
# Seconds between two publications of a worker's counters for `wackycrawl status`.
WACKY_STATS_PUBLISH_SECONDS = 10.0
# Cluster-wide politeness (wackycrawl.distributed.politeness): with REDIS_URL each host's
# interval, holds and request in flight live in Redis; a claim of a dead worker blocks its
# host this long at most. Must exceed DOWNLOAD_TIMEOUT + the slot delay (no published value).
WACKY_HOST_LEASE_SECONDS = 60.0
# With REDIS_URL the exact/near-duplicate index is the crawl's too, in Redis, shared by all
# workers (wackycrawl.distributed.simhash).
# Seen set: "set" (exact, ~80 bytes per URL in Redis) or "bloom" (bitmap, sized for
# WACKY_BLOOM_CAPACITY URLs at WACKY_BLOOM_ERROR_RATE false positives: 100M at 0.001 take
# 180 MB; Bloom 1970; a false positive skips an unseen URL, rmax/scrapy-redis#56).
WACKY_DUPEFILTER = "set"
# Fingerprints a worker remembers having recorded in the seen set, so a repeated link costs no
# Redis round trip (about 100 bytes each; 0 = off; project choice: ~20 MB per worker).
WACKY_SEEN_CACHE = 200_000
WACKY_BLOOM_CAPACITY = 100_000_000
WACKY_BLOOM_ERROR_RATE = 0.001
# First stage: drops an item whose canonical URL was already written (after a crash or an
# expired lease); on with the Redis or local frontier only.
ITEM_PIPELINES["wackycrawl.distributed.pipeline.WrittenOncePipeline"] = 50

# --- Raw archive: WARC/1.1 (wackycrawl.archive, wackycrawl.middlewares.warc) ---------------
# Folder of the WARC files ("" = no archive): request, response (as received, Content-Encoding
# kept) and a metadata record with the pipeline's decision per page of the size window.
WACKY_WARC_DIR = ""
# True: every response (redirects, errors, robots.txt, pages outside the window) is archived.
WACKY_WARC_ALL = False
# Rotate before this many compressed bytes (Heritrix's maxFileSizeBytes, Common Crawl: ~1 GB).
WACKY_WARC_ROTATE_BYTES = 1_000_000_000
# fsync after each record (power-loss safety; a kill -9 loses nothing written without it).
WACKY_WARC_FSYNC = False
# 945: after politeness (950), before HttpCompressionMiddleware (590) decodes the body.
DOWNLOADER_MIDDLEWARES["wackycrawl.middlewares.warc.WarcMiddleware"] = 945
# Extensions that `wackycrawl process` runs beside ITEM_PIPELINES (they listen to the item
# signals it sends, as in a crawl): the drops file and the rejects stream.
WACKY_OFFLINE_EXTENSIONS = ["wackycrawl.extensions.drops.DropsLog",
                            "wackycrawl.pipelines.rejects.RejectsWriter"]
