"""One short session through the client openapi-python-client generated from
openapi/openapi.json, against the real binary: the same session as
clients/typescript/scenario.ts. Every request goes through the generated package
(`playtrace_client`, on PYTHONPATH; see ./run), so an operation or model the generator
could not produce fails here, and so does an answer that does not parse as its spec says."""

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest
from http import HTTPStatus
from pathlib import Path

from playtrace_client import AuthenticatedClient, Client
from playtrace_client.api.achievements import create_achievement
from playtrace_client.api.auth import register
from playtrace_client.api.config import get_config, set_game_config
from playtrace_client.api.events import track
from playtrace_client.api.games import create_api_key, create_game
from playtrace_client.api.leaderboards import get_leaderboard, submit_score_to_board
from playtrace_client.api.saves import read_save, write_save
from playtrace_client.models import (
    AuthAnswer,
    ConfigValues,
    CreateAchievement,
    CreatedKey,
    CreateGame,
    CreateKey,
    Credentials,
    EntryStatus,
    Environment,
    Error,
    Game,
    GameConfig,
    LeaderboardPage,
    Role,
    Save,
    SaveReceipt,
    SaveWrite,
    ScoreOrder,
    SetConfig,
    SubmitEntry,
    SubmittedEntry,
    Tier,
    TrackAccepted,
    TrackEvent,
    TrackEventPropertiesType0,
    VersionConflict,
)

REPO = Path(__file__).resolve().parents[2]
BINARY = os.environ.get("PLAYTRACE_BIN", str(REPO / "target" / "debug" / "playtrace"))


class Playtrace:
    """The real binary, started the way the JavaScript suites start it
    (scripts/lib/playtrace-server.mjs): `serve` on port 0 with a SQLite file in a temporary
    folder, ready once it prints where it listens; stopped with SIGTERM."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="pt-client-py-")
        self.log_path = Path(self.dir) / "playtrace.log"
        database = f"sqlite://{self.dir}/playtrace.db?mode=rwc"
        env = {**os.environ, "RUST_LOG": "warn,playtrace=info"}
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [BINARY, "serve", "--listen", "127.0.0.1:0", "--database-url", database],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
            )
        deadline = time.monotonic() + 30
        while True:
            found = re.search(r"playtrace listening on (http://[\d.]+:\d+)", self.log())
            if found:
                self.url = found.group(1)
                return
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"playtrace did not start:\n{self.log()}")
            time.sleep(0.05)

    def log(self):
        return self.log_path.read_text(errors="replace")

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


class AchievementWithoutDescription(CreateAchievement):
    """A request body the generated model would not build (it requires `description`): the same
    model with the field left out when sent, to see the server's typed validation error."""

    def to_dict(self):
        body = super().to_dict()
        del body["description"]
        return body


