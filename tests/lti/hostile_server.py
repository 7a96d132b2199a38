"""A platform server that misbehaves on purpose, on a loopback port: it drips its answer (or
its headers) a byte at a time, answers with a compression bomb, breaks off, or sends whatever
answer a test sets for a path (`answers`), recording what it was asked."""

from __future__ import annotations

import functools
import gzip
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@functools.cache
def bomb() -> bytes:
    """64 MB of zeros, about 64 KB once compressed."""
    return gzip.compress(b"\0" * (64 * 1024 * 1024), 9)


class HostileServer:
    """Serve in a thread as a context manager; `url` is its base URL."""

    def __init__(self, *, tls: bool = False):
        self.stop = threading.Event()
        # path -> (status, body: bytes, or anything JSON), set by a test
        self.answers: dict[str, tuple[int, object]] = {}
        self.requests: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _drip(self, data: bytes):
                for byte in data:
                    if owner.stop.wait(0.05):
                        return
                    try:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                    except OSError:
                        return

            def do_GET(self):
                owner.requests.append(f"{self.command} {self.path}")
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                path = self.path.split("?", 1)[0]
                if path in owner.answers:
                    status, body = owner.answers[path]
                    if not isinstance(body, bytes):
                        body = json.dumps(body).encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                elif self.path.startswith("/drip-body"):
                    self.send_response(200)
                    self.send_header("Content-Length", "100000")
                    self.end_headers()
                    self._drip(b"x" * 100000)
                elif self.path == "/drip-headers":
                    self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                    self._drip(b"X-Slow: " + b"y" * 100000)
                elif self.path == "/short":
                    self.send_response(200)
                    self.send_header("Content-Length", "1000")
                    self.end_headers()
                    self.wfile.write(b'{"keys": [')
                elif self.path == "/ok":
                    body = b'{"keys": []}'
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                elif self.path == "/bomb":
                    self._bomb(200)
                elif self.path == "/redirect-bomb":
                    self._bomb(307, Location="/bomb")

            do_POST = do_GET

            def _bomb(self, status, **headers):
                self.send_response(status)
                for name, value in {"Content-Encoding": "gzip", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(bomb())))
                self.end_headers()
                self.wfile.write(bomb())

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        if tls:
            self.server.socket = _tls_context().wrap_socket(self.server.socket, server_side=True)
        scheme = "https" if tls else "http"
        self.url = f"{scheme}://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


def _tls_context():
    """A server context with a throwaway self-signed certificate (the client skips
    verification: what is tested is the deadline under TLS)."""
    import datetime
    import ssl
    import tempfile

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(hours=1))
        .sign(key, hashes.SHA256())
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    with tempfile.NamedTemporaryFile("wb", suffix=".pem") as pem:
        pem.write(cert.public_bytes(serialization.Encoding.PEM))
        pem.write(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
        pem.flush()
        context.load_cert_chain(pem.name)
    return context
