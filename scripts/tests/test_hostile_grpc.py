"""The hostile suite's gRPC call (hostile.client.grpc_status) against a server on loopback that answers
as told: each way a call can end is said as such, within the call's deadline, and none raises."""

from __future__ import annotations

import socket
import tempfile
import threading
import unittest
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import h2.config
import h2.connection
import h2.events
import h2.exceptions

from loomlab.hostile import client

# What the server does once the call's headers are in: with its connection and the socket.
Answer = Callable[[h2.connection.H2Connection, socket.socket], None]


def refuse(conn: h2.connection.H2Connection, sock: socket.socket) -> None:
    """UNIMPLEMENTED in the headers alone, then RST_STREAM(NO_ERROR): the service's compressed call."""
    conn.send_headers(1, [(":status", "200"), ("grpc-status", "12")], end_stream=True)
    conn.reset_stream(1, 0)
    sock.sendall(conn.data_to_send())


def not_found(conn: h2.connection.H2Connection, sock: socket.socket) -> None:
    conn.send_headers(1, [(":status", "404")], end_stream=True)
    sock.sendall(conn.data_to_send())


def hang_up(conn: h2.connection.H2Connection, sock: socket.socket) -> None:
    sock.close()


def silent(conn: h2.connection.H2Connection, sock: socket.socket) -> None:
    """Answers nothing."""


class Server:
    """One connection on an ephemeral loopback port, answered by `answer` once the headers are in."""

    def __init__(self, answer: Answer):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.answer = answer
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}"

    def serve(self) -> None:
        sock, _ = self.listener.accept()
        sock.settimeout(10)
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
        conn.initiate_connection()
        sock.sendall(conn.data_to_send())
        try:
            while data := sock.recv(1 << 16):
                events = conn.receive_data(data)
                sock.sendall(conn.data_to_send())
                if any(isinstance(e, h2.events.RequestReceived) for e in events):
                    self.answer(conn, sock)  # then reads on until the client goes
        except (OSError, h2.exceptions.H2Error):
            return
        finally:
            sock.close()
            self.listener.close()


class GrpcCallTest(unittest.TestCase):
    def call(self, answer: Answer, size: int = 1 << 20) -> tuple[str, float]:
        with tempfile.TemporaryDirectory() as tmp:
            frame = Path(tmp, "frame")
            frame.write_bytes(b"\x01" + size.to_bytes(4, "big") + bytes(size))
            return client.grpc_status(Server(answer).base, frame, "gzip", "virtual")

    def test_the_status_in_the_headers_alone_ends_the_call_before_its_upload(self):
        self.assertEqual(self.call(refuse)[0], "12")

    def test_an_answer_without_a_grpc_status_is_said_by_its_http_status(self):
        self.assertEqual(self.call(not_found, size=10)[0], "http 404 without a grpc-status")

    def test_a_server_that_hangs_up_is_a_row_not_a_crash(self):
        status, _ = self.call(hang_up)
        self.assertTrue(status == "connection closed" or status.startswith(("BrokenPipe", "ConnectionReset")), status)

    def test_no_answer_ends_at_the_deadline(self):
        with mock.patch.object(client, "GRPC_DEADLINE_S", 1.0):
            status, took = self.call(silent)
        self.assertEqual(status, "no answer")
        self.assertLess(took, 30)  # the deadline's bound, not a timing under test: far from 1 s


if __name__ == "__main__":
    unittest.main()
