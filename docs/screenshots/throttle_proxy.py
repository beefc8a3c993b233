#!/usr/bin/env python3
"""A loopback TCP proxy that forwards at most RATE bytes/s per direction and connection, so a
screenshot can catch an upload in the middle on a machine where loopback is 30 Gbit/s.
Usage: throttle_proxy.py LISTEN_PORT TARGET_PORT RATE_BYTES_PER_SECOND"""
import asyncio
import sys


async def pipe(reader, writer, rate):
    try:
        while True:
            data = await reader.read(64 * 1024)
            if not data:
                break
            writer.write(data)
            await writer.drain()
            await asyncio.sleep(len(data) / rate)
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def main():
    listen, target, rate = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])

    async def handle(client_reader, client_writer):
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", target)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, up_writer, rate), pipe(up_reader, client_writer, 1e12))

    server = await asyncio.start_server(handle, "127.0.0.1", listen)
    print(f"throttling 127.0.0.1:{listen} -> {target} at {rate:.0f} B/s", flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
