"""The way to a provider: its httpx client, built here the same way for every front-end.

Proxies. A provider's `proxy` setting wins (`proxy = false`: none for it, whatever the
environment says). Otherwise the standard variables, lower case before upper case as curl and
Python read them: `https_proxy` for an https:// base URL, `http_proxy` for http://, then
`all_proxy`; `no_proxy` (host names, which also match their subdomains, `.domain`, IP
addresses, CIDR ranges such as 10.0.0.0/8, `host:port`, or `*`) bypasses them. A proxy URL
without a scheme is http://. socks5:// needs the optional `httpx[socks]`.

httpx's own reading of the environment stays off (`trust_env=False`): it would also add
credentials from ~/.netrc (httpx 0.27) to requests that carry our own key. So the variables
above, and SSL_CERT_FILE / SSL_CERT_DIR, are read here, explicitly.

TLS. Certificates are checked against, in order: the provider's `ca_file` (a private CA; it
replaces the default set, as curl's --cacert does), SSL_CERT_FILE and/or SSL_CERT_DIR, else
certifi's set (httpx's default). `verify = false` turns checks off for that provider; every
use of such a client should show `tls_warning(provider)`. A certificate that fails the check is
not retried: `certificate_failure` finds the reason in the exception httpx raised.

Only `build_http_client` imports httpx and ssl, so `tls_warning` and `proxy_for` stay cheap to
import (the app's start-up path does not import httpx).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from tui_chat.core.config import PROXY_SCHEMES, Timeouts
from tui_chat.core.errors import ConfigError
from tui_chat.core.providers import Provider

if TYPE_CHECKING:
    import ssl

    import httpx


@dataclass(frozen=True, slots=True)
class ProxyChoice:
    url: str
    source: str
    """Where it came from, for sentences: "HTTPS_PROXY", "the proxy setting under
    [providers.NAME]"."""


def proxy_for(provider: Provider, env: Mapping[str, str] | None = None) -> ProxyChoice | None:
    """The proxy to reach `provider`'s base URL through, or None to go direct."""
    setting = provider.spec.proxy
    if setting is False:
        return None
    if setting:
        source = f"the proxy setting under [providers.{provider.name}]"
        return ProxyChoice(_with_scheme(setting, source), source)
    env = os.environ if env is None else env
    parts = urlsplit(provider.base_url)
    scheme = parts.scheme.lower()
    for name in (f"{scheme}_proxy", "all_proxy"):
        value, variable = _variable(env, name)
        if value:
            port = parts.port or (443 if scheme == "https" else 80)
            if _bypassed(parts.hostname or "", port, _variable(env, "no_proxy")[0]):
                return None
            return ProxyChoice(_with_scheme(value, variable), variable)
    return None


def tls_warning(provider: Provider) -> str | None:
    """The sentence to show each time a client for `provider` is used with checks off."""
    if provider.spec.verify or not provider.base_url.lower().startswith("https://"):
        return None
    return (f"Certificate checks are off for {provider.display_name} (verify = false under "
            f"[providers.{provider.name}]): anyone on the way to {provider.base_url} can read "
            "and change the conversation and take the API key; set ca_file to your CA's "
            "certificate instead.")


def build_http_client(
    provider: Provider,
    timeouts: Timeouts,
    *,
    headers: Mapping[str, str],
    proxy: ProxyChoice | None,
    transport: httpx.AsyncBaseTransport | None = None,
    env: Mapping[str, str] | None = None,
    on_response: Callable[[httpx.Response], Awaitable[None]] | None = None,
) -> httpx.AsyncClient:
    """The keep-alive client for `provider`, through `proxy` (what `proxy_for` chose), with its
    TLS checks and timeouts. Raises ConfigError (one sentence) for a CA file or proxy that
    cannot be used. `transport` (tests) replaces the network, proxy included. `on_response`
    sees each response first (it may raise to refuse one)."""
    import httpx

    env = os.environ if env is None else env
    if transport is not None:
        proxy = None
    try:
        return httpx.AsyncClient(
            base_url=provider.base_url.rstrip("/") + "/",
            headers=dict(headers),
            timeout=httpx.Timeout(connect=timeouts.connect, read=timeouts.first_byte,
                                  write=timeouts.connect, pool=timeouts.connect),
            transport=transport,
            verify=_ssl_context(provider, env),
            proxy=None if proxy is None else _httpx_proxy(proxy, env),
            # A key is only ever sent to its own provider: never follow a redirect elsewhere.
            follow_redirects=False,
            trust_env=False,
            event_hooks={"response": [on_response]} if on_response else None,
        )
    except ImportError:  # httpx's socks5:// support is an optional extra
        if proxy is None:
            raise
        raise _no_socks(proxy) from None


def _no_socks(proxy: ProxyChoice) -> ConfigError:
    return ConfigError(
        f"The proxy {display_url(proxy.url)} (from {proxy.source}) needs SOCKS support, "
        "which is not installed: run pip install 'httpx[socks]', or use an http:// proxy.")


def network_transport(provider: Provider, *, proxy: ProxyChoice | None,
                      env: Mapping[str, str] | None = None) -> httpx.AsyncBaseTransport:
    """The way to `provider` as `build_http_client` makes it (`proxy`, its TLS checks), as a
    transport of its own: for a transport that wraps it (tui_chat.core.e2ee)."""
    import httpx

    env = os.environ if env is None else env
    try:
        return httpx.AsyncHTTPTransport(
            verify=_ssl_context(provider, env), trust_env=False,
            proxy=None if proxy is None else _httpx_proxy(proxy, env))
    except ImportError:  # as in build_http_client
        if proxy is None:
            raise
        raise _no_socks(proxy) from None


