"""The pinned chutes-e2ee imports (pqcrypto 1.0 renamed what 0.1.0 imports) and round-trips a
request and a streamed chunk with ML-KEM-768 + HKDF-SHA256 + ChaCha20-Poly1305."""

from __future__ import annotations

import base64
import gzip
import json
import os

from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305


def test_chutes_e2ee_round_trips_a_request_and_a_stream_chunk() -> None:
    from chutes_e2ee import (
        AsyncChutesE2EETransport,  # noqa: F401  (the import that broke)
        crypto,
    )
    from pqcrypto.kem.ml_kem_768 import decrypt, encrypt, generate_keypair

    public, secret = generate_keypair()
    built = crypto.build_e2ee_request(base64.b64encode(public).decode(),
                                      {"model": "m", "messages": [{"role": "user",
                                                                   "content": "secret"}]})
    mlkem_ct = built.blob[:crypto.MLKEM_CT_SIZE]
    nonce = built.blob[crypto.MLKEM_CT_SIZE:crypto.MLKEM_CT_SIZE + 12]
    key = crypto.derive_key(decrypt(secret, mlkem_ct), mlkem_ct, crypto.INFO_REQ)
    sealed = built.blob[crypto.MLKEM_CT_SIZE + 12:]
    payload = json.loads(gzip.decompress(ChaCha20Poly1305(key).decrypt(nonce, sealed, None)))
    assert payload["messages"][0]["content"] == "secret"
    assert b"secret" not in built.blob

    # The reply's way: the server encapsulates to the request's response key.
    response_pk = base64.b64decode(payload["e2e_response_pk"])
    reply_ct, shared = encrypt(response_pk)
    stream_key = crypto.decrypt_stream_init(built.response_sk,
                                            base64.b64encode(reply_ct).decode())
    assert stream_key == crypto.derive_key(shared, reply_ct, crypto.INFO_STREAM)
    chunk_nonce = os.urandom(12)
    box = ChaCha20Poly1305(stream_key).encrypt(chunk_nonce, b'data: {"x": 1}', None)
    assert crypto.decrypt_stream_chunk(base64.b64encode(chunk_nonce + box).decode(),
                                       stream_key) == 'data: {"x": 1}'
