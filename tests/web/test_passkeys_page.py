"""Passkeys in the lobby (issue 40): a player binds a passkey ("Add a passkey") on one device and signs in
with it on another context holding the same authenticator ("Sign in with a passkey"), getting a personal
key of their own: the same player, the same games. The authenticator is Chromium's virtual one (DevTools
protocol: WebAuthn.enable, WebAuthn.addVirtualAuthenticator). The page is opened at http://localhost (a
secure context; the relying party id is "localhost")."""

from __future__ import annotations

import httpx

from tests.web.support import Console

AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
    "automaticPresenceSimulation": True,
}


def _with_authenticator(page) -> tuple[object, str]:
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable", {"enableUI": False})
    made = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})
    return cdp, made["authenticatorId"]


def _b64url(standard: str) -> str:
    """The DevTools protocol's base64 as the API's base64url."""
    return standard.replace("+", "-").replace("/", "_").rstrip("=")


def _me(server, key: str) -> dict:
    return httpx.get(f"{server.url}/v1/players/me", headers={"Authorization": f"Bearer {key}"}).json()


def _lobby(page, server) -> None:
    page.goto(f"http://localhost:{server.port}/")
    page.wait_for_selector("#my-games-body button")


def test_a_passkey_registered_on_one_device_signs_in_on_another(browser, server):
    console = Console()
    game = httpx.post(f"{server.url}/v1/games", json={"ruleset": "tiny", "scenario": "duel"}).json()
    laptop_ctx, phone_ctx = browser.new_context(), browser.new_context()
    try:
        laptop = console.watch(laptop_ctx.new_page(), "laptop")
        cdp, authenticator = _with_authenticator(laptop)
        _lobby(laptop, server)
        laptop.click("#make-key")
        laptop.wait_for_selector("#my-key-note")
        key = laptop.evaluate("() => localStorage.getItem('salvo.playerKey')")
        laptop.fill("#claim-token", game["seats"]["red"])
        laptop.click("#claim")
        laptop.wait_for_selector(f"#my-games li[data-game='{game['game_id']}']")

        laptop.click("#add-passkey")
        laptop.wait_for_selector("#my-key-note:has-text('Passkey added')")
        [credential] = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
        assert credential["isResidentCredential"] and credential["rpId"] == "localhost"
        listed = httpx.get(f"{server.url}/v1/players/me/passkeys", headers={"Authorization": f"Bearer {key}"}).json()
        assert [p["credential_id"] for p in listed["passkeys"]] == [_b64url(credential["credentialId"])]

        # another device holding the same passkey (the credential copied into its own virtual authenticator)
        phone = console.watch(phone_ctx.new_page(), "phone")
        phone_cdp, phone_authenticator = _with_authenticator(phone)
        phone_cdp.send("WebAuthn.addCredential", {"authenticatorId": phone_authenticator, "credential": credential})
        _lobby(phone, server)
        phone.click("#sign-in-passkey")
        phone.wait_for_selector(f"#my-games li[data-game='{game['game_id']}']")
        assert "Signed in with your passkey" in phone.text_content("#my-key-note")
        phone_key = phone.evaluate("() => localStorage.getItem('salvo.playerKey')")
        assert phone_key.startswith("pk_") and phone_key != key  # a key of its own, revocable on its own
        me = _me(server, phone_key)
        assert me["player_id"] == _me(server, key)["player_id"] and len(me["keys"]) == 2
        # the signature counter moved on
        [used] = phone_cdp.send("WebAuthn.getCredentials", {"authenticatorId": phone_authenticator})["credentials"]
        assert used["signCount"] >= 1
    finally:
        laptop_ctx.close()
        phone_ctx.close()
    assert console.unexpected() == []