def _httpx_proxy(proxy: ProxyChoice, env: Mapping[str, str]) -> httpx.Proxy:
    import httpx

    try:
        # An https:// proxy is not the provider: its certificate is checked against the
        # environment's CAs, not the provider's ca_file.
        return httpx.Proxy(proxy.url, ssl_context=_env_ssl_context(env) if proxy.url.lower(
            ).startswith("https") else None)
    except (httpx.InvalidURL, ValueError) as error:
        raise ConfigError(f"The proxy {display_url(proxy.url)} (from {proxy.source}) is not a "
                          f"usable URL ({str(error).rstrip('.')}); fix it.") from None


def certificate_failure(error: BaseException) -> str | None:
    """Why the server's certificate was refused, if that is what `error` comes from."""
    import ssl

    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ssl.SSLCertVerificationError):
            return str(current.verify_message or current.reason or "certificate verify failed")
        current = current.__cause__ or current.__context__
    return None


def display_url(url: str) -> str:
    """`url` as it may be shown: no user name or password, no query."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return "(an address that is not a valid URL)"
    if ":" in host:
        host = f"[{host}]"
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        port = ""
    scheme = f"{parts.scheme}://" if parts.scheme else ""
    return f"{scheme}{host}{port}{parts.path}"


def _variable(env: Mapping[str, str], lower: str) -> tuple[str, str]:
    """(value, name as set) of a proxy variable; lower case wins, as in curl and urllib."""
    for name in (lower, lower.upper()):
        value = env.get(name, "").strip()
        if value:
            return value, name
    return "", lower.upper()


def _with_scheme(url: str, source: str) -> str:
    """`url` with http:// added when it has no scheme; ConfigError when it cannot work."""
    if "://" not in url:
        url = "http://" + url
    scheme = url.partition("://")[0].lower()
    if scheme not in PROXY_SCHEMES:
        raise ConfigError(f"The proxy {display_url(url)} (from {source}) has a scheme "
                          "tui-chat cannot use; use http://, https://, socks5:// or socks5h://.")
    try:
        parts = urlsplit(url)
        port = parts.port
        host = parts.hostname
    except ValueError:
        host, port = None, None
    if not host or port == 0 or any(char.isspace() for char in url):
        raise ConfigError(f"The proxy {display_url(url)} (from {source}) is not a usable URL; "
                          "write it as http://host:port.")
    return url


def _bypassed(host: str, port: int, no_proxy: str) -> bool:
    """Whether `no_proxy` says to reach `host` directly. Written here rather than taken from
    urllib.request.proxy_bypass_environment, which reads os.environ and knows no CIDR ranges
    (corporate no_proxy lists are full of them)."""
    import ipaddress

    host = host.lower().strip("[]")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    for raw in no_proxy.replace(" ", ",").split(","):
        entry = raw.strip().lower()
        if not entry:
            continue
        if entry == "*":
            return True
        try:
            network = ipaddress.ip_network(entry.strip("[]"), strict=False)
        except ValueError:
            network = None
        if network is not None:
            if address is not None and address in network:
                return True
            continue
        name, sep, wanted_port = entry.rpartition(":")
        if not sep or not wanted_port.isdigit():
            name, wanted_port = entry, ""
        if wanted_port and int(wanted_port) != port:
            continue
        name = name.removeprefix("*").lstrip(".").strip("[]")
        if name and (host == name or host.endswith("." + name)):
            return True
    return False


def _ssl_context(provider: Provider, env: Mapping[str, str]) -> ssl.SSLContext:
    import ssl

    if not provider.spec.verify:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    if provider.spec.ca_file:
        path = os.path.expanduser(provider.spec.ca_file)
        return _load(lambda: ssl.create_default_context(cafile=path),
                     f"The CA file {path} (ca_file under [providers.{provider.name}])")
    return _env_ssl_context(env)


def _env_ssl_context(env: Mapping[str, str]) -> ssl.SSLContext:
    """SSL_CERT_FILE and/or SSL_CERT_DIR when set, else certifi's set, as httpx does."""
    import ssl

    cafile = env.get("SSL_CERT_FILE", "").strip() or None
    capath = env.get("SSL_CERT_DIR", "").strip() or None
    if cafile or capath:
        what = f"SSL_CERT_FILE ({cafile})" if cafile else f"SSL_CERT_DIR ({capath})"
        return _load(lambda: ssl.create_default_context(cafile=cafile, capath=capath),
                     f"The certificates named by {what}")
    import certifi

    return ssl.create_default_context(cafile=certifi.where())


def _load(make: Callable[[], ssl.SSLContext], what: str) -> ssl.SSLContext:
    import ssl

    try:
        return make()
    except OSError as error:  # ssl.SSLError is an OSError too: not PEM, no certificate in it
        reason = error.strerror if not isinstance(error, ssl.SSLError) else (
            "it holds no PEM certificate")
        raise ConfigError(f"{what} cannot be used: {(reason or 'unreadable').lower()}; point "
                          "it at a PEM file of your CA's certificate.") from None
