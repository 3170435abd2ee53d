-- wrk script: submits one score for each player p0 .. p<N-1> to board "bench", the players
-- split evenly between wrk threads; each thread stops once its share has been answered.
-- Args: N threads. Header x-game-api-key comes from the command line (-H).
local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  local total, count = tonumber(args[1]), tonumber(args[2])
  local share = math.ceil(total / count)
  first = id * share
  last = math.min(total, first + share) - 1
  next_player = first
  answered = 0
  math.randomseed(os.time() + id * 7919)
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  local player = math.min(next_player, last)
  next_player = next_player + 1
  local body = string.format('{"board_name":"bench","player_id":"p%d","score":%d}', player, math.random(0, 1000000))
  return wrk.format(nil, "/v1/leaderboards", nil, body)
end

function response(status)
  if status ~= 200 then
    io.stderr:write("seed: status " .. status .. "\n")
  end
  answered = answered + 1
  if answered >= last - first + 1 then
    wrk.thread:stop()
  end
end
