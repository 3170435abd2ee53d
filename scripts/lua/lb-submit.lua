-- wrk script: score submissions from random players of a board of N players (args: N, and
-- the board's name, default bench).
function init(args)
  players = tonumber(args[1] or "100000")
  board = args[2] or "bench"
  math.randomseed(os.time() + math.random(1, 1000000))
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  local body = string.format('{"board_name":"%s","player_id":"p%d","score":%d}',
    board, math.random(0, players - 1), math.random(0, 1000000))
  return wrk.format(nil, "/v1/leaderboards", nil, body)
end
