-- Adds the game API key from $API_KEY and a player token from $PLAYER_TOKEN to every request.
wrk.headers["x-game-api-key"] = os.getenv("API_KEY")
wrk.headers["x-player-token"] = os.getenv("PLAYER_TOKEN")
