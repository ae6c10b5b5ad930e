"""A live page of what the camera sees, the cards drawn on it: the preview of ``cards --camera``.

The OpenCV the project installs has no windows, and the machine beside the table often has no
screen, so the frames go to a page any browser on the table's network opens (the tablet too):
an image that the server replaces as each frame is read (``multipart/x-mixed-replace``, which
browsers show as a moving picture).
"""

from __future__ import annotations

import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cv2
import numpy as np

BOUNDARY = "cuadro"
PAGE = """<!doctype html>
<html lang="es"><head><meta charset="utf-8"><title>truco-referee: lo que ve la cámara</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{margin:0;background:#0b3d20;color:#fff;font-family:sans-serif;text-align:center}
img{max-width:100vw;max-height:92vh}</style></head>
<body><p>Lo que ve la cámara, con las cartas que lee</p><img src="/cuadros" alt="cámara"></body>
</html>
"""
WAIT_S = 1.0  # a viewer waits at most this long for a frame before it checks the page is open


class LivePage:
    """Serves the latest frame given to ``show`` at ``url`` until ``close``."""

    def __init__(self, host: str = "0.0.0.0", port: int = 8090) -> None:
        self._frame: np.ndarray | None = None
        self._jpeg, self._jpeg_of = b"", 0  # the latest frame encoded, once a viewer asks for it
        self._count = 0
        self._open = True
        self._new = threading.Condition()
        self._server = ThreadingHTTPServer((host, port), self._handler())
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="live-page", daemon=True).start()

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def show(self, frame: np.ndarray) -> None:
        """The frame every open page shows next (encoded only when a page asks for it: with
        no one looking, the camera's frames cost nothing here)."""
        with self._new:
            self._frame, self._count = frame, self._count + 1
            self._new.notify_all()

    def close(self) -> None:
        with self._new:
            self._open = False
            self._new.notify_all()
        self._server.shutdown()
        self._server.server_close()

    def _next(self, seen: int) -> tuple[bytes, int] | None:
        """The first frame after the ``seen``-th, when it comes; None once the page is closed."""
        with self._new:
            while self._open and self._count == seen:
                self._new.wait(WAIT_S)
            if not self._open:
                return None
            if self._jpeg_of != self._count and self._frame is not None:
                ok, data = cv2.imencode(".jpg", self._frame, [cv2.IMWRITE_JPEG_QUALITY, 80])
                if ok:  # else the page keeps the frame before
                    self._jpeg = data.tobytes()
                self._jpeg_of = self._count
            return self._jpeg, self._count

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        page = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path == "/":
                    body = PAGE.encode()
                    self.send_response(HTTPStatus.OK)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                elif self.path == "/cuadros":
                    self._stream()
                else:
                    self.send_error(HTTPStatus.NOT_FOUND)

            def _stream(self) -> None:
                self.send_response(HTTPStatus.OK)
                self.send_header("Content-Type", f"multipart/x-mixed-replace; boundary={BOUNDARY}")
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                seen = 0
                try:
                    while (got := page._next(seen)) is not None:
                        jpeg, seen = got
                        self.wfile.write(f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\n"
                                         f"Content-Length: {len(jpeg)}\r\n\r\n".encode())
                        self.wfile.write(jpeg + b"\r\n")
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    return  # the viewer closed the page

            def log_message(self, format: str, *args: object) -> None:
                return  # the terminal is for the cards seen, not for each request

        return Handler
