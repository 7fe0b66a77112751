"""A local web on 127.0.0.1 for crawl tests and benchmarks: one HTTP proxy serving many hosts.

Scrapy is pointed at it with the ``http_proxy`` environment variable (see :meth:`LocalWeb.env`),
so any hostname (``a.example.test``) is served from the routes registered here and nothing
leaves the loopback interface. Every request is logged with its arrival time (``time.time()``,
seconds) so politeness can be checked across processes.

Usage::

    with LocalWeb() as web:
        web.add("http://a.example.test/", "<html>...</html>")
        web.add("http://a.example.test/robots.txt", "User-agent: *\\nDisallow: /private/",
                content_type="text/plain")
        env = {**os.environ, **web.env()}
"""

from __future__ import annotations

import datetime
import ssl
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self
from urllib.parse import urlsplit


@dataclass
class Route:
    """One URL's answer. ``body`` may be a callable ``(path) -> bytes`` for generated pages."""

    body: bytes | Callable[[str], bytes] = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    chunked: bool = False  # Transfer-Encoding: chunked, no Content-Length
    chunk_size: int = 4096
    chunk_interval: float = 0.0  # seconds between chunks
    content_length: int | None = None  # a lying Content-Length: send it, send the body, close
    delay: float = 0.0  # seconds before answering
    # set by the server: body bytes of a chunked send written when the client closed early
    cut_off_at: int | None = None


@dataclass(frozen=True)
class Hit:
    time: float  # time.time() at arrival
    host: str
    path: str  # path with query
    method: str


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class LocalWeb:
    """An HTTP/1.1 proxy on 127.0.0.1 (free port) that answers from registered routes; 404 else."""

    def __init__(self) -> None:
        self.routes: dict[tuple[str, str], Route] = {}
        self.hits: list[Hit] = []
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- routes -----------------------------------------------------------------------------
    def add(self, url: str, body: bytes | str | Callable[[str], bytes] = b"", *,
            content_type: str | None = "text/html; charset=utf-8", **kw) -> Route:
        """Register ``url`` (absolute, ``http(s)://host[:port]/path[?query]``; http and https
        share one namespace per host). Returns the Route."""
        if isinstance(body, str):
            body = body.encode("utf-8")
        headers = dict(kw.pop("headers", {}) or {})
        if content_type is not None:
            headers.setdefault("Content-Type", content_type)
        route = Route(body=body, headers=headers, **kw)
        self.routes[self._key(url)] = route
        return route

    @staticmethod
    def _key(url: str) -> tuple[str, str]:
        parts = urlsplit(url)
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        return parts.netloc.lower(), path

    def hits_for(self, host: str) -> list[Hit]:
        with self._lock:
            return [h for h in self.hits if h.host == host.lower()]

    # -- server -----------------------------------------------------------------------------
    @property
    def port(self) -> int:
        assert self._server is not None, "LocalWeb not started"
        return self._server.server_address[1]

    @property
    def proxy_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        """Environment variables that route a Scrapy process's HTTP through this proxy."""
        return {"http_proxy": self.proxy_url, "HTTP_PROXY": self.proxy_url,
                "https_proxy": self.proxy_url, "HTTPS_PROXY": self.proxy_url,
                "no_proxy": "", "NO_PROXY": ""}

    def start(self) -> LocalWeb:
        self._server = _Server(("127.0.0.1", 0), _make_handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _make_handler(web: LocalWeb):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):
            pass

        def do_CONNECT(self):
            """HTTPS through the proxy: accept the tunnel, terminate TLS with a self-signed
            certificate, then serve the requests inside it (Host header names the site)."""
            self.send_response(200, "Connection established")
            self.end_headers()
            self.wfile.flush()
            try:
                tls = _tls_context().wrap_socket(self.connection, server_side=True)
            except (ssl.SSLError, OSError):
                self.close_connection = True
                return
            self.connection = tls
            self.rfile = tls.makefile("rb", self.rbufsize)
            self.wfile = tls.makefile("wb", 0)
            self._scheme = "https"
            self.close_connection = False

        def do_HEAD(self):
            self.do_GET(head=True)

        def do_GET(self, head: bool = False):
            parts = urlsplit(self.path)
            if parts.scheme:  # proxy form: absolute URI
                host = parts.netloc.lower()
                path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            else:
                host = (self.headers.get("Host") or "").lower()
                if getattr(self, "_scheme", "http") == "https":
                    host = host.removesuffix(":443")
                path = self.path
            with web._lock:
                web.hits.append(Hit(time.time(), host, path, self.command))
            route = web.routes.get((host, path))
            if route is None:
                route = Route(body=b"<html><body>not found</body></html>", status=404,
                              headers={"Content-Type": "text/html"})
            if route.delay:
                time.sleep(route.delay)
            body = route.body(path) if callable(route.body) else route.body
            self.send_response(route.status)
            for name, value in route.headers.items():
                self.send_header(name, value)
            if route.chunked:
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                if not head:
                    self._send_chunked(body, route)
                return
            if route.content_length is not None:
                self.send_header("Content-Length", str(route.content_length))
                self.send_header("Connection", "close")
                self.end_headers()
                if not head:
                    self.wfile.write(body)
                self.close_connection = True
                return
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def _send_chunked(self, body: bytes, route: Route) -> None:
            i = 0
            try:
                for i in range(0, len(body), route.chunk_size):
                    chunk = body[i:i + route.chunk_size]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                    if route.chunk_interval:
                        time.sleep(route.chunk_interval)
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                route.cut_off_at = i
                self.close_connection = True

    return Handler


_TLS: list[ssl.SSLContext] = []


def _tls_context() -> ssl.SSLContext:
    """A server context with a fresh self-signed certificate (made once per process)."""
    if not _TLS:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID

        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localweb.test")])
        now = datetime.datetime.now(datetime.UTC)
        cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(days=1))
                .not_valid_after(now + datetime.timedelta(days=30)).sign(key, hashes.SHA256()))
        d = tempfile.mkdtemp(prefix="localweb-tls-")
        with open(f"{d}/cert.pem", "wb") as f:
            f.write(cert.public_bytes(serialization.Encoding.PEM))
        with open(f"{d}/key.pem", "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM,
                                      serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(f"{d}/cert.pem", f"{d}/key.pem")
        _TLS.append(ctx)
    return _TLS[0]
