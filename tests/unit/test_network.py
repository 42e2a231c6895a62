"""Issue 12, Network: proxies (the standard variables and a per-provider `proxy`), private CAs
(SSL_CERT_FILE / SSL_CERT_DIR, `ca_file`, `verify = false` with its warning), certificate
failures that say how to fix them and are not retried, redirects that say where to.

Everything runs against real loopback servers: the fake provider (over HTTPS with a
certificate made at test time by trustme), and a real proxy (tests/loopproxy.py).
"""

from __future__ import annotations

import base64
import os
import shutil
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trustme

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.loopproxy import LoopProxy
from tui_chat.core.client import ProviderClient
from tui_chat.core.config import ConfigError, Settings, load_settings
from tui_chat.core.errors import (
    CertificateError,
    ConnectionFailedError,
    ProxyRefusedError,
    RedirectError,
)
from tui_chat.core.events import ContentDelta, RetryScheduled, StreamEvent
from tui_chat.core.models import ChatMessage, Role
from tui_chat.core.transport import proxy_for, tls_warning

KEY = "cpk_network-test-key-0000.SECRET"
HELLO = [ChatMessage(role=Role.USER, content="hello")]
DEAD = "http://127.0.0.1:1"  # nothing listens on port 1: a proxy that refuses connections


def settings_for(url: str, **section: Any) -> Settings:
    return Settings.model_validate({"providers": {"chutes": {"base_url": url, **section}}})


def client_for(url: str, *, max_retries: int = 0, **section: Any) -> ProviderClient:
    provider = settings_for(url, **section).resolve_provider("chutes", env={})
    sleeps: list[float] = []

    async def no_sleep(delay: float) -> None:
        sleeps.append(delay)

    client = ProviderClient(provider, KEY, max_retries=max_retries, sleep=no_sleep)
    client.sleeps = sleeps  # type: ignore[attr-defined]
    return client


async def reply_text(client: ProviderClient) -> tuple[str, list[StreamEvent]]:
    async with client:
        events = [event async for event in client.stream_chat("m", HELLO)]
    return "".join(e.text for e in events if isinstance(e, ContentDelta)), events


@pytest.fixture
def proxy() -> Iterator[LoopProxy]:
    with LoopProxy() as running:
        yield running


# -- proxies ---------------------------------------------------------------------------------