class GeneratedPythonClient(unittest.TestCase):
    def setUp(self):
        self.server = Playtrace()
        self.addCleanup(self.server.stop)

    def opened(self, client):
        """`client`, its connections closed when the test ends."""
        self.addCleanup(client.get_httpx_client().close)
        return client

    def test_a_studio_and_a_game_go_through_the_generated_python_client(self):
        url = self.server.url

        # A studio account, its game and the game's API key.
        email = f"py-{time.time_ns()}@studio.test"
        answer = register.sync_detailed(
            client=self.opened(Client(base_url=url)), body=Credentials(email=email, password="correct horse battery")
        )
        self.assertEqual(answer.status_code, HTTPStatus.CREATED)
        self.assertIsInstance(answer.parsed, AuthAnswer)
        self.assertEqual(answer.parsed.user.email, email)
        studio = self.opened(AuthenticatedClient(base_url=url, token=answer.parsed.token))

        answer = create_game.sync_detailed(client=studio, body=CreateGame(name="Generated Client Game"))
        self.assertEqual(answer.status_code, HTTPStatus.CREATED)
        game = answer.parsed
        self.assertIsInstance(game, Game)
        self.assertEqual(game.name, "Generated Client Game")
        self.assertEqual(game.tier, Tier.FREE)
        self.assertEqual(game.role, Role.OWNER)

        answer = create_api_key.sync_detailed(
            game.game_id, client=studio, body=CreateKey(name="client", environment=Environment.DEVELOPMENT)
        )
        self.assertEqual(answer.status_code, HTTPStatus.CREATED)
        self.assertIsInstance(answer.parsed, CreatedKey)
        self.assertEqual(answer.parsed.environment, Environment.DEVELOPMENT)
        self.assertTrue(answer.parsed.key.startswith("pt_"))
        game_client = self.opened(AuthenticatedClient(
            base_url=url, token=answer.parsed.key, prefix="", auth_header_name="x-game-api-key"
        ))

        # A batch of two events.
        events = [
            TrackEvent(event_name="level_start", session_id="s-1", player_id="ann",
                       properties=TrackEventPropertiesType0.from_dict({"level": 3})),
            TrackEvent(event_name="level_end", session_id="s-1", player_id="ann",
                       properties=TrackEventPropertiesType0.from_dict({"level": 3, "won": True})),
        ]
        answer = track.sync_detailed(client=game_client, body=events)
        self.assertEqual(answer.status_code, HTTPStatus.ACCEPTED)
        self.assertIsInstance(answer.parsed, TrackAccepted)
        self.assertEqual(answer.parsed.received, 2)

        # A leaderboard score, then the board.
        answer = submit_score_to_board.sync_detailed(
            "high-scores", client=game_client, body=SubmitEntry(player_id="ann", player_name="Ann", score=4200)
        )
        self.assertEqual(answer.status_code, HTTPStatus.OK)
        self.assertIsInstance(answer.parsed, SubmittedEntry)
        self.assertEqual(answer.parsed.status, EntryStatus.OK)
        self.assertEqual(answer.parsed.order, ScoreOrder.HIGHER)
        self.assertEqual(answer.parsed.rank, 1)
        answer = get_leaderboard.sync_detailed("high-scores", client=game_client)
        self.assertEqual(answer.status_code, HTTPStatus.OK)
        self.assertIsInstance(answer.parsed, LeaderboardPage)
        self.assertEqual(answer.parsed.total, 1)
        first = answer.parsed.entries[0]
        self.assertEqual((first.rank, first.player_id, first.player_name, first.score), (1, "ann", "Ann", 4200))

        # A cloud save, then a second write from a stale version: a typed 409 with the stored version.
        answer = write_save.sync_detailed("ann", "main", client=game_client,
                                          body=SaveWrite(version=0, data={"level": 3, "coins": 12}))
        self.assertEqual(answer.status_code, HTTPStatus.OK)
        self.assertIsInstance(answer.parsed, SaveReceipt)
        self.assertEqual(answer.parsed.version, 1)
        answer = write_save.sync_detailed("ann", "main", client=game_client,
                                          body=SaveWrite(version=1, data={"level": 4, "coins": 30}))
        self.assertEqual(answer.parsed.version, 2)
        answer = write_save.sync_detailed("ann", "main", client=game_client,
                                          body=SaveWrite(version=1, data={"level": 1}))
        self.assertEqual(answer.status_code, HTTPStatus.CONFLICT)
        self.assertIsInstance(answer.parsed, VersionConflict)
        self.assertIsInstance(answer.parsed.error, str)
        self.assertEqual(answer.parsed.version, 2)
        answer = read_save.sync_detailed("ann", "main", client=game_client)
        self.assertIsInstance(answer.parsed, Save)
        self.assertEqual((answer.parsed.version, answer.parsed.data), (2, {"level": 4, "coins": 30}))

        # A validation error: an achievement without its description is a typed 400 naming the field.
        answer = create_achievement.sync_detailed(
            game.game_id, client=studio,
            body=AchievementWithoutDescription(key="first_win", name="First win", description="", points=10),
        )
        self.assertEqual(answer.status_code, HTTPStatus.BAD_REQUEST)
        self.assertIsInstance(answer.parsed, Error)
        self.assertEqual(answer.parsed.field, "description")
        self.assertIn("description", answer.parsed.error)

        # Remote config: set by the studio, read back with the game key.
        values = {"spawn_rate": 1.5, "motd": "Welcome back", "features": {"pvp": True}}
        answer = set_game_config.sync_detailed(game.game_id, client=studio, body=SetConfig(values=values))
        self.assertEqual(answer.status_code, HTTPStatus.OK)
        self.assertIsInstance(answer.parsed, ConfigValues)
        self.assertEqual(answer.parsed.values, values)
        answer = get_config.sync_detailed(client=game_client)
        self.assertEqual(answer.status_code, HTTPStatus.OK)
        self.assertIsInstance(answer.parsed, GameConfig)
        self.assertEqual(answer.parsed.config, values)
        self.assertTrue(answer.headers.get("etag"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
