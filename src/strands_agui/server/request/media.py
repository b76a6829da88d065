"""Opt-in fetching of media parts given by URL, before the run starts.

Off unless the endpoint is given ``fetch_media=MediaFetchPolicy(...)``; then a media part (image, document, video,
audio) of a user or tool message whose source is a URL is fetched and replaced by its bytes (a ``data`` source), so
the run sees what a client sending base64 would have sent. Anything refused is a 422 naming the part, before the
run starts.

A URL is fetched only if all of this holds, for the first URL and again for every redirect hop (redirects are
never followed by the HTTP client itself):

* its scheme is in ``schemes`` (``https`` by default), it carries no credentials, and its host is in
  ``allowed_hosts`` when that is set;
* the host is resolved (:func:`resolve`) and **every** address it resolves to is public: no loopback, private
  (RFC 1918, RFC 4193), link-local (169.254/16, where cloud metadata lives, and fe80::/10), multicast,
  unspecified, reserved or otherwise non-global address, also when embedded in an IPv6 address (IPv4-mapped,
  6to4), unless it lies in ``exempt_networks``;
* the connection goes to the address that was checked (the URL's host is replaced by it; ``Host`` and TLS
  SNI/certificate checks keep the name), so a second DNS answer cannot send it elsewhere (DNS rebinding);
  environment proxies are ignored for the same reason;
* the answer is 200, at most ``max_bytes`` (checked while reading), within ``timeout_seconds`` in all, and its
  ``Content-Type`` is what the part claims (when it claims one) and a type the part can carry; an image's
  first bytes must be those of its format.

``httpx`` does the HTTP (``pip install 'strands-agui[media]'``); it is imported only when fetching is on.
"""

from __future__ import annotations

import asyncio
import base64
import ipaddress
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urljoin, urlsplit, urlunsplit

from ag_ui.core import DataSource, RunAgentInput, ToolMessage, UserMessage

from ...config import MediaFetchPolicy
from ...runtime.building.conversation import MEDIA_FORMATS

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
IMAGE_MAGIC = {"image/png": (b"\x89PNG\r\n\x1a\n",), "image/jpeg": (b"\xff\xd8\xff",),
               "image/gif": (b"GIF87a", b"GIF89a"), "image/webp": (b"RIFF",)}
MEDIA_PARTS = ("image", "document", "video", "audio")


class MediaRefused(Exception):
    """A URL this server will not fetch, or whose answer it will not use; the message says why."""


@dataclass(frozen=True)
class _Target:
    url: str  # the URL with its host replaced by the checked address
    host: str  # the name, for Host and TLS
    host_header: str


