-- wrk: GET a random seeded save. Args: api_key players
local key, players
function init(args)
  key = args[1]
  players = tonumber(args[2])
  math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)"), 16) or 0))
end
function request()
  local path = "/v1/saves/player-" .. math.random(1, players) .. "/main"
  return wrk.format("GET", path, { ["x-game-api-key"] = key })
end
