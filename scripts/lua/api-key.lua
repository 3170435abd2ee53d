-- Adds the game API key from $API_KEY to every request.
wrk.headers["x-game-api-key"] = os.getenv("API_KEY")