async def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (the system resolver). Tests replace this seam."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def url_parts(input_data: RunAgentInput) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """``(loc, part)`` of every media part of a user or tool message whose source is a URL."""
    for index, message in enumerate(input_data.messages):
        if isinstance(message, UserMessage | ToolMessage) and not isinstance(message.content, str):
            for n, part in enumerate(cast(list[Any], message.content)):
                if part.type in MEDIA_PARTS and getattr(part.source, "type", None) == "url":
                    yield ("messages", index, "content", n), part


def scheme_problem(url: str, policy: MediaFetchPolicy | None) -> str | None:
    """Why a URL part is refused without any network access, or None."""
    if policy is None:
        return "URLs are not fetched by this server (fetch_media is off); send the bytes as base64 data"
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError as exc:  # e.g. an unclosed IPv6 bracket
        return f"is not a URL ({exc})"
    if scheme not in policy.schemes:
        return f"scheme {scheme or '(none)'!r} is not fetched; allowed: {', '.join(sorted(policy.schemes))}"
    return None


async def fetch_parts(input_data: RunAgentInput, policy: MediaFetchPolicy) -> list[tuple[tuple[str | int, ...], str]]:
    """Fetch every URL part and make its source ``data``; ``(loc, why)`` for each part refused."""
    parts = list(url_parts(input_data))
    if len(parts) > policy.max_urls:
        return [(parts[policy.max_urls][0], f"{len(parts)} URL parts; at most {policy.max_urls} (max_urls)")]
    problems = []
    for loc, part in parts:
        try:
            data, media_type = await fetch(part.source.value, policy)
            part.source = DataSource(value=base64.b64encode(data).decode("ascii"),
                                     mime_type=_usable_type(part.type, part.source.mime_type, media_type, data))
        except MediaRefused as exc:
            problems.append(((*loc, "source", "value"), str(exc)))
    return problems


async def fetch(url: str, policy: MediaFetchPolicy) -> tuple[bytes, str]:
    """The bytes at ``url`` and their media type, under ``policy`` (module docstring)."""
    try:
        import httpx
    except ImportError as exc:  # pragma: no cover - the extra is not installed
        raise MediaRefused("fetching is on but httpx is missing: pip install 'strands-agui[media]'") from exc
    try:
        async with asyncio.timeout(policy.timeout_seconds), httpx.AsyncClient(
                trust_env=False, follow_redirects=False, timeout=policy.timeout_seconds) as client:
            for _hop in range(policy.max_redirects + 1):
                target = await checked(url, policy)
                extensions = {"sni_hostname": target.host} if target.url.startswith("https:") else {}
                request = client.build_request("GET", target.url, headers={"Host": target.host_header},
                                               extensions=extensions)
                response = await client.send(request, stream=True)
                try:
                    if response.is_redirect and "location" in response.headers:
                        url = urljoin(url, response.headers["location"])
                        continue
                    if response.status_code != 200:
                        raise MediaRefused(f"{url} answered HTTP {response.status_code}")
                    return await _body(response, url, policy), _media_type(response)
                finally:
                    await response.aclose()
    except TimeoutError as exc:
        raise MediaRefused(f"{url} took longer than {policy.timeout_seconds:g} s") from exc
    except (httpx.HTTPError, httpx.InvalidURL, ValueError) as exc:
        raise MediaRefused(f"{url} could not be fetched ({type(exc).__name__})") from exc
    raise MediaRefused(f"{url}: more than {policy.max_redirects} redirects")


async def checked(url: str, policy: MediaFetchPolicy) -> _Target:
    """The URL to connect to: its host replaced by an address checked against ``policy``."""
    problem = scheme_problem(url, policy)
    if problem:
        raise MediaRefused(f"{url}: {problem}")
    parts = urlsplit(url)
    try:
        host, port = (parts.hostname or "").lower(), parts.port or (443 if parts.scheme.lower() == "https" else 80)
    except ValueError as exc:
        raise MediaRefused(f"{url}: {exc}") from exc
    if not host or parts.username is not None or parts.password is not None:
        raise MediaRefused(f"{url}: a URL needs a host and no credentials")
    if policy.allowed_hosts is not None and host not in {h.lower() for h in policy.allowed_hosts}:
        raise MediaRefused(f"{url}: host {host!r} is not in allowed_hosts")
    addresses = await _addresses(host, port)
    for address in addresses:
        reason = refused_address(address, policy)
        if reason:
            raise MediaRefused(f"{url}: {host} is {address}, a {reason} address; it is not fetched")
    first = addresses[0]
    netloc = f"[{first}]:{port}" if first.version == 6 else f"{first}:{port}"
    header = f"[{host}]" if ":" in host else host
    target = urlunsplit((parts.scheme.lower(), netloc, parts.path or "/", parts.query, ""))
    return _Target(target, host, header if parts.port is None else f"{header}:{port}")


async def _addresses(host: str, port: int) -> list[Address]:
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    try:
        found = [ipaddress.ip_address(a.split("%")[0]) for a in await resolve(host, port)]
    except (OSError, ValueError) as exc:  # ValueError: a name IDNA cannot encode
        raise MediaRefused(f"{host} does not resolve") from exc
    if not found:
        raise MediaRefused(f"{host} does not resolve")
    return found


def refused_address(address: Address, policy: MediaFetchPolicy) -> str | None:
    """Why ``address`` is not fetched (``loopback``, ``private`` ...), or None for a public or exempt one."""
    if any(address in ipaddress.ip_network(n) for n in policy.exempt_networks):
        return None
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is not None:
            return refused_address(embedded, policy)
    for label in ("loopback", "link_local", "multicast", "unspecified", "private", "reserved"):
        if getattr(address, f"is_{label}"):
            return label.replace("_", "-")
    return None if address.is_global else "non-global"


async def _body(response: Any, url: str, policy: MediaFetchPolicy) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > policy.max_bytes:
        raise MediaRefused(f"{url} is {declared} bytes; at most {policy.max_bytes} (max_bytes)")
    data = bytearray()
    async for chunk in response.aiter_bytes():
        data += chunk
        if len(data) > policy.max_bytes:
            raise MediaRefused(f"{url} is over {policy.max_bytes} bytes (max_bytes)")
    return bytes(data)


def _media_type(response: Any) -> str:
    return str(response.headers.get("content-type", "")).split(";")[0].strip().lower()


def _usable_type(kind: str, claimed: str | None, served: str, data: bytes) -> str:
    """The part's media type: the served one, which must be what the part claims and what the part can carry."""
    if claimed and claimed.lower() != served:
        raise MediaRefused(f"the URL served {served or 'no Content-Type'}, the part says {claimed}")
    if kind == "image":
        if served not in IMAGE_MAGIC:
            raise MediaRefused(f"the URL served {served or 'no Content-Type'}, not an image/png, jpeg, gif or webp")
        if not data.startswith(IMAGE_MAGIC[served]) or (served == "image/webp" and data[8:12] != b"WEBP"):
            raise MediaRefused(f"the URL served bytes that are not {served}")
    elif served not in MEDIA_FORMATS[kind]:
        raise MediaRefused(f"the URL served {served or 'no Content-Type'}, not a {kind} type "
                           f"({', '.join(MEDIA_FORMATS[kind])})")
    return served
