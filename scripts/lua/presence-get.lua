-- wrk script: GET the path in GET_PATH with the API key from API_KEY.
wrk.method = "GET"
wrk.headers["x-game-api-key"] = os.getenv("API_KEY")

function request()
  return wrk.format(nil, os.getenv("GET_PATH"))
end
