"""Every bundled secret rule finds a realistic fake of its secret and ignores a near miss; the
whole rule set finds nothing in ordinary prose, code and JSON, and stays cheap on it.

Fake secrets are built here at test time from a prefix and seeded random characters, so the
repository holds no string that looks like a live credential.
"""

# The case table keeps one rule per line, however long: it reads as a table.
# ruff: noqa: E501

from __future__ import annotations

import argparse
import base64
import email.message
import ftplib
import getpass
import hashlib
import hmac
import http.client
import inspect
import json
import netrc
import pydoc_data.topics
import random
import re
import secrets
import smtplib
import ssl
import string
import textwrap
import time
import urllib.parse
import uuid
from types import ModuleType
from typing import NamedTuple

import pytest

from cyclops.core.patterns import Patterns
from cyclops.core.secretscan import SecretScanner
from cyclops.core.wordlists import BIP39_ENGLISH

RNG = random.Random(20240611)
ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
LOWER = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
URLSAFE = ALNUM + "-_"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def r(length: int, alphabet: str = ALNUM) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(length))


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def b64url(data: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def wrap(body: str, width: int = 64) -> str:
    return "\n".join(body[i : i + width] for i in range(0, len(body), width))


def pem(label: str, body: str) -> str:
    return f"-----BEGIN {label}-----\n{wrap(body)}\n-----END {label}-----"


def fake_uuid() -> str:
    return str(uuid.UUID(int=RNG.getrandbits(128), version=4))


def luhn(prefix: str, length: int) -> str:
    digits = prefix + r(length - len(prefix) - 1, string.digits)
    for check in string.digits:
        number = digits + check
        total = sum(
            (d * 2 - 9 if d > 4 else d * 2) if i % 2 else d
            for i, d in enumerate(int(c) for c in reversed(number))
        )
        if total % 10 == 0:
            return number
    raise AssertionError("unreachable")


def iban(country: str, bban: str) -> str:
    number = int("".join(str(int(c, 36)) for c in bban + country + "00"))
    return f"{country}{98 - number % 97:02d}{bban}"


def mnemonic(entropy: bytes) -> list[str]:
    bits = len(entropy) * 8
    number = int.from_bytes(entropy, "big") << (bits // 32)
    number |= hashlib.sha256(entropy).digest()[0] >> (8 - bits // 32)
    count = (bits + bits // 32) // 11
    return [BIP39_ENGLISH[(number >> (11 * (count - 1 - i))) & 2047] for i in range(count)]


def base58check(payload: bytes) -> str:
    raw = payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    number, out = int.from_bytes(raw, "big"), ""
    while number:
        number, digit = divmod(number, 58)
        out = B58[digit] + out
    return "1" * (len(raw) - len(raw.lstrip(b"\0"))) + out


def corrupt(text: str) -> str:
    """The same string with one character changed (a checksum that fails)."""
    i = len(text) // 2
    return text[:i] + ("2" if text[i] != "2" else "3") + text[i + 1 :]


class Case(NamedTuple):
    positive: str
    secret: str
    negative: str


def case(template: str, secret: str, negative: str) -> Case:
    """``template`` holds ``{}`` where the secret goes."""
    return Case(template.format(secret), secret, negative)


def mnemonic_valid(words: list[str]) -> bool:
    bits = "".join(f"{BIP39_ENGLISH.index(w):011b}" for w in words)
    size = len(bits) * 32 // 33
    entropy = int(bits[:size], 2).to_bytes(size // 8, "big")
    return hashlib.sha256(entropy).digest()[0] >> (8 - len(bits) + size) == int(bits[size:], 2)


def _seed_phrases() -> tuple[str, str]:
    """A valid 12-word phrase, and the same with a last word whose checksum fails."""
    words = mnemonic(RNG.randbytes(16))
    assert mnemonic_valid(words)
    wrong = next(w for w in BIP39_ENGLISH if not mnemonic_valid([*words[:-1], w]))
    return " ".join(words), " ".join([*words[:-1], wrong])


def _cases() -> dict[str, Case]:
    rsa = b64(b"0\x82\x04\xa4" + RNG.randbytes(900))
    ssh = b64(b"openssh-key-v1\0" + RNG.randbytes(300))
    pgp = b64(RNG.randbytes(400))
    seed, bad_seed = _seed_phrases()
    wif = base58check(b"\x80" + RNG.randbytes(32) + b"\x01")
    xprv = base58check(bytes.fromhex("0488ade4") + RNG.randbytes(41) + b"\0" + RNG.randbytes(32))
    card, account = luhn("4", 16), iban("DE", r(18, string.digits))
    tail = str((int(card[-1]) + 1) % 10)
    jwt_body = b64url({"sub": "1234567890", "name": "Ada", "iat": 1716000000})
    sa_key = pem("PRIVATE KEY", rsa)
    service_account = {"type": "service_account", "project_id": "demo", "private_key": sa_key}
    sa_negative = json.dumps({**service_account, "private_key": ""})
    sas = "sp=r&st=2024-01-01T00:00:00Z&se=2024-01-02T00:00:00Z&spr=https&sv=2022-11-02&sr=b"
    sig = urllib.parse.quote(b64(RNG.randbytes(32)), safe="")
    teams = f"https://contoso.webhook.office.com/webhookb2/{fake_uuid()}@{fake_uuid()}"
    discord_id = b64(r(18, string.digits).encode())
    putty = "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key\n"
    putty += f"Public-Lines: 2\n{r(64, ALNUM + '+/')}\n{r(20)}\nPrivate-Lines: 1\n"
    # fmt: off
    return {
        "private-key": case("{}", pem("RSA PRIVATE KEY", rsa), pem("PRIVATE KEY", "...")),
        "openssh-private-key": case("{}", pem("OPENSSH PRIVATE KEY", ssh), pem("OPENSSH PRIVATE KEY", "<key>")),
        "pgp-private-key": case("-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG\n\n{}\n", wrap(pgp), f"-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n{wrap(pgp)}\n"),
        "putty-private-key": case(putty + "{}\nPrivate-MAC: 00\n", r(44, ALNUM + "+/"), putty + "<redacted>\n"),
        "age-secret-key": case("# created\n{}\n", "AGE-SECRET-KEY-1" + r(58, BECH32), "AGE-SECRET-KEY-1" + r(40, BECH32)),
        "aws-access-key-id": case("aws_access_key_id = {}", "AKIA" + r(16, string.ascii_uppercase + "234567"), "AKIA" + r(12, UPPER)),
        "aws-secret-access-key": case("aws_secret_access_key = {}\n", r(40, ALNUM + "/+"), "aws_secret_access_key = " + r(39, ALNUM)),
        "aws-session-token": case("aws_session_token = {}\n", "IQoJb3JpZ2luX2Vj" + r(300, ALNUM + "/+"), "aws_session_token = " + r(60)),
        "gcp-service-account-key": Case(json.dumps(service_account, indent=2), rsa[:64], sa_negative),
        "google-api-key": case("maps_key: {}", "AIza" + r(35, URLSAFE), "AIza" + r(30, URLSAFE)),
        "google-oauth-client-secret": case('"client_secret": "{}"', "GOCSPX-" + r(28, URLSAFE), "GOCSPX-" + r(20)),
        "google-oauth-access-token": case("Bearer {}", "ya29." + r(150, URLSAFE), "ya29." + "X" * 40),
        "firebase-fcm-server-key": case("key={}", f"AAAA{r(7)}:APA91b{r(134, URLSAFE)}", f"AAAA{r(7)}:APA91b{r(90)}"),
        "azure-storage-account-key": case("AccountName=demo;AccountKey={};EndpointSuffix=x", b64(RNG.randbytes(64)), "AccountKey=" + b64(RNG.randbytes(32))),
        "azure-shared-access-key": case("Endpoint=sb://d.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={}", b64(RNG.randbytes(32)), "SharedAccessKey=<key>"),
        "azure-sas-token": case(f"https://d.blob.core.windows.net/c/f?{sas}&sig={{}}", sig, f"https://forum.example.org/post?id=7&sig={sig}"),
        "azure-ad-client-secret": case('AZURE_CLIENT_SECRET="{}"', "aB8" + "3Q~" + r(34, URLSAFE + "~."), '"aB83P~' + r(34) + '"'),
        "digitalocean-token": case("DIGITALOCEAN_TOKEN={}", "dop_v1_" + r(64, HEX), "dop_v1_" + r(32, HEX)),
        "heroku-api-key": case("HEROKU_API_KEY={}", "HRKU-AA" + r(58, URLSAFE), "HRKU-" + r(20)),
        "heroku-api-key-legacy": case("HEROKU_API_KEY={}", fake_uuid(), "HEROKU_APP_ID=" + fake_uuid()),
        "alibaba-access-key-id": case("ALIBABA_CLOUD_ACCESS_KEY_ID={}", "LTAI" + r(20), "LTAI" + r(8)),
        "alibaba-access-key-secret": case("ALIBABA_CLOUD_ACCESS_KEY_SECRET={}", r(30), "ALIBABA_CLOUD_ACCESS_KEY_SECRET=" + r(24)),
        "cloudflare-api-token": case("CLOUDFLARE_API_TOKEN={}", r(40, URLSAFE), "CLOUDFLARE_ZONE_ID=" + r(32, HEX)),
        "cloudflare-origin-ca-key": case("{}", f"v1.0-{r(24, HEX)}-{r(146, HEX)}", f"v1.0-{r(24, HEX)}-{r(100, HEX)}"),
        "supabase-access-token": case("SUPABASE_ACCESS_TOKEN={}", "sbp_" + r(40, HEX), "sbp_" + r(20, HEX)),
        "github-token": case("GITHUB_TOKEN={}", "ghp_" + r(36), "ghp_" + r(20)),
        "github-fine-grained-token": case("token: {}", f"github_pat_{r(22)}_{r(59)}", f"github_pat_{r(22)}_{r(30)}"),
        "github-oauth-token": case("Authorization: token {}", "gho_" + r(36), "gho_" + r(20)),
        "github-app-token": case("https://x-access-token:{}@github.com/o/r", "ghs_" + r(36), "ghs_" + r(12)),
        "github-refresh-token": case('"refresh_token": "{}"', "ghr_" + r(76), "ghr_" + r(20)),
        "gitlab-token": case("GITLAB_TOKEN={}", "glpat-" + r(20, URLSAFE), "glpat-" + r(12)),
        "gitlab-pipeline-trigger-token": case("token={}", "glptt-" + r(40, HEX), "glptt-" + r(20, HEX)),
        "gitlab-runner-token": case("token = {}", "glrt-" + r(20, URLSAFE), "glrt-" + r(10)),
        "gitlab-deploy-token": case("password: {}", "gldt-" + r(20, URLSAFE), "gldt-" + r(10)),
        "gitlab-other-token": case("CI_JOB_TOKEN={}", f"glcbt-64_{r(20, URLSAFE)}", f"glcbt-64_{r(8)}"),
        "bitbucket-app-password": case("BITBUCKET_APP_PASSWORD={}", r(20), "BITBUCKET_USERNAME=" + r(20)),
        "slack-bot-token": case("SLACK_BOT_TOKEN={}", f"xoxb-{r(11, string.digits)}-{r(13, string.digits)}-{r(24)}", "xoxb-your-token-here"),
        "slack-user-token": case("{}", f"xoxp-{r(11, string.digits)}-{r(11, string.digits)}-{r(13, string.digits)}-{r(32, HEX)}", f"xoxp-{r(11, string.digits)}-{r(32, HEX)}"),
        "slack-app-token": case("{}", f"xapp-1-A{r(10, UPPER)}-{r(13, string.digits)}-{r(64, HEX)}", f"xapp-1-A{r(10, UPPER)}-{r(13, string.digits)}-{r(16, HEX)}"),
        "slack-config-token": case("{}", "xoxe.xoxp-1-" + r(160), "xoxe.xoxp-1-" + r(40)),
        "slack-token": case("{}", f"xoxs-{r(10, string.digits)}-{r(12, string.digits)}-{r(64, HEX)}", "xoxo-hugs-and-kisses"),
        "slack-webhook": case("{}", f"https://hooks.slack.com/services/T{r(10, UPPER)}/B{r(10, UPPER)}/{r(24)}", "https://hooks.slack.com/services/T00000000/B00000000/" + "X" * 24),
        "discord-bot-token": case("DISCORD_BOT_TOKEN={}", f"{discord_id}.{r(6, URLSAFE)}.{r(38, URLSAFE)}", f"DISCORD_BOT_TOKEN={discord_id}.{r(6)}.{r(10)}"),
        "discord-webhook": case("{}", f"https://discord.com/api/webhooks/{r(18, string.digits)}/{r(68, URLSAFE)}", "https://discord.com/api/webhooks/123/abc"),
        "telegram-bot-token": case("https://api.telegram.org/bot{}/getMe", f"{r(9, string.digits)}:AA{r(33, URLSAFE)}", f"12345:AA{r(33)}"),
        "teams-webhook": case("{}", f"{teams}/IncomingWebhook/{r(32, HEX)}/{fake_uuid()}", teams),
        "stripe-key": case("STRIPE_SECRET_KEY={}", "sk_live_" + r(24), "sk_live_" + "X" * 24),
        "stripe-webhook-secret": case("STRIPE_WEBHOOK_SECRET={}", "whsec_" + r(32), "whsec_" + r(10)),
        "square-access-token": case("SQUARE_ACCESS_TOKEN={}", "EAAA" + r(60, URLSAFE), "EAAA" + r(30)),
        "square-oauth-secret": case("{}", "sq0csp-" + r(43, URLSAFE), "sq0csp-" + r(20)),
        "braintree-access-token": case("{}", f"access_token$production${r(16, LOWER)}${r(32, HEX)}", f"access_token$production${r(16, LOWER)}${r(16, HEX)}"),
        "openai-key": case("OPENAI_API_KEY={}", "sk-proj-" + r(156, URLSAFE), "sk-proj-" + r(20)),
        "anthropic-key": case("x-api-key: {}", "sk-ant-api03-" + r(93, URLSAFE) + "AA", "sk-ant-api03-" + r(40)),
        "huggingface-token": case("HF_TOKEN={}", "hf_" + r(34), "from huggingface_hub import hf_hub_download"),
        "cohere-api-key": case("COHERE_API_KEY={}", r(40), "COHERE_API_KEY=" + r(32)),
        "mistral-api-key": case("MISTRAL_API_KEY={}", r(32), "MISTRAL_MODEL=mistral-large-latest"),
        "groq-api-key": case("GROQ_API_KEY={}", "gsk_" + r(52), "gsk_" + r(30)),
        "replicate-api-token": case("REPLICATE_API_TOKEN={}", "r8_" + r(37), "r8_" + r(20)),
        "perplexity-api-key": case("PPLX_API_KEY={}", "pplx-" + r(48), "pplx-" + r(20)),
        "xai-api-key": case("XAI_API_KEY={}", "xai-" + r(80), "xai-" + r(40)),
        "openrouter-api-key": case("{}", "sk-or-v1-" + r(64, HEX), "sk-or-v1-" + r(32, HEX)),
        "langsmith-api-key": case("LANGSMITH_API_KEY={}", f"lsv2_pt_{r(32, HEX)}_{r(10, HEX)}", f"lsv2_pt_{r(32, HEX)}"),
        "npm-token": case("//registry.npmjs.org/:_authToken={}", "npm_" + r(36), "npm_" + r(20)),
        "pypi-token": case("password = {}", "pypi-AgEIcHlwaS5vcmc" + r(70, URLSAFE), "pypi-" + r(60)),
        "rubygems-api-key": case(":rubygems_api_key: {}", "rubygems_" + r(48, HEX), "rubygems_" + r(24, HEX)),
        "nuget-api-key": case("nuget push -k {}", "oy2" + r(43, LOWER), "oy2" + r(20, LOWER)),
        "dockerhub-token": case("docker login -p {}", "dckr_pat_" + r(27, URLSAFE), "dckr_pat_" + r(10)),
        "sendgrid-key": case("SENDGRID_API_KEY={}", f"SG.{r(22, URLSAFE)}.{r(43, URLSAFE)}", f"SG.{r(22)}.{r(20)}"),
        "twilio-api-key": case("TWILIO_API_KEY={}", "SK" + r(32, HEX), "cache key SK" + r(32, HEX)),
        "twilio-auth-token": case("TWILIO_AUTH_TOKEN={}", r(32, HEX), "TWILIO_AUTH_TOKEN=" + r(24, HEX)),
        "mailgun-api-key": case("MAILGUN_API_KEY={}", "key-" + r(32, HEX), "MAILGUN_API_KEY=key-" + r(16, HEX)),
        "mailchimp-api-key": case("apikey: {}", r(32, HEX) + "-us21", r(32, HEX) + "-us"),
        "postmark-token": case("POSTMARK_SERVER_TOKEN={}", fake_uuid(), "POSTMARK_SENDER=noreply@example.com"),
        "brevo-api-key": case("{}", f"xkeysib-{r(64, HEX)}-{r(16)}", f"xkeysib-{r(64, HEX)}"),
        "shopify-access-token": case("X-Shopify-Access-Token: {}", "shpat_" + r(32, HEX), "shpat_" + r(16, HEX)),
        "shopify-shared-secret": case("{}", "shpss_" + r(32, HEX), "shpss_" + r(32, "ghijklmnopqrstuvwxyz")),
        "atlassian-api-token": case("JIRA_API_TOKEN={}", f"ATATT3xFfGF0{r(180, URLSAFE)}={r(8, HEX).upper()}", "ATATT3" + r(40)),
        "okta-api-token": case("OKTA_API_TOKEN={}", "00" + r(40, URLSAFE), "OKTA_API_TOKEN=ab" + r(40)),
        "datadog-api-key": case("DD_API_KEY={}", r(32, HEX), "DD_API_KEY=" + r(40, HEX)),
        "datadog-app-key": case("DD_APP_KEY={}", r(40, HEX), "DD_APP_KEY=" + r(32, HEX)),
        "new-relic-key": case("NEW_RELIC_API_KEY={}", "NRAK-" + r(27, UPPER), "NRAK-" + r(20, UPPER)),
        "sentry-dsn": case("https://{}@o4505.ingest.us.sentry.io/4506", r(32, HEX), f"https://{r(32, HEX)}@example.com/1"),
        "sentry-auth-token": case("SENTRY_AUTH_TOKEN={}", "sntryu_" + r(64, HEX), "sntryu_" + r(32, HEX)),
        "linear-api-key": case("LINEAR_API_KEY={}", "lin_api_" + r(40), "lin_api_" + r(20)),
        "notion-token": case("NOTION_TOKEN={}", f"ntn_{r(11, string.digits)}{r(35)}", "ntn_" + r(20)),
        "airtable-token": case("AIRTABLE_TOKEN={}", f"pat{r(14)}.{r(64, HEX)}", f"pat{r(14)}.{r(32, HEX)}"),
        "figma-token": case("X-Figma-Token: {}", "figd_" + r(40, URLSAFE), "figd_" + r(16)),
        "vercel-token": case("VERCEL_TOKEN={}", r(24), "VERCEL_TOKEN=" + r(12)),
        "netlify-token": case("NETLIFY_AUTH_TOKEN={}", "nfp_" + r(36), "NETLIFY_SITE_ID=" + fake_uuid()),
        "terraform-cloud-token": case('token = "{}"', f"{r(14)}.atlasv1.{r(67, URLSAFE)}", f"{r(14)}.atlasv1.{r(20)}"),
        "vault-token": case("VAULT_TOKEN={}", "hvs." + r(95, URLSAFE), "VAULT_TOKEN=hvs." + r(24)),
        "1password-service-account-token": case("OP_SERVICE_ACCOUNT_TOKEN={}", "ops_eyJ" + r(300, ALNUM + "+/"), "ops_eyJ" + r(50)),
        "1password-secret-key": case("{}", f"A3-{r(6, UPPER)}-{r(11, UPPER)}-{r(5, UPPER)}-{r(5, UPPER)}-{r(5, UPPER)}", "A3-ABCDEF-GHIJK"),
        "twitch-token": case("PASS oauth:{}", r(30, LOWER), "PASS oauth:" + r(20, LOWER)),
        "databricks-token": case("DATABRICKS_TOKEN={}", "dapi" + r(32, HEX), "dapi" + r(16, HEX)),
        "postman-api-key": case("{}", f"PMAK-{r(24, HEX)}-{r(34, HEX)}", f"PMAK-{r(24, HEX)}"),
        "pulumi-token": case("PULUMI_ACCESS_TOKEN={}", "pul-" + r(40, HEX), "pul-" + r(20, HEX)),
        "doppler-token": case("DOPPLER_TOKEN={}", "dp.pt." + r(43), "dp.pt." + r(20)),
        "grafana-token": case("{}", f"glsa_{r(32)}_{r(8, HEX)}", "glsa_" + r(32)),
        "planetscale-token": case("{}", "pscale_tkn_" + r(43, URLSAFE), "pscale_tkn_" + r(16)),
        "tailscale-key": case("TS_AUTHKEY={}", f"tskey-auth-k{r(11)}-{r(32)}", "tskey-auth-XXXX"),
        "twitter-bearer-token": case("TWITTER_BEARER_TOKEN={}", "A" * 22 + r(90, ALNUM + "%"), "A" * 22 + r(40)),
        "mapbox-secret-token": case("{}", f"sk.eyJ{r(60, URLSAFE)}.{r(22, URLSAFE)}", f"pk.eyJ{r(60)}.{r(22)}"),
        "jwt": case("id_token={}", f"{b64url({'alg': 'HS256', 'typ': 'JWT'})}.{jwt_body}.{r(43, URLSAFE)}", f"{b64url({'typ': 'JWT'})}.{jwt_body}.{r(43)}"),
        "authorization-header": case("Authorization: Bearer {}", r(40, URLSAFE + "."), "Authorization: Bearer YOUR_ACCESS_TOKEN_HERE"),
        "database-url-password": case("DATABASE_URL=postgres://app:{}@db.internal:5432/app", r(20), "postgres://user:password@localhost:5432/app"),
        "url-credentials": case("git clone https://deploy:{}@git.example.com/o/r.git", r(24), "https://user:changeme@example.com/"),
        "netrc-password": case("machine api.example.com\n  login deploy\n  password {}\n", r(24), "machine api.example.com login deploy password changeme"),
        "pgpass-password": case("db-3.int.example.com:5432:app:svc_app:{}\n", r(20, ALNUM + "!#*+-=?@^_~"), "localhost:5432:app:app:postgres\n"),
        "generic-assignment": case('DB_PASSWORD="{}"', r(20, ALNUM + "!#%*+-=?@^_~"), 'password = os.environ["DB_PASSWORD"]'),
        "quoted-password": case("fw01: user `bg-admin`, pass `{}`", r(16, ALNUM + "!#%*+-=?@^_~"), "pass `--refs-snapshot` when writing bitmaps"),
        "totp-seed": case("TOTP seed `{}`", r(32, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"), "TOTP seed: see the vault"),
        "credit-card": case("card: {} exp 04/29", " ".join(re.findall("....", card)), f"card: {card[:-1]}{tail}"),
        "iban": case("IBAN: {}", " ".join(re.findall(".{1,4}", account)), f"IBAN: DE00{account[4:]}"),
        "bip39-seed-phrase": case("recovery phrase: {}", seed, f"recovery phrase: {bad_seed}"),
        "labelled-seed-phrase": case("seed phrase: {}", bad_seed, "seed phrase: " + " ".join(bad_seed.split()[:11])),
        "ethereum-private-key": case("PRIVATE_KEY=0x{}", r(64, HEX), f"tx_hash: 0x{r(64, HEX)}"),
        "bitcoin-wif": case("wif: {}", wif, f"wif: {corrupt(wif)}"),
        "bitcoin-extended-private-key": case("{}", xprv, corrupt(xprv)),
    }
    # fmt: on


CASES = _cases()
# More shapes of some secrets: each must be found by the rule it names.
VARIANTS: list[tuple[str, str]] = [
    ("private-key", json.dumps({"key": pem("EC PRIVATE KEY", b64(RNG.randbytes(121)))})),
    ("private-key", pem("ENCRYPTED PRIVATE KEY", b64(RNG.randbytes(1200)))),
    ("openai-key", f"key = 'sk-{r(20)}T3BlbkFJ{r(20)}'"),
    ("aws-access-key-id", "creds: AKIAQ7RZ3W5N2K4XTB6M"),
    ("aws-secret-access-key", f'{{"SecretAccessKey": "{r(40, ALNUM + "/+")}"}}'),
    ("twilio-auth-token", f"curl -u AC{r(32, HEX)}:{r(32, HEX)} https://api.twilio.com/x"),
    ("okta-api-token", f"Authorization: SSWS 00{r(40, URLSAFE)}"),
    ("credit-card", f"amex {luhn('37', 15)}"),
    ("bip39-seed-phrase", "\n".join(f"{i}. {w}" for i, w in enumerate(mnemonic(b"\7" * 32), 1))),
    ("database-url-password", f"mongodb+srv://svc:{r(16)}@cluster0.mongodb.net/db"),
    ("database-url-password", f"snowflake://svc_bi:{r(14)}@acme-prod.eu-central-1/ANALYTICS"),
    ("generic-assignment", f"api_key: {r(32, HEX)}"),
    (
        "pgpass-password",
        f"# pgpass\n*:*:*:replicator:{r(12)}\\:{r(8)}\n10.0.0.5:6432:*:app:{r(16)}",
    ),
]
# Lines with five colon-separated fields that are no password file: no rule may fire.
NOT_PGPASS = [
    "src/app.py:12:5:E501:line-too-long",  # a linter's output: a path, no host
    "12:30:45:123:a8Fq0zP1x",  # a time: no host
    "db.example.com:5432:app:svc:with space in it",
    "db.example.com:postgres:app:svc:Xk93mPq0zL",  # no port
]


def findings(rules: SecretScanner, text: str, rule_id: str) -> list[str]:
    return [text[f.start : f.end] for f in rules.scan(text) if f.rule_id == rule_id]


@pytest.fixture(scope="module")
def scanners(patterns: Patterns) -> dict[str, SecretScanner]:
    return {rule.id: SecretScanner([rule]) for rule in patterns.secrets}


def test_every_bundled_rule_has_a_positive_and_a_negative_example(patterns: Patterns) -> None:
    assert sorted(rule.id for rule in patterns.secrets) == sorted(CASES)


def test_there_are_at_least_sixty_rules_with_stable_dashed_ids(patterns: Patterns) -> None:
    ids = [rule.id for rule in patterns.secrets]
    assert len(ids) >= 60
    assert all(re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", i) for i in ids)
    assert all(rule.description for rule in patterns.secrets)


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_a_rule_finds_a_realistic_fake_of_its_secret(
    scanners: dict[str, SecretScanner], rule_id: str
) -> None:
    positive = CASES[rule_id]
    found = findings(scanners[rule_id], positive.positive, rule_id)
    assert any(positive.secret in span for span in found), found


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_a_rule_ignores_a_near_miss(scanners: dict[str, SecretScanner], rule_id: str) -> None:
    assert findings(scanners[rule_id], CASES[rule_id].negative, rule_id) == []


@pytest.mark.parametrize(("rule_id", "text"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_a_rule_finds_other_shapes_of_its_secret(
    scanners: dict[str, SecretScanner], rule_id: str, text: str
) -> None:
    assert findings(scanners[rule_id], text, rule_id)


@pytest.mark.parametrize("text", NOT_PGPASS)
def test_a_password_file_line_needs_a_host_a_port_and_one_value_after_four_fields(
    scanners: dict[str, SecretScanner], text: str
) -> None:
    assert findings(scanners["pgpass-password"], text, "pgpass-password") == []


def ordinary_text() -> str:
    """Prose, code and JSON that hold no secret: Python's own documentation and standard library
    modules that talk about passwords, tokens and keys all the time."""
    modules: list[ModuleType] = [argparse, email.message, ftplib, getpass, hmac, http.client]
    modules += [json, netrc, secrets, smtplib, ssl, textwrap, base64, hashlib, string]
    topics = pydoc_data.topics.topics
    parts = [topics[name] for name in sorted(topics)[:60]]
    parts += [inspect.getsource(module) for module in modules]
    parts.append(json.dumps(topics, indent=1)[:200_000])
    return "\n".join(parts)


def test_the_whole_rule_set_finds_nothing_in_ordinary_prose_code_and_json(
    patterns: Patterns,
) -> None:
    text = ordinary_text()
    assert len(text) > 500_000
    found = SecretScanner(patterns.secrets).scan(text)
    assert [(f.rule_id, text[f.start : f.end]) for f in found] == []


def test_scanning_100_kb_of_ordinary_text_with_every_rule_stays_cheap(
    patterns: Patterns,
) -> None:
    text = ordinary_text()[:100_000]
    scanner = SecretScanner(patterns.secrets)
    started = time.perf_counter()
    scanner.scan(text)
    assert time.perf_counter() - started < 2.0  # a generous hang guard, not a benchmark


@pytest.mark.parametrize(
    "text",
    [
        'access_key_id = "AKIAIOSFODNN7EXAMPLE"',
        'aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
    ],
)
def test_the_documentations_aws_key_pair_is_no_secret(patterns: Patterns, text: str) -> None:
    assert SecretScanner(patterns.secrets).scan(text) == []
