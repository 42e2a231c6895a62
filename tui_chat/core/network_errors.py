"""One sentence for each failure on the way to a provider, naming its real cause: the
connection (and the proxy it went through), a proxy that refused, a certificate that failed
its check (not worth a retry), a redirect (not followed, so the key stays with its base URL).
"""

from __future__ import annotations

from urllib.parse import urljoin

import httpx

from tui_chat.core.errors import (
    CertificateError,
    ConnectionFailedError,
    ProviderError,
    ProxyRefusedError,
    RedirectError,
)
from tui_chat.core.provider_errors import describe
from tui_chat.core.providers import Provider
from tui_chat.core.text import one_line
from tui_chat.core.transport import ProxyChoice, certificate_failure, display_url


def connect_error(provider: Provider, proxy: ProxyChoice | None,
                  error: httpx.HTTPError) -> ProviderError:
    """The request could not be sent: a certificate, a proxy, or the network."""
    reason = certificate_failure(error)
    if reason is not None:
        return CertificateError(certificate_sentence(provider, reason))
    if isinstance(error, httpx.ProxyError) and proxy is not None:
        status, _, phrase = str(error).partition(" ")  # httpcore: "407 Proxy Auth…"
        if status.isdigit():
            return proxy_refused(provider, proxy, int(status), phrase)
    return ConnectionFailedError(
        f"Could not connect to {provider.display_name} at {provider.base_url}{_via(proxy)} "
        f"({describe(error)}); check {_what_to_check(proxy)}.")


def connect_timeout(provider: Provider, proxy: ProxyChoice | None) -> ProviderError:
    return ConnectionFailedError(
        f"Timed out connecting to {provider.display_name} at {provider.base_url}"
        f"{_via(proxy)}; check {_what_to_check(proxy)}.")


def listing_failed(provider: Provider, proxy: ProxyChoice | None,
                   error: httpx.HTTPError) -> ProviderError:
    """GET /models could not be sent."""
    failure = connect_error(provider, proxy, error)
    if type(failure) is not ConnectionFailedError:  # a certificate or a proxy: say which
        return failure
    # The catalog says it was listing ("Could not list Chutes's models: …"): this is the cause.
    return ConnectionFailedError(f"{provider.display_name} is unreachable{_via(proxy)} "
                                 f"({describe(error)}); check {_what_to_check(proxy)}.")


def proxy_refused(provider: Provider, proxy: ProxyChoice, status: int,
                  phrase: str) -> ProviderError:
    where = f"The proxy {display_url(proxy.url)} (from {proxy.source})"
    answer = f"{status} {one_line(phrase, 60)}".strip()
    if status == 407:
        return ProxyRefusedError(
            f"{where} wants a user name and password ({answer}); write them in the proxy "
            "URL, as http://user:password@host:port.", status=status)
    cls = ConnectionFailedError if status >= 500 else ProxyRefusedError
    return cls(f"{where} refused to connect to {provider.base_url} ({answer}); check the "
               "proxy, or list the host in NO_PROXY.", status=status)


def redirect_error(provider: Provider, status: int, location: str | None,
                   request_url: str) -> RedirectError:
    """A 3xx answer: say it was a redirect, and where to (without credentials or query);
    it is not followed, so that the key only goes to its own base URL."""
    name = provider.display_name
    if location and location.strip():
        target = one_line(display_url(urljoin(request_url, location.strip())), 200)
        head = f"{name} answered with a redirect ({status}) to {target}"
    else:
        head = f"{name} answered with a redirect ({status}) without saying where to"
    setting = f"base_url under [providers.{provider.name}] in config.toml"
    if provider.spec.base_url_env:
        setting = f"{provider.spec.base_url_env}, or {setting}"
    error = RedirectError(
        f"{head}; redirects are not followed, so that the API key only goes to its own base "
        f"URL: update the base URL ({setting}) if the provider has moved.", status=status)
    error.summary = head
    return error


def certificate_sentence(provider: Provider, reason: str) -> str:
    """Why a TLS certificate was refused, and the setting that fixes it."""
    if "mismatch" in reason.lower() or "doesn't match" in reason.lower():
        advice = ("the certificate was issued for another host name: use that name in the "
                  "base URL")
    else:
        advice = (f"if the server uses a private or self-signed certificate, set ca_file under "
                  f"[providers.{provider.name}] in config.toml (or SSL_CERT_FILE) to the "
                  "certificate of the CA that signed it")
    return (f"Could not verify the TLS certificate of {provider.display_name} at "
            f"{provider.base_url} ({one_line(reason, 160).rstrip('.')}); {advice}. "
            "Retrying will not help.")


def _via(proxy: ProxyChoice | None) -> str:
    if proxy is None:
        return ""
    return f" through the proxy {display_url(proxy.url)} (from {proxy.source})"


def _what_to_check(proxy: ProxyChoice | None) -> str:
    if proxy is None:
        return "your network or the base URL"
    return "your network, the base URL or the proxy"
