"""clients/python covers players and notifications (issue 40): two devices of one player (two personal
keys) claim seats and see them in "my games", sync and async; subscriptions; the models follow the
document."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from salvo_client import ApiError, AsyncSalvoClient, SalvoClient
from salvo_client import models as m

from tests.support.server import ServerProcess

DOC = json.loads((Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text())
MODELS = {
    "PersonalKey": m.PersonalKey,
    "KeyInfo": m.KeyInfo,
    "PlayerInfo": m.PlayerInfo,
    "Claim": m.Claim,
    "MyGame": m.MyGame,
    "MyGames": m.MyGames,
    "Subscription": m.Subscription,
    "SubscriptionList": m.SubscriptionList,
    "PushKey": m.PushKey,
    "Notification": m.Notification,
    "PasskeyOptions": m.PasskeyOptions,
    "PasskeyInfo": m.PasskeyInfo,
    "PasskeyList": m.PasskeyList,
    "PasskeySession": m.PasskeySession,
}


@pytest.mark.parametrize("schema_name", sorted(MODELS))
def test_player_models_have_the_documents_fields(schema_name: str) -> None:
    schema = DOC["components"]["schemas"][schema_name]
    fields = msgspec.structs.fields(MODELS[schema_name])
    assert {f.encode_name for f in fields} == set(schema["properties"])
    assert {f.encode_name for f in fields if f.required} == set(schema.get("required", ()))


def test_two_devices_of_one_player_sync(live_server: ServerProcess) -> None:
    with SalvoClient(live_server.url) as salvo:
        game = salvo.create_game("gsc2", "duel")
        laptop_key = salvo.create_player("laptop")
        laptop = salvo.with_token(laptop_key.key)
        phone_key = laptop.add_key("phone")
        phone = salvo.with_token(phone_key.key)
        assert phone.claim_seat(game.seats["red"]) == m.Claim(game_id=game.game_id, role="seat", seat="red")
        [mine] = laptop.my_games().games
        assert (mine.game_id, mine.ruleset, mine.seat, mine.scenario) == (game.game_id, "gsc2", "red", "duel")
        assert mine.whose_move and mine.why
        phone.mark_seen(game.game_id)
        assert laptop.my_games().games[0].unseen_events == 0
        assert {k.label for k in phone.me().keys} == {"laptop", "phone"}
        sub = phone.subscribe("https://93.184.216.34/hook", kind="discord", game_id=game.game_id)
        assert sub.secret and laptop.subscriptions().subscriptions[0].secret is None
        assert laptop.resume_subscription(sub.id).paused is False
        laptop.unsubscribe(sub.id)
        assert salvo.push_key().public_key
        laptop.revoke_key(phone_key.key_id)
        with pytest.raises(ApiError) as refused:
            phone.my_games()
        assert refused.value.status == 401
        laptop.release_seat(game.game_id)
        assert laptop.my_games().games == []


async def test_my_games_async(live_server: ServerProcess) -> None:
    async with AsyncSalvoClient(live_server.url) as salvo:
        game = await salvo.create_game("gsc2", "duel")
        key = await salvo.create_player()
        player = salvo.with_token(key.key)
        await player.claim_seat(game.umpire_token)
        [mine] = (await player.my_games()).games
        assert mine.role == "umpire" and mine.seat is None
        with pytest.raises(ApiError) as refused:
            await player.subscribe("http://169.254.169.254/latest/meta-data/")
        assert refused.value.status == 422 and refused.value.problem.field == "url"


def test_a_passkey_bound_and_signed_in_with(live_server: ServerProcess) -> None:
    """The ceremonies' JSON through the client; a software authenticator answers for the browser (the
    relying party is the server's host, as a page loaded from it would have)."""
    from tests.support.soft_authenticator import SoftAuthenticator

    with SalvoClient(live_server.url) as salvo:
        player = salvo.with_token(salvo.create_player("laptop").key)
        authenticator = SoftAuthenticator(rp_id=live_server.host, origin=live_server.url)
        options = player.passkey_options()
        added = player.add_passkey(options.challenge_id, authenticator.create(options.public_key), "phone")
        assert player.passkeys().passkeys == [added] and added.label == "phone"
        options = salvo.passkey_login_options()
        session = salvo.passkey_login(options.challenge_id, authenticator.get(options.public_key))
        assert session.credential_id == added.credential_id and session.key.startswith("pk_")
        assert salvo.with_token(session.key).me().player_id == session.player_id
        player.remove_passkey(added.credential_id)
        assert player.passkeys().passkeys == []
