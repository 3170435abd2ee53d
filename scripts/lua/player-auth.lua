-- POST /v1/players/auth: signs in one of 1,000 known devices per request (the identity is
-- found, a token signed). Needs $API_KEY.
local counter = 0
wrk.method = "POST"
wrk.headers["x-game-api-key"] = os.getenv("API_KEY")
wrk.headers["Content-Type"] = "application/json"

request = function()
  counter = counter + 1
  local body = string.format('{"device_id":"bench-device-%012d"}', counter % 1000)
  return wrk.format(nil, "/v1/players/auth", nil, body)
end
