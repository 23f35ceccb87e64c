"""Who a request comes from, as the limits count clients: its address's bucket."""

from __future__ import annotations

import ipaddress

from fastapi import Request

__all__ = ["bucket_of", "client_of"]


def bucket_of(host: str) -> str:
    """The creation bucket of a client address: an IPv4 address is its own, an IPv6
    address shares its /64 (one subscriber's network holds 2**64 addresses, a bucket each
    would be no limit)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def client_of(request: Request) -> str:
    """Who a request comes from, as the creation limit and the solver's fair shares count
    clients: the bucket of its address (``?`` when the server was not told one)."""
    return bucket_of(request.client.host) if request.client else "?"