async def test_http_proxy_carries_a_plain_http_request(
        chutes_server: FakeProvider, proxy: LoopProxy, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    chutes_server.script(Reply(stream_of(["via ", "proxy"])))
    text, _ = await reply_text(client_for(chutes_server.url))
    assert text == "via proxy"
    assert proxy.seen == [("POST", f"{chutes_server.url}/chat/completions")]  # absolute-form
    assert chutes_server.requests[-1].path == "/v1/chat/completions"
    assert chutes_server.requests[-1].headers["authorization"] == f"Bearer {KEY}"


async def test_all_proxy_when_no_scheme_variable(
        chutes_server: FakeProvider, proxy: LoopProxy, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("all_proxy", proxy.url.removeprefix("http://"))  # no scheme: http://
    text, _ = await reply_text(client_for(chutes_server.url))
    assert text.startswith("Hello!") and len(proxy.seen) == 1


async def test_no_proxy_bypasses_it(chutes_server: FakeProvider, proxy: LoopProxy,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.setenv("NO_PROXY", "example.com, 127.0.0.0/8")
    text, _ = await reply_text(client_for(chutes_server.url))
    assert text.startswith("Hello!") and proxy.seen == []
    assert len(chutes_server.requests) == 1


async def test_the_providers_proxy_wins_over_the_environment(
        chutes_server: FakeProvider, proxy: LoopProxy, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", DEAD)
    text, _ = await reply_text(client_for(chutes_server.url, proxy=proxy.url))
    assert text.startswith("Hello!") and len(proxy.seen) == 1


async def test_proxy_false_goes_direct_whatever_the_environment(
        chutes_server: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", DEAD)
    monkeypatch.setenv("ALL_PROXY", DEAD)
    text, _ = await reply_text(client_for(chutes_server.url, proxy=False))
    assert text.startswith("Hello!")


async def test_proxy_credentials_go_to_the_proxy_only_and_are_never_shown(
        chutes_server: FakeProvider, proxy: LoopProxy, monkeypatch: pytest.MonkeyPatch) -> None:
    authority = proxy.url.removeprefix("http://")
    monkeypatch.setenv("HTTP_PROXY", f"http://alice:pr0xy-s3cret@{authority}")
    await reply_text(client_for(chutes_server.url))
    expected = "Basic " + base64.b64encode(b"alice:pr0xy-s3cret").decode()
    assert proxy.headers[0]["proxy-authorization"] == expected
    assert "proxy-authorization" not in chutes_server.requests[-1].headers
    monkeypatch.setenv("HTTP_PROXY", "http://alice:pr0xy-s3cret@127.0.0.1:1")
    with pytest.raises(ConnectionFailedError) as caught:
        await reply_text(client_for(chutes_server.url))
    message = caught.value.message
    assert "pr0xy-s3cret" not in message and "alice" not in message
    assert "through the proxy http://127.0.0.1:1 (from HTTP_PROXY)" in message


async def test_the_environment_can_be_given(chutes_server: FakeProvider,
                                            proxy: LoopProxy) -> None:
    """A front-end that reads the environment once hands it over: nothing else is read."""
    provider = settings_for(chutes_server.url).resolve_provider("chutes", env={})
    async with ProviderClient(provider, KEY, max_retries=0,
                              env={"HTTP_PROXY": proxy.url}) as client:
        [_ async for _ in client.stream_chat("m", HELLO)]
    assert len(proxy.seen) == 1 and client.proxy is not None
    assert client.proxy.source == "HTTP_PROXY"


PROXY_407 = (b"HTTP/1.1 407 Proxy Authentication Required\r\n"
             b'Proxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n'
             b"Connection: close\r\n\r\n")


@pytest.mark.parametrize("scheme", ["http", "https"])
async def test_a_proxy_that_wants_credentials_says_so(
        scheme: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Absolute-form (http://) gets a 407 response; CONNECT (https://) a refused tunnel.
    Neither is retried: the same request would be refused again."""
    with LoopProxy(answer=PROXY_407) as refusing:
        monkeypatch.setenv(f"{scheme.upper()}_PROXY", refusing.url)
        client = client_for(f"{scheme}://llm.example.com/v1", max_retries=3)
        with pytest.raises(ProxyRefusedError) as caught:
            await reply_text(client)
    message = caught.value.message
    assert f"The proxy {refusing.url} (from {scheme.upper()}_PROXY) wants a user name" in message
    assert "407" in message and "http://user:password@host:port" in message
    assert client.sleeps == [] and len(refusing.seen) == 1  # type: ignore[attr-defined]


def test_which_variable_applies() -> None:
    def chosen(base_url: str, **env: str) -> str | None:
        provider = settings_for(base_url).resolve_provider("chutes", env={})
        choice = proxy_for(provider, env)
        return None if choice is None else f"{choice.url} {choice.source}"

    https = "https://llm.example.com/v1"
    assert chosen(https, HTTPS_PROXY="http://p:1") == "http://p:1 HTTPS_PROXY"
    assert chosen(https, HTTP_PROXY="http://p:1") is None  # http_proxy is for http:// only
    assert chosen(https, https_proxy="http://low:1", HTTPS_PROXY="http://up:1") == \
        "http://low:1 https_proxy"
    assert chosen(https, ALL_PROXY="socks5://p:1") == "socks5://p:1 ALL_PROXY"
    assert chosen("http://llm.example.com/v1", HTTP_PROXY="p:3128") == "http://p:3128 HTTP_PROXY"
    for no_proxy in ("*", "example.com", ".example.com", "llm.example.com:443", "EXAMPLE.COM"):
        assert chosen(https, HTTPS_PROXY="http://p:1", no_proxy=no_proxy) is None, no_proxy
    for no_proxy in ("ample.com", "llm.example.com:8443", "10.0.0.0/8", "other.org"):
        assert chosen(https, HTTPS_PROXY="http://p:1", NO_PROXY=no_proxy), no_proxy
    assert chosen("http://[::1]:8080/v1", HTTP_PROXY="http://p:1", NO_PROXY="::1") is None
    assert chosen("http://10.1.2.3/v1", HTTP_PROXY="http://p:1", NO_PROXY="10.0.0.0/8") is None


def test_a_proxy_setting_is_checked_when_the_config_is_read(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[providers.chutes]\nproxy = "ftp://proxy:21"\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(path)
    assert "providers.chutes.proxy" in caught.value.message
    path.write_text("[providers.chutes]\nproxy = true\n")
    with pytest.raises(ConfigError):
        load_settings(path)
    path.write_text('[providers.chutes]\nproxy = false\nca_file = "~/ca.pem"\nverify = true\n')
    spec = load_settings(path).resolve_provider("chutes", env={}).spec
    assert (spec.proxy, spec.ca_file, spec.verify) == (False, "~/ca.pem", True)


def test_an_environment_proxy_with_a_scheme_we_cannot_use(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "ftp://proxy:21")
    with pytest.raises(ConfigError) as caught:
        client_for("https://llm.example.com/v1")
    assert "HTTPS_PROXY" in caught.value.message and "http://" in caught.value.message


@pytest.mark.parametrize("bad", ["http://:3128", "http://proxy:99999", "http://[::1",
                                 "http://pro xy:3128"])
def test_a_proxy_url_that_cannot_work_is_one_sentence(
        bad: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", bad)
    with pytest.raises(ConfigError) as caught:
        client_for("https://llm.example.com/v1")
    assert "(from HTTPS_PROXY) is not a usable URL" in caught.value.message


def test_a_socks_proxy_without_its_optional_dependency_is_one_sentence() -> None:
    try:
        import socksio  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("socksio is installed here: SOCKS proxies work")
    with pytest.raises(ConfigError) as caught:
        client_for("https://llm.example.com/v1", proxy="socks5://127.0.0.1:1080")
    message = caught.value.message
    assert "httpx[socks]" in message and "socks5://127.0.0.1:1080" in message
    assert ". " not in message and "\n" not in message and message.endswith(".")


async def test_netrc_adds_no_credentials(chutes_server: FakeProvider, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The variables are read explicitly: httpx's trust_env (which reads ~/.netrc) stays off."""
    monkeypatch.setenv("HOME", str(tmp_path))
    netrc = tmp_path / ".netrc"
    netrc.write_text("machine 127.0.0.1 login bob password netrc-secret\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    provider = settings_for(chutes_server.url).resolve_provider("chutes", env={})
    async with ProviderClient(provider, None, max_retries=0) as client:
        [_ async for _ in client.stream_chat("m", HELLO)]
    assert "authorization" not in chutes_server.requests[-1].headers


# -- TLS -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


def serving(ca: trustme.CA, *names: str) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(*(names or ("127.0.0.1",))).configure_cert(context)
    return context


@pytest.fixture
def tls_server(ca: trustme.CA) -> Iterator[FakeProvider]:
    with FakeProvider("chutes", tls=serving(ca)) as server:
        yield server


@pytest.fixture
def ca_file(ca: trustme.CA, tmp_path: Path) -> Path:
    path = tmp_path / "private-ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return path


async def test_a_private_ca_is_refused_by_default_with_how_to_fix_it(
        tls_server: FakeProvider) -> None:
    client = client_for(tls_server.url, max_retries=3)
    with pytest.raises(CertificateError) as caught:
        await reply_text(client)
    message = caught.value.message
    assert "TLS certificate" in message and tls_server.url in message
    assert "ca_file under [providers.chutes]" in message and "SSL_CERT_FILE" in message
    assert "self-signed" in message or "issuer" in message  # what failed, in OpenSSL's words
    assert client.sleeps == []  # type: ignore[attr-defined]  # not retried
    assert not caught.value.retryable and tls_server.requests == []


async def test_a_certificate_failure_yields_no_retry_event(tls_server: FakeProvider) -> None:
    client = client_for(tls_server.url, max_retries=3)
    events: list[StreamEvent] = []
    async with client:
        with pytest.raises(CertificateError):
            async for event in client.stream_chat("m", HELLO):
                events.append(event)
    assert not [e for e in events if isinstance(e, RetryScheduled)]


async def test_ca_file_makes_it_usable(tls_server: FakeProvider, ca_file: Path) -> None:
    text, _ = await reply_text(client_for(tls_server.url, ca_file=str(ca_file)))
    assert text.startswith("Hello!") and tls_server.requests[-1].path == "/v1/chat/completions"


async def test_ssl_cert_file_makes_it_usable(tls_server: FakeProvider, ca_file: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))
    text, _ = await reply_text(client_for(tls_server.url))
    assert text.startswith("Hello!")


@pytest.fixture
def cert_dir(ca_file: Path, tmp_path: Path) -> Path:
    """A folder in OpenSSL's hashed layout (what SSL_CERT_DIR points at)."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command")
    folder = tmp_path / "certs"
    folder.mkdir()
    digest = subprocess.run(["openssl", "x509", "-subject_hash", "-noout", "-in", str(ca_file)],
                            capture_output=True, text=True, check=True).stdout.strip()
    shutil.copy(ca_file, folder / f"{digest}.0")
    return folder


async def test_ssl_cert_dir_makes_it_usable(tls_server: FakeProvider, cert_dir: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSL_CERT_DIR", str(cert_dir))
    text, _ = await reply_text(client_for(tls_server.url))
    assert text.startswith("Hello!")


async def test_a_certificate_for_another_name_says_so(ca: trustme.CA, ca_file: Path) -> None:
    with (FakeProvider("chutes", tls=serving(ca, "llm.example.com")) as server,
          pytest.raises(CertificateError) as caught):
        await reply_text(client_for(server.url, ca_file=str(ca_file)))
    assert "issued for another host name" in caught.value.message


async def test_verify_false_works_and_warns(tls_server: FakeProvider) -> None:
    client = client_for(tls_server.url, verify=False)
    text, _ = await reply_text(client)
    assert text.startswith("Hello!")
    warning = tls_warning(client.provider)
    assert warning is not None and "verify = false" in warning and "ca_file" in warning
    assert tls_warning(settings_for(tls_server.url).resolve_provider("chutes", env={})) is None


def test_ask_prints_the_warning_every_time(tls_server: FakeProvider, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[providers.chutes]\nbase_url = "{tls_server.url}"\nverify = false\n')
    env = {**os.environ, "TUI_CHAT_CONFIG": str(config), "CHUTES_API_KEY": KEY}
    for _ in range(2):
        result = subprocess.run([sys.executable, "-m", "tui_chat", "ask", "--no-save", "hi"],
                                capture_output=True, text=True, env=env, timeout=60,
                                check=False)
        assert result.returncode == 0 and result.stdout.startswith("Hello!")
        assert result.stderr.startswith("tui-chat: warning: Certificate checks are off")
        assert result.stderr.count("\n") == 1 and KEY not in result.stderr


async def test_a_ca_file_that_cannot_be_used_is_one_sentence(tmp_path: Path) -> None:
    missing = tmp_path / "nope.pem"
    with pytest.raises(ConfigError) as caught:
        client_for("https://llm.example.com/v1", ca_file=str(missing))
    assert str(missing) in caught.value.message and "ca_file" in caught.value.message
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate")
    with pytest.raises(ConfigError) as caught:
        client_for("https://llm.example.com/v1", ca_file=str(junk))
    assert "PEM" in caught.value.message


async def test_https_through_a_connect_tunnel(tls_server: FakeProvider, proxy: LoopProxy,
                                              ca_file: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)
    monkeypatch.setenv("HTTP_PROXY", DEAD)  # not the one for an https:// base URL
    text, _ = await reply_text(client_for(tls_server.url, ca_file=str(ca_file)))
    port = tls_server.url.split(":")[2].split("/")[0]
    assert text.startswith("Hello!")
    assert proxy.seen == [("CONNECT", f"127.0.0.1:{port}")]
    assert tls_server.requests[-1].headers["authorization"] == f"Bearer {KEY}"


async def test_list_models_certificate_failure(tls_server: FakeProvider) -> None:
    async with client_for(tls_server.url) as client:
        with pytest.raises(CertificateError):
            await client.list_models()


# -- redirects -------------------------------------------------------------------------------


async def test_a_redirect_says_where_to_and_how_to_fix_it(chutes_server: FakeProvider) -> None:
    location = "https://alice:pw-secret@llm.new.example/v1/chat/completions?token=t0k3n#x"
    chutes_server.script(Reply(status=308, content_type="text/plain", body=b"",
                               headers={"Location": location}))
    with pytest.raises(RedirectError) as caught:
        await reply_text(client_for(chutes_server.url, max_retries=3))
    message = caught.value.message
    assert "redirect (308) to https://llm.new.example/v1/chat/completions;" in message
    assert "not followed" in message and "CHUTES_BASE_URL" in message
    for secret in ("pw-secret", "alice", "t0k3n"):
        assert secret not in message
    assert len(chutes_server.requests) == 1  # neither followed nor retried


async def test_a_relative_or_missing_location(chutes_server: FakeProvider) -> None:
    chutes_server.script(
        Reply(status=302, content_type="text/plain", headers={"Location": "/v2/chat\x1b[2J"}),
        Reply(status=301, content_type="text/plain"))
    with pytest.raises(RedirectError) as caught:
        await reply_text(client_for(chutes_server.url))
    base = chutes_server.url.removesuffix("/v1")
    assert f"to {base}/v2/chat" in caught.value.message and "\x1b" not in caught.value.message
    with pytest.raises(RedirectError) as caught:
        await reply_text(client_for(chutes_server.url))
    assert "redirect (301) without saying where to" in caught.value.message
