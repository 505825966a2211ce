"""The service's listening socket: the connections the server accepts on it send each write at
once (TCP_NODELAY). With Nagle's algorithm on, an HTTP answer written as headers then body waits
for the client's delayed ACK of the headers, about 40 ms, on every call that follows another
closely."""

from __future__ import annotations

import asyncio
import socket

from kg_brain.surfaces.service import bind


async def _accepted_nodelay(sock: socket.socket) -> int:
    accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("socket")
        accepted.set_result(peer.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    server = await asyncio.start_server(handle, sock=sock)  # how uvicorn serves given sockets
    async with server:
        host, port = sock.getsockname()[:2]
        _, writer = await asyncio.open_connection(host, port)
        try:
            return await asyncio.wait_for(accepted, timeout=10)
        finally:
            writer.close()


def test_connections_accepted_on_the_service_socket_have_nagle_off() -> None:
    assert asyncio.run(_accepted_nodelay(bind("127.0.0.1", 0))) != 0
